#!/usr/bin/python3
"""A real SOAP client against a running peer: python3-zeep (Debian's, run with
/usr/bin/python3) reads the peer's own WSDL from URL?wsdl, calls every operation
of wsdl/echo.wsdl and checks each value comes back as sent, by its schema type.

    zeep_roundtrip.py URL [KNOWN_FAULTS]
        exit 0 when all round-trip, 1 naming what did not. KNOWN_FAULTS is the
        peer's known-faults file ("OPERATION<TAB>fault text" lines): a listed
        echoStruct must answer the item at the types' limits with that fault,
        and still round-trip the items within them.
"""
import datetime
import decimal
import sys

import zeep
import zeep.exceptions
from lxml import etree

NS = "urn:soapbench:echo:1"


def item(i):
    """An EchoItem with every field; item 0 at the limits of the types, the
    others within them."""
    return {
        "varString": f"item {i} <&> \"quoted\" 'single' \u00e9\u4e2d",
        "varUByte": 255 - i,
        "varULong": 18446744073709551615 - i,
        "varFloat": 1.5 + i,  # exact in float32: what comes back must be equal
        "varQName": etree.QName(NS, f"sample{i}"),
        "varBase64Binary": bytes(range(256)),
        # zeep passes hexBinary through as text both ways: compared as bytes below.
        "varHexBinary": bytes(reversed(range(256))).hex().upper(),
        "varColor": ["RED", "GREEN", "BLUE"][i % 3],
        "varStruct": {
            "varFloat": -2.25,
            "varShort": -32768 if i == 0 else 1234 * i,
            "varString": f"nested <{i}> & more",
            "varByte": -128 if i == 0 else 42 + i,
            "varDecimal": decimal.Decimal("-12345678901234567890.123456789"),
            "varDouble": 1.7976931348623157e308,
            # Microseconds at the limit; milliseconds, which every stack keeps, within.
            "varDateTime": datetime.datetime(2006, 11, 29, 12, 34, 56, 789012 if i == 0 else 789000,
                                              tzinfo=datetime.timezone.utc),
            "varAttrString": f"attr \"{i}\"",
        },
    }


def as_plain(value):
    """zeep's objects as dicts and lists, QNames as their text, for comparing."""
    if isinstance(value, list):
        return [as_plain(v) for v in value]
    if hasattr(value, "__values__"):
        return {k: as_plain(v) for k, v in value.__values__.items()}
    if isinstance(value, dict):
        return {k: as_plain(v) for k, v in value.items()}
    if isinstance(value, etree.QName):
        return value.text  # "{namespace}local"
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.timezone.utc)  # the same instant, in any zone
    return value


def differences(sent, got, path=""):
    sent, got = as_plain(sent), as_plain(got)
    if path.endswith(".varHexBinary") and isinstance(got, str):
        return [] if bytes.fromhex(sent) == bytes.fromhex(got) else [f"{path}: sent {sent!r}, got {got!r}"[:300]]
    if isinstance(sent, dict):
        if not isinstance(got, dict):
            return [f"{path}: sent a struct, got {got!r}"]
        return [d for k, v in sent.items() if not k.startswith("_")
                for d in differences(v, got.get(k), f"{path}.{k}")]
    if isinstance(sent, list):
        if not isinstance(got, list) or len(got) != len(sent):
            return [f"{path}: sent {len(sent)} items, got {got!r}"[:300]]
        return [d for i, (s, g) in enumerate(zip(sent, got)) for d in differences(s, g, f"{path}[{i}]")]
    return [] if sent == got else [f"{path}: sent {sent!r}, got {got!r}"[:300]]


def resolve_qname(element):
    """The xsd:QName in element's text, its prefix (or the default namespace)
    resolved with the namespaces in scope there."""
    prefix, _, local = element.text.strip().rpartition(":")
    return etree.QName(element.nsmap.get(prefix or None), local)


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: zeep_roundtrip.py URL [KNOWN_FAULTS]", file=sys.stderr)
        return 2
    url = sys.argv[1]
    known = {}
    if len(sys.argv) == 3:
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#") and "\t" in line:
                    op, text = line.rstrip("\n").split("\t", 1)
                    known[op] = text
    client = zeep.Client(url + "?wsdl")
    # The address the peer's WSDL names must be the peer itself.
    address = client.service._binding_options["address"]
    service = client.create_service("{%s}EchoBinding" % NS, url)
    failures = []

    text = "SOAP & <bench> \"echo\" 'string' \u00e9\u4e2d\U0001F600 " * 20
    failures += differences(text, service.echoString(text=text), "echoString.text")

    items = [item(i) for i in range(3)]
    if "echoStruct" in known:
        try:
            service.echoStruct(item=items)
            failures.append(f"echoStruct at the types' limits: no fault, expected '{known['echoStruct']}'")
        except zeep.exceptions.Fault as fault:
            if known["echoStruct"] not in str(fault.message):
                failures.append(f"echoStruct at the limits: fault '{fault.message}', expected '{known['echoStruct']}'")
        items = items[1:]
    got = service.echoStruct(item=items) or []
    # zeep returns an xsd:QName as the text it read ("echo:sample0", or
    # "sample0" under a default namespace) without resolving its prefix: the
    # QNames are compared from the raw response instead, resolved where they stand.
    with client.settings(raw_response=True):
        raw = service.echoStruct(item=items)
    qnames = [resolve_qname(q) for q in etree.fromstring(raw.content).iter("{%s}varQName" % NS)]
    for i, it in enumerate(got):
        it["varQName"] = qnames[i] if i < len(qnames) else None
    failures += differences(items, got, "echoStruct.item")
    got_empty = service.echoStruct(item=[])
    if got_empty not in (None, []):
        failures.append(f"echoStruct of no items: got {got_empty!r}")

    for size in (0, 1, 3, 70000):
        data = bytes((i * 7 + 3) % 256 for i in range(size))
        got = service.echoBinary(data=data)
        if (got or b"") != data:
            failures.append(f"echoBinary of {size} bytes: got {len(got or b'')} bytes, not the same")

    print(f"zeep {zeep.__version__} against {url} (WSDL's address {address}):",
          ("all 3 operations round-trip" + (f" (the known faults of {', '.join(known)} as declared)" if known else ""))
          if not failures else f"{len(failures)} differences")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except zeep.exceptions.Fault as fault:  # one the peer's known-faults does not list
        print(f"zeep_roundtrip: unexpected SOAP fault: {fault.message}", file=sys.stderr)
        sys.exit(1)
