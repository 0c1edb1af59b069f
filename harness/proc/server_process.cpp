#include "proc/server_process.h"

#include <dirent.h>
#include <limits.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <regex>
#include <stdexcept>

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include "proc/signals.h"

namespace soapbench {

namespace {
// The port of "scheme://host:port/path", "host:port" or "[v6]:port"; 0 when
// the address names none.
uint16_t port_of(const std::string& address) {
  const auto scheme = address.find("://");
  const size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const std::string authority = address.substr(start, address.find('/', start) - start);
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos) return 0;
  const std::string digits = authority.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  const unsigned long port = std::stoul(digits);
  return port <= 65535 ? static_cast<uint16_t>(port) : 0;
}
}  // namespace

std::string executable_path() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

std::string executable_dir() {
  const std::string path = executable_path();
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

ServerProcess::ServerProcess(const std::string& program, const std::string& mode, double startup_timeout_s)
    : ServerProcess({program, "--port", "0", "--report-interval", "0", "--quiet", "--mode", mode, "--grace", "1"},
                    R"(^soapbench-server listening on (http://\S+) mode=)", startup_timeout_s) {}

ServerProcess::ServerProcess(const std::vector<std::string>& args, const std::string& address_pattern,
                             double startup_timeout_s) {
  const std::string& program = args.at(0);
  SpawnOptions options;
  options.out = Stream::pipe;
  options.own_group = true;        // Ctrl-C is the driver's to handle; it stops the server last
  options.death_signal = SIGTERM;  // a killed driver leaves no server behind
  process_ = Subprocess(args, options);
  const int out_fd = process_.out_fd();

  std::string text;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(startup_timeout_s));
  while (text.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out_fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[512];
    const ssize_t n = ::read(out_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  first_line_ = text.substr(0, text.find('\n'));
  const std::regex pattern(address_pattern);
  std::smatch m;
  if (!std::regex_search(first_line_, m, pattern)) {
    const std::string how = stop(0.5);
    throw std::runtime_error(program + " did not report its address (" + how +
                             (first_line_.empty() ? ")" : "; it printed: " + first_line_ + ")"));
  }
  url_ = m[1];
  port_ = port_of(url_);
}

ServerProcess::~ServerProcess() { stop(); }

std::string ServerProcess::stop(double grace_s) {
  if (process_.reaped()) return ended_;
  process_.terminate(grace_s);
  process_.close_out();
  ended_ = process_.lost() ? "lost" : describe_wait_status(process_.status());
  return ended_;
}

// ---------------------------------------------------------------------------

std::string stats_url(const std::string& endpoint_url) {
  const auto scheme = endpoint_url.find("://");
  const auto path = endpoint_url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return (path == std::string::npos ? endpoint_url : endpoint_url.substr(0, path)) + "/stats";
}

namespace {
size_t append_body(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() > (1u << 20)) return 0;  // no /stats is this large: give up
  body->append(data, size * count);
  return size * count;
}
}  // namespace

std::optional<double> process_group_cpu_seconds(pid_t pgid) {
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  double total = 0;
  bool found = false;
  DIR* proc = opendir("/proc");
  if (!proc) return std::nullopt;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;  // it ended meanwhile
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    std::string state;
    long long ppid = 0, pgrp = 0, skip = 0;
    unsigned long long utime = 0, stime = 0;
    long long cutime = 0, cstime = 0;
    fields >> state >> ppid >> pgrp;
    if (!fields || pgrp != pgid) continue;
    for (int i = 0; i < 8; ++i) fields >> skip;  // session .. cmajflt
    fields >> utime >> stime >> cutime >> cstime;
    if (!fields) continue;
    found = true;
    total += static_cast<double>(utime + stime) / tick + static_cast<double>(cutime + cstime) / tick;
  }
  closedir(proc);
  if (!found) return std::nullopt;
  return total;
}

std::optional<ServerStats> fetch_server_stats(const std::string& endpoint_url, double timeout_s,
                                              const StatsTls& tls) {
  CURL* curl = curl_easy_init();
  if (!curl) return std::nullopt;
  std::string body;
  const std::string url = stats_url(endpoint_url);
  const long timeout_ms = static_cast<long>(timeout_s * 1000);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  if (!tls.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, tls.cert_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLKEY, tls.key_file.c_str());
  }
  if (tls.insecure) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK || status != 200) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(body);
    ServerStats s;
    s.requests = j.at("requests").at("total").get<uint64_t>();
    s.faults = j.value("faults", uint64_t{0});
    s.cpu_s = j.at("cpu").at("user_s").get<double>() + j.at("cpu").at("system_s").get<double>();
    s.mode = j.value("mode", std::string());
    s.gsoap_version = j.value("gsoap_version", std::string());
    return s;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace soapbench
