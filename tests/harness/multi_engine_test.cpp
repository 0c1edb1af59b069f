// Several connections of one client on one event loop: the fiber loop itself
// (sockets, deadlines, failures), and MultiEngine against the fake server
// (counts, concurrency, deadlines, snapshots). Time bounds only catch hangs.
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "driver_support.h"
#include "engine/fiber_loop.h"
#include "engine/multi_engine.h"

namespace soapbench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

TEST(FiberLoop, FibersTakeTurnsWhileTheyWait) {
  FiberLoop loop;
  std::vector<std::string> order;
  for (const char* name : {"a", "b"})
    loop.add([&, name] {
      for (int k = 0; k < 3; ++k) {
        order.push_back(std::string(name) + std::to_string(k));
        EXPECT_EQ(thread_io_waiter(), &loop);
        thread_io_waiter()->wait(-1, 0, Clock::now() + 5ms);
      }
    });
  const auto t = Clock::now();
  loop.run();
  // Each sleeps 3 x 5 ms; together, not one after the other.
  EXPECT_LT(seconds_since(t), 5.0);
  EXPECT_EQ(order, (std::vector<std::string>{"a0", "b0", "a1", "b1", "a2", "b2"}));
  EXPECT_EQ(thread_io_waiter(), nullptr) << "the loop is this thread's waiter only while it runs";
}

TEST(FiberLoop, ASocketWakesItsFiberAndADeadlineEndsAWait) {
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  FiberLoop loop;
  bool woken = false, timed_out = true;
  double waited_s = 0;
  loop.add([&] { woken = thread_io_waiter()->wait(pair[0], POLLIN, Clock::now() + 30s); });
  loop.add([&] {
    const auto t = Clock::now();
    int other[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, other), 0);
    timed_out = !thread_io_waiter()->wait(other[0], POLLIN, Clock::now() + 50ms);  // nobody writes
    waited_s = seconds_since(t);
    close_socket(other[0]);
    close(other[1]);
    ASSERT_EQ(write(pair[1], "x", 1), 1);  // now wake the first
  });
  const auto t = Clock::now();
  loop.run();
  EXPECT_TRUE(woken);
  EXPECT_TRUE(timed_out);
  EXPECT_GE(waited_s, 0.05);
  EXPECT_LT(seconds_since(t), 20.0);
  close(pair[0]);
  close(pair[1]);
}

