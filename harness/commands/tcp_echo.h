#pragma once
// `soapbench tcp-echo`: xSocket's echo load test. Connections (one client
// process each, through the same ramp, live lines and results files as `run`)
// send messages of --packet-size bytes to soapbench-echo-server, embedded or
// standalone, and check every echo byte for byte.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/specs.h"

namespace soapbench {

struct TcpEchoConfig {
  TcpEchoConfig() {
    call.client_kind = "tcp";
    call.client.operation = Operation::tcp_echo;
    call.client.payload.data_bytes = 100;  // --packet-size: xSocket's 100-byte message
    load.clients = {20};                   // permanent connections, one process each
    load.warmup_s = 1;
  }
  // --url tcp://host:port (empty = start the embedded echo server), --timeout,
  // --new-connection, --packet-size
  CallSpec call;
  // --clients, --duration or --requests, --warmup, --wait (xSocket: 0), --interval
  // (xSocket printed every 5 s)
  LoadSpec load;
  std::string stats_url;           // --stats-url of a standalone server's GET /stats (its first line says it)
  int server_pid = 0;              // --server-pid of a server without /stats (a peer): its process group's CPU
  std::string server_mode = "threaded";  // --server-mode of the embedded server: threaded | non-threaded
  unsigned server_threads = 20;    // --server-threads: its pool in threaded mode (xSocket's 20)
  bool server_option_given = false;  // either --server-* flag was typed (refused with --url)
  std::string label;               // --label: the run's name in files, tables and charts
  std::string out_dir = "results"; // --out: where the JSON and CSV go
  std::string command_line;        // as typed, for the results file
};

// Parses `soapbench tcp-echo ...` (argv[0] is "tcp-echo"). Returns -1 to run,
// else the exit code (0 after --help, 2 after a usage error, printed to err).
int parse_tcp_echo(int argc, const char* const* argv, TcpEchoConfig& config, std::ostream& out,
                   std::ostream& err);

int tcp_echo_command(const TcpEchoConfig& config, std::ostream& out, std::ostream& err);

// The embedded echo server's first line: "soapbench-echo-server listening on
// tcp://H:P mode=M threads=N stats=http://H:Q/stats". Returns the stats URL,
// empty when the line has none.
std::string stats_url_of(const std::string& first_line);

}  // namespace soapbench
