#!/usr/bin/python3 -B
"""The Spyne echo service in-process through its WSGI entry point (no
server): responses as the WSDL says them, the Spyne 2.14 faults worked around
in echo_service.py, faults for what the schema does not allow.
Run: peers/spyne/test/test_echo_service.py (Debian's Python; -B: no __pycache__)"""

import base64
import datetime
import io
import math
import os
import re
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import echo_service  # noqa: E402  (after the path is set)
import logging  # noqa: E402
from lxml import etree  # noqa: E402

# Spyne logs every fault it answers with a traceback; the tests cause many.
logging.disable(logging.CRITICAL)

NS = 'urn:soapbench:echo:1'
ENV = 'http://schemas.xmlsoap.org/soap/envelope/'
EXAMPLES = os.path.join(HERE, '..', '..', '..', 'wsdl', 'examples')


def example(name):
    with open(os.path.join(EXAMPLES, name + '-request.xml'), 'rb') as f:
        return f.read()


def envelope(body):
    return ('<s:Envelope xmlns:s="%s" xmlns:e="%s"><s:Body>%s</s:Body></s:Envelope>'
            % (ENV, NS, body)).encode()


def call(body, path='/echo'):
    """POSTs body to the WSGI application: (status code, response bytes)."""
    environ = {'REQUEST_METHOD': 'POST', 'PATH_INFO': path, 'QUERY_STRING': '',
               'CONTENT_TYPE': 'text/xml; charset=utf-8', 'CONTENT_LENGTH': str(len(body)),
               'wsgi.input': io.BytesIO(body), 'wsgi.url_scheme': 'http',
               'SERVER_NAME': 'localhost', 'SERVER_PORT': '80'}
    status = []
    chunks = echo_service.application(environ, lambda s, headers, *exc: status.append(s))
    return int(status[0].split()[0]), b''.join(chunks)


def payload(response):
    """The element inside the response's Body."""
    return etree.fromstring(response).find('{%s}Body' % ENV)[0]


def q(name):
    return '{%s}%s' % (NS, name)


