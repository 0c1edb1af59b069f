// The HTML report's data: the numbers the page embeds are the records' own,
// the page holds exactly that data and nothing that would reach the network.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "sample_records.h"

namespace soapbench {
namespace {

using nlohmann::json;
using testing::sample_record;

// Inputs with the fields a test names; the others keep their defaults.
HtmlReportInputs inputs(std::vector<RunRecord> runs, std::vector<std::string> labels = {},
                        json verdict = nullptr) {
  HtmlReportInputs in;
  in.runs = std::move(runs);
  in.labels = std::move(labels);
  in.verdict = std::move(verdict);
  in.generator = "soapbench test";
  return in;
}

std::string page_of(const HtmlReportInputs& in) {
  std::ostringstream os;
  write_html_report(os, in);
  return os.str();
}

// The JSON between <script type="application/json" id="soapbench-data"> and </script>.
json embedded_data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"soapbench-data\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  return json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

TEST(HtmlReportData, EveryStepNumberIsTheRecords) {
  const RunRecord run = sample_record();
  const json data = html_report_data(inputs({run}));
  ASSERT_EQ(data["runs"].size(), 1u);
  const json& r = data["runs"][0];
  EXPECT_EQ(r["label"], "gSOAP baseline");
  EXPECT_EQ(r["partial"], true);
  EXPECT_EQ(r["schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(r["context"]["stack_label"], "gSOAP 2.8.124");
  EXPECT_EQ(r["context"]["command_line"], run.context.command_line);
  ASSERT_EQ(r["operations"].size(), run.operations.size());
  for (size_t o = 0; o < run.operations.size(); ++o) {
    const OperationResult& op = run.operations[o];
    const json& jo = r["operations"][o];
    EXPECT_EQ(jo["operation"], op.operation);
    ASSERT_EQ(jo["steps"].size(), op.steps.size());
    for (size_t i = 0; i < op.steps.size(); ++i) {
      const StepResult& s = op.steps[i];
      const json& js = jo["steps"][i];
      SCOPED_TRACE(op.operation + " step " + std::to_string(i));
      EXPECT_EQ(js["clients"], s.clients);
      EXPECT_EQ(js["requests"], s.requests);
      EXPECT_EQ(js["errors"], s.failures.total());
      EXPECT_EQ(js["throughput"].get<double>(), s.throughput);
      EXPECT_EQ(js["latency_ms"]["p50"].get<double>(), s.latency.percentile(50) * 1e3);
      EXPECT_EQ(js["latency_ms"]["p99"].get<double>(), s.latency.percentile(99) * 1e3);
      EXPECT_EQ(js["latency_ms"]["p99.9"].get<double>(), s.latency.percentile(99.9) * 1e3);
      EXPECT_EQ(js["latency_ms"]["mean"].get<double>(), s.latency.mean() * 1e3);
      EXPECT_EQ(js["latency_ms"]["max"].get<double>(), s.latency.max() * 1e3);
      EXPECT_EQ(js["client_cpu_pct"].get<double>(), s.client_cpu_pct);
      EXPECT_DOUBLE_EQ(js["client_cpu_us"].get<double>(), s.client_cpu_pct * 1e4 / s.throughput);
      if (s.server_cpu_pct) {
        EXPECT_EQ(js["server_cpu_pct"].get<double>(), *s.server_cpu_pct);
        EXPECT_DOUBLE_EQ(js["server_cpu_us"].get<double>(), *s.server_cpu_pct * 1e4 / s.throughput);
      } else {
        EXPECT_TRUE(js["server_cpu_pct"].is_null());
        EXPECT_TRUE(js["server_cpu_us"].is_null());
      }
      EXPECT_EQ(js["warnings"].get<std::vector<std::string>>(), s.warnings);
      // Rate mode carries the uncorrected latency beside the corrected one.
      EXPECT_EQ(js.contains("uncorrected_ms"), s.target_rate > 0);
      if (s.target_rate > 0) {
        EXPECT_EQ(js["uncorrected_ms"]["p99"].get<double>(), s.uncorrected->percentile(99) * 1e3);
      }
      ASSERT_EQ(js["intervals"].size(), s.intervals.size());
      for (size_t k = 0; k < s.intervals.size(); ++k) {
        EXPECT_EQ(js["intervals"][k][1].get<double>(), s.intervals[k].throughput);
        EXPECT_EQ(js["intervals"][k][2].get<double>(), s.intervals[k].p99_ms);
        EXPECT_EQ(js["intervals"][k][3], s.intervals[k].errors);
        EXPECT_EQ(js["intervals"][k][4], s.clients);
      }
    }
  }
  // Failures by kind: only the non-zero ones.
  EXPECT_EQ(r["operations"][0]["steps"][1]["failures"], json({{"soap_fault", 1}, {"timeout", 2}}));
  EXPECT_EQ(r["operations"][1]["steps"][0]["failures"].size(), 6u);
}

// Send lag and the step's criteria (--assert) reach the page when a step has them.
TEST(HtmlReportData, SendLagAndCriteriaWhenTheStepHasThem) {
  RunRecord run = sample_record();
  StepResult& s = run.operations[0].steps[0];
  s.send_lag.emplace();
  for (double v : {0.000002, 0.000004, 0.001}) s.send_lag->record(v);
  s.assertions = {{"p99<1us", "failed", 0.002, "2.000ms"}, {"error-rate<1%", "passed", 0.0, "0%"},
                  {"send-lag-p99<1ms", "not measured", std::nullopt, ""}};
  const json step = html_report_data(inputs({run}))["runs"][0]["operations"][0]["steps"][0];
  ASSERT_TRUE(step.contains("send_lag_ms"));
  EXPECT_NEAR(step["send_lag_ms"]["p99"].get<double>(), s.send_lag->percentile(99) * 1e3, 1e-9);
  ASSERT_EQ(step["thresholds"].size(), 3u);
  EXPECT_EQ(step["thresholds"][0]["field"], "p99");
  EXPECT_EQ(step["thresholds"][0]["ok"], false);
  EXPECT_EQ(step["thresholds"][0]["text"], "p99<1us: failed, measured 2.000ms");
  EXPECT_EQ(step["thresholds"][1]["field"], "errors");
  EXPECT_EQ(step["thresholds"][1]["ok"], true);
  EXPECT_EQ(step["thresholds"][2]["ok"], true) << "not measured is no failure";
  const json other = html_report_data(inputs({sample_record()}))["runs"][0]["operations"][0]["steps"][0];
  EXPECT_FALSE(other.contains("send_lag_ms"));
  EXPECT_FALSE(other.contains("thresholds"));
}

TEST(HtmlReportData, IntervalsOnTheRunsClock) {
  // Each step: 2 s warm-up, 10 s measured; intervals at 1 s and 2 s of each step.
  const json data = html_report_data(inputs({sample_record()}));
  const json& steps = data["runs"][0]["operations"][0]["steps"];
  EXPECT_EQ(steps[0]["intervals"][0][0], 3.0);   // 0 + 2 + 1
  EXPECT_EQ(steps[0]["intervals"][1][0], 4.0);
  EXPECT_EQ(steps[1]["intervals"][0][0], 15.0);  // 12 + 2 + 1
}

TEST(HtmlReportData, SpectrumStopsWhereTheSamplesDo) {
  // Five samples: 0, 50 and 75 have a sample above them, 90 only half of one; then the max.
  const json data = html_report_data(inputs({sample_record()}));
  const json& spectrum = data["runs"][0]["operations"][0]["steps"][0]["spectrum"];
  std::vector<double> pcts;
  for (const auto& p : spectrum) pcts.push_back(p[0].get<double>());
  EXPECT_EQ(pcts, (std::vector<double>{0, 50, 75, 100}));
  const RunRecord record = sample_record();  // a reference into a temporary would dangle
  const StepResult& s = record.operations[0].steps[0];
  EXPECT_EQ(spectrum[0][1].get<double>(), s.latency.min() * 1e3);
  EXPECT_EQ(spectrum.back()[1].get<double>(), s.latency.max() * 1e3);
}

TEST(HtmlReportData, RunsOrderedByPeakThroughputPerOperation) {
  RunRecord slow = sample_record(), fast = sample_record();
  slow.context.label = "slow";
  fast.context.label = "fast";
  for (auto& op : fast.operations)
    for (auto& s : op.steps) s.throughput *= 10;
  fast.operations.pop_back();  // fast has no echoStruct: it sorts last there
  const json data = html_report_data(inputs({slow, fast}));
  EXPECT_EQ(data["operations"], json({"echoString", "echoStruct"}));
  EXPECT_EQ(data["order"]["echoString"], json({1, 0}));
  EXPECT_EQ(data["order"]["echoStruct"], json({0, 1}));
  EXPECT_EQ(data["runs"][1]["label"], "fast");
}

TEST(HtmlReportData, LabelsVerdictAndBadInputs) {
  const json data = html_report_data(
      inputs({sample_record()}, {"mine"}, {{"text", "B is 12% slower"}, {"ok", false}}));
  EXPECT_EQ(data["runs"][0]["label"], "mine");
  EXPECT_EQ(data["verdict"]["text"], "B is 12% slower");
  EXPECT_TRUE(html_report_data(inputs({sample_record()}))["verdict"].is_null());
  EXPECT_THROW(html_report_data(inputs({})), std::invalid_argument);
  EXPECT_THROW(html_report_data(inputs({sample_record()}, {"a", "b"})), std::invalid_argument);
}

TEST(HtmlReportPage, EmbedsExactlyTheDataAndNothingExternal) {
  const HtmlReportInputs in = inputs({sample_record()});
  const std::string page = page_of(in);
  EXPECT_EQ(embedded_data(page), html_report_data(in));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("<title>soapbench: gSOAP baseline</title>"), std::string::npos);
  EXPECT_NE(page.find("function lineChart"), std::string::npos);  // chart.js embedded
  EXPECT_NE(page.find("function render"), std::string::npos);     // page.js embedded
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  // Nothing the browser would fetch: no element with a source, no style import.
  for (const char* fetch : {"src=", "href=", "@import", "url(", "<link", "<iframe", "<img"})
    EXPECT_EQ(page.find(fetch), std::string::npos) << fetch;
}

TEST(HtmlReportPage, ALabelCannotCloseTheDataScript) {
  RunRecord run = sample_record();
  run.context.label = "</script><script>alert(1)</script> & \"x\"";
  const std::string page = page_of(inputs({run}));
  EXPECT_EQ(embedded_data(page)["runs"][0]["label"], run.context.label);
  EXPECT_EQ(page.find("</script><script>alert"), std::string::npos);
  EXPECT_NE(page.find("<title>soapbench: &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"),
            std::string::npos);
  EXPECT_EQ(json_for_script(json("a</b")), "\"a\\u003c/b\"");
}

TEST(HtmlReportPage, TenStepsOfTwoOperationsStayUnderOneMegabyte) {
  // The quickstart's run: 1-10 clients, two operations, 10 s per step at 1 s intervals,
  // each histogram spread over many bins (the page keeps percentiles, not bins).
  RunRecord run = sample_record();
  for (auto& op : run.operations) {
    op.steps.clear();
    for (unsigned c = 1; c <= 10; ++c) {
      StepResult s = testing::closed_loop_step(c, 0.1 * c);
      for (int k = 0; k < 100000; ++k) s.latency.record(1e-5 * std::pow(1.0001, k));
      s.uncorrected = s.latency;
      s.target_rate = 1000.0 * c;
      s.intervals.clear();
      for (int t = 1; t <= 10; ++t) s.intervals.push_back(testing::closed_loop_step(c, 1).intervals[0]);
      s.warnings = {"host CPU near saturation: clients 56% + server 140% = 196% of 2 cores (>= 180%)"};
      op.steps.push_back(s);
    }
  }
  const std::string page = page_of(inputs({run}));
  RecordProperty("page_bytes", std::to_string(page.size()));
  EXPECT_LT(page.size(), 1000000u);
  EXPECT_GT(page.size(), 20000u);  // the page's script alone weighs this: the run is really in it
  EXPECT_EQ(embedded_data(page)["runs"][0]["operations"][1]["steps"].size(), 10u);
}

}  // namespace
}  // namespace soapbench
