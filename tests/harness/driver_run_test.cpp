// `soapbench run` end to end: real worker processes against the embedded
// soapbench-server, a fake endpoint that fails in each way, a stalled server
// in rate mode, a server and a worker that die, and Ctrl-C.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <csignal>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <thread>

#include "driver_support.h"
#include "run_output.h"
#include "core/results.h"
#include "proc/server_process.h"

namespace soapbench {
namespace {

using test::Program;
using namespace std::chrono_literals;

using test::results_of;

std::vector<std::string> run_args(const std::vector<std::string>& extra, const test::TempDir& out) {
  return test::soapbench_command("run", out, extra);
}

// Each "server counted N requests in the step; clients made M (warm-up W + measured K)" line.
struct CountLine {
  uint64_t server, clients, warmup, measured;
};
std::vector<CountLine> count_lines(const std::string& out) {
  static const std::regex re(
      R"(server counted (\d+) requests in the step; clients made (\d+) \(warm-up (\d+) \+ measured (\d+)\))");
  std::vector<CountLine> lines;
  for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
    lines.push_back({std::stoull((*it)[1]), std::stoull((*it)[2]), std::stoull((*it)[3]), std::stoull((*it)[4])});
  return lines;
}

class DriverRamp : public testing::TestWithParam<std::string> {};

TEST_P(DriverRamp, EmbeddedServerCountsMatchTheResultsFile) {
  test::TempDir dir;
  Program p(run_args({"--client", GetParam(), "--op", "echoString,echoStruct", "--clients", "1,2",
                      "--duration", "1s", "--warmup", "0.2s", "--interval", "0.5s", "--label", "ramp"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  SCOPED_TRACE("soapbench output:\n" + p.out() + p.err());
  const RunRecord record = results_of(p);
  EXPECT_FALSE(record.partial);
  EXPECT_EQ(record.context.client_kind, GetParam());
  EXPECT_NE(record.context.stack_label.find("gSOAP 2.8"), std::string::npos) << record.context.stack_label;
  EXPECT_EQ(record.context.server_mode, "per-connection");
  ASSERT_EQ(record.operations.size(), 2u);
  EXPECT_EQ(record.operations[0].operation, "echoString");
  EXPECT_EQ(record.operations[1].operation, "echoStruct");

  const auto lines = count_lines(p.out());
  ASSERT_EQ(lines.size(), 4u) << p.out();
  size_t k = 0;
  for (const auto& op : record.operations) {
    ASSERT_EQ(op.steps.size(), 2u);
    for (const auto& step : op.steps) {
      const CountLine& line = lines[k++];
      EXPECT_EQ(step.failures.total(), 0u) << step.failures.total();
      EXPECT_GT(step.requests, 0u);
      // Every request the server answered in the step is a warm-up or a
      // measured call of some client, and the file holds the measured ones.
      EXPECT_EQ(line.server, line.clients);
      EXPECT_EQ(line.clients, line.warmup + line.measured);
      EXPECT_EQ(line.measured, step.requests + step.failures.total());
      EXPECT_EQ(step.latency.count(), step.requests);
      EXPECT_GT(step.throughput, 0);
      EXPECT_TRUE(step.server_cpu_pct.has_value());
      EXPECT_GT(step.request_bytes, 500);
      EXPECT_GT(step.response_bytes, 500);
      EXPECT_FALSE(step.intervals.empty());
      EXPECT_TRUE(step.warnings.empty() || step.warnings[0].find("saturation") != std::string::npos)
          << step.warnings[0];
    }
    EXPECT_EQ(op.steps[0].clients, 1u);
    EXPECT_EQ(op.steps[1].clients, 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Clients, DriverRamp, testing::Values("raw", "gsoap", "curl"),
                         [](const auto& param_info) { return param_info.param; });

// --request-file: any envelope, judged by --expect on every call.
TEST(DriverRequestFile, AnEchoedEnvelopePassesAndAWrongExpectationFailsEveryCall) {
  const std::string request = std::string(SOAPBENCH_SOURCE_DIR) + "/wsdl/examples/echoStruct-request.xml";
  test::TempDir dir;
  for (const std::string client : {"raw", "curl"}) {
    SCOPED_TRACE(client);
    Program good(run_args({"--client", client, "--request-file", request, "--soap-action",
                           "urn:soapbench:echo:1#echoStruct", "--expect", "echo", "--expect",
                           "xpath:count(//*[local-name()='item'])=1", "--clients", "2", "--requests", "100",
                           "--warmup", "0", "--interval", "0"},
                          dir));
    ASSERT_EQ(good.wait(60s), 0) << good.out() << good.err();
    const RunRecord ok = results_of(good);
    ASSERT_EQ(ok.operations.size(), 1u);
    EXPECT_EQ(ok.operations[0].operation, "echoStruct") << "named by the payload element";
    const StepResult& step = ok.operations[0].steps.at(0);
    EXPECT_EQ(step.requests, 200u);
    EXPECT_EQ(step.failures.total(), 0u);
    const auto& options = ok.context.options.at("request");
    EXPECT_EQ(options.at("file"), request);
    EXPECT_EQ(options.at("soap_action"), "urn:soapbench:echo:1#echoStruct");
    EXPECT_EQ(options.at("expect").size(), 2u);

    Program wrong(run_args({"--client", client, "--request-file", request, "--expect", "contains:<NoSuchElement",
                            "--clients", "2", "--requests", "20", "--warmup", "0", "--interval", "0"},
                           dir));
    ASSERT_EQ(wrong.wait(60s), 1) << wrong.out() << wrong.err();
    const RunRecord failed = results_of(wrong);  // a reference into a temporary would dangle
    const StepResult& bad = failed.operations.at(0).steps.at(0);
    EXPECT_EQ(bad.requests, 0u);
    EXPECT_EQ(bad.failures.mismatch, 40u) << wrong.out();
    EXPECT_NE(wrong.out().find("first failure: mismatch: contains:<NoSuchElement: not in the response"),
              std::string::npos)
        << wrong.out();
  }
}

TEST(DriverRequestFile, VariablesMakeEachCallDifferAndEchoFollowsThem) {
  test::TempDir dir;
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir.path() / name).string();
    std::ofstream(path) << text;
    return path;
  };
  const std::string request = write(
      "vars.xml",
      "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body>"
      "<e:echoString xmlns:e=\"urn:soapbench:echo:1\"><e:text>${seq}/${client} ${uuid} ${csv:who}</e:text>"
      "</e:echoString></s:Body></s:Envelope>");
  const std::string data = write("who.csv", "who\nAda & co\n\"<Bob>\"\n");
  Program p(run_args({"--request-file", request, "--data", data, "--expect", "echo", "--clients", "2",
                      "--connections-per-client", "2", "--requests", "50", "--warmup", "0", "--interval", "0"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const RunRecord record = results_of(p);
  const StepResult& step = record.operations.at(0).steps.at(0);
  EXPECT_EQ(step.requests, 200u);
  EXPECT_EQ(step.failures.total(), 0u);

  std::string out, err;
  const std::string unknown = write("unknown.xml", "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                                                   "<s:Body><x>${nope}</x></s:Body></s:Envelope>");
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "run", "--request-file", unknown}, &out, &err), 2);
  EXPECT_NE(err.find("--request-file: " + unknown + ": unknown variable ${nope}"), std::string::npos) << err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "run", "--request-file", request, "--data",
                               write("other.csv", "name\nx\n")},
                              &out, &err),
            2);
  EXPECT_NE(err.find("has no column 'who' (it has: name)"), std::string::npos) << err;
}

TEST(DriverRequestFile, CheckShowsTheRequestAndTheResponse) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  const std::string request = std::string(SOAPBENCH_SOURCE_DIR) + "/wsdl/examples/echoString-request.xml";
  std::string out, err;
  ASSERT_EQ(test::run_program({test::bin_path("soapbench"), "check", "--url", server.url(), "--request-file", request,
                               "--expect", "echo"},
                              &out, &err),
            0)
      << out << err;
  EXPECT_NE(out.find("  echoString  ok"), std::string::npos) << out;
  EXPECT_NE(out.find("  request (1604 bytes):"), std::string::npos) << out;
  EXPECT_NE(out.find("  response ("), std::string::npos) << out;
  EXPECT_NE(out.find("echoStringResponse"), std::string::npos) << out;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "check", "--url", server.url(), "--request-file", request,
                               "--expect", "status:201"},
                              &out, &err),
            1)
      << out << err;
  EXPECT_NE(out.find("http_status HTTP 200, expected status:201"), std::string::npos) << out;
}

