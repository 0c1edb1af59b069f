// soapbench-chat-server: the chat-room relay that `soapbench chat` drives.
#include <cstdio>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "chat_server.h"
#include "listen_socket.h"
#include "stop_signals.h"
#include "soapbench/version.h"

using namespace soapbench::chat;
using soapbench::server::StopSignals;
using soapbench::server::listen_or_report;
using soapbench::server::url_host;

namespace {

// Parses argv into the config; exit_code -1 = run, 0 after --help/--version, 2 after a bad flag.
ServerConfig parse_args(int argc, char** argv, int& exit_code) {
  ServerConfig c;
  exit_code = -1;
  CLI::App app{"soapbench-chat-server: relays each message to the other members of its room"};
  app.set_version_flag("--version", std::string("soapbench-chat-server ") + SOAPBENCH_VERSION);
  app.add_option("--bind", c.bind, "Address to listen on")->capture_default_str();
  app.add_option("--port", c.port, "TCP port; 0 picks a free one and prints it")->capture_default_str();
  app.add_option("--threads", c.threads, "Event loops; each room is served by one")
      ->check(CLI::Range(1u, 256u))->capture_default_str();
  app.add_option("--max-frame", c.max_frame, "Longest frame accepted in bytes (suffixes k, M)")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(size_t{64}, size_t{16} << 20))
      ->default_str("64k");
  app.add_option("--max-backlog", c.max_backlog,
                 "Bytes queued to one member before its room's senders are paused (suffixes k, M)")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(size_t{1024}, size_t{1} << 30))
      ->default_str("1M");
  app.add_option("--send-timeout", c.send_timeout_s, "Seconds a member's queue may make no progress")
      ->check(CLI::Range(0.01, 3600.0))->capture_default_str();
  app.add_option("--join-timeout", c.join_timeout_s, "Seconds a connection has to send its JOIN")
      ->check(CLI::Range(0.01, 3600.0))->capture_default_str();
  app.add_option("--max-connections", c.max_connections, "Open connections beyond this are refused")
      ->check(CLI::Range(1u, 1000000u))->capture_default_str();
  app.add_option("--max-room-users", c.max_room_users, "Members per room")
      ->check(CLI::Range(2u, 1000000u))->capture_default_str();
  app.add_flag("--quiet", c.quiet, "No summary at exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e, std::cout, std::cerr);
    if (exit_code != 0) exit_code = 2;
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int exit_code = -1;
  const ServerConfig config = parse_args(argc, argv, exit_code);
  if (exit_code >= 0) return exit_code;

  StopSignals signals;

  ServerStats stats;
  ChatServer server(config, stats);
  const std::optional<uint16_t> port = listen_or_report(server, "soapbench-chat-server");
  if (!port) return 1;
  // `soapbench chat` and the tests read this line to learn the port; keep its shape.
  fmt::print("soapbench-chat-server listening on {}:{} threads={}\n", url_host(config.bind), *port,
             config.threads);
  std::fflush(stdout);

  signals.stop_on_signal([&] { server.stop(); });
  server.run();
  if (!config.quiet) fmt::print("soapbench-chat-server: {}\n", stats_json(stats, config));
  return 0;
}
