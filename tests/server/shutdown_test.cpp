// Graceful shutdown on SIGTERM/SIGINT, in every server mode: requests in flight
// finish, idle connections are closed, the summary is printed, the exit code is
// 0, and the port is closed afterwards.
#include <gtest/gtest.h>

#include <csignal>

#include "test_support.h"

namespace soapbench::test {
namespace {

constexpr milliseconds kExitTimeout{10000};  // --grace 3 plus a margin for a loaded machine

class Shutdown : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam(), {"--grace", "3"})};

  // After the stop signal: the server no longer accepts connections. Polls
  // (bounded) because the signal is handled asynchronously.
  bool stops_listening() {
    const auto deadline = std::chrono::steady_clock::now() + kExitTimeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (try_connect(server.port()) == ECONNREFUSED) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }

  // Exit code 0 and the summary line with the exact request counts.
  void expect_clean_exit(int echo_strings) {
    const auto exit = server.wait_exit(kExitTimeout);
    ASSERT_TRUE(exit.has_value()) << "still running " << kExitTimeout.count() << " ms after the signal";
    EXPECT_EQ(exit->describe(), "exit code 0");
    const std::string out = server.read_stdout(milliseconds(2000));
    const std::string expected = "(mode " + GetParam().name + "): " + std::to_string(echo_strings) +
                                 " requests (echoString " + std::to_string(echo_strings) + ", echoStruct 0, echoBinary 0)";
    EXPECT_TRUE(out.starts_with("soapbench-server stopped after ")) << out;
    EXPECT_NE(out.find(expected), std::string::npos) << "expected \"" << expected << "\" in: " << out;
    EXPECT_EQ(try_connect(server.port()), ECONNREFUSED) << "the port still accepts connections";
  }
};

// Half a request is in flight when SIGTERM arrives; the rest comes within the
// grace period. The response must arrive complete.
TEST_P(Shutdown, RequestInFlightCompletes) {
  const std::string text = make_string(PayloadSize{}.string_length);
  const std::string request = http_post(soap_envelope(echo_string_body(text)));
  const size_t half = request.size() / 2;
  RawConnection c(server.port());
  ASSERT_TRUE(c.send(std::string_view(request).substr(0, half)));
  // Let the server see the first half before the signal, as a slow client's would be.
  std::this_thread::sleep_for(milliseconds(100));
  server.send_signal(SIGTERM);
  ASSERT_TRUE(stops_listening());
  ASSERT_TRUE(c.send(std::string_view(request).substr(half))) << "the connection was dropped";
  const auto r = c.read_response(kExitTimeout);
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 200) << r.describe();
  EXPECT_EQ(echoed_text(r.response.body), text);
  EXPECT_TRUE(c.wait_closed(kExitTimeout)) << "the connection stayed open after shutdown";
  expect_clean_exit(1);
}

// A keep-alive connection between requests is closed on SIGTERM: it has
// nothing in flight to wait for.
TEST_P(Shutdown, IdleKeepAliveConnectionIsClosed) {
  RawConnection c(server.port());
  ASSERT_TRUE(c.send(http_post(soap_envelope(echo_string_body("before the signal")))));
  const auto r = c.read_response(kExitTimeout);
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  ASSERT_EQ(r.response.status, 200);
  ASSERT_FALSE(c.closed_by_peer());
  server.send_signal(SIGTERM);
  EXPECT_TRUE(c.wait_closed(kExitTimeout)) << "the idle connection was not closed";
  expect_clean_exit(1);
}

// SIGINT (Ctrl-C) stops the server the same way.
TEST_P(Shutdown, SigintStopsLikeSigterm) {
  std::string echoed;
  {
    EchoClient client(server.endpoint());
    ASSERT_EQ(client.echo_string("one", echoed), "");
    ASSERT_EQ(client.echo_string("two", echoed), "");
  }
  server.send_signal(SIGINT);
  expect_clean_exit(2);
}

INSTANTIATE_TEST_SUITE_P(AllModes, Shutdown, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
