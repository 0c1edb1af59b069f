#include "echo_config.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "soapbench/version.h"

namespace soapbench::tcp {

const char* to_string(EchoMode m) { return m == EchoMode::threaded ? "threaded" : "non-threaded"; }

EchoConfig parse_echo_args(int argc, char** argv, int& exit_code) {
  EchoConfig c;
  exit_code = -1;
  CLI::App app{"soapbench-echo-server: plain-TCP echo (length-prefixed messages echoed byte for byte),\n"
               "the transport baseline of `soapbench tcp-echo` and `soapbench sweep`"};
  app.set_version_flag("--version", std::string("soapbench-echo-server ") + SOAPBENCH_VERSION);
  std::string mode = "threaded", stats = "on";
  app.add_option("--bind", c.bind, "Address to listen on (127.0.0.1; 0.0.0.0 or :: for a test network)")
      ->capture_default_str();
  app.add_option("--port", c.port, "TCP port; 0 picks a free one and prints it")->capture_default_str();
  app.add_option("--mode", mode, "threaded (an event loop and a worker pool) | non-threaded (one event loop)")
      ->check(CLI::IsMember({"threaded", "non-threaded"}))->capture_default_str();
  auto* threads = app.add_option("--threads", c.threads, "Worker threads in threaded mode")
                      ->check(CLI::Range(1u, 1024u))->capture_default_str();
  app.add_option("--max-frame", c.max_frame_bytes,
                 "Largest message payload, in bytes (suffixes k, M); a larger header closes the connection")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(uint64_t{0}, uint64_t{0xffffffff}))
      ->default_str("64M");
  app.add_option("--max-connections", c.max_connections, "Open connections beyond this are refused")
      ->check(CLI::Range(1u, 1000000u))->capture_default_str();
  app.add_option("--stats", stats, "GET /stats on a second port: on | off")
      ->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  app.add_option("--stats-port", c.stats_port, "Port of /stats; 0 picks a free one")->capture_default_str();
  app.add_option("--report-interval", c.report_interval_s, "Seconds between progress lines; 0 for none")
      ->check(CLI::Range(0.0, 86400.0))->capture_default_str();
  app.add_flag("--quiet", c.quiet, "No progress lines and no summary");
  try {
    app.parse(argc, argv);
    c.mode = mode == "threaded" ? EchoMode::threaded : EchoMode::non_threaded;
    c.stats = stats == "on";
    if (c.mode == EchoMode::non_threaded && threads->count() > 0)
      throw CLI::ValidationError("--threads", "only for --mode threaded; the non-threaded server has one thread");
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    exit_code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "soapbench-echo-server: " << e.what() << "\nRun with --help for the options.\n";
    exit_code = 2;
  }
  return c;
}

}  // namespace soapbench::tcp
