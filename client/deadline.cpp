#include "deadline.h"

#include "io_wait.h"

#include <poll.h>

#include <cerrno>
#include <cstdio>
#include <ctime>

namespace soapbench {

DeadlineClock::time_point deadline_after(double timeout_s) {
  return DeadlineClock::now() +
         std::chrono::duration_cast<DeadlineClock::duration>(std::chrono::duration<double>(timeout_s));
}

bool wait_ready(int fd, short events, DeadlineClock::time_point deadline) {
  if (IoWaiter* waiter = thread_io_waiter()) return waiter->wait(fd, events, deadline);
  for (;;) {
    const auto left = deadline - DeadlineClock::now();
    if (left <= DeadlineClock::duration::zero()) return false;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    const timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    pollfd p{fd, events, 0};
    const int rc = ppoll(&p, 1, &ts, nullptr);
    if (rc > 0) return true;
    if (rc < 0 && errno != EINTR) return true;  // the next send/recv reports it
    // 0: time is up (checked above, against the clock); EINTR: wait out the rest
  }
}

int connect_until(int fd, const sockaddr* address, socklen_t length, DeadlineClock::time_point deadline) {
  if (connect(fd, address, length) == 0) return 0;
  if (errno != EINPROGRESS && errno != EINTR) return errno;
  if (!wait_ready(fd, POLLOUT, deadline)) return ETIMEDOUT;
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

std::string milliseconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds * 1e3);
  return text;
}

}  // namespace soapbench