// --connections-per-client: each client process keeps several connections on one
// event loop; the server's count still equals every call the clients made.
class DriverConnections : public testing::TestWithParam<std::string> {};

TEST_P(DriverConnections, EveryConnectionsCallsAreCountedOnce) {
  test::TempDir dir;
  Program p(run_args({"--client", GetParam(), "--op", "echoString", "--clients", "1,2", "--connections-per-client",
                      "4", "--requests", "500", "--warmup", "0.2s", "--interval", "0", "--server-mode", "loops"},
                     dir));
  ASSERT_EQ(p.wait(120s), 0) << p.out() << p.err();
  SCOPED_TRACE("soapbench output:\n" + p.out() + p.err());
  EXPECT_NE(p.out().find("== echoString with 2 clients x 4 connections: warm-up 0.2 s, then 500 calls per connection"),
            std::string::npos);
  // The table's clients column says processes x connections.
  EXPECT_NE(p.out().find("\n      2x4 "), std::string::npos);
  const RunRecord record = results_of(p);
  EXPECT_EQ(record.context.options.at("connections_per_client"), 4);
  const auto lines = count_lines(p.out());
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_EQ(record.operations.at(0).steps.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const StepResult& step = record.operations[0].steps[k];
    EXPECT_EQ(step.clients, k + 1);
    EXPECT_EQ(step.client_processes, k + 1);
    EXPECT_EQ(step.connections_per_client, 4u);
    EXPECT_EQ(step.requests, (k + 1) * 4 * 500);
    EXPECT_EQ(step.latency.count(), step.requests);
    EXPECT_EQ(step.failures.total(), 0u);
    EXPECT_EQ(step.connections_opened, 0u) << "kept alive: no connection opened while measuring";
    EXPECT_EQ(lines[k].server, lines[k].clients);
    EXPECT_EQ(lines[k].measured, step.requests);
  }
}

