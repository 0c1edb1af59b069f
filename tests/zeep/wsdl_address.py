#!/usr/bin/python3
"""A client built from the served WSDL alone reaches the server: zeep reads
GET /echo?wsdl of a soapbench-server on a free (non-default) port and calls
echoString at the soap:address it advertises, with no endpoint override.

Usage: wsdl_address.py SERVER_BINARY
Prints 'wsdl address ok: URL' and exits 0 when the call echoed.
"""
import subprocess
import sys

import zeep


def main():
    binary = sys.argv[1]
    proc = subprocess.Popen([binary, "--port", "0", "--report-interval", "0", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if "listening on " not in line:
            raise SystemExit("soapbench-server did not start: %r %s" % (line, proc.stderr.read()))
        url = line.split("listening on ")[1].split()[0]
        if url.endswith(":8080/echo"):
            raise SystemExit("the server took the committed WSDL's port 8080; the test needs another")
        client = zeep.Client(url + "?wsdl")
        address = client.service._binding_options["address"]
        if address != url:
            raise SystemExit("the WSDL advertises %s, not %s" % (address, url))
        echoed = client.service.echoString(text="reached through the WSDL's own address")
        if echoed != "reached through the WSDL's own address":
            raise SystemExit("echoed %r" % echoed)
        print("wsdl address ok: %s" % address)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
