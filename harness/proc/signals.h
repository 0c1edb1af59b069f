#pragma once
// Signals as values: the run's interrupt (SIGINT, SIGTERM, SIGHUP) as a flag and
// a file descriptor a poll() loop can wait on, and a child's wait status in words.
#include <atomic>
#include <initializer_list>
#include <string>
#include <vector>

namespace soapbench {

// Describes a waitpid status: "exit 0", "exit 3", "killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

// Turns SIGINT, SIGTERM and SIGHUP (or the signals given) into a flag and a
// readable file descriptor (a self-pipe), so that a poll() loop wakes at once.
// One instance at a time; the previous handlers are restored when it is destroyed.
class InterruptWatch {
 public:
  InterruptWatch();
  explicit InterruptWatch(std::initializer_list<int> signals);
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  bool interrupted() const;
  int signal_number() const;  // the first signal caught, 0 if none
  int fd() const;             // readable once a signal has been caught
  // The same as interrupted(), as a flag an engine's loop can watch.
  const std::atomic<bool>& flag() const;
};

}  // namespace soapbench
