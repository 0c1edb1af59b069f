'use strict';
// The inventory handlers without a server: node --test peers/node-soap/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const { services } = require('../inventory-service');

const port = services.InventoryService.InventoryPort;
const withAction = (op) => ({ headers: { soapaction: `"urn:soapbench:test:inventory:2#${op}"` } });

test('reserve and lookup answer with what they were sent', () => {
  const line = { attributes: { warehouse: 'w1' }, sku: 'a', quantity: 2, price: '1.5', code: '0a' };
  assert.deepEqual(port.reserve({ customer: 'c', until: '2026-12-01T00:00:00Z', line: [line] }, null, null, withAction('reserve')),
                   { customer: 'c', until: '2026-12-01T00:00:00Z', line: [line] });
  assert.deepEqual(port.reserve({ customer: 'c', until: 'u', line }, null, null, withAction('reserve')).line, [line]);
  assert.deepEqual(port.lookup({ sku: 's', photo: null }, null, null, withAction('lookup')), { sku: 's', photo: '' });
});

test('each operation requires its own SOAPAction, quoted or not', () => {
  assert.throws(() => port.lookup({ sku: 's' }, null, null, { headers: {} }),
                (e) => e.Fault.faultstring === "SOAPAction 'urn:soapbench:test:inventory:2#lookup' required, got ''");
  assert.throws(() => port.reserve({}, null, null, withAction('lookup')), (e) => e.Fault.faultcode === 'soap:Client');
  assert.doesNotThrow(() => port.lookup({}, null, null, { headers: { soapaction: 'urn:soapbench:test:inventory:2#lookup' } }));
});