INSTANTIATE_TEST_SUITE_P(Clients, DriverConnections, testing::Values("raw", "curl"),
                         [](const auto& param_info) { return param_info.param; });

struct Misbehaviour {
  test::FakeServer::Mode mode;
  std::string kind;  // FailureCounts field expected to count every call
};

void PrintTo(const Misbehaviour& m, std::ostream* os) { *os << (m.kind.empty() ? "none" : m.kind); }

class DriverFailures : public testing::TestWithParam<Misbehaviour> {};

uint64_t count_of(const FailureCounts& f, const std::string& kind) {
  if (kind == "soap_fault") return f.soap_fault;
  if (kind == "http_status") return f.http_status;
  if (kind == "mismatch") return f.mismatch;
  if (kind == "timeout") return f.timeout;
  if (kind == "connect") return f.connect;
  return f.read;
}

TEST_P(DriverFailures, EachCallIsCountedUnderItsKind) {
  test::FakeServer fake(GetParam().mode, 600ms);
  test::TempDir dir;
  // Each kind with one connection per client, and raw and curl with three on one loop.
  const std::vector<std::pair<std::string, unsigned>> setups{{"raw", 1}, {"gsoap", 1}, {"curl", 1}, {"raw", 3},
                                                             {"curl", 3}};
  for (const auto& [client, connections] : setups) {
    SCOPED_TRACE(client + " x" + std::to_string(connections));
    const uint64_t before = fake.requests();
    const uint64_t calls = 2 * 3 * connections;
    Program p(run_args({"--url", fake.url(), "--client", client, "--op", "echoString", "--clients", "2",
                        "--connections-per-client", std::to_string(connections), "--requests", "3", "--warmup",
                        "0", "--timeout", "300ms", "--string-length", "64"},
                       dir));
    // Any failed call fails the run (exit 1) unless the run allows errors.
    ASSERT_EQ(p.wait(60s), GetParam().kind.empty() ? 0 : 1) << p.out() << p.err();
    const RunRecord record = results_of(p);
    ASSERT_EQ(record.operations.size(), 1u);
    const StepResult& step = record.operations[0].steps.at(0);
    EXPECT_EQ(step.requests, GetParam().kind.empty() ? calls : 0u);
    EXPECT_EQ(step.connections_per_client, connections);
    if (!GetParam().kind.empty()) {
      EXPECT_EQ(count_of(step.failures, GetParam().kind), calls) << p.out();
      EXPECT_EQ(step.failures.total(), calls);
      EXPECT_FALSE(step.warnings.empty());
    }
    // The probe call, then 2 clients x connections x 3 calls; none is lost or doubled.
    EXPECT_EQ(fake.requests() - before, 1u + calls);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, DriverFailures,
                         testing::Values(Misbehaviour{test::FakeServer::Mode::echo, ""},
                                         Misbehaviour{test::FakeServer::Mode::fault, "soap_fault"},
                                         Misbehaviour{test::FakeServer::Mode::status, "http_status"},
                                         Misbehaviour{test::FakeServer::Mode::wrong, "mismatch"},
                                         Misbehaviour{test::FakeServer::Mode::slow, "timeout"},
                                         Misbehaviour{test::FakeServer::Mode::close, "read"}),
                         [](const auto& param_info) { return param_info.param.kind.empty() ? "none" : param_info.param.kind; });

// port() is the PORT of the URL the server announced (chat reads only the port).
TEST(ServerProcess, PortIsTheOneInTheAnnouncedUrl) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  ASSERT_GT(server.port(), 0);
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/echo") << server.first_line();
}

