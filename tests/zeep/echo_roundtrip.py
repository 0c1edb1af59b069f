#!/usr/bin/python3
"""A real SOAP client against soapbench-server: Debian's python3-zeep reads
wsdl/echo.wsdl and round-trips every operation with extreme values (those of
client/payload.cpp and more: the largest and smallest numbers, every byte value,
non-ASCII text, markup characters, empty values), asserting each echoed value.
It guards the flags gSOAP's runtime is built with (WITH_NOIDREF, hash sizes, ...):
a runtime that parses or writes anything wrongly fails here, whichever client
soapbench itself uses.

With --tls CERTS_DIR (tests/tls/make-certs' folder) the server speaks HTTPS with
CERTS_DIR/server.pem and zeep verifies it against CERTS_DIR/ca.pem.

Usage: echo_roundtrip.py SERVER_BINARY WSDL [--mode MODE] [--tls CERTS_DIR]
Prints 'N passed, 0 failed' and exits 0 when every check passed.
"""
import datetime
import decimal
import struct
import subprocess
import sys
import time

import requests
import zeep
import zeep.exceptions
import zeep.plugins
import zeep.transports
from lxml import etree

NS = "urn:soapbench:echo:1"
FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
FLT_MIN = struct.unpack("<f", b"\x00\x00\x80\x00")[0]
DBL_MAX = sys.float_info.max
DBL_MIN = sys.float_info.min  # the smallest normal double
PATTERN = "SOAP & <bench> \"echo\" 'string' payload: 0123456789 abcdefghijklm"


def f32(x):
    """x rounded to the nearest float: what an xsd:float holds."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def make_string(length):
    return (PATTERN * (length // len(PATTERN) + 1))[:length]


def utc(*args):
    return datetime.datetime(*args, tzinfo=datetime.timezone.utc)


def start_server(binary, mode, tls_flags=()):
    proc = subprocess.Popen([binary, "--port", "0", "--mode", mode, "--report-interval", "0", "--quiet"] + list(tls_flags),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if "listening on " not in line:
        proc.kill()
        raise SystemExit("soapbench-server did not start: %r %s" % (line, proc.stderr.read()))
    return proc, line.split("listening on ")[1].split()[0]


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


def items():
    """echoStruct items: payload.cpp's extreme values and the other ends of each range."""
    out = []
    cases = [
        # varUByte, varULong, varFloat, nested float, short, byte, decimal, double, dateTime
        (255, 2**64 - 1, FLT_MAX, -FLT_MAX, -32768, -128, "-12345678901234567890.123456789", DBL_MAX,
         utc(2006, 11, 29, 12, 34, 56, 789012)),
        (0, 0, -FLT_MIN, FLT_MIN, 32767, 127, "0", -DBL_MAX, utc(1970, 1, 1, 0, 0, 0)),
        (1, 2**63, 0.0, -0.0, 0, 0, "98765432109876543210.000000001", DBL_MIN, utc(2038, 1, 19, 3, 14, 8, 1)),
        (128, 18446744073709551614, 1.0 / 3.0, 1e-30, -1, -1, "-0.5", 1.0 / 3.0, utc(1999, 12, 31, 23, 59, 59, 999999)),
    ]
    colors = ["RED", "GREEN", "BLUE"]
    for i, (ub, ul, fl, nfl, sh, by, dec, dbl, dt) in enumerate(cases):
        out.append({
            "varString": "item %d %s \u00fc\u20ac\U0001d11e ]]> &amp; <x/> \t tab" % (i, make_string(64)),
            "varUByte": ub,
            "varULong": ul,
            "varFloat": fl,
            "varQName": etree.QName(NS, "sample%d" % i),
            "varBase64Binary": bytes((b + i) & 0xFF for b in range(256)),
            # zeep takes and returns xsd:hexBinary as its text, not as bytes.
            "varHexBinary": bytes((255 - b - i) & 0xFF for b in range(256)).hex().upper(),
            "varColor": colors[i % 3],
            "varStruct": {
                "varFloat": nfl,
                "varShort": sh,
                "varString": "nested <%d> & more \"quoted\" 'apos'" % i,
                "varByte": by,
                "varDecimal": decimal.Decimal(dec),
                "varDouble": dbl,
                "varDateTime": dt,
                "varAttrString": "attr \"%d\" <&> '" % i,
            },
        })
    return out


def resolved_qnames(history):
    """The varQName values of the last response, resolved with the namespaces in
    scope where each appears: zeep hands a QName back as its prefixed text."""
    out = []
    for el in history.last_received["envelope"].iter("{%s}varQName" % NS):
        prefix, _, local = (el.text or "").rpartition(":")
        out.append((el.nsmap.get(prefix or None), local))
    return out


