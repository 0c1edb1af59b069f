// soapbench-textbook-server: the multi-threaded gSOAP server as gSOAP's user guide
// writes it (bind, accept, a thread per connection running the generated serve()),
// with keep-alive and no cap on requests per connection. It is not the service:
// scripts/bench-server measures it beside soapbench-server and nginx, so that the
// ratio the issue quotes for "a plain thread-per-connection gSOAP server" can be
// checked against the same nginx in the same run.
//
// Usage: soapbench-textbook-server PORT   (PORT 0 picks a free one; loopback only)
// Prints "soapbench-textbook-server listening on http://127.0.0.1:PORT/echo".
#include <netinet/in.h>
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <utility>

#include "echo_operations.h"

namespace {

class TextbookEcho : public soapbench::bench::EchoOperations {
 public:
  using EchoOperations::EchoOperations;
  // What the generated copy() does: a new context copied from this one (its socket included).
  EchoBindingService* copy() override {
    auto* dup = new TextbookEcho;
    soap_done(dup->soap);
    soap_copy_context(dup->soap, soap);
    return dup;
  }
};

void serve_connection(EchoBindingService* service) {
  service->serve();
  service->destroy();
  delete service;
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const long port = argc == 2 ? std::strtol(argv[1], &end, 10) : -1;
  if (argc != 2 || *end != '\0' || port < 0 || port > 65535) {
    std::fprintf(stderr, "usage: soapbench-textbook-server PORT   (0 picks a free port)\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  // The same modes as soapbench-server's, so that both do the same XML work.
  TextbookEcho service(SOAP_IO_KEEPALIVE | SOAP_XML_STRICT | SOAP_C_UTFSTRING,
                       SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING);
  service.soap->send_timeout = service.soap->recv_timeout = 5;
  service.soap->max_keep_alive = 0;  // the default, 100, closes a connection after 100 requests
  service.soap->bind_flags = SO_REUSEADDR;
  if (!soap_valid_socket(service.bind("127.0.0.1", static_cast<int>(port), 128))) {
    service.soap_stream_fault(std::cerr);
    return 1;
  }
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  getsockname(service.soap->master, reinterpret_cast<sockaddr*>(&bound), &len);
  std::printf("soapbench-textbook-server listening on http://127.0.0.1:%d/echo\n", ntohs(bound.sin_port));
  std::fflush(stdout);
  for (;;) {
    if (!soap_valid_socket(service.accept())) {
      if (service.soap->errnum == 0) continue;  // accept timed out: none is set, so not expected
      service.soap_stream_fault(std::cerr);
      return 1;
    }
    std::thread(serve_connection, service.copy()).detach();
  }
}
