// soapbench-inventory-server: a SOAP service on a contract that is not
// echo.wsdl (inventory.wsdl, its own namespace), for the tests of driving any
// service. Both operations answer with what they were sent; each requires its
// SOAPAction and faults without it, as .NET and CXF services do. GET ...?wsdl
// serves the contract with the address the client used. A thread per
// connection, keep-alive on. Loopback only:
//   soapbench-inventory-server [PORT]   (0, the default: a free port)
// prints "listening on http://127.0.0.1:PORT/inventory" and serves until killed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "InventoryBinding.nsmap"
#include "soapInventoryBindingService.h"

namespace {

std::string g_wsdl;  // inventory.wsdl, its address made this server's

class Inventory final : public InventoryBindingService {
 public:
  Inventory() : InventoryBindingService(SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING) {}
  // A context of its own for a connection's thread, as the generated copy() makes
  // one (the generated copy constructor would share this one).
  InventoryBindingService* copy() override {
    auto* dup = new Inventory;
    soap_done(dup->soap);
    soap_copy_context(dup->soap, soap);
    return dup;
  }

  int reserve(_ns1__reserve* in, _ns1__reserveResponse& out) override {
    if (const int refused = require_action("reserve")) return refused;
    out.customer = in->customer;
    out.until = in->until;
    out.line = in->line;
    return SOAP_OK;
  }
  int lookup(_ns1__lookup* in, _ns1__lookupResponse& out) override {
    if (const int refused = require_action("lookup")) return refused;
    out.sku = in->sku;
    out.photo = in->photo;
    return SOAP_OK;
  }

 private:
  int require_action(const char* operation) {
    const std::string want = std::string("urn:soapbench:test:inventory:2#") + operation;
    if (soap->action && want == soap->action) return SOAP_OK;
    const std::string why = "SOAPAction '" + want + "' required, got '" + (soap->action ? soap->action : "") + "'";
    return soap_senderfault(why.c_str(), nullptr);
  }
};

int serve_wsdl(struct soap* soap) {
  if (!std::strstr(soap->path, "?wsdl")) return 404;
  std::string text = g_wsdl;
  const std::string placeholder = "http://127.0.0.1:8081/inventory";
  // gSOAP keeps "http://" + the Host header + the path as the endpoint.
  std::string address = soap->endpoint;
  if (const size_t path = address.find('/', 7); path != std::string::npos) address.resize(path);
  address += "/inventory";
  if (const size_t at = text.find(placeholder); at != std::string::npos) text.replace(at, placeholder.size(), address);
  soap->http_content = "text/xml; charset=utf-8";
  if (soap_response(soap, SOAP_FILE) || soap_send_raw(soap, text.data(), text.size()) || soap_end_send(soap))
    return soap_closesock(soap);
  return SOAP_OK;
}

}  // namespace

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 0;
  std::ifstream file(SOAPBENCH_INVENTORY_WSDL);
  std::stringstream text;
  text << file.rdbuf();
  g_wsdl = text.str();
  if (g_wsdl.empty()) {
    std::fprintf(stderr, "cannot read %s\n", SOAPBENCH_INVENTORY_WSDL);
    return 1;
  }
  Inventory server;
  server.soap->bind_flags = SO_REUSEADDR;
  server.soap->fget = serve_wsdl;
  server.soap->recv_timeout = server.soap->send_timeout = 30;
  if (!soap_valid_socket(soap_bind(server.soap, "127.0.0.1", port, 100))) {
    soap_print_fault(server.soap, stderr);
    return 1;
  }
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  getsockname(server.soap->master, reinterpret_cast<sockaddr*>(&bound), &len);
  std::printf("listening on http://127.0.0.1:%u/inventory\n", ntohs(bound.sin_port));
  std::fflush(stdout);
  for (;;) {
    if (!soap_valid_socket(soap_accept(server.soap))) continue;
    InventoryBindingService* connection = server.copy();
    std::thread([connection] {
      connection->serve();
      connection->destroy();
      delete connection;
    }).detach();
  }
}
