'use strict';
// soapbench peer: node-soap (npm package `soap`) serving wsdl/echo.wsdl on Node's
// http server, or its https server when given a certificate and key. node-soap has no code generator: soap.listen reads the WSDL text
// at start-up and maps each operation to a handler below; the handlers echo
// what node-soap parsed, with the few conversions its parser needs to give the
// request's values back unchanged (see README.md).
//
//   node server.js PORT BIND [--tls-cert FILE --tls-key FILE]
//                                 (peers/node-soap/serve runs it)
//
// Environment:
//   SOAPBENCH_NODE_WORKERS  processes serving the port (Node's cluster module);
//                           1 runs the server in this process alone. Default 2.
const cluster = require('node:cluster');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const tls = require('node:tls');

// One place for every setting, each checked once at start-up.
const config = {
  port: Number(process.argv[2]),  // TCP port to listen on (peerctl picks a free one)
  bind: process.argv[3] || '127.0.0.1',  // address to listen on; never all interfaces unless asked
  workers: Number(process.env.SOAPBENCH_NODE_WORKERS || 2),  // cluster workers; 1 = no cluster
  wsdlFile: path.join(__dirname, '..', '..', 'wsdl', 'echo.wsdl'),  // the echo contract
  endpointPath: '/echo',  // where the service answers (and ?wsdl)
  // A second contract beside it, for driving any service (inventory-service.js).
  inventoryWsdlFile: path.join(__dirname, '..', '..', 'tests', 'anyservice', 'inventory.wsdl'),
  inventoryPath: '/inventory',
  keepAliveTimeoutMs: 60000,  // idle keep-alive connections stay open this long (Node's default: 5 s)
  headersTimeoutMs: 65000,  // must exceed keepAliveTimeoutMs, or Node drops reused idle sockets early
  maxRequestBytes: 16 * 1024 * 1024,  // larger bodies get 413: node-soap itself buffers without a limit
  tlsCert: null,  // --tls-cert: PEM certificate (chain) file; with tlsKey, serve https
  tlsKey: null,  // --tls-key: PEM private key file
};

// Exit 2 for a bad argument, 1 when the server cannot run.
function fail(message, status = 1) {
  console.error(`node-soap peer: ${message}`);
  process.exit(status);
}
if (!Number.isInteger(config.port) || config.port < 0 || config.port > 65535)
  fail(`PORT: expected 0..65535, got '${process.argv[2]}'`, 2);
if (!Number.isInteger(config.workers) || config.workers < 1 || config.workers > 64)
  fail(`SOAPBENCH_NODE_WORKERS: expected 1..64, got '${process.env.SOAPBENCH_NODE_WORKERS}'`, 2);
for (let i = 4; i < process.argv.length; i += 2) {
  const [flag, value] = process.argv.slice(i, i + 2);
  if (flag === '--tls-cert' && value) config.tlsCert = value;
  else if (flag === '--tls-key' && value) config.tlsKey = value;
  else fail('usage: server.js PORT BIND [--tls-cert FILE --tls-key FILE]', 2);
}
if (!config.tlsCert !== !config.tlsKey) fail('--tls-cert and --tls-key go together', 2);

// The TLS settings, read and checked here in every process (the primary too):
// a missing file or a key that is not the certificate's stops serve at once,
// rather than as workers that end before listening.
const tlsOptions = config.tlsCert ? loadTls() : null;

function loadTls() {
  let options;
  try {
    options = {
      cert: fs.readFileSync(config.tlsCert),
      key: fs.readFileSync(config.tlsKey),
      // Node 20's defaults, said on purpose: TLS 1.2 and 1.3, nothing older.
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.3',
    };
    tls.createSecureContext(options);  // throws on a bad PEM or a key that does not match
  } catch (err) {
    fail(`TLS: ${err.message}`, 2);
  }
  // Session tickets (TLS 1.2 and 1.3 resumption) are encrypted with the
  // server's ticket keys, random per server: each cluster worker would have its
  // own and refuse the others' tickets, and a new connection goes to any
  // worker. So the primary makes one set and hands it to every worker (in the
  // environment, readable only by this user): "servers must all have the same
  // ticket keys" behind one load balancer (Node's TLS docs, Session Resumption).
  const shared = process.env.SOAPBENCH_NODE_TICKET_KEYS;
  options.ticketKeys = shared ? Buffer.from(shared, 'hex') : crypto.randomBytes(48);
  return options;
}

if (config.workers > 1 && cluster.isPrimary) {
  runPrimary();
} else {
  runServer();
}

