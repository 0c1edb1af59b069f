#include "sample_records.h"

#include <stdlib.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace soapbench::testing {

LatencyHistogram histogram_ms(std::initializer_list<double> samples_ms) {
  LatencyHistogram h;
  for (double ms : samples_ms) h.record(ms / 1e3);
  return h;
}

StepResult closed_loop_step(unsigned clients, double latency_ms) {
  StepResult s;
  s.clients = clients;
  s.warmup_s = 2;
  s.duration_s = 10;
  // mean = 1.1 x latency_ms; p50 = latency_ms; p90 = p99 = max = 2 x latency_ms
  s.latency = histogram_ms({latency_ms * 0.5, latency_ms, latency_ms, latency_ms, latency_ms * 2});
  s.throughput = clients * 1e3 / (latency_ms * 1.1);
  s.requests = static_cast<uint64_t>(std::llround(s.throughput * s.duration_s));
  s.server_cpu_pct = 35.5 * clients;
  s.client_cpu_pct = 20.4 * clients;
  s.request_bytes = 1400.5;
  s.response_bytes = 1500.6;
  s.connections_opened = 3;
  s.http_version = "HTTP/1.1";
  s.intervals = {
      {1.0, 900, 0, 900.0, 0.5, 1.1, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0},
      {2.0, 910, 1, 910.0, 0.4, 1.05, 1.0, 1.1, 1.9, 2.1, 2.2, 3.5},
  };
  return s;
}

namespace {

StepResult rate_step(unsigned clients, double target_rate) {
  StepResult s = closed_loop_step(clients, 2.0);
  s.target_rate = target_rate;
  s.throughput = target_rate;
  s.requests = static_cast<uint64_t>(target_rate * s.duration_s);
  s.uncorrected = histogram_ms({1.0, 2.0, 2.0, 2.0, 3.0});
  s.server_cpu_pct.reset();
  return s;
}

}  // namespace

RunRecord sample_record() {
  RunRecord r;
  r.context.soapbench_version = "0.1.0";
  r.context.gsoap_version = "2.8.124";
  r.context.host = "bench-host";
  r.context.cpu_model = "Example CPU @ 2.00GHz";
  r.context.cores = 8;
  r.context.kernel = "Linux 6.1.0-18-amd64";
  r.context.command_line = "soapbench run --clients 1-2 --label \"gSOAP baseline\"";
  r.context.start_time = "2024-05-01T12:34:56Z";
  r.context.url = "http://127.0.0.1:8080/echo";
  r.context.stack_label = "gSOAP 2.8.124";
  r.context.server_mode = "threads";
  r.context.client_kind = "gsoap";
  r.context.label = "gSOAP baseline";
  r.context.options = {{"clients", "1-2"}, {"duration", 10.0}, {"keep_alive", true}};
  r.partial = true;

  OperationResult strings{"echoString", {closed_loop_step(1, 1.0), closed_loop_step(2, 1.0)}};
  strings.steps[1].failures.soap_fault = 1;
  strings.steps[1].failures.timeout = 2;
  strings.steps[1].warnings = {"3 calls failed: soap_fault 1, timeout 2"};

  OperationResult structs{"echoStruct", {rate_step(1, 500), rate_step(4, 2000)}};
  structs.steps[0].failures = {1, 2, 3, 4, 5, 6};
  structs.steps[1].warnings = {"first warning", "second warning"};

  r.operations = {strings, structs};
  return r;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "soapbench-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace soapbench::testing
