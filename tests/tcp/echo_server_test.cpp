// soapbench-echo-server over real loopback sockets, in both modes: every byte
// echoed and every message counted, and bad input, abrupt disconnects and a
// client that never reads each followed by a connection that must be served.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <thread>

#include "echo_support.h"

namespace soapbench::test {
namespace {

std::string payload_of(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + 7) & 0xff);
  return s;
}

// One frame echoed on a fresh connection; the basic "still serving" check.
void expect_served(uint16_t port) {
  const int fd = connect_loopback(port);
  ASSERT_GE(fd, 0);
  const std::string f = frame("still serving");
  ASSERT_TRUE(send_all(fd, f));
  std::string back;
  ASSERT_TRUE(recv_exact(fd, f.size(), back));
  EXPECT_EQ(back, f);
  close(fd);
}

// Waits up to 2 s for a /stats counter to equal `want` (the server counts
// after its read, which may come just after the client's close).
uint64_t wait_counter(const EchoServerProcess& s, const std::string& a, const std::string& b, uint64_t want) {
  uint64_t v = 0;
  for (int i = 0; i < 100; ++i) {
    const auto j = s.stats();
    v = b.empty() ? j.at(a).get<uint64_t>() : j.at(a).at(b).get<uint64_t>();
    if (v == want) return v;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return v;
}

class EchoServer : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(EchoServer, EchoesEverySizeByteForByteAndCountsEachMessage) {
  EchoServerProcess server(GetParam());
  const int fd = connect_loopback(server.port());
  ASSERT_GE(fd, 0);
  const std::vector<size_t> sizes{0, 1, 100, 65536 + 7, 2'000'000};
  uint64_t bytes = 0;
  for (size_t n : sizes) {
    const std::string f = frame(payload_of(n));
    bytes += f.size();
    // Send from another thread while reading here: a 2 MB echo must stream
    // back while the rest is still being sent.
    bool sent = false;
    std::thread sender([&] { sent = send_all(fd, f); });
    std::string back;
    const bool got = recv_exact(fd, f.size(), back);
    sender.join();
    ASSERT_TRUE(sent && got) << n;
    EXPECT_TRUE(back == f) << "echo of " << n << " bytes differs";
  }
  close(fd);
  const auto stats = server.stats();
  EXPECT_EQ(stats.at("requests").at("total").get<uint64_t>(), sizes.size());
  EXPECT_EQ(stats.at("bytes").at("in").get<uint64_t>(), bytes);
  EXPECT_EQ(stats.at("bytes").at("out").get<uint64_t>(), bytes);
  EXPECT_EQ(stats.at("faults").get<uint64_t>(), 0u);
  EXPECT_EQ(stats.at("mode").get<std::string>(), GetParam()[1]);
}

TEST_P(EchoServer, ManyConnectionsInterleavedAreCountedExactly) {
  EchoServerProcess server(GetParam());
  std::vector<int> fds;
  for (int i = 0; i < 10; ++i) fds.push_back(connect_loopback(server.port()));
  for (int round = 0; round < 20; ++round)
    for (size_t i = 0; i < fds.size(); ++i) {
      const std::string f = frame("conn " + std::to_string(i) + " round " + std::to_string(round));
      ASSERT_TRUE(send_all(fds[i], f));
      std::string back;
      ASSERT_TRUE(recv_exact(fds[i], f.size(), back));
      ASSERT_EQ(back, f);
    }
  for (int fd : fds) close(fd);
  const auto stats = server.stats();
  EXPECT_EQ(stats.at("requests").at("total").get<uint64_t>(), 200u);
  EXPECT_EQ(stats.at("connections").at("accepted").get<uint64_t>(), 10u);
  EXPECT_EQ(wait_counter(server, "connections", "open", 0), 0u);
}

TEST_P(EchoServer, OversizedHeaderClosesOnlyThatConnection) {
  std::vector<std::string> flags = GetParam();
  flags.insert(flags.end(), {"--max-frame", "1M"});
  EchoServerProcess server(flags);
  const int other = connect_loopback(server.port());  // open across the bad input, must keep working
  const int fd = connect_loopback(server.port());
  ASSERT_TRUE(send_all(fd, header((1u << 20) + 1) + "xyz"));
  EXPECT_TRUE(closed_by_peer(fd));
  close(fd);
  EXPECT_EQ(wait_counter(server, "faults", "", 1), 1u);
  const std::string f = frame(payload_of(1u << 20));  // exactly the limit is allowed
  bool sent = false;
  std::thread sender([&] { sent = send_all(other, f); });
  std::string back;
  EXPECT_TRUE(recv_exact(other, f.size(), back));
  sender.join();
  EXPECT_TRUE(sent && back == f);
  close(other);
  expect_served(server.port());
}

TEST_P(EchoServer, HttpAndNoiseAreRefusedAsBadFrames) {
  EchoServerProcess server(GetParam());
  for (const std::string& junk : {std::string("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), std::string(64, '\xff')}) {
    const int fd = connect_loopback(server.port());
    ASSERT_TRUE(send_all(fd, junk));
    EXPECT_TRUE(closed_by_peer(fd));
    close(fd);
  }
  EXPECT_EQ(wait_counter(server, "faults", "", 2), 2u);
  EXPECT_EQ(server.stats().at("requests").at("total").get<uint64_t>(), 0u);
  expect_served(server.port());
}

TEST_P(EchoServer, AbruptDisconnectsMidMessageLeaveItServing) {
  EchoServerProcess server(GetParam());
  {  // half a message, then a normal close
    const int fd = connect_loopback(server.port());
    ASSERT_TRUE(send_all(fd, header(1000) + payload_of(100)));
    close(fd);
  }
  {  // half a message, then a reset (SO_LINGER 0) with the echo unread
    const int fd = connect_loopback(server.port());
    ASSERT_TRUE(send_all(fd, header(5000) + payload_of(3000)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const linger hard{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    close(fd);
  }
  {  // half a header
    const int fd = connect_loopback(server.port());
    ASSERT_TRUE(send_all(fd, std::string(2, '\0')));
    close(fd);
  }
  EXPECT_EQ(wait_counter(server, "connections", "cut_mid_message", 3), 3u);
  EXPECT_EQ(server.stats().at("requests").at("total").get<uint64_t>(), 0u);
  expect_served(server.port());
  EXPECT_EQ(wait_counter(server, "connections", "open", 0), 0u);
}

TEST_P(EchoServer, AClientThatNeverReadsHoldsOnlyItsOwnConnection) {
  EchoServerProcess server(GetParam());
  const int stuck = connect_loopback(server.port());
  // Far more than the socket buffers hold: the server's echo backs up and it
  // must stop reading this connection, not stop serving.
  const std::string big = frame(payload_of(32u << 20));
  size_t sent = 0;
  for (int i = 0; i < 1000 && sent < big.size(); ++i) {
    const ssize_t n = send(stuck, big.data() + sent, big.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) sent += static_cast<size_t>(n);
    else std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_LT(sent, big.size());  // it did back up
  const auto start = std::chrono::steady_clock::now();
  expect_served(server.port());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  close(stuck);
  expect_served(server.port());
}

TEST_P(EchoServer, StatsAnswersOnlyGetStats) {
  EchoServerProcess server(GetParam());
  EXPECT_EQ(http_get(server.stats_port(), "/nope").rfind("HTTP/1.1 404", 0), 0u);
  const auto stats = server.stats();
  EXPECT_GE(stats.at("cpu").at("user_s").get<double>(), 0.0);
  EXPECT_EQ(stats.at("threads").get<unsigned>(), GetParam()[1] == "threaded" ? 4u : 1u);
}

TEST_P(EchoServer, SigtermStopsItWithConnectionsOpen) {
  EchoServerProcess server(GetParam());
  const int fd = connect_loopback(server.port());
  ASSERT_TRUE(send_all(fd, header(10)));  // mid-message
  server.program().wait_for_line("never", std::chrono::milliseconds(50));
  kill(server.program().pid(), SIGTERM);
  EXPECT_EQ(server.program().wait(std::chrono::milliseconds(3000)), 0);
  close(fd);
}

INSTANTIATE_TEST_SUITE_P(Modes, EchoServer,
                         ::testing::Values(std::vector<std::string>{"--mode", "threaded", "--threads", "4"},
                                           std::vector<std::string>{"--mode", "non-threaded"}),
                         [](const auto& test_param) { return test_param.param[1] == "threaded" ? "threaded" : "non_threaded"; });

TEST(EchoServerFlags, ABadFlagIsNamedWithExitCode2) {
  std::string out, err;
  EXPECT_EQ(run_program({bin_path("soapbench-echo-server"), "--mode", "non-threaded", "--threads", "4"}, &out, &err), 2);
  EXPECT_NE(err.find("--threads"), std::string::npos) << err;
  EXPECT_EQ(run_program({bin_path("soapbench-echo-server"), "--mode", "forked"}, &out, &err), 2);
  EXPECT_NE(err.find("--mode"), std::string::npos) << err;
  EXPECT_EQ(run_program({bin_path("soapbench-echo-server"), "--max-frame", "lots"}, &out, &err), 2);
  EXPECT_NE(err.find("--max-frame"), std::string::npos) << err;
}

TEST(EchoServerFlags, StatsOffMeansNoSecondPort) {
  EchoServerProcess server({"--stats", "off"});
  EXPECT_EQ(server.first_line().find("stats="), std::string::npos) << server.first_line();
  expect_served(server.port());
}

}  // namespace
}  // namespace soapbench::test
