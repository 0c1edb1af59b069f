# soapbench peer: the echo contract of wsdl/echo.wsdl served by Spyne.
#
# Spyne has no WSDL-to-code generator, so the types below are written by hand
# to match wsdl/echo.wsdl: namespace urn:soapbench:echo:1, the element names
# and their order, minOccurs/maxOccurs, no nillable elements, the attribute
# varAttrString on NestedStruct and the Color enumeration. `check-schema` in
# this folder compares the WSDL Spyne generates from them with the contract.
#
# gunicorn loads `application` (see serve); the WSGI wrapper at the end
# serves the service on /echo only.

import base64
import logging
import math
import sys

from lxml import etree
from spyne import (Application, ComplexModel, Service, rpc, Unicode, Float,
                   Double, Decimal, DateTime, Short, Byte, UnsignedByte,
                   UnsignedLong, ByteArray, XmlAttribute)
from spyne.model import SimpleModel
from spyne.model.primitive import QName, Integer
from spyne.error import ValidationError
from spyne.protocol.soap import Soap11
from spyne.server.wsgi import WsgiApplication

NS = 'urn:soapbench:echo:1'
XSD = 'http://www.w3.org/2001/XMLSchema'
ENDPOINT_PATH = '/echo'
# The prefix a QName value in a namespace other than the service's gets.
QNAME_PREFIX = 'qns'


def required(cls):
    """An element as the WSDL declares it by default: exactly once, not nillable.
    (Spyne's default is minOccurs=0, nillable=true.)"""
    return cls.customize(min_occurs=1, max_occurs=1, nillable=False)


def full_range(base, highest):
    """base (a Spyne unsigned integer type) accepting its largest value.

    Spyne 2.14's soft validation checks an unsigned type's upper bound with
    `value < max`, so it rejects 255 as unsignedByte and 2^64-1 as
    unsignedLong. Same schema type, correct bound."""
    class FullRange(base):
        __type_name__ = base.__type_name__
        __namespace__ = XSD

        @staticmethod
        def validate_native(cls, value):
            return Integer.validate_native(cls, value) and (
                value is None or 0 <= value <= highest)

    return FullRange


def with_specials(base):
    """base (Spyne's Float or Double) accepting INF, -INF and NaN, which
    Spyne 2.14's soft validation rejects (its bounds are open intervals
    ending at +-inf, and NaN compares false)."""
    class WithSpecials(base):
        __type_name__ = base.__type_name__
        __namespace__ = XSD

        @staticmethod
        def validate_native(cls, value):
            return SimpleModel.validate_native(cls, value)

    return WithSpecials


XsdFloat = with_specials(Float)
XsdDouble = with_specials(Double)
XsdUnsignedByte = full_range(UnsignedByte, 2**8 - 1)
XsdUnsignedLong = full_range(UnsignedLong, 2**64 - 1)


class XsdString(Unicode):
    """xsd:string whose empty element is the empty string. Spyne 2.14's soft
    validation takes an empty element for a missing value and rejects it
    where the element is not nillable."""
    __type_name__ = 'string'
    __namespace__ = XSD

    @staticmethod
    def validate_string(cls, value):
        return Unicode.validate_string(cls, '' if value is None else value)


# xsd:hexBinary and xsd:base64Binary, read by EchoSoap11 rather than by
# Spyne 2.14, which cannot read hexBinary under Python 3 (it joins the text
# as bytes: TypeError), rejects an empty base64Binary element (0 bytes) as
# None, and answers malformed base64 with an exception instead of a fault.
HexBinary = required(ByteArray(encoding='hex'))
Base64Binary = required(ByteArray(encoding='base64'))


class ResolvedQName(QName):
    """xsd:QName compared by namespace and local part, not by its text.

    Spyne's own QName is a plain token: it would echo `echo:sample0` while the
    response declares the namespace under another prefix (`tns`), which
    changes the value. This type reads the prefix through the element's
    in-scope namespaces into Clark notation ({ns}local), and writes it back
    with a prefix that is declared where it is used (see EchoSoap11)."""
    __type_name__ = 'QName'
    __namespace__ = XSD


# Made required here, in one step: customizing it later would make Spyne
# declare an anonymous copy (EchoItem_varColorType) instead of tns:Color.
Color = Unicode(values=['RED', 'GREEN', 'BLUE'], type_name='Color',
                min_occurs=1, max_occurs=1, nillable=False)
Color.__namespace__ = NS


class NestedStruct(ComplexModel):
    __namespace__ = NS
    __type_name__ = 'NestedStruct'
    # A list, not class attributes: the sequence order is the WSDL's.
    _type_info = [
        ('varFloat', required(XsdFloat)),
        ('varShort', required(Short)),
        ('varString', required(XsdString)),
        ('varByte', required(Byte)),
        ('varDecimal', required(Decimal)),
        ('varDouble', required(XsdDouble)),
        ('varDateTime', required(DateTime)),
        ('varAttrString', XmlAttribute(XsdString)),
    ]


class EchoItem(ComplexModel):
    __namespace__ = NS
    __type_name__ = 'EchoItem'
    _type_info = [
        ('varString', required(XsdString)),
        ('varUByte', required(XsdUnsignedByte)),
        ('varULong', required(XsdUnsignedLong)),
        ('varFloat', required(XsdFloat)),
        ('varQName', required(ResolvedQName)),
        ('varBase64Binary', Base64Binary),
        ('varHexBinary', HexBinary),
        ('varColor', Color),
        ('varStruct', required(NestedStruct)),
    ]


Items = EchoItem.customize(min_occurs=0, max_occurs='unbounded', nillable=False)


