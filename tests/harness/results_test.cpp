#include "core/results.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sample_records.h"

namespace soapbench {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::sample_record;
using testing::TempDir;

std::vector<std::string> lines_of(const std::string& text, const std::string& eol) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find(eol, start)) != std::string::npos; start = end + eol.size())
    lines.push_back(text.substr(start, end - start));
  EXPECT_EQ(start, text.size()) << "text does not end with a line break";
  return lines;
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

// The message of the std::runtime_error that read_results throws, or "no error".
std::string read_error(const fs::path& path) {
  try {
    read_results(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(FailureCounts, TotalAndSum) {
  FailureCounts a{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(a.total(), 21u);
  a += FailureCounts{10, 0, 0, 0, 0, 100};
  EXPECT_EQ(a, (FailureCounts{11, 2, 3, 4, 5, 106}));
  EXPECT_EQ(a.total(), 131u);
  EXPECT_EQ(FailureCounts{}.total(), 0u);
}

TEST(ResultsJson, FullRecordRoundTripsThroughText) {
  const RunRecord record = sample_record();
  const nlohmann::json j = record;
  const RunRecord back = nlohmann::json::parse(j.dump(2)).get<RunRecord>();
  EXPECT_EQ(back, record);
  // Spot checks that the comparison covered what matters.
  ASSERT_EQ(back.operations.size(), 2u);
  EXPECT_EQ(back.context.options.at("keep_alive"), true);
  EXPECT_TRUE(back.partial);
  const StepResult& rate = back.operations[1].steps[0];
  ASSERT_TRUE(rate.uncorrected.has_value());
  EXPECT_EQ(*rate.uncorrected, *record.operations[1].steps[0].uncorrected);
  EXPECT_FALSE(rate.server_cpu_pct.has_value());
  EXPECT_EQ(back.operations[0].steps[1].server_cpu_pct, 71.0);
  EXPECT_EQ(back.operations[0].steps[1].intervals, record.operations[0].steps[1].intervals);
  EXPECT_EQ(rate.failures, (FailureCounts{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(back.operations[1].steps[1].warnings,
            (std::vector<std::string>{"first warning", "second warning"}));
}

TEST(ResultsJson, LayoutOfAStep) {
  const nlohmann::json j = sample_record();
  EXPECT_EQ(j.at("schema_version"), 2);
  const nlohmann::json& step = j.at("operations").at(1).at("steps").at(0);
  EXPECT_EQ(step.at("clients"), 1);
  EXPECT_EQ(step.at("target_rate"), 500.0);
  EXPECT_TRUE(step.at("server_cpu_pct").is_null());
  EXPECT_EQ(step.at("failures").at("read"), 6);
  EXPECT_EQ(step.at("latency").at("count"), 5);
  EXPECT_EQ(step.at("uncorrected").at("count"), 5);
  // Derived numbers for people and jq.
  EXPECT_DOUBLE_EQ(step.at("latency_summary_ms").at("max").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(step.at("latency_summary_ms").at("mean").get<double>(), 2.2);
  EXPECT_TRUE(j.at("operations").at(0).at("steps").at(0).at("uncorrected").is_null());
}

TEST(ResultsJson, StepsWrittenBeforeConnectionsWereRecordedStillRead) {
  nlohmann::json j = sample_record();
  j["schema_version"] = 1;
  nlohmann::json& step = j.at("operations").at(0).at("steps").at(0);
  EXPECT_EQ(step.at("connections_opened"), 3);
  EXPECT_EQ(step.at("http_version"), "HTTP/1.1");
  for (const char* v2 : {"connections_opened", "client_processes", "connections_per_client", "in_flight", "sent",
                         "send_lag", "http_version"})
    step.erase(v2);
  const RunRecord r = j.get<RunRecord>();
  EXPECT_EQ(r.schema_version, 2) << "read into this version's records";
  EXPECT_EQ(r.operations.at(0).steps.at(0).connections_opened, 0u);
  EXPECT_EQ(r.operations.at(0).steps.at(0).http_version, "");
}

TEST(ResultsJson, Version1FilesReadWithTheirConnectionsAsConnectionsOpened) {
  nlohmann::json j = sample_record();
  j["schema_version"] = 1;
  nlohmann::json& step = j.at("operations").at(0).at("steps").at(0);
  step["connections"] = 7;
  for (const char* v2 : {"connections_opened", "client_processes", "connections_per_client", "in_flight", "sent",
                         "send_lag"})
    step.erase(v2);
  const StepResult s = j.get<RunRecord>().operations.at(0).steps.at(0);
  EXPECT_EQ(s.connections_opened, 7u);
  EXPECT_EQ(s.client_processes, s.clients) << "version 1: one process per client";
  EXPECT_EQ(s.connections_per_client, 1u);
  EXPECT_EQ(s.in_flight, 0u);
  EXPECT_FALSE(s.send_lag.has_value());
}

TEST(ResultsJson, PerHostBreakdownRoundTripsAndIsAbsentWithoutHosts) {
  RunRecord record = sample_record();
  const nlohmann::json without = record;
  EXPECT_FALSE(without.at("operations").at(0).at("steps").at(0).contains("hosts"));
  EXPECT_TRUE(without.get<RunRecord>().operations[0].steps[0].hosts.empty());

  record.operations[0].steps[1].hosts = {{"load-a", 1, 4, 600, 600.5, 12.5},
                                         {"load-b", 1, 2, 300, 300.25, 190.0}};
  const nlohmann::json j = record;
  const nlohmann::json& host = j.at("operations").at(0).at("steps").at(1).at("hosts").at(1);
  EXPECT_EQ(host.at("host"), "load-b");
  EXPECT_EQ(host.at("cores"), 2);
  EXPECT_EQ(host.at("requests"), 300);
  EXPECT_EQ(host.at("client_cpu_pct"), 190.0);
  const RunRecord back = nlohmann::json::parse(j.dump()).get<RunRecord>();
  EXPECT_EQ(back, record);
  EXPECT_EQ(back.operations[0].steps[1].hosts[0].throughput, 600.5);

  nlohmann::json broken = j;
  broken["operations"][0]["steps"][1]["hosts"][1].erase("cores");
  try {
    broken.get<RunRecord>();
    ADD_FAILURE() << "a host without cores was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "operations[0].steps[1].hosts[1]: missing field 'cores'");
  }
}

TEST(ResultsJson, ErrorsNameTheFieldPath) {
  const auto error_of = [](const nlohmann::json& j) {
    try {
      j.get<RunRecord>();
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json j = sample_record();
  j["operations"][0]["steps"][1].erase("clients");
  EXPECT_EQ(error_of(j), "operations[0].steps[1]: missing field 'clients'");

  j = sample_record();
  j["operations"][1]["steps"][0]["failures"]["timeout"] = "many";
  EXPECT_EQ(error_of(j),
            "operations[1].steps[0].failures.timeout: expected a non-negative integer, got \"many\"");

  j = sample_record();
  j["context"]["cores"] = -2;
  EXPECT_EQ(error_of(j), "context.cores: expected a non-negative 32-bit integer, got -2");

  j = sample_record();
  j["operations"][0]["steps"][0]["latency"]["count"] = 99;
  EXPECT_EQ(error_of(j),
            "operations[0].steps[0].latency: histogram: bins add up to 5 samples but count is 99");

  j = sample_record();
  j["operations"][0]["steps"][0]["intervals"][1].erase("p95_ms");
  EXPECT_EQ(error_of(j), "operations[0].steps[0].intervals[1]: missing field 'p95_ms'");

  j = sample_record();
  j.erase("schema_version");
  EXPECT_EQ(error_of(j), "missing field 'schema_version'");
}

TEST(ResultsCsv, RowsPerOperationAndStep) {
  std::ostringstream os;
  write_csv(os, sample_record());
  const auto lines = lines_of(os.str(), "\r\n");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "label,operation,clients,target_rate,requests,throughput,mean_ms,p50_ms,p90_ms,p99_ms,"
            "max_ms,errors,soap_fault,http_status,mismatch,timeout,connect,read,server_cpu_pct,"
            "client_cpu_pct,request_bytes,response_bytes,p99_9_ms,bytes_per_call,in_flight,send_lag_p99_ms,tls,auth");
  // p50 is the geometric midpoint of the histogram bin holding 1 ms (2 ms).
  EXPECT_EQ(lines[1],
            "gSOAP baseline,echoString,1,0.00,9091,909.09,1.1000,0.9986,2.0000,2.0000,2.0000,"
            "0,0,0,0,0,0,0,35.5,20.4,1400.5,1500.6,2.0000,2901.1,0,,0,0");
  EXPECT_EQ(lines[2],
            "gSOAP baseline,echoString,2,0.00,18182,1818.18,1.1000,0.9986,2.0000,2.0000,2.0000,"
            "3,1,0,0,2,0,0,71.0,40.8,1400.5,1500.6,2.0000,2901.1,0,,0,0");
  EXPECT_EQ(lines[3],
            "gSOAP baseline,echoStruct,1,500.00,5000,500.00,2.2000,2.0032,4.0000,4.0000,4.0000,"
            "21,1,2,3,4,5,6,,20.4,1400.5,1500.6,4.0000,2901.1,0,,0,0");
  EXPECT_EQ(lines[4],
            "gSOAP baseline,echoStruct,4,2000.00,20000,2000.00,2.2000,2.0032,4.0000,4.0000,4.0000,"
            "0,0,0,0,0,0,0,,81.6,1400.5,1500.6,4.0000,2901.1,0,,0,0");
}

TEST(ResultsCsv, QuotesLabelsWithCommasAndQuotes) {
  RunRecord record = sample_record();
  record.context.label = "a,\"b\"";
  record.operations.resize(1);
  record.operations[0].steps.resize(1);
  std::ostringstream os;
  write_csv(os, record);
  const auto lines = lines_of(os.str(), "\r\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].substr(0, 20), "\"a,\"\"b\"\"\",echoString");
}

TEST(ResultsFileName, SortableStampAndSlug) {
  RunRecord record = sample_record();
  EXPECT_EQ(results_file_name(record), "20240501-123456-gsoap-baseline.json");
  record.context.label = "  CXF 2.0 / Celtix!! ";
  EXPECT_EQ(results_file_name(record), "20240501-123456-cxf-2-0-celtix.json");
  record.context.label = "";
  EXPECT_EQ(results_file_name(record), "20240501-123456-run.json");
  record.context.label = "***";
  EXPECT_EQ(results_file_name(record), "20240501-123456-run.json");
  record.context.start_time = "2024-05-01T12:34:56.789Z";
  EXPECT_EQ(results_file_name(record), "20240501-123456-run.json");
  record.context.start_time = "yesterday";
  EXPECT_THROW(results_file_name(record), std::invalid_argument);
}

TEST(WriteResults, WritesJsonAndCsvWithoutTempFiles) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "nested" / "results";  // created on demand
  const RunRecord record = sample_record();
  const fs::path json_path = write_results(record, dir);
  EXPECT_EQ(json_path, dir / "20240501-123456-gsoap-baseline.json");
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"20240501-123456-gsoap-baseline.json",
                                                  "20240501-123456-gsoap-baseline.csv"}));
  EXPECT_EQ(read_results(json_path), record);
  std::ostringstream csv;
  write_csv(csv, record);
  EXPECT_EQ(read_file(dir / "20240501-123456-gsoap-baseline.csv"), csv.str());
}

TEST(WriteResults, NeverOverwritesAnEarlierRun) {
  TempDir tmp;
  RunRecord first = sample_record();
  RunRecord second = sample_record();
  second.partial = false;
  EXPECT_EQ(write_results(first, tmp.path()).filename(), "20240501-123456-gsoap-baseline.json");
  EXPECT_EQ(write_results(second, tmp.path()).filename(), "20240501-123456-gsoap-baseline-2.json");
  EXPECT_EQ(write_results(second, tmp.path()).filename(), "20240501-123456-gsoap-baseline-3.json");
  EXPECT_EQ(names_in(tmp.path()).size(), 6u);
  EXPECT_EQ(read_results(tmp.path() / "20240501-123456-gsoap-baseline.json"), first);
  EXPECT_EQ(read_results(tmp.path() / "20240501-123456-gsoap-baseline-2.json"), second);
}

TEST(WriteResults, UnwritableDirectoryNamesThePath) {
  TempDir tmp;
  const fs::path blocker = tmp.path() / "file";
  write_text(blocker, "not a directory");
  try {
    write_results(sample_record(), blocker / "sub");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((blocker / "sub").string()), std::string::npos) << e.what();
  }
}

TEST(ReadResults, MissingFile) {
  TempDir tmp;
  const fs::path path = tmp.path() / "absent.json";
  EXPECT_EQ(read_error(path),
            "results file '" + path.string() + "': cannot open: No such file or directory");
}

TEST(ReadResults, CorruptJson) {
  TempDir tmp;
  const fs::path path = tmp.path() / "corrupt.json";
  write_text(path, "{\"schema_version\": 1, \"context\": ");
  const std::string message = read_error(path);
  EXPECT_EQ(message.rfind("results file '" + path.string() + "': not valid JSON (", 0), 0u)
      << message;
}

// A number no double can hold is refused like any other bad JSON (the fuzzer's
// find: nlohmann's out_of_range escaped the reader and ended compare with abort).
TEST(ReadResults, NumberOutOfRangeIsRefusedAsBadJson) {
  TempDir tmp;
  const fs::path path = tmp.path() / "huge.json";
  write_text(path, "1e311");
  const std::string message = read_error(path);
  EXPECT_EQ(message.rfind("results file '" + path.string() + "': not valid JSON (", 0), 0u) << message;
  EXPECT_NE(message.find("number overflow"), std::string::npos) << message;
  EXPECT_THROW(parse_results("{\"schema_version\": 2e400}", "text"), std::runtime_error);
}

TEST(ReadResults, WrongOrMissingSchemaVersion) {
  TempDir tmp;
  const fs::path path = tmp.path() / "future.json";
  nlohmann::json j = sample_record();
  j["schema_version"] = 3;
  write_text(path, j.dump());
  EXPECT_EQ(read_error(path), "results file '" + path.string() +
                                  "': schema_version is 3, this soapbench reads versions 1 to 2");
  j["schema_version"] = 0;
  write_text(path, j.dump());
  EXPECT_EQ(read_error(path), "results file '" + path.string() +
                                  "': schema_version is 0, this soapbench reads versions 1 to 2");
  j.erase("schema_version");
  write_text(path, j.dump());
  EXPECT_EQ(read_error(path),
            "results file '" + path.string() + "': missing field 'schema_version'");
}

TEST(ReadResults, MissingField) {
  TempDir tmp;
  const fs::path path = tmp.path() / "truncated.json";
  nlohmann::json j = sample_record();
  j["operations"][1].erase("steps");
  write_text(path, j.dump());
  EXPECT_EQ(read_error(path),
            "results file '" + path.string() + "': operations[1]: missing field 'steps'");
}

TEST(MachineContext, DescribesThisMachine) {
  const RunContext c = collect_machine_context();
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(c.host, host);
  EXPECT_EQ(c.cores, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_FALSE(c.cpu_model.empty());
  EXPECT_EQ(c.kernel.rfind("Linux ", 0), 0u) << c.kernel;
  EXPECT_TRUE(std::regex_match(c.start_time, std::regex(R"(20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << c.start_time;
  EXPECT_FALSE(c.soapbench_version.empty());
  EXPECT_EQ(c.gsoap_version.rfind("2.8", 0), 0u) << c.gsoap_version;
  EXPECT_TRUE(c.label.empty());
  // The file name of a record started now is derived from this stamp.
  RunRecord r;
  r.context = c;
  EXPECT_EQ(results_file_name(r).size(), std::string("YYYYMMDD-HHMMSS-run.json").size());
}

TEST(MachineContext, RunContextAddsTheInvocation) {
  const RunContext c = collect_run_context({.command_line = "soapbench tcp-echo --clients 4",
                                            .client_kind = "tcp",
                                            .label = "baseline",
                                            .options = {{"clients", 4}}});
  EXPECT_EQ(c.command_line, "soapbench tcp-echo --clients 4");
  EXPECT_EQ(c.client_kind, "tcp");
  EXPECT_EQ(c.label, "baseline");
  EXPECT_EQ(c.options, nlohmann::json({{"clients", 4}}));
  // The machine's fields as collect_machine_context fills them; the rest stay empty.
  EXPECT_EQ(c.cores, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
  EXPECT_FALSE(c.soapbench_version.empty());
  EXPECT_FALSE(c.start_time.empty());
  EXPECT_TRUE(c.url.empty());
  EXPECT_TRUE(c.server_mode.empty());
}

}  // namespace
}  // namespace soapbench
