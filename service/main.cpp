// soapbench-server: the echo service of wsdl/echo.wsdl, built on gSOAP.
#include <csignal>
#include <cstdio>
#include <ctime>
#include <exception>
#include <thread>

#include <fmt/core.h>

#include "config.h"
#include "progress.h"
#include "server.h"
#include "stats.h"

using namespace soapbench::server;

int main(int argc, char** argv) {
  int exit_code = -1;
  const Config config = parse_args(argc, argv, exit_code);
  if (exit_code >= 0) return exit_code;

  // Signals go to one waiting thread, never into the middle of a gSOAP call.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  Stats stats;
  Server server(config, stats);
  uint16_t port = 0;
  try {
    port = server.listen();
  } catch (const std::exception& e) {
    fmt::print(stderr, "soapbench-server: {}\n", e.what());
    return 1;
  }
  // Tests and scripts read this line to learn the port; keep its shape.
  fmt::print("soapbench-server listening on http://{}:{}/echo mode={} threads={}\n",
             config.bind.find(':') != std::string::npos ? "[" + config.bind + "]" : config.bind, port,
             to_string(config.mode),
             config.mode == Mode::pool || config.mode == Mode::loops ? config.threads : 1u);
  std::fflush(stdout);

  std::thread signal_waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    server.stop();
  });
  signal_waiter.detach();

  ProgressReporter progress(stats, config);
  server.run();
  progress.stop();
  if (!config.quiet) print_summary(stats, config);
  return 0;
}
