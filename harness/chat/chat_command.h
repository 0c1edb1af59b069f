#pragma once
// `soapbench chat`: the chat-room benchmark (after the 2002 chat_s/chat_c
// test in ../shared/reference). Its own Config and parser, so that the
// `soapbench` command line only dispatches to it.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "core/results.h"         // harness/
#include "proc/server_process.h"  // harness/

namespace soapbench::chat {

struct ChatConfig {
  std::string host = "127.0.0.1";  // --host: the server to drive when --port is given
  uint16_t port = 0;               // --port: a running chat server; 0 = start soapbench-chat-server
  unsigned rooms = 10;             // --rooms (the original's default)
  unsigned users = 20;             // --users per room (the original's fixed 20)
  uint32_t messages = 100;         // --messages each user sends (the original's default)
  size_t size = 100;               // --size: content bytes per message (the original's 100)
  unsigned window = 1;             // --window: closed loop, messages per user not yet everywhere; 0 = no limit
  double rate = 0;                 // --user-rate (or --rate / users): messages/s per user instead of the closed loop
  double duration_s = 300;         // --duration: bound on the run; later deliveries count as lost
  double stall_s = 5;              // --stall: stop once all is sent and nothing arrives for this long
  double connect_timeout_s = 10;   // --connect-timeout: for every user to connect and join
  unsigned threads = 1;            // --threads: client event loops (rooms are split between them)
  unsigned server_threads = 1;     // --server-threads: the embedded server's event loops
  double interval_s = 5;           // --interval: seconds per live line; 0 = none
  std::string label;               // --label: the run's name in file names, tables and charts
  std::string out_dir = "results"; // --out: where the JSON and CSV go
  std::string command_line;        // as typed, for the results file
};

// Runs the benchmark, prints live lines and the summary, writes the results
// file. Exit code: 0 when every member received exactly the others' messages,
// 1 when not (or on an error), 128 + signal when interrupted.
int chat_command(const ChatConfig& config, std::ostream& out, std::ostream& err);

// Starts `program --port 0 --quiet` plus `flags` (soapbench-chat-server) on a
// free loopback port; its port() is the one the server reports on its first
// line. Throws std::runtime_error, with what it printed, when no address
// arrives within startup_timeout_s.
std::unique_ptr<ServerProcess> start_chat_server(const std::string& program, const std::vector<std::string>& flags,
                                                 double startup_timeout_s = 10);



}  // namespace soapbench::chat