double thread_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// Registrations stay from one wait to the next. A socket that becomes ready
// (data, then a hang-up) while its fiber sleeps neither wakes that sleep nor
// spins the loop, and the next wait on it is answered at once.
TEST(FiberLoop, ASocketThatFiresWhileItsFiberSleepsIsHeldUntilItsNextWait) {
  int pair[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  FiberLoop loop;
  bool first = true, slept_ready = true, second = false;
  double slept_s = 0, cpu_s = 1;
  loop.add([&] {
    first = thread_io_waiter()->wait(pair[0], POLLIN, Clock::now() + 20ms);  // nobody writes yet
    ASSERT_EQ(write(pair[1], "x", 1), 1);
    close(pair[1]);  // a hang-up too: level-triggered, it would fire on every turn
    const auto t = Clock::now();
    const double cpu = thread_cpu_s();
    slept_ready = thread_io_waiter()->wait(-1, 0, Clock::now() + 200ms);
    slept_s = seconds_since(t);
    cpu_s = thread_cpu_s() - cpu;
    second = thread_io_waiter()->wait(pair[0], POLLIN, Clock::now() + 30s);
  });
  loop.run();
  EXPECT_FALSE(first);
  EXPECT_FALSE(slept_ready) << "a sleep ends at its deadline";
  EXPECT_GE(slept_s, 0.2);
  EXPECT_LT(cpu_s, 0.1) << "the loop spun on a socket nobody waited for";
  EXPECT_TRUE(second);
  char c = 0;
  EXPECT_EQ(read(pair[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
  close(pair[0]);
}

// A socket closed through close_socket is forgotten: a new one that gets the
// same number (the lowest free) is registered anew, though its wait looks the
// same as the last (curl's sockets go through close_socket for this too).
TEST(FiberLoop, ASocketNumberReusedAfterCloseSocketIsWatchedAnew) {
  FiberLoop loop;
  bool first = true, second = false;
  int first_fd = -1, second_fd = -2;
  double waited_s = 0;
  loop.add([&] {
    int a[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
    first_fd = a[0];
    first = thread_io_waiter()->wait(a[0], POLLIN, Clock::now() + 20ms);  // registered, nobody writes
    close_socket(a[0]);
    close(a[1]);
    int b[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
    second_fd = b[0];
    ASSERT_EQ(write(b[1], "y", 1), 1);
    const auto t = Clock::now();
    second = thread_io_waiter()->wait(b[0], POLLIN, Clock::now() + 10s);
    waited_s = seconds_since(t);
    close_socket(b[0]);
    close(b[1]);
  });
  loop.run();
  EXPECT_FALSE(first);
  EXPECT_EQ(second_fd, first_fd) << "the test needs the number to come back";
  EXPECT_TRUE(second) << "the new socket was never registered";
  EXPECT_LT(waited_s, 5.0);
}

TEST(FiberLoop, AnExceptionIsRethrownAfterTheOtherFibersEnd) {
  FiberLoop loop;
  bool other_finished = false;
  loop.add([] { throw std::runtime_error("lane failed"); });
  loop.add([&] {
    thread_io_waiter()->wait(-1, 0, Clock::now() + 10ms);
    other_finished = true;
  });
  EXPECT_THROW(
      {
        try {
          loop.run();
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "lane failed");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_TRUE(other_finished);
}

TEST(ConnectionPlan, AClientsRateIsSharedAsEvenlySpacedSlots) {
  WorkerPlan plan;
  plan.rate = 100;  // this client's slots: 0.005 + i / 100
  plan.schedule_offset_s = 0.005;
  plan.connections = 4;
  plan.requests = 7;
  for (unsigned j = 0; j < 4; ++j) {
    const WorkerPlan c = connection_plan(plan, j);
    EXPECT_EQ(c.connections, 1u);
    EXPECT_EQ(c.requests, 7u) << "requests are per connection";
    EXPECT_DOUBLE_EQ(c.rate, 25.0);
    EXPECT_DOUBLE_EQ(c.schedule_offset_s, 0.005 + j * 0.01);
  }
  plan.rate = 0;
  EXPECT_DOUBLE_EQ(connection_plan(plan, 3).schedule_offset_s, 0.005);
}

TEST(MergeConnections, CountsAddAndTheProcessWideFiguresDoNot) {
  WorkerResult a, b;
  a.ok = 10;
  b.ok = 5;
  a.failures.timeout = 1;
  b.failures.read = 2;
  a.measured_s = 1.0;
  b.measured_s = 1.2;
  a.cpu_s = 0.4;
  b.cpu_s = 0.5;  // both read the one process's CPU
  a.in_flight = 1;
  b.in_flight = 1;
  a.connections_opened = 1;
  b.connections_opened = 2;
  b.first_failure = "read: reset";
  for (int k = 0; k < 10; ++k) a.latency.record(0.001);
  for (int k = 0; k < 5; ++k) b.latency.record(0.002);
  EngineInterval i0, i1;
  i0.index = 0;
  i0.ok = 10;
  i0.end_s = 1.0;
  i1.index = 1;
  i1.ok = 5;
  i1.end_s = 1.2;
  a.intervals = {i0};
  b.intervals = {i0, i1};
  const WorkerResult m = merge_connections({a, b});
  EXPECT_EQ(m.ok, 15u);
  EXPECT_EQ(m.failures.total(), 3u);
  EXPECT_EQ(m.latency.count(), 15u);
  EXPECT_DOUBLE_EQ(m.measured_s, 1.2);
  EXPECT_DOUBLE_EQ(m.cpu_s, 0.5);
  EXPECT_EQ(m.in_flight, 2u);
  EXPECT_EQ(m.connections_opened, 3u);
  EXPECT_EQ(m.first_failure, "read: reset");
  ASSERT_EQ(m.intervals.size(), 2u);
  EXPECT_EQ(m.intervals[0].ok, 20u);
  EXPECT_EQ(m.intervals[1].ok, 5u);
  EXPECT_EQ(m.sent(), 20u);
}

WorkerPlan plan_for(const std::string& url, const std::string& kind, unsigned connections) {
  WorkerPlan plan;
  plan.call.client_kind = kind;
  plan.call.client.url = url;
  plan.call.client.timeout_s = 10;
  plan.warmup_s = 0;
  plan.interval_s = 0.25;
  plan.connections = connections;
  return plan;
}

class Connections : public testing::TestWithParam<std::string> {};

TEST_P(Connections, RequestsArePerConnectionAndEveryCallIsCounted) {
  test::FakeServer server(test::FakeServer::Mode::echo);
  WorkerPlan plan = plan_for(server.url(), GetParam(), 3);
  plan.requests = 7;
  std::vector<EngineInterval> sent;
  MultiEngine load(plan, [&](const EngineInterval& i) { sent.push_back(i); });
  std::atomic<bool> stop{false};
  load.run(0, stop);
  const WorkerResult r = load.result();
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.ok, 21u) << r.first_failure;
  EXPECT_EQ(r.latency.count(), 21u);
  EXPECT_EQ(r.failures.total(), 0u);
  EXPECT_EQ(server.requests(), 21u);
  uint64_t in_intervals = 0;
  for (size_t k = 0; k < sent.size(); ++k) {
    EXPECT_EQ(sent[k].index, k) << "one merged interval per index, in order";
    in_intervals += sent[k].ok;
  }
  EXPECT_EQ(in_intervals, 21u);
}

TEST_P(Connections, ConnectionsToASlowServerWaitTogetherOnOneThread) {
  test::FakeServer server(test::FakeServer::Mode::slow, 50ms);
  WorkerPlan plan = plan_for(server.url(), GetParam(), 5);
  plan.duration_s = 1;
  MultiEngine load(plan);
  std::atomic<bool> stop{false};
  load.run(0, stop);
  const WorkerResult r = load.result();
  // 50 ms a call: one connection makes about 20 in a second, five on one loop
  // about 100; one after another they would make 20 together.
  EXPECT_GE(r.ok, 50u) << r.first_failure;
  EXPECT_LE(r.ok, 5u * 21u);
  EXPECT_EQ(r.failures.total(), 0u) << r.first_failure;
}

TEST_P(Connections, ATricklingServerTimesEveryConnectionsCallsOutOnTime) {
  test::FakeServer server(test::FakeServer::Mode::trickle);
  WorkerPlan plan = plan_for(server.url(), GetParam(), 3);
  plan.call.client.timeout_s = 0.3;
  plan.requests = 2;
  MultiEngine load(plan);
  std::atomic<bool> stop{false};
  const auto t = Clock::now();
  load.run(0, stop);
  const WorkerResult r = load.result();
  EXPECT_EQ(r.failures.timeout, 6u) << r.first_failure;
  EXPECT_EQ(r.ok, 0u);
  // Two calls of 0.3 s per connection, the three together: about 0.6 s.
  EXPECT_LT(seconds_since(t), 10.0);
}

TEST_P(Connections, ASnapshotDuringTheCallsCountsEveryConnectionInFlight) {
  test::FakeServer server(test::FakeServer::Mode::slow, 1500ms);
  WorkerPlan plan = plan_for(server.url(), GetParam(), 4);
  plan.requests = 1;
  MultiEngine load(plan);
  std::atomic<bool> stop{false};
  std::thread runner([&] { load.run(0, stop); });
  const auto t = Clock::now();
  while (server.requests() < 4 && seconds_since(t) < 20) std::this_thread::sleep_for(10ms);
  const WorkerResult during = load.result();
  runner.join();
  EXPECT_TRUE(during.partial);
  EXPECT_EQ(during.in_flight, 4u);
  EXPECT_EQ(during.sent(), 4u);
  const WorkerResult after = load.result();
  EXPECT_EQ(after.ok, 4u) << after.first_failure;
  EXPECT_EQ(after.in_flight, 0u);
}

INSTANTIATE_TEST_SUITE_P(Kinds, Connections, testing::Values("raw", "curl"));

TEST(Connections, OnlyTheRawAndCurlClientsKeepSeveral) {
  EXPECT_THROW(MultiEngine(plan_for("http://127.0.0.1:9/echo", "gsoap", 2)), std::invalid_argument);
  EXPECT_NO_THROW(MultiEngine(plan_for("http://127.0.0.1:9/echo", "gsoap", 1)));
}

}  // namespace
}  // namespace soapbench
