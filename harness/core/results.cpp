// Record arithmetic and the machine description that goes into every run.
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <utility>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "core/results.h"
#include "soapbench/version.h"

namespace soapbench {

uint64_t FailureCounts::total() const {
  return soap_fault + http_status + mismatch + timeout + connect + read + tls + auth;
}

FailureCounts& FailureCounts::operator+=(const FailureCounts& other) {
  soap_fault += other.soap_fault;
  http_status += other.http_status;
  mismatch += other.mismatch;
  timeout += other.timeout;
  connect += other.connect;
  read += other.read;
  tls += other.tls;
  auth += other.auth;
  return *this;
}

namespace {

// The first "model name" of /proc/cpuinfo (x86), else "Processor"/"cpu model"
// (some ARM and MIPS kernels), else "unknown".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string fallback;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    if (key == "model name" && !value.empty()) return value;
    if ((key == "Processor" || key == "cpu model") && fallback.empty()) fallback = value;
  }
  return fallback.empty() ? "unknown" : fallback;
}

}  // namespace

RunContext collect_machine_context() {
  RunContext c;
  c.soapbench_version = SOAPBENCH_VERSION;
  c.gsoap_version = SOAPBENCH_GSOAP_VERSION ", runtime: " SOAPBENCH_GSOAP_RUNTIME_INFO;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) c.host = host;
  c.cpu_model = cpu_model();
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  c.cores = online > 0 ? static_cast<unsigned>(online) : 0;
  struct utsname u {};
  if (uname(&u) == 0) c.kernel = fmt::format("{} {}", u.sysname, u.release);
  // fmt 9 formats a time_point in local time; gmtime makes it UTC.
  c.start_time = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::chrono::system_clock::now()));
  return c;
}

RunContext collect_run_context(RunInvocation invocation) {
  RunContext c = collect_machine_context();
  c.command_line = std::move(invocation.command_line);
  c.client_kind = std::move(invocation.client_kind);
  c.label = std::move(invocation.label);
  c.options = std::move(invocation.options);
  return c;
}

}  // namespace soapbench
