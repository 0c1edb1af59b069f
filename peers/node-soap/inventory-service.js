'use strict';
// The second contract node-soap serves beside the echo service, for driving any
// service (issue 16): tests/anyservice/inventory.wsdl, its own namespace, two
// operations that answer with what they were sent and require their SOAPAction,
// as .NET and CXF services do (the same contract soapbench-inventory-server
// serves in tests/anyservice/). services[service][port][operation], as the WSDL
// names them (InventoryService, InventoryPort).
const NAMESPACE = 'urn:soapbench:test:inventory:2';

// A SOAP 1.1 Client fault saying which SOAPAction the operation needs.
function requireAction(req, operation) {
  const want = `${NAMESPACE}#${operation}`;
  const got = String((req && req.headers && req.headers.soapaction) || '').replace(/^"(.*)"$/, '$1');
  if (got === want) return;
  throw { Fault: { faultcode: 'soap:Client', faultstring: `SOAPAction '${want}' required, got '${got}'`, statusCode: 500 } };
}

// node-soap parses an empty element of a non-string type as null and would write
// it back as xsi:nil: give it back as the empty element it was.
const orEmpty = (value) => (value === null || value === undefined ? '' : value);

const services = {
  InventoryService: {
    InventoryPort: {
      reserve(args, callback, headers, req) {
        requireAction(req, 'reserve');
        const lines = Array.isArray(args.line) ? args.line : args.line === undefined ? [] : [args.line];
        return {
          customer: orEmpty(args.customer),
          until: orEmpty(args.until),
          line: lines.map((l) => ({ ...l, code: orEmpty(l.code) })),
        };
      },
      lookup(args, callback, headers, req) {
        requireAction(req, 'lookup');
        return { sku: orEmpty(args.sku), photo: orEmpty(args.photo) };
      },
    },
  },
};

module.exports = { services, requireAction };
