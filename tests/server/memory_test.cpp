// Memory in per-connection mode: 100,000 echoString requests over a few
// keep-alive connections must not make the server grow. A leak of even a few
// bytes per request shows up as megabytes here.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include "test_support.h"

namespace soapbench::test {
namespace {

constexpr int kConnections = 4;
constexpr int kWarmUpRequests = 10000;
constexpr int kTotalRequests = 100000;
constexpr uint64_t kMaxGrowthBytes = 2 << 20;
// A hang guard, not a speed requirement: the loop normally needs a few seconds.
constexpr auto kWallClockCap = std::chrono::seconds(100);

// Sends `per_connection` copies of `request` on each connection, one thread per
// connection, checking every response. Returns "" or the first problem.
std::string drive(std::vector<RawConnection>& connections, const std::string& request, size_t body_size,
                  int per_connection, std::chrono::steady_clock::time_point cap) {
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::string problem;
  std::vector<std::thread> threads;
  for (auto& c : connections) {
    threads.emplace_back([&, conn = &c] {
      for (int i = 0; i < per_connection && !failed; ++i) {
        std::string why;
        if (std::chrono::steady_clock::now() > cap) {
          why = "the wall-clock cap passed (hang guard)";
        } else if (!conn->send(request)) {
          why = "send failed: the server closed the connection";
        } else {
          const auto r = conn->read_response(milliseconds(10000));
          if (r.outcome != ReadResult::Outcome::response || r.response.status != 200 ||
              r.response.body.size() != body_size)
            why = "bad response: " + r.describe();
        }
        if (!why.empty()) {
          std::lock_guard lock(mutex);
          if (!failed.exchange(true)) problem = why + " (request " + std::to_string(i) + " on a connection)";
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  return problem;
}

TEST(Memory, PerConnectionModeRssStaysFlatOver100000Requests) {
  ServerProcess server({"--mode", "per-connection"});
  // The request exactly as the generated client puts it on the wire.
  std::string request;
  {
    EchoClient client(server.endpoint());
    std::string echoed;
    ASSERT_EQ(client.echo_string(make_string(PayloadSize{}.string_length), echoed), "");
    request = client.last_request();
  }
  const auto first = exchange_once(server.port(), request);
  ASSERT_EQ(first.outcome, ReadResult::Outcome::response) << first.describe();
  ASSERT_EQ(first.response.status, 200) << first.describe();
  ASSERT_EQ(echoed_text(first.response.body), make_string(PayloadSize{}.string_length));
  const size_t body_size = first.response.body.size();

  std::vector<RawConnection> connections;
  for (int i = 0; i < kConnections; ++i) connections.emplace_back(server.port());
  const auto cap = std::chrono::steady_clock::now() + kWallClockCap;

  ASSERT_EQ(drive(connections, request, body_size, kWarmUpRequests / kConnections, cap), "");
  const auto warm = fetch_stats(server.port());
  ASSERT_EQ(drive(connections, request, body_size, (kTotalRequests - kWarmUpRequests) / kConnections, cap), "");
  const auto done = fetch_stats(server.port());

  EXPECT_EQ(done["requests"]["echoString"].get<uint64_t>(), static_cast<uint64_t>(kTotalRequests) + 2);
  EXPECT_EQ(done["faults"], 0);
  const auto rss_warm = warm["rss_bytes"].get<int64_t>();
  const auto rss_done = done["rss_bytes"].get<int64_t>();
  std::printf("rss after %d requests: %lld bytes, after %d: %lld bytes (growth %lld)\n", kWarmUpRequests,
              static_cast<long long>(rss_warm), kTotalRequests, static_cast<long long>(rss_done),
              static_cast<long long>(rss_done - rss_warm));
  RecordProperty("rss_after_warm_up", std::to_string(rss_warm));
  RecordProperty("rss_after_all", std::to_string(rss_done));
  EXPECT_LT(rss_done - rss_warm, static_cast<int64_t>(kMaxGrowthBytes));
}

// The event-loop modes: an idle keep-alive connection, after a request of
// 64 KB, holds at most 16 KB of the server's memory (README, "Memory bounds"):
// gSOAP's context belongs to the loop or worker, and large buffers go with their request.
class IdleMemory : public ::testing::TestWithParam<ServerMode> {};

TEST_P(IdleMemory, IdleConnectionHoldsAtMost16KB) {
  constexpr int kIdle = 1000;
  constexpr int64_t kMaxPerConnection = 16 * 1024;
  ServerProcess server(flags_for(GetParam()));
  const std::string request = http_post(soap_envelope(echo_string_body(std::string(64 * 1024, 'x'))));
  std::vector<RawConnection> idle;
  idle.reserve(kIdle);
  auto open_and_serve = [&](int n) {
    for (int i = 0; i < n; ++i) {
      idle.emplace_back(server.port());
      ASSERT_TRUE(idle.back().send(request));
      const auto r = idle.back().read_response(milliseconds(10000));
      ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
      ASSERT_EQ(r.response.status, 200) << r.describe();
    }
  };
  open_and_serve(50);  // the loops' and workers' own buffers are warm from here on
  const auto before = fetch_stats(server.port())["rss_bytes"].get<int64_t>();
  open_and_serve(kIdle);
  const auto after = fetch_stats(server.port());
  const int64_t per_connection = (after["rss_bytes"].get<int64_t>() - before) / kIdle;
  std::printf("%s: %lld bytes of RSS per idle connection\n", GetParam().name.c_str(), static_cast<long long>(per_connection));
  EXPECT_EQ(after["connections"]["open"].get<int64_t>(), kIdle + 50 + 1);
  EXPECT_LE(per_connection, kMaxPerConnection);
}

std::vector<ServerMode> event_loop_modes() {
  std::vector<ServerMode> modes;
  for (const ServerMode& m : all_modes())
    if (m.name != "per-connection") modes.push_back(m);
  return modes;
}
INSTANTIATE_TEST_SUITE_P(EventLoopModes, IdleMemory, ::testing::ValuesIn(event_loop_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
