// `soapbench sweep` end to end against both embedded servers, its table and
// chart from a known record, its usage errors, and echoBinary in the raw client.
#include <gtest/gtest.h>

#include <sstream>

#include "client.h"
#include "driver_support.h"
#include "core/results.h"
#include "sample_records.h"
#include "commands/sweep.h"
#include "xml_reader.h"
#include "xml_values.h"

namespace soapbench {
namespace {

using test::Program;
using namespace std::chrono_literals;

TEST(Sweep, EveryCallOfEverySizeOverBothTransports) {
  test::TempDir dir;
  Program p({test::bin_path("soapbench"), "sweep", "--sizes", "0,2k,200k,2M", "--calls", "10", "--warmup-calls",
             "1", "--out", dir.path().string(), "--charts", (dir.path() / "charts").string()});
  ASSERT_EQ(p.wait(120s), 0) << p.out() << p.err();
  SCOPED_TRACE(p.out() + p.err());
  const RunRecord r = read_results(p.last_line());
  std::vector<std::string> names;
  for (const auto& op : r.operations) names.push_back(op.operation);
  EXPECT_EQ(names, (std::vector<std::string>{"echoBinary 0B", "echoBinary 2000B", "echoBinary 200000B",
                                             "echoBinary 2000000B", "tcpEcho 0B", "tcpEcho 2000B",
                                             "tcpEcho 200000B", "tcpEcho 2000000B"}));
  const auto rows = sweep_rows(r);
  ASSERT_EQ(rows.size(), 4u);
  for (const SweepRow& row : rows) {
    for (const auto* s : {&row.soap, &row.tcp}) {
      ASSERT_TRUE(s->has_value());
      const StepResult& step = **s;
      EXPECT_EQ(step.requests, 10u) << row.bytes;
      EXPECT_EQ(step.failures.total(), 0u);
      EXPECT_EQ(step.latency.count(), 10u);
      EXPECT_LE(step.latency.min(), step.latency.percentile(50));
      EXPECT_LE(step.latency.percentile(50), step.latency.percentile(99));
      EXPECT_LE(step.latency.percentile(99), step.latency.max());
      EXPECT_GE(step.duration_s, static_cast<double>(step.latency.count()) * step.latency.min());
      for (const auto& w : step.warnings) EXPECT_EQ(w.find("server counted"), std::string::npos) << w;
    }
    EXPECT_DOUBLE_EQ(row.tcp->request_bytes, static_cast<double>(row.bytes + 4));
    EXPECT_DOUBLE_EQ(row.tcp->response_bytes, static_cast<double>(row.bytes + 4));
    EXPECT_GT(row.soap->request_bytes, static_cast<double>(row.bytes) * 4 / 3);  // base64 and the envelope
  }
  EXPECT_NE(p.out().find("== Payload sweep"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "charts" / "sweep.png"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "charts" / "sweep.svg"));

  std::string out, err;  // compare reads a sweep file like any other
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", p.last_line(), p.last_line()}, &out, &err), 0);
  EXPECT_NE(out.find("tcpEcho 2000000B"), std::string::npos) << out;
}

TEST(Sweep, TableFromKnownSteps) {
  RunRecord r;
  StepResult soap = testing::closed_loop_step(1, 2.0), tcp = testing::closed_loop_step(1, 0.5);
  soap.duration_s = 0.22;
  tcp.warnings = {"something odd"};
  r.operations = {{"echoBinary 2000B", {soap}}, {"tcpEcho 2000B", {tcp}}, {"echoString", {soap}}};
  const auto rows = sweep_rows(r);
  ASSERT_EQ(rows.size(), 1u);  // echoString is no sweep row
  std::ostringstream table;
  sweep_table(table, rows, 100);
  const std::string t = table.str();
  // mean 2.2 ms vs 0.55 ms: a ratio of 4; 1400.5 + 1500.6 bytes per call.
  EXPECT_NE(t.find("      2000        2.200       4.000      0.2200        0.550       1.000     10.0000       4.00"
                   "          2901         2901       0"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("2000 B TCP: something odd"), std::string::npos) << t;
}

TEST(Sweep, UsageErrorsNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--sizes", "9M"}, "--sizes"},
      {{"--sizes", "1,,2"}, "--sizes"},
      {{"--calls", "0"}, "--calls"},
      {{"--url", "http://127.0.0.1:9/echo"}, "--tcp-url"},
      {{"--tcp-url", "tcp://127.0.0.1:9"}, "--tcp-url"},
      {{"--url", "tcp://127.0.0.1:9/echo", "--tcp-url", "tcp://127.0.0.1:9"}, "--url"},
      {{"--url", "http://127.0.0.1:9/echo", "--tcp-url", "http://127.0.0.1:9"}, "--tcp-url"},
  };
  for (const auto& [flags, name] : cases) {
    std::vector<std::string> argv{test::bin_path("soapbench"), "sweep"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    std::string out, err;
    EXPECT_EQ(test::run_program(argv, &out, &err), 2) << name << out << err;
    EXPECT_NE(err.find(name), std::string::npos) << err;
  }
}

TEST(EchoBinary, ReaderDecodesWhatTheRendererWrites) {
  const std::vector<uint8_t> data = make_bytes(1000);
  std::string body = xml::render_echo_binary(data, xml::Message::response);
  xml::ResponseReader reader;
  std::vector<uint8_t> got;
  ASSERT_EQ(reader.read_echo_binary(body, got), xml::ReadStatus::echo) << reader.problem();
  EXPECT_EQ(got, data);
  std::string bad = xml::render_echo_binary(data, xml::Message::response);
  bad[bad.find("<tns:data>") + 10] = '*';  // not in the base64 alphabet
  EXPECT_EQ(reader.read_echo_binary(bad, got), xml::ReadStatus::not_echo);
  std::string other = xml::render_echo_string("x", xml::Message::response);
  EXPECT_EQ(reader.read_echo_binary(other, got), xml::ReadStatus::not_echo);
  EXPECT_NE(reader.problem().find("echoBinaryResponse"), std::string::npos) << reader.problem();
}

TEST(EchoBinary, BytesAreDistinctEnoughToCatchAShift) {
  const auto a = make_bytes(4096);
  EXPECT_EQ(a, make_bytes(4096));
  EXPECT_NE(std::vector<uint8_t>(a.begin() + 1, a.end()), std::vector<uint8_t>(a.begin(), a.end() - 1));
}

}  // namespace
}  // namespace soapbench
