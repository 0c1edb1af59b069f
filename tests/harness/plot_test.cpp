#include "report/plot.h"

#include <gtest/gtest.h>

#include "sample_records.h"

namespace soapbench {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::TempDir;

// Two small runs: "gSOAP baseline" (echoString at 1 and 2 clients, echoStruct at
// 1 and 4) and "Other stack" (echoString at 1, 2 and 4 clients only).
std::vector<RunRecord> two_runs() {
  RunRecord a = testing::sample_record();
  RunRecord b;
  b.context.label = "Other stack";
  b.operations = {{"echoString",
                   {testing::closed_loop_step(4, 3.0), testing::closed_loop_step(1, 1.5),
                    testing::closed_loop_step(2, 2.0)}}};
  return {a, b};
}

bool is_png(const fs::path& path) {
  return read_file(path).rfind("\x89PNG\r\n\x1a\n", 0) == 0;
}

TEST(PlotRuns, PngAndSvgPerOperationWithEveryRunLabelled) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "charts";
  plot_runs(two_runs(), dir);
  for (const std::string chart : {"echoString-throughput", "echoString-latency",
                                  "echoStruct-throughput", "echoStruct-latency"}) {
    EXPECT_TRUE(is_png(dir / (chart + ".png"))) << chart;
    const std::string svg = read_file(dir / (chart + ".svg"));
    EXPECT_NE(svg.find("<svg"), std::string::npos) << chart;
    EXPECT_NE(svg.find("gSOAP baseline"), std::string::npos) << chart;
  }
  for (const std::string chart : {"echoString-throughput", "echoString-latency"})
    EXPECT_NE(read_file(dir / (chart + ".svg")).find("Other stack"), std::string::npos) << chart;
  // The second run has no echoStruct: neither its data file nor its label.
  EXPECT_FALSE(fs::exists(dir / "echoStruct-run2.dat"));
  EXPECT_EQ(read_file(dir / "echoStruct-throughput.svg").find("Other stack"), std::string::npos);

  const std::string latency_svg = read_file(dir / "echoString-latency.svg");
  EXPECT_NE(latency_svg.find("gSOAP baseline p99"), std::string::npos);
  EXPECT_NE(latency_svg.find("response time (ms)"), std::string::npos);
  EXPECT_NE(read_file(dir / "echoString-throughput.svg").find("throughput (requests/s)"),
            std::string::npos);
}

TEST(PlotRuns, DataFilesSortedByClients) {
  TempDir tmp;
  plot_runs(two_runs(), tmp.path());
  // closed_loop_step(n, L): throughput n / (1.1 L ms), mean 1.1 L, p99 = max = 2 L.
  EXPECT_EQ(read_file(tmp.path() / "echoString-run2.dat"),
            "# clients  throughput_req_per_s  mean_ms  p99_ms\n"
            "1 606.061 1.650000 3.000000\n"
            "2 909.091 2.200000 4.000000\n"
            "4 1212.121 3.300000 6.000000\n");
}

TEST(PlotRuns, StepsWithoutSuccessesHaveMissingTimes) {
  TempDir tmp;
  RunRecord r = testing::sample_record();
  r.operations.resize(1);
  r.operations[0].steps[1].latency = LatencyHistogram{};
  plot_runs({r}, tmp.path());
  EXPECT_EQ(read_file(tmp.path() / "echoString-run1.dat"),
            "# clients  throughput_req_per_s  mean_ms  p99_ms\n"
            "1 909.091 1.100000 2.000000\n"
            "2 1818.182 - -\n");
  EXPECT_TRUE(is_png(tmp.path() / "echoString-latency.png"));
}

TEST(PlotRuns, ExplicitLabels) {
  TempDir tmp;
  plot_runs(two_runs(), tmp.path(), {.labels = {"first.json", "second.json"}});
  const std::string svg = read_file(tmp.path() / "echoString-throughput.svg");
  EXPECT_NE(svg.find("first.json"), std::string::npos);
  EXPECT_NE(svg.find("second.json"), std::string::npos);
  EXPECT_THROW(plot_runs(two_runs(), tmp.path(), {.labels = {"one"}}), std::invalid_argument);
}

TEST(PlotRuns, LatencyAxisIsLogUnlessLinearIsAsked) {
  TempDir tmp;
  plot_runs(two_runs(), tmp.path() / "log");
  const std::string log_script = read_file(tmp.path() / "log" / "echoString.gp");
  EXPECT_NE(log_script.find("set logscale y 10"), std::string::npos);
  EXPECT_NE(log_script.find("log scale)"), std::string::npos);  // the title says so
  // Throughput keeps its linear axis from 0: the log scale is set after its chart.
  EXPECT_LT(log_script.find("set output 'echoString-throughput.png'"), log_script.find("set logscale y"));
  EXPECT_TRUE(is_png(tmp.path() / "log" / "echoString-latency.png"));

  PlotOptions linear;
  linear.linear = true;
  plot_runs(two_runs(), tmp.path() / "linear", linear);
  EXPECT_EQ(read_file(tmp.path() / "linear" / "echoString.gp").find("logscale"), std::string::npos);
}

TEST(PlotRuns, LegendListsRunsByPeakThroughputEachKeepingItsColour) {
  TempDir tmp;
  std::vector<RunRecord> runs = two_runs();
  for (auto& step : runs[1].operations[0].steps) step.throughput *= 100;  // "Other stack" now peaks higher
  plot_runs(runs, tmp.path());
  const std::string script = read_file(tmp.path() / "echoString.gp");
  const size_t other = script.find("'echoString-run2.dat' using 1:2 with linespoints lc 2 pt 7 title 'Other stack'");
  const size_t base = script.find("'echoString-run1.dat' using 1:2 with linespoints lc 1 pt 7 title 'gSOAP baseline'");
  ASSERT_NE(other, std::string::npos) << script;
  ASSERT_NE(base, std::string::npos) << script;
  EXPECT_LT(other, base);
  // The latency chart lists them in the same order.
  EXPECT_LT(script.find("title 'Other stack mean'"), script.find("title 'gSOAP baseline mean'"));
}

PlotOptions with_program(const std::string& gnuplot) {
  PlotOptions options;
  options.gnuplot = gnuplot;
  return options;
}

TEST(PlotRuns, MissingGnuplotIsAClearError) {
  TempDir tmp;
  try {
    plot_runs(two_runs(), tmp.path(), with_program("soapbench-no-such-gnuplot"));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gnuplot not found: cannot run 'soapbench-no-such-gnuplot' (install gnuplot-nox, or "
              "choose another program)");
  }
}

TEST(PlotRuns, FailingGnuplotReportsItsExitStatus) {
  TempDir tmp;
  try {
    plot_runs(two_runs(), tmp.path(), with_program("false"));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gnuplot failed on '" + (tmp.path() / "echoString.gp").string() + "' (exit status 1): ");
  }
}

TEST(PlotRuns, NothingToPlot) {
  TempDir tmp;
  EXPECT_THROW(plot_runs({}, tmp.path()), std::invalid_argument);
  RunRecord empty;
  empty.operations = {{"echoString", {}}};
  EXPECT_THROW(plot_runs({empty}, tmp.path()), std::invalid_argument);
}

}  // namespace
}  // namespace soapbench
