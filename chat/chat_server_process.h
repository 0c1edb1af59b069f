#pragma once
// The embedded soapbench-chat-server that `soapbench chat` starts when no
// --port is given: a child on a free loopback port, stopped with the run.
// (harness/server_process.h does the same for soapbench-server, whose
// arguments and first line differ.)
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace soapbench::chat {

class ChatServerProcess {
 public:
  // Starts `program --port 0 --quiet` plus `flags` and reads the port from its
  // first line. Throws std::runtime_error, with what it printed, when no
  // address arrives within startup_timeout_s.
  ChatServerProcess(const std::string& program, const std::vector<std::string>& flags,
                    double startup_timeout_s = 10);
  ~ChatServerProcess();  // stop()
  ChatServerProcess(const ChatServerProcess&) = delete;
  ChatServerProcess& operator=(const ChatServerProcess&) = delete;

  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  const std::string& first_line() const { return first_line_; }
  // SIGTERM, up to grace_s for the exit, then SIGKILL; returns how it ended. Idempotent.
  std::string stop(double grace_s = 3);

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  uint16_t port_ = 0;
  std::string first_line_, ended_;
};

}  // namespace soapbench::chat
