// `soapbench report` and `soapbench run --report` end to end: the page lands
// where it should, holds the numbers of the results files, and bad input is
// refused with a message that names the problem.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/results.h"
#include "driver_support.h"
#include "run_output.h"

namespace soapbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json page_data(const fs::path& page) {
  const std::string text = slurp(page);
  const std::string open = "<script type=\"application/json\" id=\"soapbench-data\">";
  const size_t begin = text.find(open);
  if (begin == std::string::npos) return nullptr;
  const size_t end = text.find("</script>", begin);
  return json::parse(text.substr(begin + open.size(), end - begin - open.size()));
}

const fs::path kReference = fs::path(SOAPBENCH_SOURCE_DIR) / "results" / "reference";
const fs::path kGsoap = kReference / "20261202-005431-reference-gsoap.json";
const fs::path kPhp = kReference / "20261202-010943-reference-php.json";

// A copy of a results file with `edit` applied to its JSON.
fs::path edited_copy(const fs::path& from, const fs::path& to, const std::function<void(json&)>& edit) {
  json j = json::parse(slurp(from));
  edit(j);
  std::ofstream(to) << j.dump();
  return to;
}

TEST(ReportCommand, RunWithReportWritesThePageBesideTheResults) {
  test::TempDir dir;
  test::Program p(test::soapbench_command(
      "run", dir, {"--op", "echoString", "--clients", "1,2", "--duration", "0.5s", "--warmup", "0.2s", "--report"}));
  ASSERT_EQ(p.wait(60s), 0) << p.out() << p.err();
  const RunRecord record = test::results_of(p);  // the results path is still the last line
  const fs::path json_path = p.last_line();
  const fs::path page = fs::path(json_path).replace_extension(".html");
  EXPECT_NE(p.out().find("report: " + page.string() + "\n"), std::string::npos) << p.out();
  ASSERT_TRUE(fs::exists(page));
  const json data = page_data(page);
  ASSERT_EQ(data["runs"].size(), 1u);
  const json& steps = data["runs"][0]["operations"][0]["steps"];
  ASSERT_EQ(steps.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(steps[i]["requests"], record.operations[0].steps[i].requests);
    EXPECT_EQ(steps[i]["throughput"].get<double>(), record.operations[0].steps[i].throughput);
  }
}

TEST(ReportCommand, SeveralFilesInOnePageWhereAsked) {
  test::TempDir dir;
  const fs::path page = dir.path() / "both.html";
  std::string out, err;
  ASSERT_EQ(test::run_program({test::bin_path("soapbench"), "report", kGsoap.string(), kPhp.string(), "--out",
                               page.string()}, &out, &err), 0) << err;
  EXPECT_EQ(out, page.string() + "\n");
  const json data = page_data(page);
  ASSERT_EQ(data["runs"].size(), 2u);
  EXPECT_EQ(data["runs"][0]["label"], "reference-gsoap");
  EXPECT_EQ(data["runs"][1]["label"], "reference-php");
  const RunRecord php = read_results(kPhp);
  EXPECT_EQ(data["runs"][1]["operations"][1]["steps"][3]["throughput"].get<double>(),
            php.operations[1].steps[3].throughput);
  EXPECT_EQ(data["order"]["echoString"], json({0, 1}));  // gSOAP peaks higher
}

TEST(ReportCommand, DefaultPageIsTheFirstFileWithHtml) {
  test::TempDir dir;
  const fs::path copy = dir.path() / "a.json";
  fs::copy_file(kGsoap, copy);
  std::string out, err;
  ASSERT_EQ(test::run_program({test::bin_path("soapbench"), "report", copy.string()}, &out, &err), 0) << err;
  EXPECT_EQ(out, (dir.path() / "a.html").string() + "\n");
  EXPECT_TRUE(fs::exists(dir.path() / "a.html"));
}

TEST(ReportCommand, RunsWithTheSameLabelAreNamedByTheirFiles) {
  test::TempDir dir;
  fs::copy_file(kGsoap, dir.path() / "before.json");
  fs::copy_file(kGsoap, dir.path() / "after.json");
  std::string err;
  ASSERT_EQ(test::run_program({test::bin_path("soapbench"), "report", (dir.path() / "before.json").string(),
                               (dir.path() / "after.json").string()}, nullptr, &err), 0) << err;
  const json data = page_data(dir.path() / "before.html");
  EXPECT_EQ(data["runs"][0]["label"], "before");
  EXPECT_EQ(data["runs"][1]["label"], "after");
}

TEST(ReportCommand, AnotherSchemaVersionIsRefusedNamingIt) {
  test::TempDir dir;
  const fs::path v9 = edited_copy(kGsoap, dir.path() / "v9.json", [](json& j) { j["schema_version"] = 9; });
  std::string out, err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "report", v9.string()}, &out, &err), 1);
  EXPECT_NE(err.find(fmt::format("schema_version is 9, this soapbench reads versions 1 to {}", kResultsSchemaVersion)),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("v9.json"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir.path() / "v9.html"));
}

TEST(ReportCommand, APartialRunIsMarkedPartial) {
  test::TempDir dir;
  const fs::path cut = edited_copy(kGsoap, dir.path() / "cut.json", [](json& j) {
    j["partial"] = true;
    j["operations"].erase(1);
  });
  std::string err;
  ASSERT_EQ(test::run_program({test::bin_path("soapbench"), "report", cut.string()}, nullptr, &err), 0) << err;
  const json data = page_data(dir.path() / "cut.html");
  EXPECT_EQ(data["runs"][0]["partial"], true);
  EXPECT_EQ(data["operations"], json({"echoString"}));
}

TEST(ReportCommand, UsageErrorsNameTheFlagAndExit2) {
  test::TempDir dir;
  std::string err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "report"}, nullptr, &err), 2);
  EXPECT_NE(err.find("files"), std::string::npos) << err;
  err.clear();
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "report", (dir.path() / "none.json").string()}, nullptr,
                              &err), 2);
  EXPECT_NE(err.find("none.json"), std::string::npos) << err;
  err.clear();
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "report", kGsoap.string(), "--bogus"}, nullptr, &err), 2);
  EXPECT_NE(err.find("--bogus"), std::string::npos) << err;
  err.clear();
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "report", kGsoap.string(), "--out",
                               (dir.path() / "no" / "such" / "dir.html").string()}, nullptr, &err), 1);
  EXPECT_NE(err.find("cannot write '" + (dir.path() / "no" / "such" / "dir.html").string() + "': No such file"),
            std::string::npos) << err;
}

}  // namespace
}  // namespace soapbench
