#pragma once
// A watchdog for a blocking call that has no deadline of its own (the gSOAP
// proxy: its timeouts bound each send and receive, and a server trickling its
// answer restarts them). Armed with the call's deadline; when the deadline
// passes first it shuts the watched socket down, so the blocked call returns
// at once with an error, and says so through fired().
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace soapbench {

class CallWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  CallWatchdog();
  ~CallWatchdog();
  CallWatchdog(const CallWatchdog&) = delete;
  CallWatchdog& operator=(const CallWatchdog&) = delete;

  // Starts watching a call that ends by `deadline`; no socket yet.
  void arm(Clock::time_point deadline);
  // The call's socket, once connected; -1 when it is closed (so that the
  // watchdog never shuts down a descriptor the process has reused).
  void watch(int fd);
  // The call is over. Returns whether the deadline fired during it.
  bool disarm();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool fired_ = false;
  bool quit_ = false;
  int fd_ = -1;
  Clock::time_point deadline_{};
  std::thread thread_;  // last: started once the fields above exist
};

}  // namespace soapbench
