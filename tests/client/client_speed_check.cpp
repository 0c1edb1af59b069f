// Not a test: a speed sanity check of the clients. Runs N calls of each client
// and operation against a per-connection soapbench-server and prints calls/s
// and the client's CPU time per call, plus one `check` report per client.
//   build-X/bin/client_speed_check [calls=20000] [raw|gsoap|curl]
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "check.h"
#include "client.h"
#include "server_process.h"

namespace {

double thread_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace soapbench;
  const long calls = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
  const std::string only = argc > 2 ? argv[2] : "";
  if (calls <= 0) {
    std::fprintf(stderr, "usage: %s [calls] [raw|gsoap|curl]\n", argv[0]);
    return 2;
  }
  test::ServerProcess server({"--mode", "per-connection", "--quiet"});
  for (const char* kind : {"raw", "gsoap", "curl"})
    print_check_report(std::cout, check_endpoint(server.endpoint(), kind, 5));
  std::printf("%-6s %-11s %8s %10s %14s %10s %10s\n", "client", "operation", "calls", "calls/s", "cpu us/call",
              "req bytes", "resp bytes");
  for (const char* kind : {"raw", "gsoap", "curl"}) {
    if (!only.empty() && only != kind) continue;
    for (Operation op : {Operation::echo_string, Operation::echo_struct}) {
      ClientOptions options;
      options.url = server.endpoint();
      options.operation = op;
      auto client = make_client(kind, options);
      if (!client->call().ok) return 1;  // connect and warm up outside the measurement
      const double cpu0 = thread_cpu_s();
      const auto t0 = std::chrono::steady_clock::now();
      for (long i = 0; i < calls; ++i) {
        const CallResult r = client->call();
        if (!r.ok) {
          std::fprintf(stderr, "%s %s call %ld: %s: %s\n", kind, std::string(to_string(op)).c_str(), i,
                       std::string(to_string(r.kind)).c_str(), r.detail.c_str());
          return 1;
        }
      }
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double cpu = thread_cpu_s() - cpu0;
      const WireBytes wire = client->last_wire_bytes();
      std::printf("%-6s %-11s %8ld %10.0f %14.1f %10llu %10llu\n", kind, std::string(to_string(op)).c_str(), calls,
                  static_cast<double>(calls) / wall, cpu / static_cast<double>(calls) * 1e6,
                  static_cast<unsigned long long>(wire.request), static_cast<unsigned long long>(wire.response));
    }
  }
  return 0;
}
