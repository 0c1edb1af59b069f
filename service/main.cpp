// soapbench-server: the echo service of wsdl/echo.wsdl, built on gSOAP.
#include <cstdio>
#include <optional>

#include <fmt/core.h>

#include "config.h"
#include "listen_socket.h"
#include "progress.h"
#include "server.h"
#include "stats.h"
#include "stop_signals.h"

using namespace soapbench::server;

int main(int argc, char** argv) {
  int exit_code = -1;
  const Config config = parse_args(argc, argv, exit_code);
  if (exit_code >= 0) return exit_code;

  // Signals go to one waiting thread, never into the middle of a gSOAP call.
  StopSignals signals;

  Stats stats;
  Server server(config, stats);
  const std::optional<uint16_t> port = listen_or_report(server, "soapbench-server");
  if (!port) return 1;
  // Tests and scripts read this line to learn the port; keep its shape.
  fmt::print("soapbench-server listening on http://{}:{}/echo mode={} threads={}\n",
             url_host(config.bind), *port, to_string(config.mode),
             config.mode == Mode::pool || config.mode == Mode::loops ? config.threads : 1u);
  std::fflush(stdout);

  signals.stop_on_signal([&] { server.stop(); });

  ProgressReporter progress(stats, config);
  server.run();
  progress.stop();
  if (!config.quiet) print_summary(stats, config);
  return 0;
}