// At 200 calls/s for 3 s, a 1 s SIGSTOP of the server delays ~200 scheduled
// calls. Corrected latency charges each for its wait, so well over 1% of the
// ~600 calls are >= 0.5 s late and p99 shows the stall. Uncorrected latency
// sees one slow call (the one in flight, or sent into the stall): < 1%, so p99
// stays a normal call's, while max still shows the stall.
TEST(DriverRate, CorrectedLatencyShowsAStallTheUncorrectedHides) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  Program p(run_args({"--url", server.url(), "--op", "echoString", "--clients", "1", "--rate", "200",
                      "--duration", "3s", "--warmup", "0.2s", "--interval", "0.5s"},
                     dir));
  // The first live line comes 0.5 s into the measurement: the stall then
  // falls inside it with 1.5 s to spare for a slow machine.
  ASSERT_TRUE(p.wait_for_line("echoString x1", 20s)) << p.out() << p.err();
  ::kill(server.pid(), SIGSTOP);
  std::this_thread::sleep_for(1000ms);
  ::kill(server.pid(), SIGCONT);
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const StepResult step = results_of(p).operations.at(0).steps.at(0);
  ASSERT_TRUE(step.uncorrected.has_value());
  EXPECT_EQ(step.failures.total(), 0u);
  EXPECT_EQ(step.target_rate, 200);
  EXPECT_NEAR(static_cast<double>(step.requests), 600, 10);
  EXPECT_GE(step.latency.percentile(99), 0.5) << "corrected p99";
  EXPECT_LT(step.uncorrected->percentile(99), 0.2) << "uncorrected p99";
  EXPECT_GE(step.uncorrected->max(), 0.8) << "the one call that waited out the stall";
  bool lag_warned = false;
  for (const auto& w : step.warnings) lag_warned |= w.find("behind schedule") != std::string::npos;
  EXPECT_TRUE(lag_warned) << p.out();
}

