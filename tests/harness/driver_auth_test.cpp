// `soapbench run --user` and `--wsse` against soapbench-server with
// --require-user (Basic, Digest) and --require-wsse, with the raw and curl
// clients: the right credentials make no failure (the first call's 401 round
// trip is none), wrong ones fail every call as `auth` and the run exits non-zero.
#include <gtest/gtest.h>

#include <memory>

#include "driver_support.h"
#include "proc/server_process.h"
#include "run_output.h"

namespace soapbench {
namespace {

using test::Program;
using namespace std::chrono_literals;

std::unique_ptr<ServerProcess> auth_server(const std::vector<std::string>& flags) {
  std::vector<std::string> argv{test::bin_path("soapbench-server"), "--port", "0", "--quiet", "--report-interval", "0"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return std::make_unique<ServerProcess>(argv, "listening on (http://[^ ]+)");
}

struct Outcome {
  int exit_code = -1;
  uint64_t requests = 0, failures = 0, auth = 0;
  std::string output;
};

Outcome run_with(const std::string& url, const std::string& client, const std::vector<std::string>& credentials) {
  test::TempDir dir;
  std::vector<std::string> extra{"--url", url, "--client", client, "--op", "echoString", "--clients", "1",
                                 "--requests", "30", "--warmup", "0", "--interval", "0", "--label", "auth"};
  extra.insert(extra.end(), credentials.begin(), credentials.end());
  Program p(test::soapbench_command("run", dir, extra));
  Outcome o;
  o.exit_code = p.wait(60s).value_or(-1);
  o.output = p.out() + p.err();
  const RunRecord record = test::results_of(p);
  for (const auto& op : record.operations)
    for (const auto& step : op.steps) {
      o.requests += step.requests;
      o.failures += step.failures.total();
      o.auth += step.failures.auth;
    }
  return o;
}

class DriverAuth : public testing::TestWithParam<std::string> {};

TEST_P(DriverAuth, HttpBasicAndDigest) {
  for (const char* scheme : {"basic", "digest"}) {
    SCOPED_TRACE(scheme);
    auto server = auth_server({"--require-user", "u:p", "--auth", scheme});
    const Outcome ok = run_with(server->url(), GetParam(), {"--user", "u:p"});
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_EQ(ok.requests, 30u) << ok.output;
    EXPECT_EQ(ok.failures, 0u) << ok.output;
    const Outcome wrong = run_with(server->url(), GetParam(), {"--user", "u:wrong"});
    EXPECT_NE(wrong.exit_code, 0) << wrong.output;
    EXPECT_EQ(wrong.requests, 0u) << wrong.output;
    EXPECT_EQ(wrong.auth, 30u) << wrong.output;
    EXPECT_EQ(wrong.failures, wrong.auth) << wrong.output;
    EXPECT_NE(wrong.output.find("wrong password for user 'u'"), std::string::npos) << wrong.output;
  }
}

// Nonces that go stale every 100 ms during a 1 s run: each stale=true 401 is
// answered with the new nonce within its call, so no call fails.
TEST_P(DriverAuth, DigestFollowsStaleNonces) {
  auto server = auth_server({"--require-user", "u:p", "--auth", "digest", "--nonce-lifetime", "100ms"});
  test::TempDir dir;
  Program p(test::soapbench_command("run", dir, {"--url", server->url(), "--client", GetParam(), "--op", "echoString",
                                                 "--clients", "1", "--duration", "1s", "--warmup", "0", "--interval",
                                                 "0", "--user", "u:p"}));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const RunRecord record = test::results_of(p);
  ASSERT_EQ(record.operations.size(), 1u);
  EXPECT_GT(record.operations[0].steps.at(0).requests, 10u);
  EXPECT_EQ(record.operations[0].steps.at(0).failures.total(), 0u);
}

TEST_P(DriverAuth, WsseTextAndDigest) {
  auto server = auth_server({"--require-wsse", "u:p"});
  for (const bool digest : {false, true}) {
    SCOPED_TRACE(digest ? "PasswordDigest" : "PasswordText");
    std::vector<std::string> flags{"--wsse", "u:p"};
    if (digest) flags.push_back("--wsse-digest");
    const Outcome ok = run_with(server->url(), GetParam(), flags);
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_EQ(ok.requests, 30u) << ok.output;
    EXPECT_EQ(ok.failures, 0u) << ok.output;
    flags[1] = "u:wrong";
    const Outcome wrong = run_with(server->url(), GetParam(), flags);
    EXPECT_NE(wrong.exit_code, 0) << wrong.output;
    EXPECT_EQ(wrong.auth, 30u) << wrong.output;
    EXPECT_EQ(wrong.failures, wrong.auth) << wrong.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Clients, DriverAuth, testing::Values("raw", "curl"));

TEST(DriverAuthGsoap, BasicWorksAndWsseIsRefusedByName) {
  auto server = auth_server({"--require-user", "u:p"});
  const Outcome ok = run_with(server->url(), "gsoap", {"--user", "u:p"});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_EQ(ok.failures, 0u) << ok.output;
  std::string out, err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "run", "--url", server->url(), "--client", "gsoap", "--wsse",
                               "u:p"},
                              &out, &err),
            2);
  EXPECT_NE(err.find("--wsse"), std::string::npos) << err;
}

TEST(DriverAuthFlags, BadCredentialFlagsExitTwoNamingTheFlag) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--user", "nocolon"}, "--user"},
      {{"--wsse", "nocolon"}, "--wsse"},
      {{"--wsse-digest"}, "--wsse-digest"},
  };
  for (const auto& [flags, name] : cases) {
    std::vector<std::string> argv{test::bin_path("soapbench"), "run", "--url", "http://127.0.0.1:9/echo"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    std::string out, err;
    EXPECT_EQ(test::run_program(argv, &out, &err), 2) << name << ": " << out << err;
    EXPECT_NE(err.find(name), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace soapbench
