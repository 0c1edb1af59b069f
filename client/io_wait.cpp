#include "io_wait.h"

#include <unistd.h>

namespace soapbench {

namespace {
thread_local IoWaiter* current_waiter = nullptr;
}

IoWaiter* thread_io_waiter() { return current_waiter; }

ScopedIoWaiter::ScopedIoWaiter(IoWaiter* waiter) : previous_(current_waiter) { current_waiter = waiter; }
ScopedIoWaiter::~ScopedIoWaiter() { current_waiter = previous_; }

void close_socket(int fd) {
  if (fd < 0) return;
  if (current_waiter) current_waiter->closing(fd);
  ::close(fd);
}

}  // namespace soapbench
