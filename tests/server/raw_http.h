#pragma once
// Raw TCP connections to a server on 127.0.0.1 and the HTTP/1.1 responses read
// from them, for tests that must send exactly the bytes they choose (broken
// requests, half requests, silence) and see exactly what comes back.
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace soapbench::test {

using std::chrono::milliseconds;

struct HttpResponse {
  int status = 0;
  std::string reason;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // chunked bodies are decoded
  // The value of the first header with this name (case-insensitive), or "".
  std::string header(std::string_view name) const;
};

struct ReadResult {
  enum class Outcome {
    response,  // a whole response was read
    closed,    // the peer closed (or reset) the connection first
    timeout,   // nothing conclusive before the deadline
  };
  Outcome outcome = Outcome::timeout;
  HttpResponse response;  // when outcome == response
  std::string received;   // the raw bytes of this response, or whatever arrived before close/timeout
  bool reset = false;     // closed by a reset (RST) rather than an orderly FIN
  std::string describe() const;  // for failure messages
};

std::ostream& operator<<(std::ostream& os, ReadResult::Outcome outcome);

class RawConnection {
 public:
  // Connects to 127.0.0.1:port. Throws std::system_error when that fails.
  explicit RawConnection(uint16_t port);
  ~RawConnection();
  RawConnection(RawConnection&& other) noexcept;
  RawConnection& operator=(RawConnection&&) = delete;
  RawConnection(const RawConnection&) = delete;

  // Sends every byte; false when the peer has gone (EPIPE, ECONNRESET).
  bool send(std::string_view bytes);
  // Reads one response (status line, headers, body by Content-Length, chunked or
  // up to close). Bytes past it stay buffered for the next call.
  ReadResult read_response(milliseconds timeout);
  // Waits until the peer closes the connection, reading and discarding what
  // arrives; true when it closed within `timeout`. `received` gets the bytes.
  bool wait_closed(milliseconds timeout, std::string* received = nullptr);
  // True when the connection is known to be closed by the peer right now
  // (without waiting). Buffered unread data does not count as closed.
  bool closed_by_peer();
  void shutdown_write();  // half-close: the server sees end of input, we can still read
  void close();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string buffer_;  // received, not yet consumed
  bool eof_ = false;
  bool reset_ = false;
  // Reads once (waiting at most until deadline); false on timeout.
  bool fill(std::chrono::steady_clock::time_point deadline);
};

// 0 when a TCP connection to 127.0.0.1:port succeeds (it is closed at once),
// else the errno of connect(), e.g. ECONNREFUSED.
int try_connect(uint16_t port);

// One request on a new connection, one response read back.
ReadResult exchange_once(uint16_t port, std::string_view request, milliseconds timeout = milliseconds(10000));

}  // namespace soapbench::test