// The primary only forks and replaces workers; the workers share the listening
// socket (cluster's default round-robin hand-off on Linux). All stay in serve's
// process group: cluster.fork does not detach, so peerctl's group kill ends them.
function runPrimary() {
  let restarts = 0;
  let stopping = false;
  const listening = new Set();  // workers that have bound the port
  // The workers' environment: the shared TLS ticket keys (see loadTls).
  const env = tlsOptions ? { SOAPBENCH_NODE_TICKET_KEYS: tlsOptions.ticketKeys.toString('hex') } : {};
  for (let i = 0; i < config.workers; i++) cluster.fork(env);
  cluster.on('listening', (worker) => listening.add(worker.id));
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    // A worker that never listened cannot (port taken, bad WSDL): its
    // replacement could not either, so stop rather than retry.
    if (!listening.has(worker.id)) fail(`worker ${worker.process.pid} ended before listening (${signal || code})`);
    console.error(`node-soap peer: worker ${worker.process.pid} ended (${signal || code}); starting another`);
    if (++restarts > 10) fail('workers keep ending; giving up');
    cluster.fork(env);
  });
  const stop = () => {
    stopping = true;
    for (const id in cluster.workers) cluster.workers[id].process.kill('SIGTERM');
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function runServer() {
  const soap = require('soap');
  const wsdlXml = fs.readFileSync(config.wsdlFile, 'utf8');
  const serverOptions = {
    noDelay: true,  // TCP_NODELAY on every accepted socket (Node 20's default too; said here on purpose)
    keepAlive: true,  // TCP keep-alive probes on idle connections
  };
  // https: the same server with TLS under it; HTTP keep-alive and every setting
  // below stay the same, so a run over https differs from one over http by TLS alone.
  const server = tlsOptions
    ? https.createServer({ ...serverOptions, ...tlsOptions })
    : http.createServer(serverOptions);
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.headersTimeoutMs;
  server.maxRequestsPerSocket = 0;  // no cap on requests per persistent connection
  // node-soap passes requests for other paths to the listeners it found: answer them.
  server.on('request', (req, res) => {
    res.statusCode = 404;
    res.end();
  });
  server.on('clientError', (err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  // Each soap.listen wraps the request listeners once its WSDL is parsed; the
  // ?wsdl wrapper goes around both, and only then does the port open.
  const inventoryXml = fs.readFileSync(config.inventoryWsdlFile, 'utf8');
  let pending = 2;
  const ready = (err) => {
    if (err) fail(`a WSDL did not parse: ${err.message || err}`);
    if (--pending > 0) return;
    serveWsdlAtClientsAddress(server, new Map([[config.endpointPath, wsdlXml], [config.inventoryPath, inventoryXml]]));
    server.listen(config.port, config.bind, () => {
      const a = server.address();
      console.log(`node-soap peer pid ${process.pid} listening on ${scheme()}://${a.address}:${a.port}${config.endpointPath}`);
    });
  };
  // Both contracts the same way: one write with Content-Length instead of a
  // chunked body and a second write; the text of types node-soap would turn into
  // lossy JS values (decimal into a double, digits lost; dateTime into a Date,
  // microseconds lost and written back as an empty element; float and double into
  // a Number, INF and -INF become NaN), since an echo has no use for the values;
  // leading and trailing spaces of a string kept as content, which node-soap's
  // parser trims unless its WSDL has preserveWhitespace (soap.listen does not pass
  // that option on, so it is set on the parsed WSDL, as listen sets attributesKey
  // there); and the body limit.
  const listen = (path, services, xml) => {
    const s = soap.listen(server, {
      callback: ready,
      path,
      services,
      xml,
      enableChunkedEncoding: false,
      suppressStack: true,
      customDeserializer: { decimal: keepText, dateTime: keepText, float: keepText, double: keepText },
    });
    s.wsdl.options.preserveWhitespace = true;
    s.authorizeConnection = (req, res) => limitBody(req, res, config.maxRequestBytes);
    return s;
  };
  const soapServer = listen(config.endpointPath, require('./echo-service').services, wsdlXml);
  // The handlers resolve QName prefixes against the request text (node-soap keeps
  // no namespace context in the parsed object); the 'received' log hands it over.
  soapServer.log = (type, data, req) => {
    if (type === 'received') req.soapXml = data;
  };
  listen(config.inventoryPath, require('./inventory-service').services, inventoryXml);

  server.on('error', (err) => fail(`cannot listen on ${config.bind}:${config.port}: ${err.message}`));
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}

function scheme() {
  return tlsOptions ? 'https' : 'http';
}

function keepText(text) {
  return text;
}

// GET PATH?wsdl serves the contract with its soap:address set to where the client
// reached this peer: "http://" (or "https://") + its Host header + PATH, as soapbench-server does,
// so that a client built from the served WSDL calls this peer on whatever port it
// runs (node-soap would serve the file's own address). A Host that is not a host
// name or IP literal and port is not reflected: the listening address instead.
// Wraps the request listeners soap.listen left (they pass on what is not theirs).
function serveWsdlAtClientsAddress(server, contracts) {
  const listeners = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const [target, query] = req.url.split('?', 2);
    if (req.method !== 'GET' || !query || query.toLowerCase() !== 'wsdl' || !contracts.has(target)) {
      for (const listener of listeners) listener.call(server, req, res);
      return;
    }
    const given = req.headers.host || '';
    const safe = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$/.test(given);
    const a = server.address();
    const host = safe ? given : `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
    const xml = contracts.get(target).replace(/(<[A-Za-z0-9_]*:?address\s+location=")[^"]*(")/, `$1${scheme()}://${host}${target}$2`);
    res.writeHead(200, { 'Content-Type': 'text/xml; charset=utf-8', 'Content-Length': Buffer.byteLength(xml) });
    res.end(xml);
  });
}

// Refuses a body over `max` bytes: by Content-Length before reading, or by
// counting a chunked one as it arrives. Returns false when refused.
function limitBody(req, res, max) {
  const declared = Number(req.headers['content-length'] || 0);
  if (declared > max) {
    res.statusCode = 413;
    res.setHeader('Connection', 'close');
    return false;  // node-soap ends the response
  }
  let received = 0;
  req.on('data', (chunk) => {
    received += chunk.length;
    if (received > max) req.socket.destroy();
  });
  return true;
}
