#include "report/report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sample_records.h"

namespace soapbench {
namespace {

using testing::histogram_ms;
using testing::sample_record;

TEST(IntervalLines, FixedWidthColumns) {
  std::ostringstream os;
  interval_header(os);
  interval_line(os, "echoString", 4, {1.0, 900, 0, 900.0, 0.5, 1.1, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0});
  interval_line(os, "echoStruct", 10,
                {12.5, 12345, 17, 12345.67, 0.0123, 15.5, 1.25, 2.5, 3.75, 5.0, 125.5, 1234.5});
  EXPECT_EQ(os.str(),
            " time s  step                   req/s   min ms   max ms  mean ms   p50 ms   p75 ms   "
            "p90 ms   p95 ms   p99 ms  errors\n"
            "    1.0  echoString x4          900.0    0.500    2.000    1.100    1.000    1.000    "
            "2.000    2.000    2.000       0\n"
            "   12.5  echoStruct x10       12345.7    0.012 1234.500   15.500    1.250    2.500    "
            "3.750    5.000  125.500      17\n");
}

// LiveLines: the same lines as above, the header once, before the first line only.
TEST(IntervalLines, LiveLinesPrintTheHeaderOnce) {
  const IntervalSample first{1.0, 900, 0, 900.0, 0.5, 1.1, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0};
  const IntervalSample second{12.5, 12345, 17, 12345.67, 0.0123, 15.5, 1.25, 2.5, 3.75, 5.0, 125.5, 1234.5};
  std::ostringstream expected;
  interval_header(expected);
  interval_line(expected, "echoString", 4, first);
  interval_line(expected, "echoString", 4, second);
  std::ostringstream os;
  LiveLines live(os);
  EXPECT_EQ(os.str(), "");
  live.print("echoString", 4, first);
  live.print("echoString", 4, second);
  EXPECT_EQ(os.str(), expected.str());
}

TEST(StepTable, ClosedLoopWithErrorsAndWarnings) {
  std::ostringstream os;
  step_table(os, sample_record().operations[0]);
  // p50 is the midpoint of the histogram bin holding 1 ms; bytes/call = 1400.5 + 1500.6.
  EXPECT_EQ(os.str(),
            "echoString\n"
            "  clients      req/s    mean ms     p50 ms     p90 ms     p99 ms     max ms  "
            "server CPU%  client CPU%  bytes/call  errors\n"
            "        1      909.1      1.100      0.999      2.000      2.000      2.000  "
            "       35.5         20.4        2901  0\n"
            "        2     1818.2      1.100      0.999      2.000      2.000      2.000  "
            "       71.0         40.8        2901  3 (soap_fault 1, timeout 2)\n"
            "warnings:\n"
            "  2 clients: 3 calls failed: soap_fault 1, timeout 2\n");
}

TEST(StepTable, RateModeAddsTargetColumnAndDashForAbsentServerCpu) {
  OperationResult op = sample_record().operations[1];
  op.steps.push_back(testing::closed_loop_step(1, 1.0));  // a closed-loop step shows "-" as target
  std::ostringstream os;
  step_table(os, op);
  EXPECT_EQ(os.str(),
            "echoStruct\n"
            "  clients   target/s      req/s    mean ms     p50 ms     p90 ms     p99 ms     max ms  "
            "server CPU%  client CPU%  bytes/call  lag p99 ms  errors\n"
            "        1      500.0      500.0      2.200      2.003      4.000      4.000      4.000  "
            "          -         20.4        2901           -  21 (soap_fault 1, http_status 2, mismatch 3, "
            "timeout 4, connect 5, read 6)\n"
            "        4     2000.0     2000.0      2.200      2.003      4.000      4.000      4.000  "
            "          -         81.6        2901           -  0\n"
            "        1          -      909.1      1.100      0.999      2.000      2.000      2.000  "
            "       35.5         20.4        2901           -  0\n"
            "warnings:\n"
            "  4 clients: first warning\n"
            "  4 clients: second warning\n");
}

TEST(StepTable, SendLagAndCallsInFlightAreShown) {
  OperationResult op = sample_record().operations[1];
  op.steps.resize(1);
  op.steps[0].send_lag.emplace();
  op.steps[0].send_lag->record(0.000250);
  op.steps[0].in_flight = 2;
  std::ostringstream os;
  step_table(os, op);
  const std::string sent = std::to_string(op.steps[0].requests + 21 + 2);
  EXPECT_NE(os.str().find("       0.250  21 (soap_fault 1, http_status 2, mismatch 3, timeout 4, connect 5, read 6); "
                          "2 in flight of " + sent + " sent\n"),
            std::string::npos)
      << os.str();
}

TEST(StepWarnings, SendLagAboveTheLimitIsReported) {
  StepResult step = sample_record().operations[1].steps[0];  // p50 about 2 ms: the limit is 0.2 ms
  step.send_lag.emplace();
  for (int i = 0; i < 100; ++i) step.send_lag->record(0.000150);
  auto has_lag_warning = [](const std::vector<std::string>& w) {
    for (const auto& line : w)
      if (line.find("send lag p99") != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(has_lag_warning(step_warnings(step, {})));
  step.send_lag->record(0.0005);  // p99 now 0.5 ms > max(0.1 ms, 10% of 2 ms)
  step.send_lag->record(0.0005);
  EXPECT_TRUE(has_lag_warning(step_warnings(step, {})));
}

TEST(StepTable, PerHostTableAfterTheStepsThatRanOnSeveralHosts) {
  OperationResult op = sample_record().operations[0];
  op.steps[0].hosts = {{"load-a", 1, 2, 9091, 909.1, 20.4}};
  op.steps[1].hosts = {{"load-a", 1, 2, 9091, 909.1, 20.4}, {"load-host-b", 1, 8, 9091, 909.05, 20.35}};
  std::ostringstream os;
  step_table(os, op);
  const std::string text = os.str();
  EXPECT_NE(text.find("per host:\n"
                      "  clients  host           clients      cores      req/s  client CPU%\n"
                      "        1  load-a               1          2      909.1         20.4\n"
                      "        2  load-a               1          2      909.1         20.4\n"
                      "        2  load-host-b          1          8      909.0         20.4\n"
                      "warnings:\n"),
            std::string::npos)
      << text;
}

TEST(StepTable, NoSteps) {
  std::ostringstream os;
  step_table(os, OperationResult{"echoString", {}});
  EXPECT_EQ(os.str(), "echoString\n  (no steps)\n");
}

TEST(DescribeFailures, OnlyNonZeroKinds) {
  EXPECT_EQ(describe_failures({}), "");
  EXPECT_EQ(describe_failures({0, 0, 7, 0, 0, 1}), "mismatch 7, read 1");
}

TEST(RunLabel, LabelThenStackThenIndex) {
  RunRecord r;
  EXPECT_EQ(run_label(r, 1), "run 2");
  r.context.stack_label = "gSOAP 2.8.124";
  EXPECT_EQ(run_label(r, 1), "gSOAP 2.8.124");
  r.context.label = "baseline";
  EXPECT_EQ(run_label(r, 1), "baseline");
}

// A run of one operation with steps (clients, throughput, latency samples in ms).
StepResult step(unsigned clients, double throughput, std::initializer_list<double> samples_ms) {
  StepResult s;
  s.clients = clients;
  s.throughput = throughput;
  s.latency = histogram_ms(samples_ms);
  return s;
}

RunRecord run(const std::string& label, std::vector<StepResult> steps) {
  RunRecord r;
  r.context.label = label;
  r.operations = {{"echoString", std::move(steps)}};
  return r;
}

TEST(CompareTable, RatiosAgainstFirstRunAndMissingClientCounts) {
  const RunRecord celtix = run("Celtix", {step(1, 1000, {2.0}), step(2, 1800, {2.0, 3.0})});
  const RunRecord cxf = run("CXF", {step(1, 1500, {1.0}), step(4, 3000, {1.0, 2.0})});
  std::ostringstream os;
  compare_table(os, {celtix, cxf});
  // 1 client: 1500 / 1000 = 1.50, mean 1 ms / 2 ms = 0.50. 2 and 4 clients: one side missing.
  EXPECT_EQ(os.str(),
            "echoString\n"
            "clients  Celtix req/s  Celtix mean ms  CXF req/s  CXF mean ms  CXF / Celtix req/s  "
            "CXF / Celtix mean\n"
            "      1        1000.0           2.000     1500.0        1.000                1.50  "
            "             0.50\n"
            "      2        1800.0           2.500          -            -                   -  "
            "                -\n"
            "      4             -               -     3000.0        1.500                   -  "
            "                -\n");
}

TEST(StacksTable, OneRowPerStackWithPeakRatioErrorsAndConnectionNotes) {
  const RunRecord gsoap = run("", {step(1, 12000, {0.1}), step(2, 60000, {0.1})});
  RunRecord axis = run("", {step(1, 3000, {0.3}), step(2, 4500, {0.5})});
  axis.operations[0].steps[1].requests = 22500;
  axis.operations[0].steps[1].connections_opened = 22500;
  axis.operations[0].steps[1].http_version = "HTTP/1.0";
  axis.operations[0].steps[0].failures.read = 2;
  RunRecord php = run("", {step(2, 15000, {0.2})});
  php.operations[0].steps[0].server_cpu_pct = 120;  // 1.2 CPU s / 15000 requests = 80 us
  php.operations.push_back({"echoStruct", {step(2, 9000, {0.3})}});
  std::ostringstream os;
  stacks_table(os, {gsoap, axis, php}, {"gsoap", "axis1", "php"});
  // Peaks: 60000, 4500 (0.075 -> 0.07), 15000 (0.25). echoStruct: only php ran it.
  // CPU per request only where the server's CPU is known.
  EXPECT_EQ(os.str(),
            "echoString: requests/s by clients; peak, and peak against gsoap\n"
            "stack         1         2      peak   ratio    cpu us  errors  notes\n"
            "gsoap     12000     60000     60000    1.00         -       0  \n"
            "axis1      3000      4500      4500    0.07         -       2  HTTP/1.0, a connection per call\n"
            "php           -     15000     15000    0.25      80.0       0  \n"
            "\n"
            "echoStruct: requests/s by clients; peak, and peak against gsoap\n"
            "stack         2      peak   ratio    cpu us  errors  notes\n"
            "gsoap         -         -       -         -       -  not run\n"
            "axis1         -         -       -         -       -  not run\n"
            "php        9000      9000       -         -       0  \n"
            "\n");
  EXPECT_THROW(stacks_table(os, {gsoap}, {}), std::invalid_argument);
}

TEST(CompareTable, ThreeRunsExplicitLabelsAndSeveralOperations) {
  RunRecord a = run("", {step(1, 400, {4.0})});
  RunRecord b = run("", {step(1, 1000, {1.0})});
  RunRecord c = run("", {step(1, 100, {10.0, 30.0})});
  c.operations.push_back({"echoStruct", {step(3, 0, {5.0})}});
  a.operations.push_back({"echoStruct", {step(3, 0, {2.0})}});  // zero base throughput
  std::ostringstream os;
  compare_table(os, {a, b, c}, {"a.json", "b.json", "c.json"});
  // b/a = 2.50 and 0.25; c/a = 0.25 and 20 ms / 4 ms = 5.00. echoStruct: a's zero
  // throughput gives no ratio, b lacks the operation, c/a mean = 5 ms / 2 ms = 2.50.
  EXPECT_EQ(os.str(),
            "echoString\n"
            "clients  a.json req/s  a.json mean ms  b.json req/s  b.json mean ms  c.json req/s  "
            "c.json mean ms  b.json / a.json req/s  b.json / a.json mean  c.json / a.json req/s  "
            "c.json / a.json mean\n"
            "      1         400.0           4.000        1000.0           1.000         100.0  "
            "        20.000                   2.50                  0.25                   0.25  "
            "                5.00\n"
            "\n"
            "echoStruct\n"
            "clients  a.json req/s  a.json mean ms  b.json req/s  b.json mean ms  c.json req/s  "
            "c.json mean ms  b.json / a.json req/s  b.json / a.json mean  c.json / a.json req/s  "
            "c.json / a.json mean\n"
            "      3           0.0           2.000             -               -           0.0  "
            "         5.000                      -                     -                      -  "
            "                2.50\n");
}

TEST(CompareTable, LabelsMustMatchRuns) {
  std::ostringstream os;
  EXPECT_THROW(compare_table(os, {sample_record()}, {"a", "b"}), std::invalid_argument);
}

// A healthy closed-loop step: 2 clients at 1 ms, no errors, moderate client CPU.
StepResult healthy() {
  StepResult s;
  s.clients = 2;
  s.duration_s = 10;
  s.requests = 20000;
  s.throughput = 2000;
  s.latency = histogram_ms({1.0, 1.0, 1.0});
  s.client_cpu_pct = 50;
  return s;
}

TEST(StepWarnings, HealthyStepHasNone) {
  EXPECT_TRUE(step_warnings(healthy(), {.client_cores = 2}).empty());
}

TEST(StepWarnings, Errors) {
  StepResult s = healthy();
  s.requests = 100;
  s.failures.soap_fault = 1;
  s.failures.timeout = 2;
  EXPECT_EQ(step_warnings(s, {}),
            (std::vector<std::string>{"3 of 103 calls failed: soap_fault 1, timeout 2"}));
}

TEST(StepWarnings, NoSuccessfulCall) {
  StepResult s = healthy();
  s.requests = 0;
  s.throughput = 0;
  s.latency = LatencyHistogram{};
  s.failures.connect = 5;
  EXPECT_EQ(step_warnings(s, {}),
            (std::vector<std::string>{"5 of 5 calls failed: connect 5",
                                      "no call succeeded: there is no response time to report"}));
}

TEST(StepWarnings, ClientCpuSaturation) {
  StepResult s = healthy();
  s.client_cpu_pct = 190;  // of 2 cores = 95%
  EXPECT_EQ(step_warnings(s, {.client_cores = 2}),
            (std::vector<std::string>{
                "client CPU at 190% of 2 cores (95% of capacity): the clients are saturated, so "
                "these numbers measure the client machine rather than the server"}));
  s.client_cpu_pct = 170;  // 85%
  EXPECT_TRUE(step_warnings(s, {.client_cores = 2}).empty());
  s.client_cpu_pct = 1000;  // unknown core count: no judgement
  EXPECT_TRUE(step_warnings(s, {.client_cores = 0}).empty());
  s.client_cpu_pct = 170;  // a lower threshold
  EXPECT_EQ(step_warnings(s, {.client_cores = 2, .cpu_saturation = 0.8}).size(), 1u);
}

TEST(StepWarnings, ClientCpuSaturationPerHostNamesTheHost) {
  StepResult s = healthy();
  s.client_cpu_pct = 300;  // over both hosts: 75% of 4 cores, but one host is full
  s.hosts = {{"load-a", 2, 2, 10000, 1000, 190}, {"load-b", 1, 2, 10000, 1000, 110}};
  EXPECT_EQ(step_warnings(s, {.client_cores = 2}),
            (std::vector<std::string>{
                "client CPU on host load-a at 190% of 2 cores (95% of capacity): its 2 clients are "
                "saturated, so these numbers measure that load host rather than the server"}));
  s.hosts[0].client_cpu_pct = 170;
  EXPECT_TRUE(step_warnings(s, {.client_cores = 2}).empty());  // the step-wide check is off with hosts
  s.hosts[1] = {"load-b", 1, 1, 10000, 1000, 95};
  const auto w = step_warnings(s, {});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].substr(0, 49), "client CPU on host load-b at 95% of 1 cores (95% ");
  EXPECT_NE(w[0].find("its 1 client is saturated"), std::string::npos);
}

TEST(StepWarnings, NagleFloor) {
  StepResult s = healthy();
  s.latency = histogram_ms({40.0, 40.0, 40.0});
  s.throughput = 50;  // 2 clients / 40 ms
  EXPECT_EQ(step_warnings(s, {}),
            (std::vector<std::string>{
                "median response time 40.0 ms sits on the ~40 ms floor of Nagle's algorithm with "
                "delayed ACK: check that client and server set TCP_NODELAY"}));
  s.throughput = 5;  // the clients are not waiting on every call: something else
  EXPECT_TRUE(step_warnings(s, {}).empty());
  s.target_rate = 5;  // in rate mode the median alone decides
  s.requests = 50;
  EXPECT_EQ(step_warnings(s, {}).size(), 1u);
  s = healthy();
  s.latency = histogram_ms({10.0});
  s.throughput = 200;
  EXPECT_TRUE(step_warnings(s, {}).empty());  // 10 ms: off the floor
}

TEST(StepWarnings, ServerThatClosesEveryConnectionOrSpeaksHttp10) {
  StepResult s = healthy();
  s.connections_opened = 2;  // one per client: keep-alive worked
  s.http_version = "HTTP/1.1";
  EXPECT_TRUE(step_warnings(s, {}).empty());
  s.connections_opened = 20000;  // one per call
  s.http_version = "HTTP/1.0";
  EXPECT_EQ(step_warnings(s, {}),
            (std::vector<std::string>{
                "the server answers HTTP/1.0",
                "the server closed the connection after most responses (20000 connections for 20000 "
                "calls): each call paid a TCP connect, which these numbers include"}));
  // Asked for by the run (--new-connection): the version is still news, the connects are not.
  EXPECT_EQ(step_warnings(s, {.new_connection = true}),
            (std::vector<std::string>{"the server answers HTTP/1.0"}));
  s.connections_opened = 5000;  // a quarter of the calls: some reconnects, not a closing server
  s.http_version.clear();
  EXPECT_TRUE(step_warnings(s, {}).empty());
}

TEST(StepWarnings, ReconnectsAfterFailedCallsAreNotTheServerClosing) {
  StepResult s = healthy();  // 2 clients, 20000 calls
  s.requests = 100;
  s.failures.mismatch = 19900;
  s.connections_opened = 19900;  // the client dropped its connection after each failed call
  for (const auto& w : step_warnings(s, {})) EXPECT_EQ(w.find("the server closed"), std::string::npos) << w;
  s.connections_opened = 19900 + 100;  // and the server closed after each good one too
  bool said = false;
  for (const auto& w : step_warnings(s, {}))
    said = said || w.find("the server closed the connection after most responses (100 connections for 100") == 0;
  EXPECT_TRUE(said);
  // 2 clients of 50 connections each keep 100 open: 100 is no reconnect.
  s.failures = {};
  s.requests = 150;
  s.connections_opened = 100;
  s.connections_per_client = 50;
  for (const auto& w : step_warnings(s, {})) EXPECT_EQ(w.find("the server closed"), std::string::npos) << w;
}

TEST(StepWarnings, RateNotReached) {
  StepResult s = healthy();
  s.target_rate = 1000;
  s.requests = 9000;
  s.failures.read = 400;  // 9400 calls in 10 s = 940/s = 94%
  const auto warnings = step_warnings(s, {});
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[1],
            "achieved 940.0 calls/s, 94% of the target 1000.0/s: the target rate was not sustained "
            "(add clients or lower the rate)");
  s.failures.read = 0;
  s.requests = 9500;  // exactly 95%
  EXPECT_TRUE(step_warnings(s, {}).empty());
  s.target_rate = 0;  // closed loop: no target
  s.requests = 10;
  EXPECT_TRUE(step_warnings(s, {}).empty());
}

}  // namespace
}  // namespace soapbench
