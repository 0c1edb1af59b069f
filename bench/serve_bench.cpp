// One HTTP request in, one HTTP response out, through EchoBindingService's
// soap_begin_serve + dispatch as soapbench-server calls them, from memory: the
// per-request CPU of gSOAP in the server without sockets and system calls. The
// output modes compare SOAP_IO_STORE (what the server uses) with gSOAP's default
// buffered output, which serializes each response twice (a counting pass for
// Content-Length, then the real one).
#include "serve_bench.h"

#include <benchmark/benchmark.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>

#include "echo_operations.h"
#include "memory_io.h"
#include "soapEchoBindingService.h"

namespace soapbench::bench {
namespace {

class EchoInMemory : public EchoOperations {
 public:
  explicit EchoInMemory(soap_mode out)
      : EchoOperations(SOAP_IO_KEEPALIVE | SOAP_XML_STRICT | SOAP_C_UTFSTRING,
                       out | SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING),
        io(soap), out_io(out & SOAP_IO) {
    // Without a socket gSOAP answers as a CGI program ("Status: 200 OK", then
    // close); a connected socket, never read or written (fsend/frecv are ours),
    // gives the server's HTTP/1.1 keep-alive path.
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds_) == 0) soap->socket = fds_[0];
    // As soapbench-server: keep-alive connections without a request limit.
    soap->keep_alive = 1;
    soap->max_keep_alive = 0;
  }
  ~EchoInMemory() override {
    soap->socket = SOAP_INVALID_SOCKET;
    for (const int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  EchoInMemory(const EchoInMemory&) = delete;
  EchoInMemory& operator=(const EchoInMemory&) = delete;
  EchoBindingService* copy() override { return nullptr; }  // never copied here
  MemoryIo io;
  const soap_mode out_io;  // SOAP_IO_STORE or SOAP_IO_BUFFER, restored before each exchange

 private:
  int fds_[2] = {-1, -1};
};

std::string http_request(const std::string& op, const std::string& envelope) {
  return "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
         "Content-Length: " + std::to_string(envelope.size()) +
         "\r\nSOAPAction: \"urn:soapbench:echo:1#" + op + "\"\r\n\r\n" + envelope;
}

// One served exchange: the request parsed, dispatched and answered, the arena
// released. Returns an error message, or an empty string.
std::string serve_one(EchoInMemory& service, const std::string& request) {
  struct soap* soap = service.soap;
  service.io.clear_output();
  service.io.set_input(request);
  // As soapbench-server: gSOAP's end of a send puts the output mode back to the
  // input's, which would make every exchange after the first a counting one.
  soap->omode = (soap->omode & ~SOAP_IO) | service.out_io;
  if (soap_begin_serve(soap) || service.dispatch() || soap->error)
    return "serving the request failed: gSOAP error " + std::to_string(soap->error);
  if (!soap_valid_socket(soap->socket)) return "gSOAP closed the connection after the response";
  soap_destroy(soap);
  soap_end(soap);
  return {};
}

void serve(benchmark::State& state, const std::string& request, soap_mode out) {
  EchoInMemory service(out);
  size_t response_bytes = 0;
  for (auto _ : state) {
    if (const auto error = serve_one(service, request); !error.empty()) {
      state.SkipWithError(error.c_str());
      break;
    }
    response_bytes = service.io.output().size();
  }
  if (response_bytes && service.io.output().find("HTTP/1.1 200 OK") != 0)
    state.SkipWithError("the response is not HTTP 200");
  state.counters["bytes"] = static_cast<double>(request.size() + response_bytes);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(request.size() + response_bytes));
}

// The measured exchanges of serve_exchanges, in a function of their own that
// scripts/bench-instructions names to callgrind (--toggle-collect): it counts the
// instructions of exactly these `count` exchanges. Not inlined, so that the name
// exists in the binary.
[[gnu::noinline]] int soapbench_measured_exchanges(EchoInMemory& service, const std::string& request,
                                                   long count) {
  for (long i = 0; i < count; ++i)
    if (const auto error = serve_one(service, request); !error.empty()) {
      std::fprintf(stderr, "soapbench-micro: %s\n", error.c_str());
      return 1;
    }
  return 0;
}

}  // namespace

int serve_exchanges(const std::string& op, const std::string& envelope, long count) {
  const std::string request = http_request(op, envelope);
  EchoInMemory service(SOAP_IO_STORE);
  // Warm-up, not counted: the context's first messages allocate its blocks and tables.
  for (int i = 0; i < 100; ++i)
    if (const auto error = serve_one(service, request); !error.empty()) {
      std::fprintf(stderr, "soapbench-micro: %s\n", error.c_str());
      return 1;
    }
  const std::string response = service.io.output();
  if (response.find("HTTP/1.1 200 OK") != 0) {
    std::fprintf(stderr, "soapbench-micro: the %s response is not HTTP 200\n", op.c_str());
    return 1;
  }
  if (soapbench_measured_exchanges(service, request, count) != 0) return 1;
  std::printf("served %ld %s exchanges in memory (SOAP_IO_STORE): request %zu bytes, response %zu bytes\n",
              count, op.c_str(), request.size(), response.size());
  return 0;
}

void register_serve_benchmarks(const std::string& echo_string_request,
                               const std::string& echo_struct_request) {
  const std::pair<std::string, std::string> ops[] = {
      {"echoString", http_request("echoString", echo_string_request)},
      {"echoStruct", http_request("echoStruct", echo_struct_request)}};
  const std::pair<const char*, soap_mode> modes[] = {{"store", SOAP_IO_STORE},
                                                     {"count", SOAP_IO_BUFFER}};
  for (const auto& [op, request] : ops)
    for (const auto& [name, mode] : modes)
      with_min(benchmark::RegisterBenchmark(("serve/" + op + "/" + name).c_str(),
                                            [request = request, mode = mode](benchmark::State& s) {
                                              serve(s, request, mode);
                                            }));
}

}  // namespace soapbench::bench
