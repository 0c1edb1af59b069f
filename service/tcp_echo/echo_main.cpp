// soapbench-echo-server: the plain-TCP echo that `soapbench tcp-echo` and
// `soapbench sweep` measure the SOAP server against (xSocket's echo server).
#include <cstdio>
#include <ctime>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <fmt/core.h>

#include "echo_config.h"
#include "echo_server.h"
#include "listen_socket.h"
#include "stop_signals.h"

using namespace soapbench::tcp;
using soapbench::server::StopSignals;
using soapbench::server::listen_or_report;
using soapbench::server::url_host;

namespace {

void print_progress(const EchoStats& s, uint64_t& last_frames, double interval_s) {
  const uint64_t frames = s.frames.load();
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  fmt::print("{}  {:>10.0f} messages/s  open {}  bad {}\n", stamp,
             static_cast<double>(frames - last_frames) / interval_s, s.open.load(), s.bad_frames.load());
  std::fflush(stdout);
  last_frames = frames;
}

}  // namespace

int main(int argc, char** argv) {
  int exit_code = -1;
  const EchoConfig config = parse_echo_args(argc, argv, exit_code);
  if (exit_code >= 0) return exit_code;

  // Signals are taken by signals.wait below, never by a thread in the middle of I/O.
  StopSignals signals;

  EchoStats stats;
  EchoServer server(config, stats);
  const std::optional<uint16_t> port = listen_or_report(server, "soapbench-echo-server");
  if (!port) return 1;
  // The driver and the tests read this line to learn both ports; keep its shape.
  const std::string host = url_host(config.bind);
  const std::string stats_part =
      config.stats ? fmt::format(" stats=http://{}:{}/stats", host, server.stats_port()) : "";
  fmt::print("soapbench-echo-server listening on tcp://{}:{} mode={} threads={}{}\n", host, *port,
             to_string(config.mode), config.mode == EchoMode::threaded ? config.threads : 1u, stats_part);
  std::fflush(stdout);

  std::thread loop([&] { server.run(); });
  uint64_t last_frames = 0;
  const bool progress = !config.quiet && config.report_interval_s > 0;
  const double wait_s = progress ? config.report_interval_s : 3600;
  while (!signals.wait(wait_s))
    if (progress) print_progress(stats, last_frames, wait_s);
  server.stop();
  loop.join();
  if (!config.quiet) {
    const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - stats.started).count();
    fmt::print("soapbench-echo-server stopped after {:.1f} s (mode {}): {} messages, {} bad, {} connections, "
               "{:.2f} MB in, {:.2f} MB out, CPU {:.2f} s\n",
               uptime, to_string(config.mode), stats.frames.load(), stats.bad_frames.load(), stats.accepted.load(),
               static_cast<double>(stats.bytes_in.load()) / 1e6, static_cast<double>(stats.bytes_out.load()) / 1e6,
               process_cpu_s());
  }
  return 0;
}
