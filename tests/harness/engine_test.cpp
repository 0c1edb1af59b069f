// The engine with a scripted client: counts, phases, intervals, stop, JSON.
// No sockets, no timed assertions: runs are bounded by --requests, or by a
// stop flag the client itself raises.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/engine.h"

namespace soapbench {
namespace {

// Answers from a script (then `otherwise`), counting calls; can raise a stop
// flag after a given number of calls.
class ScriptedClient : public EchoClient {
 public:
  std::deque<CallResult> script;
  CallResult otherwise{true, {}, {}};
  uint64_t calls = 0;
  std::atomic<bool>* stop_after_flag = nullptr;
  uint64_t stop_after = 0;

  CallResult call() override {
    ++calls;
    if (stop_after_flag && calls >= stop_after) *stop_after_flag = true;
    if (script.empty()) return otherwise;
    CallResult r = script.front();
    script.pop_front();
    return r;
  }
  WireBytes last_wire_bytes() const override { return {1000, 900}; }
  std::string server_header() const override { return "scripted"; }
  std::string_view kind() const override { return "scripted"; }
  // As a server that keeps the connection (one connect) or closes it after each response.
  bool reconnect_each_call = false;
  uint64_t connections_opened() const override { return reconnect_each_call ? calls : calls > 0; }
  std::string_view http_version() const override { return reconnect_each_call ? "HTTP/1.0" : "HTTP/1.1"; }
};

CallResult fail(FailureKind kind) { return CallResult{false, kind, "scripted failure"}; }

WorkerPlan counted_plan(uint64_t requests) {
  WorkerPlan p;
  p.call.client.url = "http://127.0.0.1:1/echo";
  p.warmup_s = 0;
  p.requests = requests;
  p.interval_s = 3600;  // one interval
  return p;
}

TEST(Engine, RequestsModeMakesExactlyThatManyMeasuredCalls) {
  ScriptedClient client;
  Engine engine(counted_plan(25), client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  const WorkerResult r = engine.result();
  EXPECT_EQ(client.calls, 25u);
  EXPECT_EQ(r.ok, 25u);
  EXPECT_EQ(r.latency.count(), 25u);
  EXPECT_EQ(r.failures.total(), 0u);
  EXPECT_EQ(r.warmup_calls, 0u);
  EXPECT_FALSE(r.partial);
  EXPECT_TRUE(r.uncorrected.empty()) << "closed loop keeps one histogram";
  EXPECT_EQ(r.request_bytes, 1000u);
  EXPECT_EQ(r.response_bytes, 900u);
  ASSERT_EQ(r.intervals.size(), 1u);
  EXPECT_EQ(r.intervals[0].ok, 25u);
  EXPECT_EQ(r.intervals[0].latency.count(), 25u);
  EXPECT_GE(r.measured_s, 0.0);
}

// The gaps between a client's calls with --wait: never shorter than a fixed
// wait (a sleep never ends early); with exp:, spread as an exponential's (about
// 39% of draws are below half the mean; a fixed wait has none).
std::vector<double> gaps_with_pause(bool exponential, double pause_s, uint64_t calls) {
  struct Timed : ScriptedClient {
    std::vector<std::chrono::steady_clock::time_point> at;
    CallResult call() override {
      at.push_back(std::chrono::steady_clock::now());
      return ScriptedClient::call();
    }
  } client;
  WorkerPlan plan = counted_plan(calls);
  plan.pause_s = pause_s;
  plan.pause_exponential = exponential;
  Engine engine(plan, client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  std::vector<double> gaps;
  for (size_t i = 1; i < client.at.size(); ++i)
    gaps.push_back(std::chrono::duration<double>(client.at[i] - client.at[i - 1]).count());
  return gaps;
}

TEST(Engine, AFixedWaitSeparatesEveryCall) {
  const auto gaps = gaps_with_pause(false, 0.002, 50);
  ASSERT_EQ(gaps.size(), 49u);
  for (double g : gaps) EXPECT_GE(g, 0.002);
}

TEST(Engine, AnExponentialWaitIsSpreadAroundItsMean) {
  const auto gaps = gaps_with_pause(true, 0.004, 150);
  ASSERT_EQ(gaps.size(), 149u);
  double sum = 0;
  size_t short_gaps = 0;
  for (double g : gaps) {
    sum += g;
    short_gaps += g < 0.002;
  }
  const double mean = sum / static_cast<double>(gaps.size());
  EXPECT_GT(mean, 0.002);  // exponential of mean 4 ms, plus each call's own time
  EXPECT_LT(mean, 0.012);
  EXPECT_GE(short_gaps, 15u) << "of 149 gaps, about 58 should be below half the mean";
}

TEST(Engine, ConnectionsOpenedWhileMeasuringAndTheHttpVersionAreRecorded) {
  ScriptedClient kept;
  Engine a(counted_plan(25), kept);
  std::atomic<bool> stop{false};
  a.run(stop);
  EXPECT_EQ(a.result().connections_opened, 1u);
  EXPECT_EQ(a.result().http_version, "HTTP/1.1");

  ScriptedClient closing;
  closing.reconnect_each_call = true;
  WorkerPlan plan = counted_plan(25);
  plan.warmup_s = 0.05;  // warm-up connects are not counted
  Engine b(plan, closing);
  b.run(stop);
  const WorkerResult r = b.result();
  EXPECT_GT(r.warmup_calls, 0u);
  EXPECT_EQ(r.connections_opened, 25u);
  EXPECT_EQ(r.http_version, "HTTP/1.0");
}

TEST(Engine, FailuresAreCountedByKindAndKeptOutOfTheLatencyHistogram) {
  ScriptedClient client;
  for (auto kind : {FailureKind::soap_fault, FailureKind::soap_fault, FailureKind::http_status,
                    FailureKind::mismatch, FailureKind::timeout, FailureKind::connect,
                    FailureKind::read, FailureKind::read, FailureKind::read})
    client.script.push_back(fail(kind));
  Engine engine(counted_plan(12), client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  const WorkerResult r = engine.result();
  EXPECT_EQ(r.failures.soap_fault, 2u);
  EXPECT_EQ(r.failures.http_status, 1u);
  EXPECT_EQ(r.failures.mismatch, 1u);
  EXPECT_EQ(r.failures.timeout, 1u);
  EXPECT_EQ(r.failures.connect, 1u);
  EXPECT_EQ(r.failures.read, 3u);
  EXPECT_EQ(r.ok, 3u);
  EXPECT_EQ(r.latency.count(), 3u);
  EXPECT_EQ(r.measured_calls(), 12u);
  EXPECT_EQ(r.first_failure, "soap_fault: scripted failure");
  ASSERT_EQ(r.intervals.size(), 1u);
  EXPECT_EQ(r.intervals[0].failed, 9u);
}

TEST(Engine, StopEndsAClosedLoopAndMarksTheResultPartial) {
  ScriptedClient client;
  std::atomic<bool> stop{false};
  client.stop_after_flag = &stop;
  client.stop_after = 40;
  WorkerPlan plan = counted_plan(0);
  plan.duration_s = 3600;  // only the stop can end it
  Engine engine(plan, client);
  engine.run(stop);
  const WorkerResult r = engine.result();
  EXPECT_EQ(client.calls, 40u) << "the loop checks the flag before every call";
  EXPECT_EQ(r.ok, 40u);
  EXPECT_TRUE(r.partial);
}

TEST(Engine, RateModeRecordsCorrectedAndUncorrectedForEverySuccess) {
  ScriptedClient client;
  client.script.push_back(fail(FailureKind::timeout));
  WorkerPlan plan = counted_plan(30);
  plan.rate = 1e6;  // a microsecond apart: the schedule never waits long
  Engine engine(plan, client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  const WorkerResult r = engine.result();
  EXPECT_EQ(r.ok, 29u);
  EXPECT_EQ(r.failures.timeout, 1u);
  EXPECT_EQ(r.latency.count(), 29u);
  EXPECT_EQ(r.uncorrected.count(), 29u);
  // From the slot, never later than from the send: corrected >= uncorrected.
  EXPECT_GE(r.latency.sum(), r.uncorrected.sum());
}

TEST(Engine, RateModeRecordsTheSendLagOfEveryCall) {
  ScriptedClient client;
  client.script.push_back(fail(FailureKind::read));
  WorkerPlan plan = counted_plan(30);
  plan.rate = 1e5;
  Engine engine(plan, client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  const WorkerResult r = engine.result();
  EXPECT_EQ(r.send_lag.count(), 30u) << "failed calls were sent late or not, too";
  ASSERT_EQ(r.intervals.size(), 1u);
  EXPECT_EQ(r.intervals[0].send_lag.count(), 30u);
  EXPECT_GE(r.send_lag.min(), 0.0);
  EXPECT_EQ(r.in_flight, 0u);
  EXPECT_EQ(r.sent(), 30u);
}

TEST(Engine, ClosedLoopKeepsNoSendLag) {
  ScriptedClient client;
  Engine engine(counted_plan(5), client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  EXPECT_TRUE(engine.result().send_lag.empty());
}

TEST(Engine, RefusedConnectionsAreRetriedAfterABackoff) {
  ScriptedClient client;
  client.otherwise = fail(FailureKind::connect);
  Engine engine(counted_plan(8), client);
  std::atomic<bool> stop{false};
  const auto start = std::chrono::steady_clock::now();
  engine.run(stop);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const WorkerResult r = engine.result();
  EXPECT_EQ(r.failures.connect, 8u);
  ASSERT_EQ(r.intervals.size(), 1u);
  EXPECT_EQ(r.intervals[0].connect_failed, 8u);
  // Backoffs of 1, 2, 4, ... 128 ms, each at least half itself (jitter): a
  // lower bound only, which no slow machine can break. A busy loop takes microseconds.
  EXPECT_GE(took, 0.5 * (1 + 2 + 4 + 8 + 16 + 32 + 64) / 1000.0);
}

TEST(Engine, ASnapshotDuringACallCountsItInFlight) {
  // A client blocked in its second call until the test lets it go.
  struct Blocking : ScriptedClient {
    std::atomic<bool> entered{false}, release{false};
    CallResult call() override {
      if (++calls == 2) {
        entered = true;
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return otherwise;
    }
  } client;
  Engine engine(counted_plan(3), client);
  std::atomic<bool> stop{false};
  std::thread runner([&] { engine.run(stop); });
  while (!client.entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const WorkerResult during = engine.result();
  client.release = true;
  runner.join();
  EXPECT_TRUE(during.partial);
  EXPECT_EQ(during.ok, 1u);
  EXPECT_EQ(during.in_flight, 1u);
  EXPECT_EQ(during.sent(), 2u);
  const WorkerResult after = engine.result();
  EXPECT_EQ(after.in_flight, 0u);
  EXPECT_EQ(after.sent(), 3u);
}

TEST(Engine, RateModeCallsOwnTheirWholeSlot) {
  ScriptedClient client;
  WorkerPlan plan = counted_plan(20);
  plan.rate = 1000;
  Engine engine(plan, client);
  std::atomic<bool> stop{false};
  engine.run(stop);
  // 20 calls at 1000/s span 20 ms (not 19 plus the last call), so the rate
  // achieved, 20 / measured_s, cannot read above the target.
  EXPECT_GE(engine.result().measured_s, 0.020);
}

TEST(Engine, IntervalsArePassedToTheSinkInOrder) {
  ScriptedClient client;
  std::vector<EngineInterval> seen;
  Engine engine(counted_plan(7), client, [&](const EngineInterval& i) { seen.push_back(i); });
  std::atomic<bool> stop{false};
  engine.run(stop);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].index, 0u);
  EXPECT_EQ(seen[0].ok, 7u);
  EXPECT_EQ(engine.result().intervals.size(), 1u);
}

TEST(Engine, SnapshotBeforeRunIsPartialAndEmpty) {
  ScriptedClient client;
  Engine engine(counted_plan(5), client);
  const WorkerResult r = engine.result();
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.ok, 0u);
  EXPECT_EQ(client.calls, 0u);
}

TEST(Engine, RejectsImpossiblePlans) {
  ScriptedClient client;
  WorkerPlan p = counted_plan(5);
  p.interval_s = 0;
  EXPECT_THROW(Engine(p, client), std::invalid_argument);
  p = counted_plan(0);
  p.duration_s = 0;
  EXPECT_THROW(Engine(p, client), std::invalid_argument);
  p = counted_plan(5);
  p.rate = -1;
  EXPECT_THROW(Engine(p, client), std::invalid_argument);
}

TEST(EngineJson, PlanRoundTrips) {
  WorkerPlan p;
  p.call.client.url = "http://127.0.0.1:8080/echo";
  p.call.client.operation = Operation::echo_struct;
  p.call.client_kind = "curl";
  p.call.client.payload = PayloadSize{77, 3, 12};
  p.call.client.timeout_s = 0.25;
  p.call.client.new_connection = true;
  p.warmup_s = 1.5;
  p.duration_s = 7;
  p.requests = 99;
  p.rate = 123.5;
  p.interval_s = 0.5;
  p.schedule_offset_s = 0.002;
  p.start_at_unix_s = 1700000000.25;
  p.pause_s = 0.01;
  p.pause_exponential = true;
  const WorkerPlan q = plan_from_json(nlohmann::json::parse(plan_to_json(p).dump()));
  EXPECT_EQ(q.pause_s, 0.01);
  EXPECT_TRUE(q.pause_exponential);
  EXPECT_EQ(q.call.client.url, p.call.client.url);
  EXPECT_EQ(q.call.client.operation, Operation::echo_struct);
  EXPECT_EQ(q.call.client_kind, "curl");
  EXPECT_EQ(q.call.client.payload.string_length, 77u);
  EXPECT_EQ(q.call.client.payload.items, 3u);
  EXPECT_EQ(q.call.client.payload.binary_bytes, 12u);
  EXPECT_EQ(q.call.client.timeout_s, 0.25);
  EXPECT_TRUE(q.call.client.new_connection);
  EXPECT_EQ(q.warmup_s, 1.5);
  EXPECT_EQ(q.duration_s, 7);
  EXPECT_EQ(q.requests, 99u);
  EXPECT_EQ(q.rate, 123.5);
  EXPECT_EQ(q.interval_s, 0.5);
  EXPECT_EQ(q.schedule_offset_s, 0.002);
  EXPECT_EQ(q.start_at_unix_s, 1700000000.25);
}

TEST(EngineJson, ResultRoundTrips) {
  WorkerResult r;
  for (double s : {0.001, 0.002, 0.5}) r.latency.record(s);
  r.uncorrected.record(0.001);
  EngineInterval i;
  i.index = 2;
  i.end_s = 1.5;
  i.ok = 3;
  i.failed = 1;
  i.latency.record(0.004);
  r.intervals.push_back(i);
  r.failures.mismatch = 4;
  r.failures.connect = 1;
  r.first_failure = "mismatch: text differs";
  r.ok = 3;
  r.warmup_calls = 17;
  r.measured_s = 2.5;
  r.request_bytes = 1500;
  r.response_bytes = 1400;
  r.cpu_s = 0.75;
  r.late_calls = 6;
  r.max_lag_s = 0.125;
  r.connections_opened = 9;
  r.http_version = "HTTP/1.0";
  r.partial = true;
  const WorkerResult q = result_from_json(nlohmann::json::parse(result_to_json(r).dump()));
  EXPECT_EQ(q.latency, r.latency);
  EXPECT_EQ(q.uncorrected, r.uncorrected);
  ASSERT_EQ(q.intervals.size(), 1u);
  EXPECT_EQ(q.intervals[0].index, 2u);
  EXPECT_EQ(q.intervals[0].end_s, 1.5);
  EXPECT_EQ(q.intervals[0].failed, 1u);
  EXPECT_EQ(q.intervals[0].latency, i.latency);
  EXPECT_EQ(q.failures, r.failures);
  EXPECT_EQ(q.first_failure, r.first_failure);
  EXPECT_EQ(q.ok, 3u);
  EXPECT_EQ(q.warmup_calls, 17u);
  EXPECT_EQ(q.measured_s, 2.5);
  EXPECT_EQ(q.request_bytes, 1500u);
  EXPECT_EQ(q.response_bytes, 1400u);
  EXPECT_EQ(q.cpu_s, 0.75);
  EXPECT_EQ(q.late_calls, 6u);
  EXPECT_EQ(q.max_lag_s, 0.125);
  EXPECT_EQ(q.connections_opened, 9u);
  EXPECT_EQ(q.http_version, "HTTP/1.0");
  EXPECT_TRUE(q.partial);
}

TEST(EngineJson, MissingFieldIsNamed) {
  nlohmann::json j = plan_to_json(WorkerPlan{});
  j["call"]["client"].erase("timeout_s");
  try {
    plan_from_json(j);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'timeout_s'"), std::string::npos) << e.what();
  }
  j = plan_to_json(WorkerPlan{});
  j["call"]["client"]["operation"] = "echoNothing";
  EXPECT_THROW(plan_from_json(j), std::runtime_error);
}

}  // namespace
}  // namespace soapbench