TEST(DriverRobustness, ServerDyingMidStepIsCountedAndTheFileIsComplete) {
  auto server = std::make_unique<ServerProcess>(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  Program p(run_args({"--url", server->url(), "--op", "echoString", "--clients", "2", "--duration", "2s",
                      "--warmup", "0.2s", "--interval", "0.5s"},
                     dir));
  ASSERT_TRUE(p.wait_for_line("echoString x2", 20s)) << p.out() << p.err();  // measuring
  ::kill(server->pid(), SIGKILL);
  ASSERT_EQ(p.wait(60s), 1) << p.out() << p.err();  // measured, failed calls: errors==0 does not hold
  server.reset();
  const RunRecord record = results_of(p);
  EXPECT_FALSE(record.partial);
  const StepResult& step = record.operations.at(0).steps.at(0);
  EXPECT_GT(step.requests, 0u) << "calls before the server died";
  EXPECT_GT(step.failures.connect + step.failures.read, 0u) << p.out();
  EXPECT_FALSE(step.warnings.empty());
}

TEST(DriverRobustness, AKilledWorkerIsReportedNotWaitedFor) {
  test::TempDir dir;
  Program p(run_args({"--op", "echoString", "--clients", "2", "--duration", "2s", "--warmup", "0.2s",
                      "--interval", "0.5s"},
                     dir));
  ASSERT_TRUE(p.wait_for_line("echoString x2", 20s)) << p.out() << p.err();  // measuring
  pid_t victim = -1;
  for (pid_t child : test::children_of(p.pid())) {
    std::ifstream cmdline("/proc/" + std::to_string(child) + "/cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), {});
    if (text.find("worker") != std::string::npos) victim = child;
  }
  ASSERT_GT(victim, 0) << "no worker process found";
  ::kill(victim, SIGKILL);
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const RunRecord record = results_of(p);
  const StepResult& step = record.operations.at(0).steps.at(0);
  bool reported = false;
  for (const auto& w : step.warnings) reported |= w.find("ended without a result") != std::string::npos;
  EXPECT_TRUE(reported) << p.out();
  EXPECT_GT(step.requests, 0u) << "the other worker's calls";
}

TEST(DriverRobustness, SigintLeavesAPartialFileAndNoProcess) {
  test::TempDir dir;
  Program p(run_args({"--op", "echoString", "--clients", "2", "--duration", "30s", "--warmup", "0.2s",
                      "--interval", "0.5s"},
                     dir));
  ASSERT_TRUE(p.wait_for_line("echoString x2", 20s)) << p.out() << p.err();  // a live line
  const std::vector<pid_t> children = test::children_of(p.pid());
  EXPECT_EQ(children.size(), 3u) << "the embedded server and two workers";
  ::kill(p.pid(), SIGINT);
  ASSERT_EQ(p.wait(20s), 130) << p.out() << p.err();
  for (pid_t child : children) EXPECT_FALSE(test::process_alive(child)) << "pid " << child << " left behind";
  const RunRecord record = results_of(p);
  EXPECT_TRUE(record.partial);
  const StepResult& step = record.operations.at(0).steps.at(0);
  EXPECT_GT(step.requests, 0u);
  EXPECT_LT(step.duration_s, 30);
  bool marked = false;
  for (const auto& w : step.warnings) marked |= w.find("interrupted") != std::string::npos;
  EXPECT_TRUE(marked);
}

}  // namespace
}  // namespace soapbench

