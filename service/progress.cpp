#include "progress.h"

#include <ctime>

#include <fmt/core.h>

namespace soapbench::server {
namespace {

std::string wall_clock() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

}  // namespace

ProgressReporter::ProgressReporter(const Stats& stats, const Config& config)
    : stats_(stats), config_(config) {
  if (config_.report_interval_s > 0 && !config_.quiet) thread_ = std::thread([this] { loop(); });
}

ProgressReporter::~ProgressReporter() { stop(); }

void ProgressReporter::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ProgressReporter::loop() {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(config_.report_interval_s));
  auto last_time = Clock::now();
  uint64_t last_requests = stats_.requests();
  uint64_t last_faults = stats_.faults;
  fmt::print("{:>8}  {:>10}  {:>6}  {:>7}\n", "time", "requests/s", "open", "faults");
  std::unique_lock lock(mutex_);
  while (!cv_.wait_until(lock, last_time + interval, [&] { return stopped_; })) {
    const auto now = Clock::now();
    const uint64_t requests = stats_.requests();
    const uint64_t faults = stats_.faults;
    const double elapsed = std::chrono::duration<double>(now - last_time).count();
    fmt::print("{:>8}  {:>10.0f}  {:>6}  {:>7}\n", wall_clock(),
               static_cast<double>(requests - last_requests) / elapsed, stats_.open.load(),
               faults - last_faults);
    std::fflush(stdout);
    last_time = now;
    last_requests = requests;
    last_faults = faults;
  }
}

void print_summary(const Stats& s, const Config& c) {
  const auto usage = process_usage();
  const double uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count();
  const uint64_t requests = s.requests();
  fmt::print(
      "soapbench-server stopped after {:.1f} s (mode {}): {} requests (echoString {}, echoStruct {}, echoBinary {}), "
      "{} faults, {} connections, {:.2f} MB in, {:.2f} MB out, CPU {:.2f} s user + {:.2f} s system",
      uptime, to_string(c.mode), requests, s.echo_string.load(), s.echo_struct.load(), s.echo_binary.load(),
      s.faults.load(),
      s.accepted.load(), static_cast<double>(s.bytes_in.load()) / 1e6,
      static_cast<double>(s.bytes_out.load()) / 1e6, usage.user_cpu_s, usage.system_cpu_s);
  if (requests > 0)
    fmt::print(" ({:.1f} us CPU per request)",
               (usage.user_cpu_s + usage.system_cpu_s) * 1e6 / static_cast<double>(requests));
  if (c.tls())
    fmt::print("; TLS: {} handshakes ({} resumed), {} failed", s.tls_handshakes.load(), s.tls_resumed.load(),
               s.tls_failed.load());
  fmt::print("\n");
  std::fflush(stdout);
}

}  // namespace soapbench::server
