#include "engine/engine.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include "core/timing.h"
#include "io_wait.h"

namespace soapbench {

namespace {

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::chrono::steady_clock::duration from_seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

void validate(const WorkerPlan& p) {
  auto bad = [](const char* what) { throw std::invalid_argument(std::string("worker plan: ") + what); };
  if (!(p.interval_s > 0)) bad("interval_s must be > 0");
  if (!(p.warmup_s >= 0)) bad("warmup_s must be >= 0");
  if (!(p.rate >= 0) || !std::isfinite(p.rate)) bad("rate must be >= 0");
  if (p.requests == 0 && !(p.duration_s > 0)) bad("duration_s must be > 0 when requests is 0");
  if (!(p.call.client.timeout_s > 0)) bad("timeout_s must be > 0");
  if (!(p.schedule_offset_s >= 0)) bad("schedule_offset_s must be >= 0");
  if (!(p.pause_s >= 0)) bad("pause_s must be >= 0");
}

}  // namespace

void add_failure(FailureCounts& counts, FailureKind kind) {
  switch (kind) {
    case FailureKind::soap_fault: ++counts.soap_fault; return;
    case FailureKind::http_status: ++counts.http_status; return;
    case FailureKind::mismatch: ++counts.mismatch; return;
    case FailureKind::timeout: ++counts.timeout; return;
    case FailureKind::connect: ++counts.connect; return;
    case FailureKind::read: ++counts.read; return;
    case FailureKind::tls: ++counts.tls; return;
    case FailureKind::auth: ++counts.auth; return;
  }
  ++counts.read;  // an out-of-range kind is still a failed call
}

Engine::Engine(WorkerPlan plan, EchoClient& client, IntervalSink on_interval)
    : plan_(std::move(plan)),
      client_(client),
      on_interval_(std::move(on_interval)),
      // Clients of a step start together: seeds that differ keep their retries apart.
      jitter_state_((static_cast<uint64_t>(Clock::now().time_since_epoch().count()) ^
                     (static_cast<uint64_t>(getpid()) << 32)) | 1) {
  validate(plan_);
  result_.mix.resize(plan_.call.client.mix.size());
}

bool Engine::back_off(bool connected, const std::atomic<bool>& stop) {
  constexpr double kFirstS = 1e-3, kMostS = 1.0;
  if (connected) {
    backoff_s_ = 0;
    return true;
  }
  backoff_s_ = backoff_s_ == 0 ? kFirstS : std::min(backoff_s_ * 2, kMostS);
  // "Equal jitter": half the backoff fixed, half random.
  return wait_until(Clock::now() + from_seconds(backoff_s_ * (0.5 + 0.5 * next_unit())), stop);
}

double Engine::next_unit() {
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  return static_cast<double>(jitter_state_ >> 11) / static_cast<double>(1ull << 53);
}

double Engine::next_pause_s() {
  if (!plan_.pause_exponential) return plan_.pause_s;
  // Inverse transform: -mean ln(1 - u) is exponential with that mean (JMeter's
  // Poisson timer: the calls of many such users arrive as a Poisson stream).
  return std::min(-plan_.pause_s * std::log1p(-next_unit()), LoadSpec::kMaxPauseFactor * plan_.pause_s);
}

double Engine::cpu_seconds_now() const {
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

bool Engine::wait_until(Clock::time_point t, const std::atomic<bool>& stop) const {
  // Sleeps in slices so that a stop is seen within 20 ms even in a long wait.
  // On an event loop of several connections the loop sleeps instead, running
  // the others meanwhile (its timeout is to the nanosecond: no spin needed).
  constexpr auto slice = std::chrono::milliseconds(20);
  IoWaiter* const loop = thread_io_waiter();
  for (;;) {
    if (stop.load(std::memory_order_relaxed)) return false;
    const auto now = Clock::now();
    if (now >= t) return true;
    if (loop) loop->wait(-1, 0, std::min(t, now + slice));
    else std::this_thread::sleep_until(std::min(t, now + slice));
  }
}

bool Engine::wait_precisely(Clock::time_point t, const std::atomic<bool>& stop) const {
  // Sleeping to the slot itself wakes 50-100 us late (timer slack, the
  // scheduler); sleeping to kSpin before it and spinning the rest costs at
  // most kSpin of CPU per call and sends within a few microseconds.
  constexpr auto kSpin = std::chrono::microseconds(60);
  constexpr auto kSlice = std::chrono::milliseconds(20);  // a stop is seen within this
  static_assert(std::is_same_v<Clock, std::chrono::steady_clock>, "steady_clock is CLOCK_MONOTONIC on Linux");
  // A spin on an event loop would hold up every other connection.
  if (thread_io_waiter()) return wait_until(t, stop);
  for (;;) {
    if (stop.load(std::memory_order_relaxed)) return false;
    const auto now = Clock::now();
    if (now >= t) return true;
    if (t - now <= kSpin) continue;  // spin
    const auto wake = std::min(t - kSpin, now + kSlice);
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wake.time_since_epoch()).count();
    const timespec at{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);  // EINTR: the loop goes on
  }
}

void Engine::begin_measurement(Clock::time_point t) {
  std::lock_guard lock(mutex_);
  phase_ = Phase::measuring;
  measure_start_ = t;
  last_end_ = t;
  cpu_at_measure_start_ = cpu_seconds_now();
  connections_at_measure_start_ = client_.connections_opened();
  tls_at_measure_start_ = client_.tls_state();
  // A connection kept from the warm-up carries its negotiation into the measurement.
  result_.tls_protocol = tls_at_measure_start_.protocol;
  result_.tls_cipher = tls_at_measure_start_.cipher;
  current_ = EngineInterval{};
}

void Engine::run(const std::atomic<bool>& stop) {
  const bool rate_mode = plan_.rate > 0;
  auto start = Clock::now();
  if (plan_.start_at_unix_s > 0) {
    // Realtime is the clock all processes (and, later, hosts) agree on; from
    // here on the steady clock, which no clock adjustment can move.
    const double wait_s = plan_.start_at_unix_s - unix_now();
    if (wait_s > 0) start += from_seconds(wait_s);
    if (!wait_until(start, stop)) return finish(true);
  }
  {
    std::lock_guard lock(mutex_);
    phase_ = Phase::warmup;
  }
  const auto boundary = start + from_seconds(plan_.warmup_s);
  bool measuring = false;
  Clock::time_point measure_end{};
  auto enough = [&](Clock::time_point t) {
    if (plan_.requests > 0) {
      std::lock_guard lock(mutex_);
      return result_.measured_calls() >= plan_.requests;
    }
    return t >= measure_end;
  };

  if (!rate_mode) {
    while (!stop.load(std::memory_order_relaxed)) {
      const auto now = Clock::now();
      if (!measuring && now >= boundary) {
        begin_measurement(now);
        measuring = true;
        measure_end = now + from_seconds(plan_.duration_s);
      }
      if (measuring && enough(now)) return finish(false);
      if (!back_off(call_once(now, measuring), stop)) break;
      if (plan_.pause_s > 0 && !wait_until(Clock::now() + from_seconds(next_pause_s()), stop)) break;
    }
    return finish(true);
  }

  // The default 50 us of timer slack would be added to every wake-up; this
  // thread's own setting, so the rest of the process is unaffected.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  const double period_s = 1.0 / plan_.rate;
  for (uint64_t i = 0;; ++i) {
    // Computed from i, not accumulated, so rounding never drifts the schedule.
    const auto scheduled = start + from_seconds(plan_.schedule_offset_s + static_cast<double>(i) * period_s);
    if (!measuring && scheduled >= boundary) {
      begin_measurement(scheduled);
      measuring = true;
      measure_end = scheduled + from_seconds(plan_.duration_s);
    }
    if (measuring && enough(scheduled)) return finish(false);
    if (!wait_precisely(scheduled, stop)) return finish(true);
    if (!back_off(call_once(scheduled, measuring), stop)) return finish(true);
  }
}

bool Engine::call_once(Clock::time_point scheduled, bool measured) {
  std::vector<EngineInterval> to_send;
  if (measured) {
    // Intervals, like phases, go by when a call starts (its slot in rate
    // mode), so a measured phase of k intervals yields exactly k samples.
    std::lock_guard lock(mutex_);
    close_intervals(scheduled);
    to_send.swap(closed_unsent_);
    in_call_ = true;
  }
  send_intervals(to_send);

  const auto sent = Clock::now();
  const CallResult r = client_.call();
  const auto end = Clock::now();
  const uint64_t connections = client_.connections_opened();  // read here: call() runs on this thread
  // A TLS handshake comes only with a new connection: its state (two strings) is
  // read then, not on every call of a kept connection.
  std::optional<TlsState> tls;
  if (connections != connections_seen_) {
    connections_seen_ = connections;
    tls = client_.tls_state();
  }
  const bool connected = r.ok || r.kind != FailureKind::connect;
  std::lock_guard lock(mutex_);
  in_call_ = false;
  if (!r.ok && result_.first_failure.empty())
    result_.first_failure = std::string(to_string(r.kind)) + ": " + r.detail;
  if (!measured) {
    ++result_.warmup_calls;
    return connected;
  }
  result_.connections_opened = connections - connections_at_measure_start_;
  if (result_.http_version.empty()) result_.http_version = client_.http_version();
  if (tls && !tls->protocol.empty()) {
    result_.tls_protocol = std::move(tls->protocol);
    result_.tls_cipher = std::move(tls->cipher);
    result_.tls_handshakes = tls->handshakes - tls_at_measure_start_.handshakes;
    result_.tls_resumed = tls->resumed - tls_at_measure_start_.resumed;
  }
  // The call counts in the whole result and, with --mix, in its entry's.
  WorkerResult* entry = r.entry < result_.mix.size() ? &result_.mix[r.entry] : nullptr;
  if (r.ok) {
    const double corrected = seconds(end - scheduled);
    const WireBytes wire = client_.last_wire_bytes();
    for (WorkerResult* into : {&result_, entry}) {
      if (!into) continue;
      into->latency.record(corrected);
      if (plan_.rate > 0) into->uncorrected.record(seconds(end - sent));
      ++into->ok;
      into->request_bytes = wire.request;
      into->response_bytes = wire.response;
      into->request_bytes_uncompressed = wire.request_uncompressed;
      into->response_bytes_uncompressed = wire.response_uncompressed;
    }
    current_.latency.record(corrected);
    ++current_.ok;
  } else {
    if (entry) {
      if (entry->first_failure.empty()) entry->first_failure = std::string(to_string(r.kind)) + ": " + r.detail;
      add_failure(entry->failures, r.kind);
    }
    add_failure(result_.failures, r.kind);
    ++current_.failed;
    if (!connected) ++current_.connect_failed;
  }
  if (plan_.rate > 0) {
    const double lag = std::max(0.0, seconds(sent - scheduled));
    result_.send_lag.record(lag);
    current_.send_lag.record(lag);
    if (lag > result_.max_lag_s) result_.max_lag_s = lag;
    if (lag > 1.0 / plan_.rate) ++result_.late_calls;
  }
  // At a fixed rate a call owns its whole slot: n calls span n periods, not
  // n - 1, or the rate achieved would read high by one call.
  last_end_ = plan_.rate > 0 ? std::max(end, scheduled + from_seconds(1.0 / plan_.rate)) : end;
  return connected;
}

void Engine::send_intervals(const std::vector<EngineInterval>& intervals) {
  if (on_interval_)
    for (const auto& interval : intervals) on_interval_(interval);
}

void Engine::close_intervals(Clock::time_point now) {
  // Caller holds mutex_. Closes every interval that ends at or before `now`.
  for (;;) {
    const double end_s = static_cast<double>(current_.index + 1) * plan_.interval_s;
    if (now < measure_start_ + from_seconds(end_s)) return;
    current_.end_s = end_s;
    result_.intervals.push_back(current_);
    closed_unsent_.push_back(std::move(current_));
    const unsigned next = result_.intervals.back().index + 1;
    current_ = EngineInterval{};
    current_.index = next;
  }
}

EngineInterval Engine::last_interval(double measured_s) const {
  // Caller holds mutex_. The open interval ends with the measured phase: at
  // the planned duration when measuring by time, else at the last call's end.
  EngineInterval last = current_;
  const double start_s = static_cast<double>(last.index) * plan_.interval_s;
  double end_s = std::min(start_s + plan_.interval_s, measured_s);
  if (plan_.requests == 0 && phase_ == Phase::done && !result_.partial)
    end_s = std::min(start_s + plan_.interval_s, plan_.duration_s);
  last.end_s = std::max(end_s, start_s);
  return last;
}

void Engine::finish(bool stopped) {
  std::vector<EngineInterval> to_send;
  {
    std::lock_guard lock(mutex_);
    const bool measured = phase_ == Phase::measuring;
    result_.partial = stopped;
    for (WorkerResult& m : result_.mix) m.partial = stopped;
    phase_ = Phase::done;
    if (measured) {
      result_.measured_s = seconds(last_end_ - measure_start_);
      result_.cpu_s = cpu_seconds_now() - cpu_at_measure_start_;
      for (WorkerResult& m : result_.mix) m.measured_s = result_.measured_s;
      if (current_.ok + current_.failed > 0) {
        result_.intervals.push_back(last_interval(result_.measured_s));
        closed_unsent_.push_back(result_.intervals.back());
      }
    }
    to_send.swap(closed_unsent_);
  }
  send_intervals(to_send);
}

WorkerResult Engine::result() const {
  std::lock_guard lock(mutex_);
  WorkerResult r = result_;
  if (phase_ == Phase::done) return r;
  // A snapshot while run() is busy: what was measured up to the last completed
  // call, and the call in progress as in flight.
  r.partial = true;
  r.in_flight = in_call_ ? 1 : 0;
  for (WorkerResult& m : r.mix) m.partial = true;
  if (phase_ == Phase::measuring) {
    r.measured_s = seconds(last_end_ - measure_start_);
    r.cpu_s = cpu_seconds_now() - cpu_at_measure_start_;
    for (WorkerResult& m : r.mix) m.measured_s = r.measured_s;
    if (current_.ok + current_.failed > 0) r.intervals.push_back(last_interval(r.measured_s));
  }
  return r;
}

}  // namespace soapbench
