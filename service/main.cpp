// soapbench-server: the echo service of wsdl/echo.wsdl, built on gSOAP.
#include <cstdio>
#include <optional>

#include <fmt/core.h>

#include "access_log.h"
#include "config.h"
#include "echo_service.h"
#include "soapbench/version.h"
#include "listen_socket.h"
#include "progress.h"
#include "server.h"
#include "stats.h"
#include "stop_signals.h"
#include "tls.h"

using namespace soapbench::server;

int main(int argc, char** argv) {
  int exit_code = -1;
  const Config config = parse_args(argc, argv, exit_code);
  if (exit_code >= 0) return exit_code;

  // Signals go to one waiting thread, never into the middle of a gSOAP call.
  StopSignals signals;

  if (config.gzip && !EchoService::can_gzip()) {
    fmt::print(stderr, "soapbench-server: --gzip: this gSOAP runtime was built without zlib "
                       "(build with SOAPBENCH_GSOAP_RUNTIME=source, which has WITH_GZIP)\n");
    return 2;
  }
  Stats stats;
  std::optional<AccessLog> access_log;
  if (!config.access_log.empty()) {
    try {
      access_log.emplace(config.access_log);
    } catch (const std::exception& e) {
      fmt::print(stderr, "soapbench-server: --access-log: {}\n", e.what());
      return 2;
    }
    stats.access_log = &*access_log;
  }
  // One SSL_CTX for the process, made before anything listens: a bad certificate
  // or key stops the start with OpenSSL's reason, as a bad flag does.
  std::optional<TlsContext> tls;
  if (config.tls()) {
    try {
      tls.emplace(config);
    } catch (const TlsSetupError& e) {
      fmt::print(stderr, "soapbench-server: {}\n", e.what());
      return 2;
    }
  }
  const char* scheme = config.tls() ? "https" : "http";
  Server server(config, stats, tls ? &*tls : nullptr);
  const std::optional<uint16_t> port = listen_or_report(server, "soapbench-server");
  if (!port) return 1;
  // Tests and scripts read this line to learn the port; keep its shape.
  fmt::print("soapbench-server listening on {}://{}:{}/echo mode={} threads={}\n", scheme,
             url_host(config.bind), *port, to_string(config.mode),
             config.mode == Mode::pool || config.mode == Mode::loops ? config.threads : 1u);
  std::fflush(stdout);
  // What an operator checks first on a test host: which build, and the limits in force.
  // On stderr, so that stdout stays the ready line, progress and summary scripts read.
  if (!config.quiet)
    fmt::print(stderr,
               "soapbench-server {} (gSOAP {}, runtime {}): {} on {}://{}:{}/echo; at most {} connections, "
               "{} MiB per request, {} MiB buffered, {} attributes and {} namespaces per request; timeouts: "
               "receive {:g} s, send {:g} s, idle {:g} s; ?wsdl advertises {}{}\n",
               SOAPBENCH_VERSION, SOAPBENCH_GSOAP_VERSION, SOAPBENCH_GSOAP_RUNTIME_INFO, to_string(config.mode), scheme,
               url_host(config.bind), *port, config.max_connections, config.max_request_bytes >> 20,
               config.max_buffered_bytes >> 20, config.max_attributes, config.max_namespaces, config.recv_timeout_s,
               config.send_timeout_s, config.idle_timeout_s,
               config.public_url.empty() ? "the address each client used" : config.public_url,
               config.tls() ? fmt::format("; TLS {} or later with {}{}", config.tls_min, openssl_version(),
                                          config.tls_client_ca.empty() ? "" : ", client certificates required")
                            : "");

  signals.stop_on_signal([&] { server.stop(); });

  ProgressReporter progress(stats, config);
  server.run();
  progress.stop();
  if (!config.quiet) print_summary(stats, config);
  return 0;
}
