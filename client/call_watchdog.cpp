#include "call_watchdog.h"

#include <sys/socket.h>

namespace soapbench {

CallWatchdog::CallWatchdog() : thread_([this] { loop(); }) {}

CallWatchdog::~CallWatchdog() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  changed_.notify_one();
  thread_.join();
}

void CallWatchdog::arm(Clock::time_point deadline) {
  {
    std::lock_guard lock(mutex_);
    armed_ = true;
    fired_ = false;
    deadline_ = deadline;
  }
  changed_.notify_one();
}

void CallWatchdog::watch(int fd) {
  std::lock_guard lock(mutex_);
  fd_ = fd;
  // Connected after the deadline: nothing will wake the thread for this socket.
  if (armed_ && fd >= 0 && Clock::now() >= deadline_) {
    shutdown(fd, SHUT_RDWR);
    fired_ = true;
  }
}

bool CallWatchdog::disarm() {
  std::lock_guard lock(mutex_);
  armed_ = false;
  return fired_;
}

void CallWatchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!quit_) {
    if (!armed_ || fired_) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !fired_ &&
        Clock::now() >= deadline_) {
      fired_ = true;
      // SHUT_RDWR wakes a blocked recv()/send() on another thread; the
      // descriptor stays open, so the owner closes it as usual.
      if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
    }
  }
}

}  // namespace soapbench
