// The "tcp" client kind: URL and operation checks, exact echoes of every size
// against soapbench-echo-server, and each failure kind against a fake that
// corrupts, hangs up or stays silent.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "client.h"
#include "echo_support.h"

namespace soapbench {
namespace {

using test::EchoServerProcess;

ClientOptions tcp_options(const std::string& url, size_t bytes, double timeout_s = 5) {
  ClientOptions o;
  o.url = url;
  o.operation = Operation::tcp_echo;
  o.payload.data_bytes = bytes;
  o.timeout_s = timeout_s;
  return o;
}

TEST(TcpClient, RefusesOtherUrlsAndOperations) {
  for (const std::string url : {"http://127.0.0.1:80/echo", "tcp://127.0.0.1", "tcp://127.0.0.1:0",
                                "tcp://127.0.0.1:70000", "tcp://:80", "tcp://a b:80", "tcp://[::1]80"})
    EXPECT_THROW(make_client("tcp", tcp_options(url, 10)), std::invalid_argument) << url;
  EXPECT_NO_THROW(make_client("tcp", tcp_options("tcp://[::1]:9", 10)));
  ClientOptions soap = tcp_options("tcp://127.0.0.1:9", 10);
  soap.operation = Operation::echo_string;
  EXPECT_THROW(make_client("tcp", soap), std::invalid_argument);
  ClientOptions tcp_over_http = tcp_options("http://127.0.0.1:9/echo", 10);
  EXPECT_THROW(make_client("raw", tcp_over_http), std::invalid_argument);
  ClientOptions binary = tcp_options("http://127.0.0.1:9/echo", 10);
  binary.operation = Operation::echo_binary;
  EXPECT_THROW(make_client("gsoap", binary), std::invalid_argument);
  EXPECT_THROW(make_client("curl", binary), std::invalid_argument);
  EXPECT_NO_THROW(make_client("raw", binary));
}

TEST(TcpClient, EchoesEverySizeAndCountsWireBytes) {
  EchoServerProcess server({"--mode", "non-threaded"});
  uint64_t calls = 0;
  for (size_t n : {size_t{0}, size_t{5}, size_t{100}, size_t{2'000'000}}) {
    auto client = make_client("tcp", tcp_options(server.url(), n));
    for (int i = 0; i < 3; ++i) {
      const CallResult r = client->call();
      ASSERT_TRUE(r.ok) << n << ": " << r.detail;
      ++calls;
    }
    EXPECT_EQ(client->last_wire_bytes().request, n + 4);
    EXPECT_EQ(client->last_wire_bytes().response, n + 4);
  }
  EXPECT_EQ(server.stats().at("requests").at("total").get<uint64_t>(), calls);
  EXPECT_EQ(server.stats().at("connections").at("accepted").get<uint64_t>(), 4u);
}

TEST(TcpClient, NewConnectionPerMessage) {
  EchoServerProcess server({"--mode", "threaded", "--threads", "2"});
  ClientOptions o = tcp_options(server.url(), 100);
  o.new_connection = true;
  auto client = make_client("tcp", o);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client->call().ok);
  EXPECT_EQ(server.stats().at("connections").at("accepted").get<uint64_t>(), 5u);
}

// A one-connection-at-a-time TCP server that misbehaves in one way.
class FakeTcp {
 public:
  enum class Mode { corrupt, hang_up, silent, replay };
  explicit FakeTcp(Mode mode) : mode_(mode) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 8);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeTcp() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    thread_.join();
    close(fd_);
  }
  std::string url() const { return "tcp://127.0.0.1:" + std::to_string(port_); }

 private:
  void serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      const timeval tv{0, 100000};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::string first;
      for (int calls = 0; !stop_;) {
        char buf[4096];
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n == 0) break;
        if (n < 0) continue;
        std::string in(buf, static_cast<size_t>(n));
        if (mode_ == Mode::hang_up) break;
        if (mode_ == Mode::silent) continue;
        if (mode_ == Mode::corrupt) in[in.size() - 1] ^= 1;
        if (mode_ == Mode::replay && calls++ == 0) first = in;
        if (mode_ == Mode::replay) in = first;  // the first message again
        send(c, in.data(), in.size(), MSG_NOSIGNAL);
      }
      close(c);
    }
  }
  Mode mode_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST(TcpClient, EachFailureHasItsKind) {
  {
    FakeTcp fake(FakeTcp::Mode::corrupt);
    const CallResult r = make_client("tcp", tcp_options(fake.url(), 100))->call();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.kind, FailureKind::mismatch) << r.detail;
    EXPECT_NE(r.detail.find("byte 103"), std::string::npos) << r.detail;
  }
  {
    FakeTcp fake(FakeTcp::Mode::replay);
    auto client = make_client("tcp", tcp_options(fake.url(), 100));
    EXPECT_TRUE(client->call().ok);
    const CallResult r = client->call();  // the call number in the payload tells the echoes apart
    EXPECT_EQ(r.kind, FailureKind::mismatch) << r.detail;
  }
  {
    FakeTcp fake(FakeTcp::Mode::hang_up);
    const CallResult r = make_client("tcp", tcp_options(fake.url(), 100))->call();
    EXPECT_EQ(r.kind, FailureKind::read) << r.detail;
  }
  {
    FakeTcp fake(FakeTcp::Mode::silent);
    const auto start = std::chrono::steady_clock::now();
    const CallResult r = make_client("tcp", tcp_options(fake.url(), 100, 0.3))->call();
    EXPECT_EQ(r.kind, FailureKind::timeout) << r.detail;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }
  const CallResult r = make_client("tcp", tcp_options("tcp://127.0.0.1:" + std::to_string(test::unused_port()), 1))->call();
  EXPECT_EQ(r.kind, FailureKind::connect) << r.detail;
}

}  // namespace
}  // namespace soapbench
