#!/usr/bin/python3
"""A real client's credentials against soapbench-server: Debian's python3-zeep
round-trips echoString with HTTP Basic (a requests session's auth) against
--require-user, and with a WS-Security UsernameToken (zeep.wsse.username,
PasswordText and PasswordDigest) against --require-wsse; wrong credentials
are refused (HTTP 401; a wsse:FailedAuthentication fault).

With --tls CERTS_DIR every server speaks HTTPS (CERTS_DIR/server.pem) and zeep
verifies it against CERTS_DIR/ca.pem: credentials as they travel in production.

Usage: auth_roundtrip.py SERVER_BINARY WSDL [--tls CERTS_DIR]
Prints 'N passed, 0 failed' and exits 0 when every check passed.
"""
import subprocess
import sys

import requests
import zeep
import zeep.exceptions
import zeep.transports
from zeep.wsse.username import UsernameToken

NS = "urn:soapbench:echo:1"


TLS_FLAGS = []  # --tls: the server's certificate flags
VERIFY = True     # --tls: the CA file zeep trusts


def start_server(binary, flags):
    proc = subprocess.Popen([binary, "--port", "0", "--report-interval", "0", "--quiet"] + flags + TLS_FLAGS,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "listening on " not in line:
        proc.kill()
        raise SystemExit("soapbench-server did not start: %r %s" % (line, proc.stderr.read()))
    return proc, line.split("listening on ")[1].split()[0]


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def equal(self, what, got, want):
        if got == want:
            self.passed += 1
        else:
            self.failed += 1
            print("FAILED %s: got %r, want %r" % (what, got, want))


def service(wsdl, url, auth=None, wsse=None):
    session = requests.Session()
    session.auth = auth
    session.verify = VERIFY
    session.trust_env = False  # else REQUESTS_CA_BUNDLE, where set, replaces `verify` (requests 2.28)
    client = zeep.Client(wsdl, transport=zeep.transports.Transport(session=session), wsse=wsse)
    return client.create_service("{%s}EchoBinding" % NS, url)


def refused(c, what, call, want):
    """call() must fail; `want` is in the error's text."""
    try:
        call()
        c.equal(what, "accepted", "refused")
    except (zeep.exceptions.Fault, zeep.exceptions.TransportError) as e:
        text = "%s %s" % (getattr(e, "status_code", ""), e)
        c.equal(what, want in text, True)
        if want not in text:
            print("  (the error: %s)" % text)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    binary, wsdl = sys.argv[1], sys.argv[2]
    global TLS_FLAGS, VERIFY
    if len(sys.argv) > 4 and sys.argv[3] == "--tls":
        certs = sys.argv[4]
        TLS_FLAGS = ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"]
        VERIFY = certs + "/ca.pem"
    c = Checks()
    proc, url = start_server(binary, ["--require-user", "zeep:s3cret"])
    c.equal("the URL's scheme", url.split(":")[0], "https" if TLS_FLAGS else "http")
    try:
        got = service(wsdl, url, auth=requests.auth.HTTPBasicAuth("zeep", "s3cret")).echoString(text="basic")
        c.equal("HTTP Basic: echoString", got, "basic")
        refused(c, "HTTP Basic, wrong password",
                lambda: service(wsdl, url, auth=("zeep", "wrong")).echoString(text="x"),
                "wrong password for user 'zeep'")
    except zeep.exceptions.Error as e:
        c.failed += 1
        print("FAILED: zeep: %s" % e)
    finally:
        stop(proc)

    proc, url = start_server(binary, ["--require-user", "zeep:s3cret", "--auth", "digest"])
    try:
        got = service(wsdl, url, auth=requests.auth.HTTPDigestAuth("zeep", "s3cret")).echoString(text="digest")
        c.equal("HTTP Digest: echoString", got, "digest")
    except zeep.exceptions.Error as e:
        c.failed += 1
        print("FAILED: zeep: %s" % e)
    finally:
        stop(proc)

    proc, url = start_server(binary, ["--require-wsse", "zeep:s3cret"])
    try:
        for digest in (False, True):
            name = "UsernameToken %s" % ("PasswordDigest" if digest else "PasswordText")
            s = service(wsdl, url, wsse=UsernameToken("zeep", "s3cret", use_digest=digest))
            c.equal(name + ": echoString", s.echoString(text=name), name)
            c.equal(name + ": a second call", s.echoString(text="again"), "again")
            refused(c, name + ", wrong password",
                    lambda: service(wsdl, url, wsse=UsernameToken("zeep", "wrong", use_digest=digest))
                    .echoString(text="x"), "Wrong password for user 'zeep'")
        refused(c, "no UsernameToken", lambda: service(wsdl, url).echoString(text="x"), "No wsse:Security header")
    except zeep.exceptions.Error as e:
        c.failed += 1
        print("FAILED: zeep: %s" % e)
    finally:
        stop(proc)
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 0 if c.failed == 0 and c.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
