#pragma once
// One client's load loop: warm-up, then measurement, in a closed loop or at a
// fixed rate. The engine knows nothing of processes, pipes or printing: it is
// given a plan, a client and a stop flag, and produces a WorkerResult.
//
// Decisions:
//  - Only successful calls enter the latency histograms. A fast fault or a
//    refused connection would otherwise make the server look quicker; failures
//    are counted by kind and their time is still part of the measured wall time.
//  - A call belongs to the phase and the interval in which it starts (rate
//    mode: in which it is scheduled). Measured time runs from the start of the
//    first measured call to the end of the last one (rate mode: to the end of
//    its slot, if later, so that n calls at rate r take n / r seconds).
//  - Closed loop: one histogram, `latency`; `uncorrected` stays empty.
//    Rate mode: call i is scheduled at start + i/rate. `latency` is measured from
//    the scheduled time (corrected for coordinated omission: a stall delays the
//    calls queued behind it, and they are charged for it), `uncorrected` from
//    the actual send. A late worker sends at once until it has caught up.
//  - Rate mode paces precisely: an absolute sleep (clock_nanosleep
//    TIMER_ABSTIME, timer slack lowered to 1 ns) to just before the slot, then
//    a short spin to it, so that the wake-up's lateness is not charged to the
//    server. What lateness remains is measured: `send_lag`, actual send minus slot.
//  - No call is lost from the counts: a measured call is ok, failed by kind, or
//    (in a snapshot taken while it runs) in flight; `sent()` is their sum.
//  - A refused connection is retried after a backoff (1 ms doubling to 1 s,
//    with jitter), so that a dead server costs a few attempts per second, not
//    a busy loop; any other outcome resets it.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/histogram.h"
#include "core/results.h"
#include "engine/specs.h"

namespace soapbench {

struct WorkerPlan {
  CallSpec call;                    // what each call is: client kind, URL, operation, payload, timeout
  double warmup_s = 2;              // calls in this first phase are made but not measured
  double duration_s = 10;           // length of the measured phase when requests == 0
  uint64_t requests = 0;            // measured calls for this client; 0 = measure by duration
  double rate = 0;                  // calls per second for this client; 0 = closed loop
  double pause_s = 0;               // closed loop: wait after each call (xSocket's "wait time between calls")
  bool pause_exponential = false;   // each wait drawn from an exponential distribution of mean pause_s
  double interval_s = 5;            // length of the per-interval samples (> 0)
  // Rate mode: this client's first slot after the start. The coordinator gives
  // client k of N an offset of k / (N x rate), so that together they send an
  // evenly spaced stream instead of N calls at the same instant.
  double schedule_offset_s = 0;
  // Realtime clock (seconds since the epoch) at which every worker of a step
  // starts, so that separate processes, or later hosts, begin together. 0 = at once.
  double start_at_unix_s = 0;
  // Connections this client keeps, each its own closed loop or its share of
  // the rate, on one event loop (MultiEngine; raw and curl clients). The
  // requests above are per connection.
  unsigned connections = 1;
};

// Calls completed in one interval of the measured phase.
struct EngineInterval {
  unsigned index = 0;      // 0, 1, ...: the interval [index * interval_s, ...) of measurement
  double end_s = 0;        // its end in seconds since measurement start (the last may be short)
  uint64_t ok = 0;         // successful calls started in it
  uint64_t failed = 0;     // failed calls started in it
  uint64_t connect_failed = 0;  // of those, calls that could not connect: the server is unreachable
  LatencyHistogram latency;  // successful calls (corrected in rate mode)
  LatencyHistogram send_lag; // rate mode: every call's actual send minus its slot
};

struct WorkerResult {
  LatencyHistogram latency;      // successful measured calls (see the header comment)
  LatencyHistogram uncorrected;  // rate mode only: from the actual send
  LatencyHistogram send_lag;     // rate mode only: actual send minus slot, of every measured call
  std::vector<EngineInterval> intervals;
  FailureCounts failures;        // failed measured calls by kind
  std::string first_failure;     // "kind: detail" of the first failed call, warm-up included
  uint64_t ok = 0;               // successful measured calls
  uint64_t warmup_calls = 0;     // calls made in warm-up, successful or not
  double measured_s = 0;         // wall time of the measured phase
  uint64_t request_bytes = 0;    // wire bytes of the last successful call
  uint64_t response_bytes = 0;
  // --gzip: the same with the bodies uncompressed; 0 when nothing was compressed.
  uint64_t request_bytes_uncompressed = 0;
  uint64_t response_bytes_uncompressed = 0;
  double cpu_s = 0;              // this process's user + system CPU during measurement
  uint64_t connections_opened = 0;  // TCP connections the client opened while measuring
  std::string http_version;      // of the first measured response ("HTTP/1.0", ...); may be empty
  // https: what the client's connections negotiated, and its handshakes while measuring.
  std::string tls_protocol;      // "TLSv1.3"; empty without TLS
  std::string tls_cipher;
  uint64_t tls_handshakes = 0;
  uint64_t tls_resumed = 0;      // of them, resumed sessions
  uint64_t late_calls = 0;       // rate mode: calls sent more than one period after their slot
  double max_lag_s = 0;          // rate mode: the furthest behind schedule a send was
  bool partial = false;          // stopped before the measured phase ended
  uint64_t in_flight = 0;        // measured calls sent and not yet finished (a snapshot's call in progress)
  // --mix: the same counts for each entry's measured calls alone (latency, uncorrected,
  // failures, first_failure, ok, bytes; measured_s is the whole phase's), in the mix's
  // order; empty without a mix.
  std::vector<WorkerResult> mix;

