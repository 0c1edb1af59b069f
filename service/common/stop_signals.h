#pragma once
// How the servers stop: SIGINT and SIGTERM go to one waiting thread (or to the
// main thread's wait), never into the middle of a call on some other thread.
#include <csignal>
#include <functional>

namespace soapbench::server {

class StopSignals {
 public:
  // Blocks SIGINT and SIGTERM in the calling thread, and so in every thread it
  // starts afterwards: construct it first in main, before any thread. Ignores
  // SIGPIPE, so that a write to a closed peer fails with EPIPE instead.
  StopSignals();
  // Starts a detached thread that waits for SIGINT or SIGTERM, then calls on_stop once.
  void stop_on_signal(std::function<void()> on_stop);
  // Waits up to `seconds` in the calling thread; true when SIGINT or SIGTERM came.
  bool wait(double seconds);

 private:
  sigset_t signals_;
};

}  // namespace soapbench::server
