// `soapbench chat` end to end: exact counts in closed-loop, windowless and
// rate modes, the results file read back by compare, a verdict that fails on
// a foreign message, a client killed mid-run, Ctrl-C, and flag errors.
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <csignal>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "chat/chat_client.h"
#include "chat/chat_command.h"
#include "chat_test_support.h"
#include "driver_support.h"
#include "core/results.h"
#include "run_output.h"

namespace soapbench::chat {
namespace {

using soapbench::test::Program;
using soapbench::test::TempDir;
using namespace std::chrono_literals;

using soapbench::test::results_of;

std::vector<std::string> chat_args(const std::vector<std::string>& extra, const TempDir& out) {
  return soapbench::test::soapbench_command("chat", out, extra);
}

// The step's numbers agree with each other and with rooms x users x (users-1) x messages.
void expect_exact(const RunRecord& r, unsigned rooms, unsigned users, uint64_t messages) {
  ASSERT_EQ(r.operations.size(), 1u);
  EXPECT_EQ(r.operations[0].operation, "chat");
  ASSERT_EQ(r.operations[0].steps.size(), 1u);
  const StepResult& s = r.operations[0].steps[0];
  const uint64_t owed = uint64_t{rooms} * users * (users - 1) * messages;
  EXPECT_EQ(s.clients, rooms * users);
  EXPECT_EQ(s.requests, owed);
  EXPECT_EQ(s.failures.total(), 0u);
  EXPECT_EQ(s.latency.count(), owed);
  const LatencyHistogram& h = s.latency;
  EXPECT_GT(h.min(), 0);
  EXPECT_LE(h.min(), h.percentile(50));
  EXPECT_LE(h.percentile(50), h.percentile(90));
  EXPECT_LE(h.percentile(90), h.percentile(99));
  EXPECT_LE(h.percentile(99), h.max());
  EXPECT_LT(h.max(), 30.0);
  EXPECT_LE(h.max(), s.duration_s + 0.05) << "a delivery took longer than the whole run";
  EXPECT_NEAR(s.throughput, static_cast<double>(owed) / s.duration_s, 1e-6 * s.throughput);
  uint64_t in_intervals = 0;
  for (const auto& i : s.intervals) in_intervals += i.requests;
  EXPECT_EQ(in_intervals, owed);
  const auto& v = r.context.options.at("verdict");
  EXPECT_EQ(v.at("ok"), true);
  EXPECT_EQ(v.at("sent"), uint64_t{rooms} * users * messages);
  EXPECT_EQ(v.at("expected"), owed);
  EXPECT_EQ(v.at("delivered"), owed);
}

TEST(ChatRun, SmallRoomsCountExactlyAndCompareReadsTheFile) {
  TempDir dir;
  Program p(chat_args({"--rooms", "3", "--users", "5", "--messages", "40", "--interval", "0.2s", "--label", "small"}, dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  SCOPED_TRACE(p.out() + p.err());
  EXPECT_NE(p.out().find("delivered   2400 of 2400 owed"), std::string::npos);
  EXPECT_NE(p.out().find("sent        600 messages"), std::string::npos);
  EXPECT_NE(p.out().find("verdict     OK"), std::string::npos);
  EXPECT_NE(p.out().find("chat x15"), std::string::npos) << "no live line";
  const RunRecord r = results_of(p);
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.context.client_kind, "chat");
  EXPECT_EQ(r.context.stack_label, "soapbench-chat-server");
  expect_exact(r, 3, 5, 40);

  std::string out, err;
  ASSERT_EQ(soapbench::test::run_program({soapbench::test::bin_path("soapbench"), "compare", p.last_line(), p.last_line()},
                                         &out, &err), 0) << out << err;
  EXPECT_NE(out.find("chat"), std::string::npos) << out;
  EXPECT_NE(out.find("15"), std::string::npos) << out;
}

TEST(ChatRun, WithoutAWindowCountsExactly) {
  TempDir dir;
  Program p(chat_args({"--rooms", "2", "--users", "6", "--messages", "300", "--window", "0", "--interval", "0",
                       "--threads", "2", "--server-threads", "2"}, dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  expect_exact(results_of(p), 2, 6, 300);
}

TEST(ChatRun, RateModeMeasuresFromTheIntendedSend) {
  TempDir dir;
  Program p(chat_args({"--rooms", "2", "--users", "3", "--messages", "20", "--rate", "300", "--interval", "0.2s"}, dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const RunRecord r = results_of(p);
  expect_exact(r, 2, 3, 20);
  const StepResult& s = r.operations[0].steps[0];
  EXPECT_DOUBLE_EQ(s.target_rate, 300.0);
  ASSERT_TRUE(s.uncorrected.has_value());
  EXPECT_EQ(s.uncorrected->count(), s.requests);
  EXPECT_GE(s.duration_s, 19 / 50.0) << "20 messages at 300/s over 6 users (50/s each) take at least 0.38 s";
}

// --wait: each user thinks after each message it sends, so 10 messages take at
// least 9 think times; every message still arrives exactly once.
TEST(ChatRun, ThinkTimeSpacesEachUsersMessages) {
  TempDir dir;
  Program p(chat_args({"--rooms", "1", "--users", "3", "--messages", "10", "--wait", "30ms", "--interval", "0"}, dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  EXPECT_NE(p.out().find("closed loop, window 1, 30 ms think time"), std::string::npos) << p.out();
  const RunRecord r = results_of(p);
  expect_exact(r, 1, 3, 10);
  EXPECT_GE(r.operations[0].steps[0].duration_s, 9 * 0.030) << "nine think times between ten messages";
  EXPECT_EQ(r.context.options.at("wait_s"), 0.03);
  EXPECT_EQ(r.context.options.at("wait_exponential"), false);
  TempDir dir2;
  Program e(chat_args({"--rooms", "2", "--users", "3", "--messages", "20", "--wait", "exp:5ms", "--window", "2",
                       "--interval", "0"}, dir2));
  ASSERT_EQ(e.wait(60s), 0) << e.out() << e.err();
  EXPECT_NE(e.out().find("mean 5 ms think time"), std::string::npos) << e.out();
  expect_exact(results_of(e), 2, 3, 20);
}

// A member the client does not know (user 50) joins room 0 and sends one
// message once the run is under way: every real member gets a message no
// member could have sent, and the verdict must fail.
TEST(ChatRun, AForeignMessageFailsTheVerdict) {
  auto server = start_chat_server(test::chat_server_binary(), {});
  test::RawConn intruder(server->port());
  ASSERT_TRUE(intruder.join(0, 50));
  std::thread spoiler([&] {
    if (!intruder.next(20s)) return;  // the first delivery: the run has started
    intruder.send_message(0, std::string(100, 'x'));
    for (int i = 0; i < 100000 && intruder.next(2s);) ++i;  // keep reading so the room is not paused
  });
  TempDir dir;
  Program p(chat_args({"--port", std::to_string(server->port()), "--rooms", "1", "--users", "4", "--messages", "300",
                       "--interval", "0"}, dir));
  const auto code = p.wait(60s);
  server->stop();
  spoiler.join();
  ASSERT_EQ(code, 1) << p.out() << p.err();
  EXPECT_NE(p.out().find("verdict     FAILED: 4 messages corrupted"), std::string::npos) << p.out();
  const RunRecord r = results_of(p);
  const StepResult& s = r.operations[0].steps[0];
  EXPECT_EQ(s.failures.mismatch, 4u);
  EXPECT_EQ(s.requests, 4u * 3 * 300) << "the real messages still all arrived";
  EXPECT_EQ(r.context.options.at("verdict").at("ok"), false);
}

TEST(ChatRun, AClientKilledMidRunLeavesTheServerServing) {
  auto server = start_chat_server(test::chat_server_binary(), {"--threads", "2"});
  TempDir dir;
  {
    Program doomed(chat_args({"--port", std::to_string(server->port()), "--rooms", "4", "--users", "10",
                              "--messages", "20000", "--interval", "0.2s", "--duration", "20s"}, dir));
    ASSERT_TRUE(doomed.wait_for_line("chat x40", 20s)) << doomed.out() << doomed.err();
    kill(doomed.pid(), SIGKILL);  // 40 connections vanish mid-traffic
    doomed.wait(5s);
  }
  Program p(chat_args({"--port", std::to_string(server->port()), "--rooms", "2", "--users", "5", "--messages", "50",
                       "--interval", "0"}, dir));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  expect_exact(results_of(p), 2, 5, 50);
  EXPECT_EQ(kill(server->pid(), 0), 0) << "the server died";
}

TEST(ChatRun, InterruptWritesAPartialFile) {
  TempDir dir;
  Program p(chat_args({"--rooms", "2", "--users", "5", "--messages", "100000", "--interval", "0.2s"}, dir));
  ASSERT_TRUE(p.wait_for_line("chat x10", 20s)) << p.out() << p.err();
  kill(p.pid(), SIGINT);
  ASSERT_EQ(p.wait(20s), 130) << p.out() << p.err();
  const RunRecord r = results_of(p);
  EXPECT_TRUE(r.partial);
  EXPECT_GT(r.operations.at(0).steps.at(0).requests, 0u);
}

TEST(ChatRun, NoServerIsAnErrorWithoutAResultsFile) {
  TempDir dir;
  std::string out, err;
  const auto port = std::to_string(soapbench::test::unused_port());
  EXPECT_EQ(soapbench::test::run_program(chat_args({"--port", port, "--rooms", "1", "--users", "2"}, dir), &out, &err, 20s), 1)
      << out << err;
  EXPECT_NE(err.find("no user could join at 127.0.0.1:" + port), std::string::npos) << err;
  EXPECT_NE(err.find("Connection refused"), std::string::npos) << err;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

struct BadFlags {
  std::vector<std::string> args;
  std::string names;
};

class ChatFlags : public testing::TestWithParam<BadFlags> {};

TEST_P(ChatFlags, ErrorNamesTheFlagAndExits2) {
  TempDir dir;
  std::string out, err;
  EXPECT_EQ(soapbench::test::run_program(chat_args(GetParam().args, dir), &out, &err), 2) << out << err;
  EXPECT_NE(err.find(GetParam().names), std::string::npos) << err;
}

INSTANTIATE_TEST_SUITE_P(
    Chat, ChatFlags,
    testing::Values(BadFlags{{"--rooms", "0"}, "--rooms"}, BadFlags{{"--users", "1"}, "--users"},
                    BadFlags{{"--host", "127.0.0.1"}, "--host"},
                    BadFlags{{"--rate", "10", "--window", "2"}, "--rate"},
                    BadFlags{{"--rate", "10", "--wait", "5ms"}, "--rate excludes --wait"},
                    BadFlags{{"--wait", "exp:soon"}, "--wait: bad duration 'soon'"},
                    BadFlags{{"--port", "9", "--server-threads", "2"}, "--server-threads"},
                    BadFlags{{"--duration", "soon"}, "--duration"},
                    BadFlags{{"--interval", "10ms"}, "--interval"}),
    [](const testing::TestParamInfo<BadFlags>& param) {
      std::string name;
      for (char ch : param.param.names)
        if (std::isalnum(static_cast<unsigned char>(ch))) name += ch;
      return name;
    });

}  // namespace
}  // namespace soapbench::chat
