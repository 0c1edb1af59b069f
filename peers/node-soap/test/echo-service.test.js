'use strict';
// The handlers' own logic, without a server: node --test peers/node-soap/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const { services, lookupNamespace } = require('../echo-service');

const port = services.EchoService.EchoPort;
const request = (xml) => ({ soapXml: xml });

test('lookupNamespace finds a prefix in either quote style and decodes entities', () => {
  const xml = `<s:Envelope xmlns:s="urn:s" xmlns:a='urn:a?x=1&amp;y=2'><b xmlns="urn:d"/></s:Envelope>`;
  assert.equal(lookupNamespace(xml, 'a'), 'urn:a?x=1&y=2');
  assert.equal(lookupNamespace(xml, 's'), 'urn:s');
  assert.equal(lookupNamespace(xml, ''), 'urn:d');
  assert.equal(lookupNamespace(xml, 'zz'), undefined);
  assert.equal(lookupNamespace('<a/>', ''), '');  // no default namespace: none
});

test('echoStruct gives each QName a prefix declared on its own element', () => {
  const xml = '<E xmlns:t="urn:soapbench:echo:1" xmlns:o="urn:other">';
  const items = [{ varQName: 't:sample0' }, { varQName: 'o:x' }];
  const out = port.echoStruct({ item: items }, null, null, request(xml));
  assert.deepEqual(out.item.map((i) => i.varQName), [
    { attributes: { 'xmlns:q': 'urn:soapbench:echo:1' }, $value: 'q:sample0' },
    { attributes: { 'xmlns:q': 'urn:other' }, $value: 'q:x' },
  ]);
});

test('echoStruct faults on an undeclared prefix and on a QName in no namespace', () => {
  const call = (q) => port.echoStruct({ item: [{ varQName: q }] }, null, null, request('<E/>'));
  assert.throws(() => call('nope:x'), (e) => e.Fault.faultcode === 'soap:Client' && /'nope'/.test(e.Fault.faultstring));
  assert.throws(() => call('x'), (e) => /no namespace/.test(e.Fault.faultstring));
});

test('empty binary fields come back empty, not as nil', () => {
  const item = { varBase64Binary: null, varHexBinary: null, varStruct: { varString: null } };
  const out = port.echoStruct({ item: [item] }, null, null, request('<E/>'));
  assert.equal(out.item[0].varBase64Binary, '');
  assert.equal(out.item[0].varHexBinary, '');
  assert.equal(out.item[0].varStruct.varString, '');
  assert.deepEqual(port.echoBinary(null), { data: '' });
  assert.deepEqual(port.echoBinary({ data: 'AAEC' }), { data: 'AAEC' });
});

test('no items and a single item object both echo', () => {
  assert.deepEqual(port.echoStruct(null, null, null, request('<E/>')), {});
  const one = port.echoStruct({ item: { varString: ' a ' } }, null, null, request('<E/>'));
  assert.deepEqual(one, { item: [{ varString: ' a ' }] });
  assert.deepEqual(port.echoString({ text: '  x  ' }), { text: '  x  ' });
});
