#pragma once
// The server under test as the driver sees it: the embedded soapbench-server
// it starts when no --url is given, and the GET /stats counters any server may offer.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "proc/subprocess.h"

namespace soapbench {

// A server child process on a free loopback port: soapbench-server, or any
// that announces its address on its first line.
class ServerProcess {
 public:
  // Starts `program --port 0 --report-interval 0 --quiet --mode MODE` and reads
  // its first line for the URL. Throws std::runtime_error (with what the
  // server printed, if anything) when it does not report an address within
  // `startup_timeout_s`.
  ServerProcess(const std::string& program, const std::string& mode, double startup_timeout_s = 10);
  // Any server that announces itself the same way: `argv` (program first) is
  // started, and the first group of `address_pattern` (an ECMAScript regex)
  // on its first line is its URL. soapbench-echo-server and
  // soapbench-chat-server (whose "URL" is a bare host:port) are started this way.
  ServerProcess(const std::vector<std::string>& argv, const std::string& address_pattern,
                double startup_timeout_s = 10);
  // Stops it (see stop()).
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  const std::string& url() const { return url_; }  // http://127.0.0.1:PORT/echo
  uint16_t port() const { return port_; }           // the PORT of url(); 0 if it names none
  const std::string& first_line() const { return first_line_; }
  pid_t pid() const { return process_.reaped() ? -1 : process_.pid(); }  // -1 once stopped

  // SIGTERM, up to `grace_s` for a clean exit, then SIGKILL. Returns how it
  // ended ("exit 0", "killed by signal 9 (Killed)"); idempotent.
  std::string stop(double grace_s = 3);

 private:
  Subprocess process_;  // nothing until the constructor starts it
  uint16_t port_ = 0;
  std::string url_, first_line_, ended_;
};

// The directory of the running executable (from /proc/self/exe), where the
// sibling programs (soapbench-server) are installed.
std::string executable_dir();
std::string executable_path();

// The fields of GET /stats the driver uses.
struct ServerStats {
  uint64_t requests = 0;  // echoString + echoStruct answered
  uint64_t faults = 0;
  double cpu_s = 0;       // user + system CPU seconds of the server process
  std::string mode;       // "per-connection", ... ; empty when not reported
  std::string gsoap_version;
  // False when only the CPU is known (a peer's process group, read from /proc):
  // `requests` and `faults` then mean nothing and nobody compares them.
  bool counts_requests = true;
};

// User + system CPU seconds of every process in process group `pgid` on this
// host, the children they have reaped included; nullopt when none is left.
std::optional<double> process_group_cpu_seconds(pid_t pgid);

// The /stats URL beside an endpoint: http://h:p/echo -> http://h:p/stats.
std::string stats_url(const std::string& endpoint_url);

// How /stats is fetched from an https:// server: as the run's clients trust it.
struct StatsTls {
  std::string ca_file;    // "" = the system's CAs
  std::string cert_file;  // a client certificate, for a server that requires one
  std::string key_file;
  bool insecure = false;
};

// Fetches and parses GET /stats; nullopt when the server does not offer it
// (no answer within timeout_s, a non-200 status, or not the expected JSON).
std::optional<ServerStats> fetch_server_stats(const std::string& endpoint_url, double timeout_s = 1,
                                              const StatsTls& tls = {});

}  // namespace soapbench
