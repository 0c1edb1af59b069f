#include "stats.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "soapbench/version.h"
#include "tls.h"

namespace soapbench::server {

ProcessUsage process_usage() {
  ProcessUsage u;
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    u.user_cpu_s = static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6;
    u.system_cpu_s = static_cast<double>(ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_stime.tv_usec) / 1e6;
  }
  // statm's second field is resident pages; getrusage only knows the peak.
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (statm >> size >> resident) u.rss_bytes = resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return u;
}

std::string stats_json(const Stats& s, const Config& c) {
  const auto usage = process_usage();
  const double uptime =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
  nlohmann::json j = {
      {"server", "soapbench-server"},
      {"version", SOAPBENCH_VERSION},
      {"gsoap_version", SOAPBENCH_GSOAP_VERSION},
      // Which runtime (source: built in-tree; system: Debian's libgsoap++) and its flags.
      {"gsoap_runtime", SOAPBENCH_GSOAP_RUNTIME_INFO},
      {"mode", to_string(c.mode)},
      // Serving threads: the pool's size, the loops, the one loop thread, or one per open connection.
      {"threads", c.mode == Mode::pool || c.mode == Mode::loops ? int64_t{c.threads}
                  : c.mode == Mode::iterative ? int64_t{1}
                                              : s.open.load()},
      {"keepalive", c.keepalive},
      {"uptime_s", uptime},
      {"requests", {{"echoString", s.echo_string.load()},
                    {"echoStruct", s.echo_struct.load()},
                    {"echoBinary", s.echo_binary.load()},
                    {"total", s.requests()},
                    {"http_get", s.http_get.load()}}},
      {"faults", s.faults.load()},
      {"auth", {{"challenged", s.auth_challenged.load()},
                {"refused", s.auth_refused.load()},
                {"wsse_refused", s.wsse_refused.load()}}},
      {"bytes_in", s.bytes_in.load()},
      {"bytes_out", s.bytes_out.load()},
      {"connections", {{"accepted", s.accepted.load()},
                       {"open", s.open.load()},
                       {"refused", s.refused.load()}}},
      {"cpu", {{"user_s", usage.user_cpu_s}, {"system_s", usage.system_cpu_s}}},
      {"rss_bytes", usage.rss_bytes},
  };
  if (c.tls())
    j["tls"] = {{"library", openssl_version()},
                {"min_version", c.tls_min},
                {"client_certificates", !c.tls_client_ca.empty()},
                {"handshakes", s.tls_handshakes.load()},
                {"resumed", s.tls_resumed.load()},
                {"failed", s.tls_failed.load()},
                {"last_failure", s.tls_last_failure()}};
  if (c.time_layers)
    j["layers"] = {{"timed_requests", s.timed_requests.load()},
                   {"every", c.time_layers_every},
                   {"clock_read_us", static_cast<double>(s.clock_read_ns.load()) / 1e3},
                   {"xml_guard_cpu_s", static_cast<double>(s.guard_cpu_ns.load()) / 1e9},
                   {"soap_cpu_s", static_cast<double>(s.soap_cpu_ns.load()) / 1e9}};
  return j.dump();
}

}  // namespace soapbench::server
