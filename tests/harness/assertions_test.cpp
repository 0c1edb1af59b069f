// core/assertions.h: the criteria language of --assert and capacity --slo.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/assertions.h"

namespace soapbench {
namespace {

StepResult step_with(uint64_t ok, uint64_t timeouts, std::initializer_list<double> latencies_s) {
  StepResult s;
  s.clients = 2;
  s.requests = ok;
  s.failures.timeout = timeouts;
  s.throughput = 4000;
  for (double v : latencies_s) s.latency.record(v);
  return s;
}

TEST(Assertions, ParsesMetricOperatorAndValueInBaseUnits) {
  const Assertion p99 = parse_assertion(" p99 < 20ms ");
  EXPECT_EQ(p99.text, "p99<20ms");
  EXPECT_EQ(p99.metric, "p99");
  EXPECT_EQ(p99.op, "<");
  EXPECT_DOUBLE_EQ(p99.value, 0.020);
  EXPECT_DOUBLE_EQ(parse_assertion("error-rate<0.1%").value, 0.1);
  EXPECT_DOUBLE_EQ(parse_assertion("throughput>=5k").value, 5000);
  EXPECT_EQ(parse_assertion("throughput>=5k").op, ">=");
  EXPECT_EQ(parse_assertion("errors==0").op, "==");
  EXPECT_EQ(parse_assertion("p99.9!=1s").metric, "p99.9");
  EXPECT_DOUBLE_EQ(parse_assertion("send-lag-p99<1ms").value, 0.001);
}

TEST(Assertions, RejectsWhatItCannotRead) {
  for (const char* bad : {"", "p99", "<20ms", "p99<", "p99=20ms", "p101<1s", "latency<1s", "p99<20xs",
                          "errors==-1", "error-rate<a%"})
    EXPECT_THROW(parse_assertion(bad), std::invalid_argument) << bad;
  try {
    parse_assertion("latency<1s");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown metric 'latency'"), std::string::npos) << e.what();
  }
}

TEST(Assertions, DefaultCriterionIsNoErrorsUnlessAllowedOrOthersGiven) {
  ASSERT_EQ(run_criteria({}, false).size(), 1u);
  EXPECT_EQ(run_criteria({}, false)[0].text, "errors==0");
  EXPECT_TRUE(run_criteria({}, true).empty());
  ASSERT_EQ(run_criteria({"p99<1s"}, false).size(), 1u);
  EXPECT_EQ(run_criteria({"p99<1s"}, false)[0].text, "p99<1s");
}

TEST(Assertions, EvaluatesAgainstTheStepWithTheMeasuredValue) {
  const StepResult s = step_with(999, 1, {0.010, 0.010, 0.030});
  const AssertionOutcome errors = evaluate(parse_assertion("errors==0"), s);
  EXPECT_EQ(errors.status, "failed");
  EXPECT_EQ(errors.measured, 1.0);
  EXPECT_EQ(describe(errors), "errors==0 failed: measured 1");
  EXPECT_EQ(evaluate(parse_assertion("error-rate<0.2%"), s).status, "passed");  // 0.1%
  EXPECT_EQ(evaluate(parse_assertion("error-rate<0.05%"), s).status, "failed");
  const AssertionOutcome p99 = evaluate(parse_assertion("p99<20ms"), s);
  EXPECT_EQ(p99.status, "failed");
  EXPECT_NEAR(*p99.measured, 0.030, 0.001);
  EXPECT_NE(describe(p99).find("p99<20ms failed: measured 30."), std::string::npos) << describe(p99);
  EXPECT_EQ(evaluate(parse_assertion("p50<=20ms"), s).status, "passed");
  EXPECT_EQ(evaluate(parse_assertion("throughput>5000"), s).status, "failed");
  EXPECT_EQ(evaluate(parse_assertion("throughput>3k"), s).status, "passed");
}

TEST(Assertions, SendLagIsNotMeasuredAndALatencyWithoutCallsFails) {
  const AssertionOutcome lag = evaluate(parse_assertion("send-lag-p99<1ms"), step_with(10, 0, {0.001}));
  EXPECT_EQ(lag.status, "not measured");
  EXPECT_FALSE(lag.measured);
  EXPECT_EQ(describe(lag), "send-lag-p99<1ms not measured");
  const AssertionOutcome none = evaluate(parse_assertion("p99<1s"), step_with(0, 5, {}));
  EXPECT_EQ(none.status, "failed");
  EXPECT_EQ(describe(none), "p99<1s failed: no successful call");
}

TEST(Assertions, ApplyStoresOutcomesInEveryStepAndCountsFailures) {
  std::vector<OperationResult> ops{{"echoString", {step_with(10, 0, {0.001}), step_with(10, 2, {0.001})}},
                                   {"echoStruct", {step_with(10, 0, {0.5})}}};
  EXPECT_EQ(apply_criteria(run_criteria({"errors==0", "p99<100ms"}, false), ops), 2u);
  ASSERT_EQ(ops[0].steps[1].assertions.size(), 2u);
  EXPECT_EQ(ops[0].steps[1].assertions[0].status, "failed");
  EXPECT_EQ(ops[0].steps[0].assertions[1].status, "passed");
  EXPECT_EQ(ops[1].steps[0].assertions[1].status, "failed");
}

}  // namespace
}  // namespace soapbench
