#pragma once
// Raw connections to soapbench-chat-server for tests: frames written by hand
// (or garbage), frames read back with a deadline.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "chat_protocol.h"

namespace soapbench::chat::test {

using namespace std::chrono_literals;

struct ReadFrame {
  FrameType type;
  std::string body;
};

class RawConn {
 public:
  explicit RawConn(uint16_t port);  // connects to 127.0.0.1:port (throws on failure)
  ~RawConn();
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;

  bool write(const std::string& bytes);  // all of them, or false
  bool join(uint32_t room, uint32_t user);  // JOIN, then waits for its JOINED
  bool send_message(uint32_t seq, const std::string& content);
  // The next frame, or nullopt when the connection closes or `timeout` passes.
  std::optional<ReadFrame> next(std::chrono::milliseconds timeout = 5s);
  // True once the server has closed the connection (reads past any frames) within `timeout`.
  bool closed_by_server(std::chrono::milliseconds timeout = 5s);
  // Closes with a TCP reset (SO_LINGER 0): an abrupt disconnect.
  void reset();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string in_;
  bool eof_ = false;
};

// The soapbench-chat-server built with the tests, started on a free port.
std::string chat_server_binary();

}  // namespace soapbench::chat::test