def check_item(c, what, got, want, qname):
    c.equal(what + ".varString", got.varString, want["varString"])
    c.equal(what + ".varUByte", got.varUByte, want["varUByte"])
    c.equal(what + ".varULong", got.varULong, want["varULong"])
    c.equal(what + ".varFloat", f32(got.varFloat), f32(want["varFloat"]))
    c.equal(what + ".varQName", qname, (want["varQName"].namespace, want["varQName"].localname))
    c.equal(what + ".varBase64Binary", got.varBase64Binary, want["varBase64Binary"])
    c.equal(what + ".varHexBinary", bytes.fromhex(got.varHexBinary), bytes.fromhex(want["varHexBinary"]))
    c.equal(what + ".varColor", got.varColor, want["varColor"])
    n, w = got.varStruct, want["varStruct"]
    c.equal(what + ".varStruct.varFloat", f32(n.varFloat), f32(w["varFloat"]))
    c.equal(what + ".varStruct.varShort", n.varShort, w["varShort"])
    c.equal(what + ".varStruct.varString", n.varString, w["varString"])
    c.equal(what + ".varStruct.varByte", n.varByte, w["varByte"])
    c.equal(what + ".varStruct.varDecimal", decimal.Decimal(n.varDecimal), w["varDecimal"])
    c.equal(what + ".varStruct.varDouble", n.varDouble, w["varDouble"])
    c.equal(what + ".varStruct.varDateTime", n.varDateTime, w["varDateTime"])
    c.equal(what + ".varStruct.varAttrString", n.varAttrString, w["varAttrString"])


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    binary, wsdl = sys.argv[1], sys.argv[2]
    flags = dict(zip(sys.argv[3::2], sys.argv[4::2]))
    mode = flags.get("--mode", "per-connection")
    certs = flags.get("--tls")
    tls_flags = ["--tls-cert", certs + "/server.pem", "--tls-key", certs + "/server.key"] if certs else []
    proc, url = start_server(binary, mode, tls_flags)
    c = Checks()
    if certs:
        c.equal("the server's URL is https", url.startswith("https://127.0.0.1:"), True)
    try:
        history = zeep.plugins.HistoryPlugin()
        session = requests.Session()
        session.verify = certs + "/ca.pem" if certs else True  # the certificate checked, as a real client does
        session.trust_env = False  # else REQUESTS_CA_BUNDLE, where set, replaces `verify` (requests 2.28)
        client = zeep.Client(wsdl, plugins=[history], transport=zeep.transports.Transport(session=session))
        service = client.create_service("{%s}EchoBinding" % NS, url)

        strings = ["", " ", make_string(1024), make_string(100000),
                   "\u00e9\u00fc\u4e2d\u6587\U0001f600\U0001d11e", "<&>\"' ]]> &lt; \t\n",
                   "  leading and trailing  "]
        for i, s in enumerate(strings):
            got = service.echoString(text=s)
            # zeep reads an empty element as None.
            c.equal("echoString[%d]" % i, "" if got is None and s == "" else got, s)

        sent = items()
        got = service.echoStruct(item=sent)
        c.equal("echoStruct: item count", len(got), len(sent))
        qnames = resolved_qnames(history)
        for i, (g, w) in enumerate(zip(got, sent)):
            check_item(c, "echoStruct.item[%d]" % i, g, w, qnames[i])
        got = service.echoStruct(item=[])
        c.equal("echoStruct: no items", list(got or []), [])
        many = [dict(it) for it in sent for _ in range(25)]
        got = service.echoStruct(item=many)
        c.equal("echoStruct: 100 items", len(got), 100)
        qnames = resolved_qnames(history)
        for i in (0, 57, 99):
            check_item(c, "echoStruct 100.item[%d]" % i, got[i], many[i], qnames[i])

        for name, data in [("empty", b""), ("every byte", bytes(range(256)) * 4),
                           ("1 MB", bytes((i * 7919 + (i >> 8)) & 0xFF for i in range(1 << 20)))]:
            got = service.echoBinary(data=data)
            c.equal("echoBinary(%s)" % name, b"" if got is None and data == b"" else got, data)

        # Malformed XML gets a SOAP fault that zeep reads as one.
        r = client.transport.post(url, "<not-soap", {"Content-Type": "text/xml"})
        c.equal("malformed request: HTTP status", r.status_code, 500)
        c.equal("malformed request: a SOAP Fault", b"Fault>" in r.content, True)
        try:
            client.service._binding.process_reply(client, client.service._binding._operations["echoString"], r)
            c.equal("malformed request: zeep raised", "no fault", "zeep.exceptions.Fault")
        except zeep.exceptions.Fault:
            c.passed += 1
    except zeep.exceptions.Error as e:
        c.failed += 1
        print("FAILED: zeep: %s" % e)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 0 if c.failed == 0 and c.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