namespace soapbench {
namespace {

using test::Program;
using test::results_of;
using namespace std::chrono_literals;

// Exit status and criteria (issue 15): a frozen server's timeouts fail the
// run by default; --allow-errors keeps exit 0; an assertion names its metric.
TEST(DriverVerdict, AFrozenServerFailsTheRunAndTheFileListsTheTimeouts) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  Program p(run_args({"--url", server.url(), "--op", "echoString", "--clients", "1", "--duration", "3s",
                      "--warmup", "0.2s", "--interval", "0.5s", "--timeout", "300ms"},
                     dir));
  ASSERT_TRUE(p.wait_for_line("echoString x1", 20s)) << p.out() << p.err();
  ::kill(server.pid(), SIGSTOP);
  std::this_thread::sleep_for(1000ms);
  ::kill(server.pid(), SIGCONT);
  ASSERT_EQ(p.wait(60s), 1) << p.out() << p.err();
  const StepResult step = results_of(p).operations.at(0).steps.at(0);
  EXPECT_GT(step.failures.timeout, 0u) << p.out();
  ASSERT_EQ(step.assertions.size(), 1u);
  EXPECT_EQ(step.assertions[0].expression, "errors==0");
  EXPECT_EQ(step.assertions[0].status, "failed");
  EXPECT_EQ(step.assertions[0].measured, static_cast<double>(step.failures.total()));
  EXPECT_NE(p.out().find("== Verdict: FAILED (1 of 1 criteria)"), std::string::npos) << p.out();
  EXPECT_NE(p.out().find("echoString x1: errors==0 failed: measured"), std::string::npos) << p.out();
}

TEST(DriverVerdict, AllowErrorsPassesARunOfFaults) {
  test::FakeServer fake(test::FakeServer::Mode::fault);
  test::TempDir dir;
  Program p(run_args({"--url", fake.url(), "--op", "echoString", "--clients", "1", "--requests", "3",
                      "--warmup", "0", "--allow-errors"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const StepResult step = results_of(p).operations.at(0).steps.at(0);
  EXPECT_EQ(step.failures.soap_fault, 3u);
  EXPECT_TRUE(step.assertions.empty());
}

TEST(DriverVerdict, AFailedAssertionExitsOneNamingItsMetric) {
  test::TempDir dir;
  Program p(run_args({"--op", "echoString,echoStruct", "--clients", "1,2", "--requests", "20", "--warmup", "0",
                      "--assert", "p99<1us", "--assert", "errors==0"},
                     dir));
  ASSERT_EQ(p.wait(60s), 1) << p.out() << p.err();
  EXPECT_NE(p.out().find("== Verdict: FAILED (4 of 8 criteria)"), std::string::npos) << p.out();
  EXPECT_NE(p.out().find("echoStruct x2: p99<1us failed: measured"), std::string::npos) << p.out();
  for (const auto& op : results_of(p).operations)
    for (const auto& step : op.steps) {
      ASSERT_EQ(step.assertions.size(), 2u);
      EXPECT_EQ(step.assertions[0].status, "failed");
      EXPECT_EQ(step.assertions[1].status, "passed");
    }
}

}  // namespace
}  // namespace soapbench

namespace soapbench {
namespace {

// --junit: one testcase per operation and step, one failure per failed step,
// the assertion and the measured value in it.
TEST(DriverVerdict, JUnitHasOneFailurePerFailedStep) {
  test::TempDir dir;
  const std::string junit = (dir.path() / "verdict.xml").string();
  test::Program p(run_args({"--op", "echoString,echoStruct", "--clients", "1,2", "--requests", "20", "--warmup",
                            "0", "--assert", "p99<1us", "--assert", "errors==0", "--junit", junit},
                           dir));
  ASSERT_EQ(p.wait(std::chrono::seconds(60)), 1) << p.out() << p.err();
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file(junit.c_str())) << junit;
  const pugi::xml_node suites = doc.child("testsuites");
  EXPECT_EQ(suites.attribute("tests").as_int(), 4);
  EXPECT_EQ(suites.attribute("failures").as_int(), 4);
  std::vector<std::string> names;
  for (const auto suite : suites.children("testsuite")) {
    EXPECT_EQ(suite.attribute("tests").as_int(), 2);
    EXPECT_EQ(suite.attribute("failures").as_int(), 2);
    for (const auto tc : suite.children("testcase")) {
      names.push_back(tc.attribute("name").as_string());
      EXPECT_GT(tc.attribute("time").as_double(), 0);
      const pugi::xml_node failure = tc.child("failure");
      ASSERT_TRUE(failure) << names.back();
      EXPECT_EQ(std::string(failure.attribute("message").as_string()).rfind("p99<1us failed: measured ", 0), 0u)
          << failure.attribute("message").as_string();
      EXPECT_EQ(std::distance(tc.children("failure").begin(), tc.children("failure").end()), 1);
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"echoString x1", "echoString x2", "echoStruct x1", "echoStruct x2"}));
}

TEST(DriverVerdict, JUnitOfAnUnreachableTargetIsOneError) {
  test::TempDir dir;
  const std::string junit = (dir.path() / "verdict.xml").string();
  const std::string url = "http://127.0.0.1:" + std::to_string(test::unused_port()) + "/echo";
  test::Program p(run_args({"--url", url, "--clients", "1", "--junit", junit}, dir));
  ASSERT_EQ(p.wait(std::chrono::seconds(60)), 3) << p.out() << p.err();
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file(junit.c_str())) << junit;
  EXPECT_EQ(doc.child("testsuites").attribute("errors").as_int(), 1);
  const std::string message =
      doc.child("testsuites").child("testsuite").child("testcase").child("error").attribute("message").as_string();
  EXPECT_NE(message.find("cannot reach " + url), std::string::npos) << message;
}

}  // namespace
}  // namespace soapbench

