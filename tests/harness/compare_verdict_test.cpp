// report/compare_verdict.h: comparability, the significance test, the verdict.
#include <gtest/gtest.h>

#include <sstream>

#include "report/compare_verdict.h"

namespace soapbench {
namespace {

RunRecord run_of(double throughput, std::initializer_list<double> interval_rates, double rate = 0) {
  RunRecord r;
  r.context.client_kind = "raw";
  r.context.options = {{"rate", rate}, {"string_length", 10}, {"items", 1}, {"binary_bytes", 0}};
  StepResult s;
  s.clients = 2;
  s.target_rate = rate;
  s.throughput = throughput;
  s.latency.record(0.001);
  for (double v : interval_rates) s.intervals.push_back(IntervalSample{.requests = 10, .throughput = v,
                                                                       .mean_ms = 1, .p50_ms = 1, .p99_ms = 1});
  r.operations.push_back({"echoString", {s}});
  return r;
}

TEST(CompareVerdict, NamesWhatMakesRunsIncomparable) {
  const RunRecord base = run_of(100, {});
  EXPECT_EQ(not_comparable(base, base), "");
  RunRecord other = base;
  other.operations[0].operation = "echoStruct";
  EXPECT_NE(not_comparable(base, other).find("different operations"), std::string::npos);
  other = base;
  other.context.options["string_length"] = 20;
  EXPECT_NE(not_comparable(base, other).find("different payload (string_length 10 against 20)"), std::string::npos);
  other = base;
  other.context.client_kind = "curl";
  EXPECT_NE(not_comparable(base, other).find("different client kind (raw against curl)"), std::string::npos);
  EXPECT_EQ(not_comparable(base, run_of(100, {}, 500)), "closed loop against fixed rate (closed loop against rate)");
  EXPECT_EQ(not_comparable(run_of(100, {}, 400), run_of(100, {}, 500)), "different rate (400/s against 500/s)");
  // Runs with a list of rates (options.rates, one step each) compare by the whole list.
  RunRecord listed = run_of(100, {}, 0);
  listed.context.options["rates"] = {100, 200};
  EXPECT_EQ(not_comparable(listed, listed), "");
  EXPECT_EQ(not_comparable(base, listed), "closed loop against fixed rate (closed loop against rate)");
  RunRecord other_list = listed;
  other_list.context.options["rates"] = {100, 400};
  EXPECT_EQ(not_comparable(listed, other_list), "different rate (100,200/s against 100,400/s)");
}

TEST(CompareVerdict, MannWhitneyNeedsEightSamplesAndSeparatesShiftedOnes) {
  EXPECT_FALSE(mann_whitney_p({1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5, 6, 7, 8}));
  const std::vector<double> a{10, 11, 12, 13, 14, 15, 16, 17}, b{20, 21, 22, 23, 24, 25, 26, 27};
  ASSERT_TRUE(mann_whitney_p(a, b));
  EXPECT_LT(*mann_whitney_p(a, b), 0.01);
  EXPECT_NEAR(*mann_whitney_p(a, a), 1.0, 1e-9);
}

TEST(CompareVerdict, WorseOnlyBeyondTheThresholdAndSignificant) {
  const RunRecord base = run_of(100, {100, 101, 99, 100, 102, 98, 100, 101});
  // 30% fewer calls/s in every interval: worse, significantly.
  const CompareVerdict slower = compare_runs(base, run_of(70, {70, 71, 69, 70, 72, 68, 70, 71}), 0.05, "a", "b");
  EXPECT_EQ(slower.worse(), 1u);
  EXPECT_EQ(slower.figures.at(0).figure, "throughput");
  EXPECT_NEAR(slower.figures.at(0).ratio, 0.7, 1e-9);
  // 3%: within the threshold.
  EXPECT_EQ(compare_runs(base, run_of(97, {97, 98, 96, 97, 99, 95, 97, 98}), 0.05, "a", "b").worse(), 0u);
  // 30% lower overall but intervals that overlap entirely: not significant, not worse.
  EXPECT_EQ(compare_runs(base, run_of(70, {100, 101, 99, 100, 102, 98, 100, 101}), 0.05, "a", "b").worse(), 0u);
  // Too few samples: the threshold alone judges, and says so.
  const CompareVerdict few = compare_runs(run_of(100, {}), run_of(70, {}), 0.05, "a", "b");
  EXPECT_EQ(few.worse(), 1u);
  std::ostringstream text;
  print_verdict(text, few, "text", 0.05);
  EXPECT_NE(text.str().find("not enough samples for a significance test"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("WORSE (1 figures beyond 5%)"), std::string::npos) << text.str();
}

// run --runs N: the repeats of a step are one load; the figure is their mean and,
// with 8 repeats a side, the repeats are the samples (p99.9 included, which has
// no per-interval figure).
RunRecord repeated(std::initializer_list<double> throughputs, double p999_s) {
  RunRecord r = run_of(0, {});
  const StepResult one = r.operations[0].steps[0];
  r.operations[0].steps.clear();
  for (double t : throughputs) {
    StepResult s = one;
    s.throughput = t;
    s.latency = LatencyHistogram();
    s.latency.record(p999_s);
    r.operations[0].steps.push_back(s);
  }
  return r;
}

TEST(CompareVerdict, RepeatedRunsAreOneLoadAndTheirOwnSamples) {
  const RunRecord base = repeated({100, 102, 98, 101, 99, 100, 103, 97}, 0.001);
  const RunRecord slower = repeated({80, 81, 79, 82, 78, 80, 81, 79}, 0.002);
  const CompareVerdict v = compare_runs(base, slower, 0.05, "a", "b");
  ASSERT_EQ(v.figures.size(), 5u) << "one load, five figures (no server CPU)";
  EXPECT_EQ(v.figures[0].figure, "throughput");
  EXPECT_NEAR(v.figures[0].base, 100, 1e-9);
  EXPECT_NEAR(v.figures[0].next, 80, 1e-9);
  ASSERT_TRUE(v.figures[0].p.has_value()) << "eight repeats a side are eight samples";
  EXPECT_LT(*v.figures[0].p, 0.01);
  EXPECT_TRUE(v.figures[0].worse);
  EXPECT_EQ(v.figures[4].figure, "p99.9 ms");
  EXPECT_TRUE(v.figures[4].p.has_value()) << "with repeats, p99.9 is tested too";
  EXPECT_TRUE(v.figures[4].worse);
  // Seven repeats a side: their intervals (none here) are the samples, so the threshold alone judges.
  const CompareVerdict few = compare_runs(repeated({100, 102, 98, 101, 99, 100, 103}, 0.001),
                                          repeated({80, 81, 79, 82, 78, 80, 81}, 0.002), 0.05, "a", "b");
  EXPECT_FALSE(few.figures[0].p.has_value());
  EXPECT_TRUE(few.figures[0].worse);
}

}  // namespace
}  // namespace soapbench
