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

}  // namespace
}  // namespace soapbench
