#pragma once
// soapbench-echo-server options: one struct, a default and a reason for each field.
#include <cstdint>
#include <string>

namespace soapbench::tcp {

enum class EchoMode {
  non_threaded,  // one thread: an epoll loop accepts, reads and echoes (xSocket's non-threaded server)
  threaded,      // an epoll loop hands readable connections to a pool of workers (xSocket's threaded)
};
const char* to_string(EchoMode m);

struct EchoConfig {
  std::string bind = "127.0.0.1";    // loopback unless a test network is served on purpose
  uint16_t port = 9090;              // xSocket's echo port; 0 picks a free one and prints it
  EchoMode mode = EchoMode::threaded;
  unsigned threads = 20;             // pool workers in threaded mode; xSocket's pool size
  uint64_t max_frame_bytes = 64ull << 20;  // a header declaring more closes the connection (bad input)
  unsigned max_connections = 10000;  // connections beyond this are closed at accept and counted
  bool stats = true;                 // serve GET /stats (HTTP) on a second port, for the driver
  uint16_t stats_port = 0;           // that port; 0 picks a free one (printed on the first line)
  double report_interval_s = 5;      // seconds between progress lines (xSocket printed every 5 s); 0 = none
  bool quiet = false;                // no progress lines and no summary (tests, the embedded server)
};

// Parses argv. exit_code is -1 when the server should run; 0 after --help or
// --version; 2 after a bad flag or value (the message names the flag).
EchoConfig parse_echo_args(int argc, char** argv, int& exit_code);

}  // namespace soapbench::tcp
