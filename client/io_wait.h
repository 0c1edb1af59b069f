#pragma once
// Where a socket client waits for its socket. By default a call blocks its
// thread (ppoll, or recv under SO_RCVTIMEO). A thread that runs several
// connections on one event loop (harness/engine/fiber_loop.h) installs an
// IoWaiter, and every wait of the raw and curl clients then goes through it:
// the waiting connection is set aside and another one runs.
#include <chrono>

namespace soapbench {

class IoWaiter {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~IoWaiter() = default;
  // Until `fd` is ready for `events` (POLLIN, POLLOUT; an error or hang-up
  // counts as ready) or `deadline` passes (false). fd < 0: only the deadline.
  virtual bool wait(int fd, short events, Clock::time_point deadline) = 0;
  // `fd` is about to be closed: forget it (epoll drops a closed fd by itself,
  // but its number may come back for another connection).
  virtual void closing(int fd) = 0;
};

// This thread's waiter; nullptr (the default) = block the thread.
IoWaiter* thread_io_waiter();
// Installs `waiter` for this thread until the guard is destroyed.
class ScopedIoWaiter {
 public:
  explicit ScopedIoWaiter(IoWaiter* waiter);
  ~ScopedIoWaiter();
  ScopedIoWaiter(const ScopedIoWaiter&) = delete;
  ScopedIoWaiter& operator=(const ScopedIoWaiter&) = delete;

 private:
  IoWaiter* previous_;
};

// Closes `fd`, telling this thread's waiter first.
void close_socket(int fd);

}  // namespace soapbench
