// `soapbench run` over https end to end, with worker processes, against
// soapbench-server --tls-cert: the results file says what TLS negotiated and how
// many handshakes the step held; credentials and gzip work over TLS; a server
// whose certificate does not verify fails every call as `tls` and the run exits
// non-zero; TLS flags with a plain URL are usage errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "driver_support.h"
#include "proc/server_process.h"
#include "run_output.h"

namespace soapbench {
namespace {

using test::Program;
using namespace std::chrono_literals;

// The certificates of tests/tls/make-certs, made once for this program (removed at its exit).
std::string cert(const std::string& name) {
  static const test::TempDir dir;
  static const bool made = [] {
    const std::string cmd = std::string(SOAPBENCH_SOURCE_DIR) + "/tests/tls/make-certs '" + dir.path().string() + "'";
    return std::system(cmd.c_str()) == 0;
  }();
  if (!made) ADD_FAILURE() << "tests/tls/make-certs failed";
  return (dir.path() / name).string();
}

std::unique_ptr<ServerProcess> tls_server(const std::string& name, const std::vector<std::string>& flags = {}) {
  std::vector<std::string> argv{test::bin_path("soapbench-server"), "--port", "0", "--quiet", "--report-interval",
                                "0", "--mode", "loops", "--tls-cert", cert(name + ".pem"), "--tls-key",
                                cert(name + ".key")};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return std::make_unique<ServerProcess>(argv, "listening on (https://[^ ]+)");
}

std::vector<std::string> run_flags(const std::string& url, const std::string& client, unsigned requests) {
  return {"--url", url, "--client", client, "--op", "echoString", "--clients", "2", "--requests",
          std::to_string(requests), "--warmup", "0", "--interval", "0", "--cacert", cert("ca.pem")};
}

StepResult only_step(const RunRecord& record) {
  EXPECT_EQ(record.operations.size(), 1u);
  EXPECT_EQ(record.operations.at(0).steps.size(), 1u);
  return record.operations.at(0).steps.at(0);
}

class DriverTls : public testing::TestWithParam<std::string> {};

TEST_P(DriverTls, KeepAliveAndNewConnectionsSayWhatWasNegotiated) {
  auto server = tls_server("server");
  test::TempDir dir;
  {
    Program p(test::soapbench_command("run", dir, run_flags(server->url(), GetParam(), 20)));
    ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
    const StepResult s = only_step(test::results_of(p));
    EXPECT_EQ(s.requests, 40u);
    EXPECT_EQ(s.failures.total(), 0u);
    EXPECT_EQ(s.tls.protocol, "TLSv1.3");
    EXPECT_FALSE(s.tls.cipher.empty());
    EXPECT_EQ(s.tls.handshakes, 2u) << "keep-alive: one connection per client carries its 20 calls (no warm-up)";
    EXPECT_NE(p.out().find("tls: TLSv1.3 "), std::string::npos) << p.out();
  }
  for (const bool resume : {true, false}) {
    std::vector<std::string> flags = run_flags(server->url(), GetParam(), 10);
    flags.push_back("--new-connection");
    if (!resume) flags.push_back("--no-resume");
    Program p(test::soapbench_command("run", dir, flags));
    ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
    const StepResult s = only_step(test::results_of(p));
    EXPECT_EQ(s.requests, 20u);
    EXPECT_EQ(s.tls.handshakes, 20u) << "a handshake per call";
    if (resume) {
      EXPECT_GE(s.tls.resumed, 16u) << "all but each client's first (and a late ticket)";
    } else {
      EXPECT_EQ(s.tls.resumed, 0u);
    }
  }
}

TEST_P(DriverTls, CredentialsAndGzipOverTls) {
#ifndef WITH_GZIP
  GTEST_SKIP() << "the system gSOAP runtime has no zlib: the server refuses --gzip";
#endif
  auto server = tls_server("server", {"--require-user", "u:p", "--auth", "digest", "--gzip"});
  test::TempDir dir;
  std::vector<std::string> flags = run_flags(server->url(), GetParam(), 15);
  flags.insert(flags.end(), {"--user", "u:p", "--gzip"});
  Program p(test::soapbench_command("run", dir, flags));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const StepResult s = only_step(test::results_of(p));
  EXPECT_EQ(s.requests, 30u);
  EXPECT_EQ(s.failures.total(), 0u);
  EXPECT_EQ(s.tls.protocol, "TLSv1.3");
  // The 1 KB echoString compresses well: the wire carries a fraction of it.
  EXPECT_GT(s.uncompressed_request_bytes, 1.5 * s.request_bytes) << s.request_bytes;
  EXPECT_GT(s.uncompressed_response_bytes, 1.5 * s.response_bytes) << s.response_bytes;
  EXPECT_NE(p.out().find("gzip: "), std::string::npos) << p.out();

  flags = run_flags(server->url(), GetParam(), 5);
  flags.insert(flags.end(), {"--user", "u:wrong"});
  Program wrong(test::soapbench_command("run", dir, flags));
  EXPECT_EQ(wrong.wait(60s), 1) << wrong.out() << wrong.err();
  EXPECT_EQ(only_step(test::results_of(wrong)).failures.auth, 10u);
}

TEST_P(DriverTls, AnUnverifiedServerFailsEveryCallAsTls) {
  auto server = tls_server("expired");
  test::TempDir dir;
  Program p(test::soapbench_command("run", dir, run_flags(server->url(), GetParam(), 5)));
  EXPECT_EQ(p.wait(60s), 1) << p.out() << p.err();
  const StepResult s = only_step(test::results_of(p));
  EXPECT_EQ(s.requests, 0u);
  EXPECT_EQ(s.failures.tls, 10u);
  EXPECT_EQ(s.failures.total(), s.failures.tls);
  EXPECT_NE(p.out().find("expired"), std::string::npos) << p.out();
}

INSTANTIATE_TEST_SUITE_P(Clients, DriverTls, testing::Values("raw", "curl"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(DriverTlsFlags, TlsFlagsNeedAnHttpsUrlAndReadableFiles) {
  test::TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--url", "http://127.0.0.1:1/echo", "--cacert", cert("ca.pem")}, "--cacert: only with an https:// --url"},
      {{"--url", "http://127.0.0.1:1/echo", "--no-resume"}, "--no-resume: only with an https:// --url"},
      {{"--url", "https://127.0.0.1:1/echo", "--cacert", "/nonexistent.pem"}, "--cacert: cannot read CA certificates"},
      {{"--url", "https://127.0.0.1:1/echo", "--cert", cert("client.pem")}, "--cert: goes with --key"},
      {{"--url", "https://127.0.0.1:1/echo", "--tls-min", "1.1"}, "--tls-min"},
      {{"--url", "https://127.0.0.1:1/echo", "--gzip", "--client", "gsoap"}, "--gzip: the raw and curl clients"},
  };
  for (const auto& [extra, want] : cases) {
    Program p(test::soapbench_command("run", dir, extra));
    EXPECT_EQ(p.wait(20s), 2) << want << ": " << p.err();
    EXPECT_NE(p.err().find(want), std::string::npos) << p.err();
  }
}

}  // namespace
}  // namespace soapbench