class EchoServiceTest(unittest.TestCase):
    def assert_fault(self, body, pattern):
        status, response = call(body)
        self.assertEqual(status, 500)
        fault = payload(response)
        self.assertEqual(fault.tag, '{%s}Fault' % ENV)
        self.assertRegex(fault.findtext('faultcode'), r'Client')
        self.assertRegex(fault.findtext('faultstring'), pattern)

    def echo_struct(self, old, new):
        body = example('echoStruct')
        self.assertIn(old, body)
        status, response = call(body.replace(old, new))
        self.assertEqual(status, 200, response)
        return payload(response).find(q('item'))

    def test_echo_string_example(self):
        status, response = call(example('echoString'))
        self.assertEqual(status, 200)
        sent = etree.fromstring(example('echoString')).findtext('.//' + q('text'))
        self.assertEqual(payload(response).tag, q('echoStringResponse'))
        self.assertEqual(payload(response).findtext(q('text')), sent)

    def test_echo_struct_example_value_by_value(self):
        sent = etree.fromstring(example('echoStruct')).find('.//' + q('item'))
        got = self.echo_struct(b'', b'')
        self.assertEqual([c.tag for c in got], [c.tag for c in sent])
        for field in ('varString', 'varUByte', 'varULong', 'varBase64Binary', 'varColor'):
            self.assertEqual(got.findtext(q(field)), sent.findtext(q(field)), field)
        self.assertEqual(got.findtext(q('varHexBinary')).upper(), sent.findtext(q('varHexBinary')))
        self.assertEqual(float(got.findtext(q('varFloat'))), float(sent.findtext(q('varFloat'))))
        self.assertEqual(got.findtext(q('varQName')), 'tns:sample0')
        self.assertEqual(got.find(q('varQName')).nsmap['tns'], NS)
        nested_sent, nested_got = sent.find(q('varStruct')), got.find(q('varStruct'))
        self.assertEqual(nested_got.get('varAttrString'), 'attr "0"')
        self.assertEqual([c.tag for c in nested_got], [c.tag for c in nested_sent])
        for field in ('varShort', 'varString', 'varByte', 'varDecimal'):
            self.assertEqual(nested_got.findtext(q(field)), nested_sent.findtext(q(field)), field)
        for field in ('varFloat', 'varDouble'):
            self.assertEqual(float(nested_got.findtext(q(field))), float(nested_sent.findtext(q(field))))
        self.assertEqual(datetime.datetime.fromisoformat(nested_got.findtext(q('varDateTime'))),
                         datetime.datetime(2006, 11, 29, 12, 34, 56, 789012, datetime.timezone.utc))

    def test_integer_ends_accepted_beyond_them_refused(self):
        # Spyne 2.14 alone refuses the unsigned ones (255, 2^64-1).
        item = self.echo_struct(b'<echo:varShort>-32768<', b'<echo:varShort>-32768<')
        self.assertEqual(item.findtext(q('varUByte')), '255')
        self.assertEqual(item.findtext(q('varULong')), '18446744073709551615')
        self.assertEqual(item.find(q('varStruct')).findtext(q('varShort')), '-32768')
        self.assertEqual(item.find(q('varStruct')).findtext(q('varByte')), '-128')
        for old, new in ((b'>255<', b'>256<'), (b'>-128<', b'>-129<'), (b'>-32768<', b'>32768<'),
                         (b'>18446744073709551615<', b'>18446744073709551616<')):
            self.assert_fault(example('echoStruct').replace(old, new), 'could not be validated')

    def test_float_specials(self):
        item = self.echo_struct(b'<echo:varFloat>3.40282347E+38<', b'<echo:varFloat>INF<')
        self.assertEqual(item.findtext(q('varFloat')), 'INF')
        item = self.echo_struct(b'1.7976931348623157E+308', b'NaN')
        self.assertEqual(item.find(q('varStruct')).findtext(q('varDouble')), 'NaN')
        item = self.echo_struct(b'<echo:varFloat>-3.40282347E+38<', b'<echo:varFloat>-INF<')
        self.assertEqual(item.find(q('varStruct')).findtext(q('varFloat')), '-INF')

    def test_empty_string_and_empty_binary(self):
        status, response = call(envelope('<e:echoString><e:text/></e:echoString>'))
        self.assertEqual(status, 200)
        self.assertEqual(payload(response).findtext(q('text')), '')
        status, response = call(envelope('<e:echoBinary><e:data></e:data></e:echoBinary>'))
        self.assertEqual(status, 200)
        self.assertEqual(payload(response).findtext(q('data')), '')

    def test_binary_round_trip(self):
        data = bytes(range(256)) * 300
        encoded = base64.encodebytes(data).decode()  # with line breaks, which base64Binary allows
        status, response = call(envelope('<e:echoBinary><e:data>%s</e:data></e:echoBinary>' % encoded))
        self.assertEqual(status, 200)
        self.assertEqual(base64.b64decode(payload(response).findtext(q('data'))), data)
        item = self.echo_struct(b'<echo:varHexBinary>FFFE', b'<echo:varHexBinary>fffe')
        self.assertTrue(item.findtext(q('varHexBinary')).lower().startswith('fffefd'))

    def test_bad_binary_is_a_client_fault(self):
        self.assert_fault(example('echoStruct').replace(b'<echo:varHexBinary>FF', b'<echo:varHexBinary>XF'),
                          'not hexBinary')
        self.assert_fault(envelope('<e:echoBinary><e:data>@@</e:data></e:echoBinary>'), 'not base64Binary')

    def test_qname_namespaces(self):
        cases = ((b'<echo:varQName xmlns:x="urn:other">x:foo</echo:varQName>', 'urn:other'),
                 (b'<echo:varQName xmlns="urn:dflt">foo</echo:varQName>', 'urn:dflt'),
                 (b'<echo:varQName>foo</echo:varQName>', None),
                 (b'<echo:varQName xmlns:p="urn:soapbench:echo:1">p:bar</echo:varQName>', NS))
        for sent, namespace in cases:
            element = self.echo_struct(b'<echo:varQName>echo:sample0</echo:varQName>', sent).find(q('varQName'))
            prefix, _, local = element.text.rpartition(':')
            self.assertEqual(element.nsmap.get(prefix) if prefix else None, namespace, sent)
            self.assertEqual(local, 'bar' if namespace == NS else 'foo')
        self.assert_fault(example('echoStruct').replace(b'echo:sample0', b'zz:sample0'), 'prefix not declared')

    def test_no_items_and_order_kept(self):
        status, response = call(envelope('<e:echoStruct/>'))
        self.assertEqual(status, 200)
        self.assertEqual(len(payload(response)), 0)
        body = example('echoStruct')
        item = re.search(rb'<echo:item>.*</echo:item>', body).group(0)
        items = b''.join(item.replace(b'item 0 ', b'item %d ' % i) for i in (1, 2, 3))
        status, response = call(body.replace(item, items))
        self.assertEqual(status, 200)
        self.assertEqual([i.findtext(q('varString'))[:6] for i in payload(response)],
                         ['item 1', 'item 2', 'item 3'])

    def test_schema_violations_are_client_faults(self):
        self.assert_fault(example('echoStruct').replace(b'>RED<', b'>PINK<'), 'could not be validated')
        self.assert_fault(example('echoStruct').replace(b'<echo:varColor>RED</echo:varColor>', b''),
                          'varColor')
        self.assert_fault(b'garbage<<', 'Start tag expected')
        self.assert_fault(b'', 'Empty request body')

    def test_other_paths_404(self):
        self.assertEqual(call(example('echoString'), path='/other')[0], 404)

    def test_schema_matches_the_wsdl(self):
        result = subprocess.run([sys.executable, '-B', os.path.join(HERE, '..', 'check-schema')],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout.count(': ok'), 6)


if __name__ == '__main__':
    unittest.main()
