#pragma once
// A tiny HTTP server on 127.0.0.1:0 for client tests: it reads each request
// (headers and Content-Length body) and answers with canned bytes, or
// misbehaves on purpose. One thread; stopped and joined by the destructor.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace soapbench::test {

enum class Behaviour {
  respond,             // send the canned bytes
  respond_and_close,   // send them, then close the connection
  never_answer,        // read the request, keep the connection open, say nothing
  close_mid_response,  // send the first half of the canned bytes, then close
};

// "HTTP/1.1 <status>" with Content-Type text/xml and Content-Length, then `body`.
std::string http_response(std::string_view status, std::string_view body, std::string_view extra_headers = {});

class FakeServer {
 public:
  explicit FakeServer(std::string response, Behaviour behaviour = Behaviour::respond);
  ~FakeServer();
  FakeServer(const FakeServer&) = delete;
  FakeServer& operator=(const FakeServer&) = delete;

  std::string url() const;  // http://127.0.0.1:PORT/echo
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  int requests() const { return requests_.load(); }
  std::string last_request() const;  // as it arrived, headers and body

 private:
  void serve();

  const std::string response_;
  const Behaviour behaviour_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> requests_{0};
  mutable std::mutex mutex_;
  std::string last_request_;
  std::thread thread_;
};

// A loopback port that refuses connections: bound, never listening, held
// until the object goes away so that nobody else can take it meanwhile.
class ClosedPort {
 public:
  ClosedPort();
  ~ClosedPort();
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  std::string url() const;

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace soapbench::test
