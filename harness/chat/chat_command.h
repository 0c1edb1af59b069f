#pragma once
// `soapbench chat`: the chat-room benchmark (after the 2002 chat_s/chat_c
// test in ../shared/reference). Its own Config and parser, so that the
// `soapbench` command line only dispatches to it.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "chat/chat_client.h"
#include "core/results.h"
#include "proc/server_process.h"

namespace soapbench::chat {

struct ChatConfig {
  // --host, --port (0 = start soapbench-chat-server), --rooms, --users, --messages,
  // --size, --window, --rate / --user-rate (kept per user), --duration, --stall,
  // --connect-timeout, --threads, --interval (0 = no live lines; samples are kept)
  ChatPlan plan;
  unsigned server_threads = 1;     // --server-threads: the embedded server's event loops
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
