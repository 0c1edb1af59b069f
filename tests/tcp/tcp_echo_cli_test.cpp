// `soapbench tcp-echo` and `soapbench merge` end to end: real worker processes
// against the embedded and a standalone soapbench-echo-server, exact counts,
// sane percentiles, usage errors, and two simultaneous runs added up.
#include <gtest/gtest.h>

#include <unistd.h>

#include <regex>

#include "echo_support.h"
#include "core/results.h"
#include "run_output.h"

namespace soapbench {
namespace {

using test::Program;
using namespace std::chrono_literals;

using test::results_of;

std::vector<std::string> tcp_echo(const std::vector<std::string>& extra, const test::TempDir& out) {
  return test::soapbench_command("tcp-echo", out, extra);
}

// "server counted N requests in the step; clients made M ..." pairs.
std::vector<std::pair<uint64_t, uint64_t>> count_lines(const std::string& out) {
  static const std::regex re(R"(server counted (\d+) requests in the step; clients made (\d+))");
  std::vector<std::pair<uint64_t, uint64_t>> lines;
  for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
    lines.emplace_back(std::stoull((*it)[1]), std::stoull((*it)[2]));
  return lines;
}

void expect_sane(const StepResult& s) {
  EXPECT_EQ(s.failures.total(), 0u);
  EXPECT_EQ(s.latency.count(), s.requests);
  const double p50 = s.latency.percentile(50), p90 = s.latency.percentile(90), p99 = s.latency.percentile(99);
  EXPECT_GT(s.latency.min(), 0.0);
  EXPECT_LE(s.latency.min(), p50);
  EXPECT_LE(p50, p90);
  EXPECT_LE(p90, p99);
  EXPECT_LE(p99, s.latency.max());
  EXPECT_LT(p50, 0.5);  // an echo on loopback takes well under half a second
  EXPECT_GT(s.throughput, 0.0);
}

class TcpEchoRun : public ::testing::TestWithParam<std::string> {};

TEST_P(TcpEchoRun, EmbeddedServerCountsEveryMessage) {
  // 3000 messages per connection: long enough (tens of ms) that the measured
  // phase outlasts a late wake-up of the driver, which reads the server's CPU then.
  test::TempDir dir;
  Program p(tcp_echo({"--server-mode", GetParam(), "--clients", "1,3", "--requests", "3000", "--warmup", "0.2s",
                      "--interval", "0.2s", "--label", GetParam()},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  SCOPED_TRACE(p.out() + p.err());
  EXPECT_NE(p.out().find("embedded soapbench-echo-server listening on tcp://127.0.0.1:"), std::string::npos);
  const RunRecord r = results_of(p);
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.context.client_kind, "tcp");
  EXPECT_EQ(r.context.server_mode, GetParam());
  EXPECT_EQ(r.context.options.at("packet_bytes"), 100);
  ASSERT_EQ(r.operations.size(), 1u);
  EXPECT_EQ(r.operations[0].operation, "tcpEcho");
  ASSERT_EQ(r.operations[0].steps.size(), 2u);
  const auto lines = count_lines(p.out());
  ASSERT_EQ(lines.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const StepResult& s = r.operations[0].steps[k];
    EXPECT_EQ(s.clients, k == 0 ? 1u : 3u);
    EXPECT_EQ(s.requests, 3000u * s.clients);  // --requests is per connection, exactly
    expect_sane(s);
    EXPECT_DOUBLE_EQ(s.request_bytes, 104);  // 100 bytes and the 4-byte length
    EXPECT_DOUBLE_EQ(s.response_bytes, 104);
    EXPECT_TRUE(s.server_cpu_pct.has_value());
    EXPECT_EQ(lines[k].first, lines[k].second);  // the server counted exactly the messages sent
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, TcpEchoRun, ::testing::Values("threaded", "non-threaded"),
                         [](const auto& test_param) { return test_param.param == "threaded" ? "threaded" : "non_threaded"; });

TEST(TcpEcho, StandaloneServerWithNewConnectionsPacketSizeAndWait) {
  test::EchoServerProcess server({"--mode", "non-threaded"});
  test::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  Program p(tcp_echo({"--url", server.url(), "--stats-url", server.stats_url(), "--clients", "2", "--requests",
                      "20", "--new-connection", "--packet-size", "1000", "--wait", "20ms", "--warmup", "0",
                      "--interval", "0"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const auto took = std::chrono::steady_clock::now() - start;
  SCOPED_TRACE(p.out() + p.err());
  const StepResult s = results_of(p).operations.at(0).steps.at(0);
  EXPECT_EQ(s.requests, 40u);
  expect_sane(s);
  EXPECT_DOUBLE_EQ(s.request_bytes, 1004);
  EXPECT_GE(took, 400ms);  // 20 calls, each followed by a 20 ms wait
  const auto lines = count_lines(p.out());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].first, lines[0].second);
  // One connection per message: the probe's and the 40 measured.
  EXPECT_EQ(server.stats().at("connections").at("accepted").get<uint64_t>(), 41u);
}

TEST(TcpEcho, UsageErrorsNameTheFlag) {
  test::TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--url", "tcp://127.0.0.1:9", "--server-mode", "threaded"}, "--server-mode"},
      {{"--url", "http://127.0.0.1:9/echo"}, "--url"},
      {{"--stats-url", "http://127.0.0.1:9/stats"}, "--stats-url"},
      {{"--server-mode", "non-threaded", "--server-threads", "4"}, "--server-threads"},
      {{"--clients", "0"}, "--clients"},
      {{"--packet-size", "1G"}, "--packet-size"},
      {{"--wait", "soon"}, "--wait"},
      {{"--duration", "1s", "--requests", "5"}, "--requests"},
      {{"--server-pid", std::to_string(getpid())}, "--server-pid"},  // only with --url
      {{"--url", "tcp://127.0.0.1:9", "--server-pid", "0"}, "--server-pid"},
      {{"--url", "tcp://127.0.0.1:9", "--server-pid", "4194303"}, "--server-pid"},  // no such process
      {{"--url", "tcp://127.0.0.1:9", "--server-pid", "1", "--stats-url", "http://127.0.0.1:9/stats"},
       "--server-pid"},
  };
  for (const auto& [flags, name] : cases) {
    std::string out, err;
    EXPECT_EQ(test::run_program(tcp_echo(flags, dir), &out, &err), 2) << name << out << err;
    EXPECT_NE(err.find(name), std::string::npos) << err;
  }
}

// A server without /stats (as peers/tcp/xsocket): --server-pid gives the CPU of
// its process group from /proc; no request count is compared.
TEST(TcpEcho, ServerPidGivesTheCpuOfAServerWithoutStats) {
  const uint16_t port = test::unused_port();
  // setsid: the server leads its own group, as a peer started by its start script.
  Program server({"/usr/bin/setsid", test::bin_path("soapbench-echo-server"), "--port", std::to_string(port),
                  "--mode", "threaded", "--threads", "4"});
  ASSERT_TRUE(server.wait_for_line("listening on", 10s)) << server.out() << server.err();
  test::TempDir dir;
  Program p(tcp_echo({"--url", "tcp://127.0.0.1:" + std::to_string(port), "--server-pid",
                      std::to_string(server.pid()), "--clients", "2", "--requests", "3000", "--warmup", "0",
                      "--interval", "0"},
                     dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  SCOPED_TRACE(p.out() + p.err());
  const RunRecord r = results_of(p);
  const StepResult& s = r.operations.at(0).steps.at(0);
  EXPECT_EQ(s.requests, 6000u);
  expect_sane(s);
  ASSERT_TRUE(s.server_cpu_pct.has_value());
  EXPECT_GT(*s.server_cpu_pct, 0.0);
  EXPECT_TRUE(count_lines(p.out()).empty());  // the CPU only: the server's count is not known

  // A process that shares its group (this test's) is refused: its group's CPU is not its own.
  Program plain({test::bin_path("soapbench-echo-server"), "--port", "0", "--quiet"});
  ASSERT_TRUE(plain.wait_for_line("listening on", 10s)) << plain.out() << plain.err();
  std::string out, err;
  EXPECT_EQ(test::run_program(tcp_echo({"--url", "tcp://127.0.0.1:9", "--server-pid", std::to_string(plain.pid())},
                                       dir),
                              &out, &err),
            2);
  EXPECT_NE(err.find("--server-pid: process " + std::to_string(plain.pid()) + " does not lead its own process group"),
            std::string::npos)
      << err;
}

TEST(TcpEcho, AnUnreachableServerIsReportedAtOnce) {
  test::TempDir dir;
  std::string out, err;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(test::run_program(tcp_echo({"--url", "tcp://127.0.0.1:" + std::to_string(test::unused_port())}, dir),
                              &out, &err),
            1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_NE(err.find("cannot reach"), std::string::npos) << err;
}

// Two client processes at once against one server, as xSocket's clients A and B.
TEST(Merge, TwoSimultaneousRunsAddUp) {
  test::EchoServerProcess server({"--mode", "threaded", "--threads", "4"});
  test::TempDir dir_a, dir_b, dir_m;
  const std::vector<std::string> flags{"--url", server.url(), "--stats-url", server.stats_url(), "--clients",
                                       "2", "--requests", "200", "--warmup", "0.1s", "--interval", "0"};
  Program a(tcp_echo(flags, dir_a)), b(tcp_echo(flags, dir_b));
  ASSERT_EQ(a.wait(60s), 0) << a.out() << a.err();
  ASSERT_EQ(b.wait(60s), 0) << b.out() << b.err();
  const RunRecord ra = results_of(a), rb = results_of(b);

  Program m({test::bin_path("soapbench"), "merge", a.last_line(), b.last_line(), "--out", dir_m.path().string(),
             "--label", "A+B"});
  ASSERT_EQ(m.wait(30s), 0) << m.out() << m.err();
  SCOPED_TRACE(m.out());
  const RunRecord r = results_of(m);
  EXPECT_EQ(r.context.label, "A+B");
  const StepResult& s = r.operations.at(0).steps.at(0);
  const StepResult &sa = ra.operations[0].steps[0], &sb = rb.operations[0].steps[0];
  EXPECT_EQ(s.clients, 4u);
  EXPECT_EQ(s.requests, 800u);
  EXPECT_EQ(s.latency.count(), 800u);
  EXPECT_DOUBLE_EQ(s.throughput, sa.throughput + sb.throughput);
  EXPECT_DOUBLE_EQ(s.latency.max(), std::max(sa.latency.max(), sb.latency.max()));
  EXPECT_DOUBLE_EQ(s.latency.min(), std::min(sa.latency.min(), sb.latency.min()));
  expect_sane(s);
  EXPECT_NE(m.out().find("merged 2 runs"), std::string::npos);

  // The merged file is read by compare like any other.
  std::string out, err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", a.last_line(), m.last_line()}, &out, &err), 0)
      << err;
  EXPECT_NE(out.find("tcpEcho"), std::string::npos) << out;

  // A run of another shape is refused with exit 2, a missing file with 1, one file with 2.
  Program other(tcp_echo({"--url", server.url(), "--clients", "1,2", "--requests", "10", "--warmup", "0",
                          "--interval", "0"},
                         dir_b));
  ASSERT_EQ(other.wait(60s), 0) << other.err();
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "merge", a.last_line(), other.last_line()}, &out, &err), 2);
  EXPECT_NE(err.find("do not match: tcpEcho: 1 steps vs 2"), std::string::npos) << err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "merge", a.last_line(), "/nonexistent.json"}, &out, &err), 1);
  EXPECT_NE(err.find("/nonexistent.json"), std::string::npos) << err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "merge", a.last_line()}, &out, &err), 2);
  EXPECT_NE(err.find("two or more"), std::string::npos) << err;
}

}  // namespace
}  // namespace soapbench