class EchoService(Service):
    # Document/literal wrapped (Spyne's default body style): the request
    # element is named after the method, the response after it + 'Response',
    # the parameters after the function's arguments and _out_variable_name.
    @rpc(required(XsdString), _returns=required(XsdString), _out_variable_name='text')
    def echoString(ctx, text):
        return text

    @rpc(Items, _returns=Items, _out_variable_name='item')
    def echoStruct(ctx, item):
        return item or []

    @rpc(Base64Binary, _returns=Base64Binary, _out_variable_name='data')
    def echoBinary(ctx, data):
        return data


class EchoSoap11(Soap11):
    """SOAP 1.1 with ResolvedQName's reader and writer, binary readers and
    XSD's spelling of infinite and NaN floats."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.deserialization_handlers[ResolvedQName] = self.qname_from_element
        self.serialization_handlers[ResolvedQName] = self.qname_to_parent
        self.deserialization_handlers[HexBinary] = self.hex_from_element
        self.deserialization_handlers[Base64Binary] = self.base64_from_element

    def double_to_unicode(self, cls, value, **kwargs):
        # XSD spells the special values INF, -INF and NaN (Spyne: repr()).
        if math.isinf(value):
            return 'INF' if value > 0 else '-INF'
        if math.isnan(value):
            return 'NaN'
        return super().double_to_unicode(cls, value, **kwargs)

    # Both return Spyne's form of binary: a sequence of byte chunks.
    def hex_from_element(self, ctx, cls, element):
        text = (element.text or '').strip()
        try:
            return (bytes.fromhex(text),)
        except ValueError:
            raise ValidationError(text[:100], 'not hexBinary: %r')

    def base64_from_element(self, ctx, cls, element):
        text = element.text or ''
        try:  # whitespace is allowed anywhere; any other stray byte is not
            return (base64.b64decode(''.join(text.split()), validate=True),)
        except ValueError:
            raise ValidationError(text[:100], 'not base64Binary: %r')

    def serialize(self, ctx, message):
        # Spyne drops every namespace declaration no element or attribute
        # name uses; a QName's prefix is used only in text, so keep it.
        cleanup, self.cleanup_namespaces = self.cleanup_namespaces, False
        try:
            retval = super().serialize(ctx, message)
        finally:
            self.cleanup_namespaces = cleanup
        if cleanup and ctx.out_document is not None:
            etree.cleanup_namespaces(ctx.out_document,
                                     keep_ns_prefixes=[QNAME_PREFIX])
        return retval

    def qname_from_element(self, ctx, cls, element):
        text = (element.text or '').strip()
        prefix, _, local = text.rpartition(':')
        namespace = element.nsmap.get(prefix or None)
        if (prefix and namespace is None) or not local:
            raise ValidationError(text, 'QName %r: prefix not declared or empty')
        return '{%s}%s' % (namespace, local) if namespace else local

    def qname_to_parent(self, ctx, cls, inst, parent, ns, name='retval', **_):
        namespace, _, local = inst[1:].partition('}') if inst[:1] == '{' \
            else ('', '', inst)
        nsmap = None
        if not namespace:
            text = local
        elif namespace == ns:  # the element's own namespace: its prefix
            text = '%s:%s' % (self.app.interface.prefmap[ns], local)
        else:  # any other namespace: declared on the element itself
            nsmap = {QNAME_PREFIX: namespace}
            text = '%s:%s' % (QNAME_PREFIX, local)
        elt = etree.SubElement(parent, '{%s}%s' % (ns, name), nsmap=nsmap)
        elt.text = text


def _make_application():
    return Application(
        [EchoService], tns=NS, name='EchoService',
        # Soft validation checks each value against its type (ranges,
        # enumeration, occurrences) as Spyne users commonly run it; a bad
        # request gets a SOAP Client fault.
        in_protocol=EchoSoap11(validator='soft'),
        out_protocol=EchoSoap11())


# Requests up to 16 MiB, as soapbench-server takes (Spyne's default is 2 MiB,
# too small for echoBinary's payload sweep, as base64 grows 2 MB to 2.7 MB).
spyne_app = WsgiApplication(_make_application(),
                            max_content_length=16 * 1024 * 1024)


FAULT = ('<?xml version="1.0" encoding="UTF-8"?>'
         '<soap11env:Envelope xmlns:soap11env='
         '"http://schemas.xmlsoap.org/soap/envelope/"><soap11env:Body>'
         '<soap11env:Fault><faultcode>soap11env:%s</faultcode>'
         '<faultstring>%s</faultstring></soap11env:Fault>'
         '</soap11env:Body></soap11env:Envelope>')


def fault(start_response, code, text, exc_info=None):
    body = (FAULT % (code, text)).encode()
    start_response('500 Internal Server Error',
                   [('Content-Type', 'text/xml; charset=utf-8'),
                    ('Content-Length', str(len(body)))], exc_info)
    return [body]


def application(environ, start_response):
    """WSGI entry point: the service on /echo, 404 elsewhere, and a SOAP
    fault for what Spyne 2.14 lets escape as an exception (an empty body
    raises StopIteration in its parser), instead of a dropped connection or
    an HTML error page."""
    if environ.get('PATH_INFO', '') != ENDPOINT_PATH:
        start_response('404 Not Found', [('Content-Type', 'text/plain'),
                                         ('Content-Length', '10')])
        return [b'not found\n']
    if environ.get('REQUEST_METHOD') == 'POST' and \
            environ.get('CONTENT_LENGTH') in ('0', ''):
        return fault(start_response, 'Client', 'Empty request body')
    try:
        return spyne_app(environ, start_response)
    except Exception as e:  # pylint: disable=broad-except
        logging.exception('Spyne raised on a request')
        return fault(start_response, 'Server',
                     'Spyne raised %s' % type(e).__name__, sys.exc_info())
