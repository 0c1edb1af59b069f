// merge_runs over known records: what adds, what merges, what is refused.
#include <gtest/gtest.h>

#include "commands/merge.h"
#include "sample_records.h"

namespace soapbench {
namespace {

using testing::closed_loop_step;
using testing::histogram_ms;
using testing::sample_record;

TEST(MergeRuns, AddsCallsAndThroughputAndMergesHistograms) {
  RunRecord a = sample_record(), b = sample_record();
  b.context.host = "second-host";
  b.context.label = "client B";
  // B's first step: other latencies, so the merged percentiles must come from both.
  b.operations[0].steps[0].latency = histogram_ms({10, 10, 10, 10, 10});
  b.operations[0].steps[0].throughput = 100;
  b.operations[0].steps[0].requests = 1000;
  b.operations[0].steps[0].duration_s = 10.5;
  const RunRecord m = merge_runs({a, b}, {"a.json", "b.json"});

  ASSERT_EQ(m.operations.size(), 2u);
  const StepResult& sa = a.operations[0].steps[0];
  const StepResult& s = m.operations[0].steps[0];
  EXPECT_EQ(s.clients, 2u);
  EXPECT_EQ(s.requests, sa.requests + 1000);
  EXPECT_DOUBLE_EQ(s.throughput, sa.throughput + 100);
  EXPECT_DOUBLE_EQ(s.duration_s, 10.5);
  EXPECT_EQ(s.latency.count(), 10u);
  EXPECT_NEAR(s.latency.max(), 0.010, 1e-9);
  EXPECT_NEAR(s.latency.min(), 0.0005, 1e-9);
  // Nearest rank over both parts: 0.5 1 1 1 2 | 10 10 10 10 10 (ms).
  EXPECT_NEAR(s.latency.percentile(40), 0.001, 0.00002);
  EXPECT_NEAR(s.latency.percentile(50), 0.002, 0.00004);
  EXPECT_NEAR(s.latency.percentile(60), 0.010, 0.0002);
  EXPECT_DOUBLE_EQ(s.client_cpu_pct, 2 * sa.client_cpu_pct);
  ASSERT_TRUE(s.server_cpu_pct.has_value());
  EXPECT_DOUBLE_EQ(*s.server_cpu_pct, *sa.server_cpu_pct);  // one server, seen twice: the mean
  EXPECT_DOUBLE_EQ(s.request_bytes, sa.request_bytes);

  // Intervals: counts and throughput add; percentiles are the highest of the parts.
  ASSERT_EQ(s.intervals.size(), 2u);
  EXPECT_EQ(s.intervals[1].requests, 2 * 910u);
  EXPECT_DOUBLE_EQ(s.intervals[1].throughput, 2 * 910.0);
  EXPECT_DOUBLE_EQ(s.intervals[1].p99_ms, 2.2);
  EXPECT_DOUBLE_EQ(s.intervals[1].min_ms, 0.4);

  // Rate-mode steps: targets and uncorrected histograms add up too.
  const StepResult& r = m.operations[1].steps[1];
  EXPECT_DOUBLE_EQ(r.target_rate, 4000);
  ASSERT_TRUE(r.uncorrected.has_value());
  EXPECT_EQ(r.uncorrected->count(), 10u);
  EXPECT_EQ(r.failures.total(), 0u);
  EXPECT_EQ(m.operations[1].steps[0].failures.total(), 2 * a.operations[1].steps[0].failures.total());

  EXPECT_EQ(m.context.host, "bench-host+second-host");
  EXPECT_EQ(m.context.label, "gSOAP baseline+client B");
  EXPECT_EQ(m.context.options.at("merged_from"), nlohmann::json({"a.json", "b.json"}));
  // Each part's warnings are kept with its number, then the merge's own.
  const auto& w = m.operations[1].steps[1].warnings;
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w[0], "part 1: first warning");
  EXPECT_EQ(w[3], "part 2: second warning");
  EXPECT_NE(w[4].find("merged from 2 runs"), std::string::npos);

  // The merged record is an ordinary results record.
  EXPECT_EQ(nlohmann::json(m).get<RunRecord>(), m);
}

TEST(MergeRuns, RefusesRunsOfAnotherShape) {
  const RunRecord a = sample_record();
  auto expect_mismatch = [&](const RunRecord& b, const std::string& words) {
    try {
      merge_runs({a, b}, {"a.json", "b.json"});
      ADD_FAILURE() << "merged: " << words;
    } catch (const MergeMismatch& e) {
      EXPECT_NE(std::string(e.what()).find("a.json and b.json do not match"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  RunRecord other_ops = a;
  other_ops.operations[1].operation = "tcpEcho";
  expect_mismatch(other_ops, "operations [echoString, echoStruct] vs [echoString, tcpEcho]");
  RunRecord fewer_steps = a;
  fewer_steps.operations[0].steps.pop_back();
  expect_mismatch(fewer_steps, "echoString: 2 steps vs 1");
  RunRecord closed = a;
  closed.operations[1].steps[0].target_rate = 0;
  expect_mismatch(closed, "echoStruct step 1: one is closed-loop");
  RunRecord bigger = a;
  bigger.operations[0].steps[1].request_bytes = 2800;
  expect_mismatch(bigger, "echoString step 2: 1400 vs 2800 bytes sent per call");
  EXPECT_THROW(merge_runs({a}, {"a.json"}), std::invalid_argument);
}

TEST(MergeRuns, WarnsWhenTheRunsDidNotOverlap) {
  RunRecord a = sample_record(), b = sample_record();
  b.context.start_time = "2024-05-01T13:00:00Z";
  const RunRecord m = merge_runs({a, b}, {"a.json", "b.json"});
  const auto& w = m.operations[0].steps[0].warnings;
  EXPECT_NE(w.back().find("b.json started 1504 s apart from a.json"), std::string::npos) << w.back();
  EXPECT_EQ(m.context.start_time, "2024-05-01T12:34:56Z");
}

}  // namespace
}  // namespace soapbench
