#pragma once
// The criteria language of --assert and capacity --slo, in the sense of
// Gatling's assertions and k6's thresholds: METRIC OP VALUE, e.g. `errors==0`,
// `error-rate<0.1%`, `p99<20ms`, `throughput>5000`, `send-lag-p99<1ms`, each
// evaluated on one step of one operation (core/results.h's StepResult).
//
// Metrics and the units of their values:
//   errors, requests                   calls (a count: 0, 10, 2k)
//   error-rate                         failed / (failed + successful) in %, "0.1%" or "0.1"
//   throughput                         successful calls/s (5000, 5k)
//   min, mean, max, pN (p50, p99, p99.9, any N in (0, 100])
//                                      response time of successful calls: a duration (20ms, 1.5s, 250us)
//   send-lag-pN, send-lag-max          how late calls left against their schedule (rate mode), when
//                                      the step records it; "not measured" otherwise
//   server-cpu, client-cpu             CPU % as the table shows it (100 = one core)
// Operators: < <= > >= == !=.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/results.h"

namespace soapbench {

struct Assertion {
  std::string text;    // as written, spaces removed: "p99<20ms"
  std::string metric;  // "p99"
  std::string op;      // "<"
  double value = 0;    // in the metric's base unit: seconds, %, calls, calls/s
};

// Throws std::invalid_argument naming what is wrong: "p99<20": ... The
// message quotes the text and lists the metrics when the metric is unknown.
Assertion parse_assertion(std::string_view text);

// The criteria of a run: the given assertions; with none, errors==0 unless
// `allow_errors`.
std::vector<Assertion> run_criteria(const std::vector<std::string>& asserts, bool allow_errors);

// The measured value of `metric` on the step in its base unit; nullopt when the
// step does not have it (a latency without successful calls, send lag before
// it is recorded).
std::optional<double> measure(const StepResult& step, const std::string& metric);

// One assertion on one step: passed, failed (with the measured value), or not
// measured (passes: the step cannot say).
AssertionOutcome evaluate(const Assertion& assertion, const StepResult& step);

// Evaluates every criterion on every step, storing the outcomes in each
// step's `assertions`; returns the number of failed outcomes.
size_t apply_criteria(const std::vector<Assertion>& criteria, std::vector<OperationResult>& operations);

// "p99<20ms failed: measured 35.204ms" / "... passed: measured ..." / "... not measured".
std::string describe(const AssertionOutcome& outcome);

}  // namespace soapbench