  uint64_t measured_calls() const { return ok + failures.total(); }
  uint64_t sent() const { return measured_calls() + in_flight; }  // every measured call sent
};

void add_failure(FailureCounts& counts, FailureKind kind);

class Engine {
 public:
  // Called from run()'s thread after each interval closes, outside any lock.
  using IntervalSink = std::function<void(const EngineInterval&)>;

  // `client` must outlive the engine; run() is its only user.
  Engine(WorkerPlan plan, EchoClient& client, IntervalSink on_interval = {});

  // Waits for plan.start_at_unix_s, warms up, measures. Returns when the
  // measured phase is over or as soon as `stop` is seen (between calls and
  // while waiting, never in the middle of a call).
  void run(const std::atomic<bool>& stop);

  // The result so far. Safe to call from another thread while run() is busy
  // (e.g. in a blocked call): the result is then marked partial.
  WorkerResult result() const;

 private:
  enum class Phase { waiting, warmup, measuring, done };
  using Clock = std::chrono::steady_clock;

  bool wait_until(Clock::time_point t, const std::atomic<bool>& stop) const;
  // wait_until to the microsecond: an absolute sleep to just before `t`, then a spin.
  bool wait_precisely(Clock::time_point t, const std::atomic<bool>& stop) const;
  void begin_measurement(Clock::time_point t);
  // `scheduled` is the call's slot in rate mode, its send time in a closed loop.
  // Returns false when the call could not connect.
  bool call_once(Clock::time_point scheduled, bool measured);
  // After a call: waits out the connect backoff when it could not connect
  // (resets it otherwise). False when `stop` was seen.
  bool back_off(bool connected, const std::atomic<bool>& stop);
  // The think time after a call: pause_s, or a draw of mean pause_s (exponential).
  double next_pause_s();
  // Uniform in [0, 1) from jitter_state_ (xorshift).
  double next_unit();
  void close_intervals(Clock::time_point now);
  EngineInterval last_interval(double measured_s) const;
  void send_intervals(const std::vector<EngineInterval>& intervals);
  void finish(bool stopped);
  double cpu_seconds_now() const;

  const WorkerPlan plan_;
  EchoClient& client_;
  IntervalSink on_interval_;

  mutable std::mutex mutex_;  // guards everything below; held only to record
  Phase phase_ = Phase::waiting;
  bool in_call_ = false;  // a measured call is in progress
  WorkerResult result_;
  Clock::time_point measure_start_{};
  Clock::time_point last_end_{};
  double cpu_at_measure_start_ = 0;
  uint64_t connections_at_measure_start_ = 0;
  TlsState tls_at_measure_start_{};
  uint64_t connections_seen_ = 0;  // connections_opened() after the last call: a new one may bring a handshake
  EngineInterval current_;
  std::vector<EngineInterval> closed_unsent_;  // closed intervals not yet handed to the sink

  // Only run()'s thread uses these.
  double backoff_s_ = 0;   // the next connect backoff; 0 after a call that connected
  uint64_t jitter_state_;  // xorshift state for the backoff's jitter
};

// JSON for the pipe between a worker process and the driver. The histograms
// use LatencyHistogram::to_json; from_json throws std::runtime_error naming
// the bad field.
nlohmann::json plan_to_json(const WorkerPlan& plan);
WorkerPlan plan_from_json(const nlohmann::json& j);
nlohmann::json interval_to_json(const EngineInterval& interval);
EngineInterval interval_from_json(const nlohmann::json& j);
nlohmann::json result_to_json(const WorkerResult& result);
WorkerResult result_from_json(const nlohmann::json& j);

}  // namespace soapbench