namespace soapbench {
namespace {

// --rate with a list: one step per rate at the one client count, each with its
// target, its calls (the rate times the measured time) and a row in the table.
TEST(DriverRateList, OneStepPerRate) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  Program p(run_args({"--url", server.url(), "--op", "echoString", "--clients", "2", "--rate", "100-200+100",
                      "--duration", "1s", "--warmup", "0", "--interval", "0"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  EXPECT_NE(p.out().find("== echoString with 2 clients: warm-up 0 s, then 1 s measured at 100 calls/s"),
            std::string::npos) << p.out();
  EXPECT_NE(p.out().find("== echoString with 2 clients: warm-up 0 s, then 1 s measured at 200 calls/s"),
            std::string::npos) << p.out();
  const RunRecord record = results_of(p);
  EXPECT_EQ(record.context.options.at("rates"), nlohmann::json::array({100.0, 200.0}));
  const auto& steps = record.operations.at(0).steps;
  ASSERT_EQ(steps.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const double rate = 100.0 * static_cast<double>(i + 1);
    EXPECT_EQ(steps[i].clients, 2u);
    EXPECT_EQ(steps[i].target_rate, rate);
    EXPECT_EQ(steps[i].failures.total(), 0u);
    EXPECT_NEAR(static_cast<double>(steps[i].requests), rate, 3) << "step " << i;
    ASSERT_TRUE(steps[i].send_lag.has_value());
  }
}

// --runs: each step measured that many times in a row, kept as steps of their own;
// compare takes them as one load (a file against itself: nothing worse).
TEST(DriverRuns, EachStepRepeatedInARow) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  Program p(run_args({"--url", server.url(), "--op", "echoString", "--clients", "1,2", "--runs", "2", "--requests",
                      "20", "--warmup", "0", "--interval", "0"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const RunRecord record = results_of(p);
  EXPECT_EQ(record.context.options.at("runs"), 2);
  const auto& steps = record.operations.at(0).steps;
  ASSERT_EQ(steps.size(), 4u);
  const std::vector<unsigned> clients{steps[0].clients, steps[1].clients, steps[2].clients, steps[3].clients};
  EXPECT_EQ(clients, (std::vector<unsigned>{1, 1, 2, 2}));
  for (const auto& s : steps) EXPECT_EQ(s.requests, 20u * s.clients);
  std::string out, err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", p.last_line(), p.last_line()}, &out, &err), 0)
      << out << err;
  EXPECT_NE(out.find("no significant regression beyond 5%"), std::string::npos) << out;
}

// compare finds a real regression end to end: the same pool server, then with
// 5 ms added to every answer (--delay), the second run far slower in every
// interval: exit 1, throughput named WORSE. (A deliberate slowdown rather than
// loops against iterative mode, whose gap depends on how busy the machine is.)
TEST(DriverVerdict, CompareOfASlowerServerExitsOne) {
  test::TempDir dir;
  std::vector<std::string> files;
  for (const std::string delay : {"0", "5ms"}) {
    ServerProcess server({test::bin_path("soapbench-server"), "--port", "0", "--quiet", "--report-interval", "0",
                          "--mode", "pool", "--threads", "4", "--delay", delay},
                         "listening on (http://[^ ]+)");
    Program p(run_args({"--url", server.url(), "--op", "echoString", "--clients", "2", "--duration", "2s",
                        "--warmup", "0.2s", "--interval", "0.2s", "--label", "delay" + delay},
                       dir));
    ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
    files.push_back(p.last_line());
  }
  std::string out, err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", files[0], files[1]}, &out, &err), 1)
      << out << err;
  EXPECT_NE(out.find("WORSE ("), std::string::npos) << out;
  bool throughput_worse = false;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    throughput_worse |= line.find("throughput") != std::string::npos && line.find("p=") != std::string::npos &&
                        line.find("significant") != std::string::npos && line.find("WORSE") != std::string::npos;
  EXPECT_TRUE(throughput_worse) << out;
}

// compare refuses runs it cannot judge: a closed loop against a rate run exits 2, naming why.
TEST(DriverVerdict, CompareOfClosedLoopAgainstRateRunExitsTwo) {
  ServerProcess server(test::bin_path("soapbench-server"), "per-connection");
  test::TempDir dir;
  std::vector<std::string> files;
  for (const std::string rate : {"0", "200"}) {
    test::Program p(run_args({"--url", server.url(), "--op", "echoString", "--clients", "1", "--duration", "0.5s",
                              "--warmup", "0", "--rate", rate, "--label", "rate" + rate},
                             dir));
    ASSERT_EQ(p.wait(std::chrono::seconds(60)), 0) << p.out() << p.err();
    files.push_back(p.last_line());
  }
  std::string out, err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", files[0], files[1]}, &out, &err), 2) << out;
  EXPECT_NE(err.find("not comparable"), std::string::npos) << err;
  EXPECT_NE(err.find("closed loop against fixed rate (closed loop against rate)"), std::string::npos) << err;
  // The same file against itself: nothing is worse, exit 0.
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", files[0], files[0]}, &out, &err), 0) << out;
  EXPECT_NE(out.find("no significant regression beyond 5%"), std::string::npos) << out;
}

}  // namespace
}  // namespace soapbench
