#include "stats_endpoint.h"

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "soapbench/version.h"

namespace soapbench::tcp {
namespace {

constexpr int kRequestTimeoutMs = 1000;
constexpr size_t kMaxRequestBytes = 4096;

// Reads up to the blank line that ends an HTTP request head.
std::string read_head(int fd) {
  std::string in;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kRequestTimeoutMs);
  while (in.find("\r\n\r\n") == std::string::npos && in.size() < kMaxRequestBytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[1024];
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  return in;
}

void answer(int fd, EchoStats& stats, const EchoConfig& config) {
  const std::string head = read_head(fd);
  const bool wanted = head.rfind("GET /stats ", 0) == 0 || head.rfind("GET /stats?", 0) == 0;
  if (wanted) stats.add(stats.stats_requests);
  const std::string body = wanted ? echo_stats_json(stats, config) + "\n" : "not found: GET /stats only\n";
  const std::string response = std::string(wanted ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found") +
                               "\r\nContent-Type: " + (wanted ? "application/json" : "text/plain") +
                               "\r\nContent-Length: " + std::to_string(body.size()) +
                               "\r\nConnection: close\r\n\r\n" + body;
  size_t sent = 0;
  while (sent < response.size()) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, kRequestTimeoutMs) <= 0) return;
    const ssize_t n = send(fd, response.data() + sent, response.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

}  // namespace

double process_cpu_s(double* user_s, double* system_s) {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  const double user = static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) * 1e-6;
  const double sys = static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) * 1e-6;
  if (user_s) *user_s = user;
  if (system_s) *system_s = sys;
  return user + sys;
}

std::string echo_stats_json(const EchoStats& s, const EchoConfig& c) {
  double user = 0, sys = 0;
  process_cpu_s(&user, &sys);
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
  const nlohmann::json j = {
      {"server", std::string("soapbench-echo-server ") + SOAPBENCH_VERSION},
      {"mode", to_string(c.mode)},
      {"threads", c.mode == EchoMode::threaded ? c.threads : 1u},
      {"requests", {{"total", s.frames.load()}}},
      {"faults", s.bad_frames.load()},
      {"bytes", {{"in", s.bytes_in.load()}, {"out", s.bytes_out.load()}}},
      {"connections",
       {{"accepted", s.accepted.load()}, {"open", s.open.load()}, {"refused", s.refused.load()},
        {"cut_mid_message", s.cut.load()}}},
      {"cpu", {{"user_s", user}, {"system_s", sys}}},
      {"uptime_s", uptime}};
  return j.dump();
}

void serve_stats(int listen_fd, int stop_fd, EchoStats& stats, const EchoConfig& config) {
  for (;;) {
    pollfd p[2] = {{listen_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) continue;
    if (p[1].revents) return;
    const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) continue;
    answer(fd, stats, config);
    close(fd);
  }
}

}  // namespace soapbench::tcp
