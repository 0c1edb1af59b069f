// Per-call deadlines, interrupts and connect backoff end to end: a server that
// trickles a valid response (about 100 bytes/s, so every recv() gets a byte),
// `check` and `run` against it, Ctrl-C during the probe call, a dead server.
// The time bounds are the promises (fail in under 2 s, exit within
// 1 s of SIGINT): each has the margin between the deadline and the bound.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include "driver_support.h"
#include "run_output.h"
#include "core/results.h"

namespace soapbench {
namespace {

using test::Program;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

class TrickleDeadline : public testing::TestWithParam<std::string> {};

TEST_P(TrickleDeadline, CheckFailsWithinTheTimeout) {
  test::FakeServer trickle(test::FakeServer::Mode::trickle);
  const auto start = Clock::now();
  Program p({test::bin_path("soapbench"), "check", "--url", trickle.url(), "--client", GetParam(), "--timeout",
             "1s"});
  ASSERT_EQ(p.wait(30s), 1) << p.out() << p.err();
  EXPECT_LT(seconds_since(start), 2.0) << p.out();
  EXPECT_NE(p.out().find("FAILED"), std::string::npos) << p.out();
  EXPECT_NE(p.out().find("echoString  timeout"), std::string::npos) << p.out();
  EXPECT_NE(p.out().find("echoStruct  skipped"), std::string::npos) << p.out();
}

TEST_P(TrickleDeadline, RunCountsEveryCallAsATimeoutAndEndsOnTime) {
  test::FakeServer trickle(test::FakeServer::Mode::trickle);
  test::TempDir dir;
  const auto start = Clock::now();
  Program p(test::soapbench_command("run", dir,
                                    {"--url", trickle.url(), "--client", GetParam(), "--op", "echoString",
                                     "--clients", "1,2", "--duration", "2s", "--warmup", "0", "--interval", "1s",
                                     "--timeout", "1s"}));
  ASSERT_EQ(p.wait(60s), 1) << p.out() << p.err();  // measured, and errors==0 failed
  // The probe (1 s), then two steps of 2 s, each with a last call of up to 1 s and
  // the start-up of its workers: about 9 s. Before the deadline was the call's,
  // one step took minutes.
  EXPECT_LT(seconds_since(start), 15.0) << p.out();
  const RunRecord record = test::results_of(p);
  EXPECT_FALSE(record.partial);
  ASSERT_EQ(record.operations.at(0).steps.size(), 2u) << p.out();
  for (const StepResult& step : record.operations.at(0).steps) {
    EXPECT_EQ(step.requests, 0u);
    EXPECT_GE(step.failures.timeout, step.clients * 2) << "a call per second per client for 2 s";
    EXPECT_EQ(step.failures.total(), step.failures.timeout) << p.out();
    EXPECT_EQ(step.sent(), step.failures.timeout + step.in_flight);
    for (const auto& w : step.warnings) EXPECT_EQ(w.find("silent"), std::string::npos) << w;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, TrickleDeadline, testing::Values("raw", "curl", "gsoap"));

TEST(Interrupt, SigintDuringTheProbeEndsTheRunWithinASecond) {
  test::FakeServer trickle(test::FakeServer::Mode::trickle);
  test::TempDir dir;
  Program p(test::soapbench_command("run", dir,
                                    {"--url", trickle.url(), "--op", "echoString", "--clients", "1",
                                     "--duration", "2s", "--timeout", "60s"}));
  const auto asked = Clock::now();
  while (trickle.requests() == 0 && seconds_since(asked) < 20) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(trickle.requests(), 1u) << "the probe call";
  std::this_thread::sleep_for(200ms);  // well inside the probe's call
  const auto sent = Clock::now();
  ::kill(p.pid(), SIGINT);
  ASSERT_EQ(p.wait(20s), 130) << p.out() << p.err();
  EXPECT_LT(seconds_since(sent), 1.0) << p.out() << p.err();
  EXPECT_TRUE(test::children_of(p.pid()).empty());
  const RunRecord record = test::results_of(p);
  EXPECT_TRUE(record.partial);
  EXPECT_TRUE(record.operations.empty()) << "nothing was measured";
}

TEST(Interrupt, SigintDuringAStepEndsTheRunWithinASecond) {
  test::FakeServer trickle(test::FakeServer::Mode::trickle);
  test::TempDir dir;
  // Warm-up first, then the measurement: the calls are blocked in the trickle either way.
  for (const char* phase : {"warm-up", "measuring"}) {
    SCOPED_TRACE(phase);
    const bool warming = std::string(phase) == "warm-up";
    Program p(test::soapbench_command("run", dir,
                                      {"--url", trickle.url(), "--op", "echoString", "--clients", "2",
                                       "--duration", "30s", "--warmup", warming ? "30s" : "0", "--timeout", "30s",
                                       "--interval", "0.5s"}));
    // The probe's call completes (the trickle takes several seconds); then the workers start.
    ASSERT_TRUE(p.wait_for_line("soapbench run: ", 40s)) << p.out() << p.err();
    std::this_thread::sleep_for(1500ms);  // the workers are in their first calls
    const std::vector<pid_t> children = test::children_of(p.pid());
    EXPECT_EQ(children.size(), 2u) << "two workers";
    const auto sent = Clock::now();
    ::kill(p.pid(), SIGINT);
    ASSERT_EQ(p.wait(20s), 130) << p.out() << p.err();
    EXPECT_LT(seconds_since(sent), 1.0) << p.out() << p.err();
    for (pid_t child : children) EXPECT_FALSE(test::process_alive(child)) << "pid " << child << " left behind";
    const RunRecord record = test::results_of(p);
    EXPECT_TRUE(record.partial);
    if (!warming) {
      const StepResult& step = record.operations.at(0).steps.at(0);
      EXPECT_EQ(step.in_flight, 2u) << "each worker's blocked call, counted";
      EXPECT_EQ(step.sent(), step.failures.total() + 2) << p.out();
    }
  }
}

// Several connections per client on one event loop: every blocked call of
// every connection is in flight at the interrupt, and none is lost.
TEST(Interrupt, SigintWithSeveralConnectionsPerClientCountsEachCallInFlight) {
  test::FakeServer trickle(test::FakeServer::Mode::trickle);
  test::TempDir dir;
  Program p(test::soapbench_command("run", dir,
                                    {"--url", trickle.url(), "--op", "echoString", "--clients", "2",
                                     "--connections-per-client", "3", "--duration", "30s", "--warmup", "0",
                                     "--timeout", "30s", "--interval", "0.5s"}));
  ASSERT_TRUE(p.wait_for_line("soapbench run: ", 40s)) << p.out() << p.err();
  const auto started = Clock::now();
  while (trickle.requests() < 1 + 6 && seconds_since(started) < 20) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(trickle.requests(), 1u + 6u) << "the probe, then one call per connection";
  const auto sent = Clock::now();
  ::kill(p.pid(), SIGINT);
  ASSERT_EQ(p.wait(20s), 130) << p.out() << p.err();
  EXPECT_LT(seconds_since(sent), 1.0) << p.out() << p.err();
  const RunRecord record = test::results_of(p);
  EXPECT_TRUE(record.partial);
  const StepResult& step = record.operations.at(0).steps.at(0);
  EXPECT_EQ(step.in_flight, 6u) << "2 clients x 3 connections, each in its blocked call";
  EXPECT_EQ(step.sent(), step.failures.total() + 6) << p.out();
}

TEST(ConnectBackoff, ADeadServerCostsFewAttemptsPerClientPerSecond) {
  test::TempDir dir;
  // The probe refuses to start against a dead server: the fake answers the
  // probe and the warm-up, then goes away.
  auto server = std::make_unique<test::FakeServer>(test::FakeServer::Mode::echo);
  const std::string live = server->url();
  Program p(test::soapbench_command("run", dir,
                                    {"--url", live, "--op", "echoString", "--clients", "2", "--duration", "3s",
                                     "--warmup", "0.2s", "--interval", "0.5s"}));
  ASSERT_TRUE(p.wait_for_line("echoString x2", 20s)) << p.out() << p.err();  // measuring
  server.reset();  // refuses from now on
  ASSERT_EQ(p.wait(60s), 1) << p.out() << p.err();  // measured, and errors==0 failed
  const RunRecord record = test::results_of(p);  // a reference into a temporary would dangle
  const StepResult& step = record.operations.at(0).steps.at(0);
  EXPECT_GT(step.failures.connect, 0u) << p.out();
  // Well over 2 s of the 3 s measured were against a dead server; < 20 attempts
  // per client per second allows 120. A busy loop made thousands.
  EXPECT_LT(step.failures.connect, 2u * 20u * 3u) << p.out();
  EXPECT_NE(p.out().find("server unreachable"), std::string::npos) << p.out();
}

}  // namespace
}  // namespace soapbench
