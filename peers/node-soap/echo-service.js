'use strict';
// The three operations of wsdl/echo.wsdl for node-soap: services[service][port][operation],
// named as the WSDL names them (EchoService, EchoPort). Each returns the request's
// content; server.js sets the parser options that keep values unchanged.

// A SOAP 1.1 Client fault: node-soap writes an object with `faultcode` as a 1.1 Fault
// under its envelope prefix, "soap".
function clientFault(message) {
  return { Fault: { faultcode: 'soap:Client', faultstring: message, statusCode: 500 } };
}

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function decodeAttribute(text) {
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name) => ENTITIES[name]);
}

// The namespace that `prefix` ('' for the default namespace) is bound to in the
// request text, or undefined when it is not declared. node-soap's parsed object
// carries no namespace context, so this reads the declarations; a prefix bound to
// different namespaces in different scopes resolves to its first declaration.
function lookupNamespace(xml, prefix) {
  const name = prefix === '' ? 'xmlns' : `xmlns:${prefix.replace(/[.\-]/g, '\\$&')}`;
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(xml);
  if (!match) return prefix === '' ? '' : undefined;
  return decodeAttribute(match[1] !== undefined ? match[1] : match[2]);
}

// A QName value ("prefix:local") as node-soap should write it: the response uses
// prefixes of its own, so the value gets a prefix declared on its own element.
function echoQName(text, xml, namespaces) {
  const value = String(text).trim();
  const colon = value.indexOf(':');
  const prefix = colon < 0 ? '' : value.slice(0, colon);
  const local = value.slice(colon + 1);
  let uri = namespaces.get(prefix);
  if (uri === undefined) {
    uri = lookupNamespace(xml || '', prefix);
    if (uri === undefined) throw clientFault(`varQName: the prefix '${prefix}' of '${value}' is not declared`);
    namespaces.set(prefix, uri);
  }
  // node-soap writes the response's elements in a default namespace, so a QName in
  // no namespace has no way to be written; say so rather than change its meaning.
  if (uri === '') throw clientFault(`varQName: '${value}' is in no namespace, which node-soap cannot write back`);
  return { attributes: { 'xmlns:q': uri }, $value: `q:${local}` };
}

// node-soap parses an empty element of a non-string type (an empty base64Binary)
// as null, and writes null back as xsi:nil="true" without declaring xsi: give it
// back as the empty element it was.
const orEmpty = (value) => (value === null || value === undefined ? '' : value);
function emptyForNull(object) {
  for (const key in object) {
    if (object[key] === null) object[key] = '';
  }
}

const services = {
  EchoService: {
    EchoPort: {
      echoString(args) {
        return { text: orEmpty(args && args.text) };
      },

      echoBinary(args) {
        // base64Binary is kept as the request's text: the same bytes, never decoded.
        return { data: orEmpty(args && args.data) };
      },

      echoStruct(args, callback, headers, req) {
        if (!args || args.item === undefined || args.item === null) return {};
        const items = Array.isArray(args.item) ? args.item : [args.item];
        const namespaces = new Map();  // prefix -> namespace, for this request
        for (const item of items) {
          if (!item) continue;
          emptyForNull(item);
          if (item.varStruct) emptyForNull(item.varStruct);
          if (item.varQName !== undefined && item.varQName !== '')
            item.varQName = echoQName(item.varQName, req && req.soapXml, namespaces);
        }
        return { item: items };
      },
    },
  },
};

module.exports = { services, lookupNamespace };
