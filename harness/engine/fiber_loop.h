#pragma once
// Several bodies of code on one thread, each on its own fiber (Boost.Context),
// driven by one epoll loop: the way one client process keeps many connections
// (--connections-per-client) without a thread or a process per connection.
//
// Decisions:
//  - Fibers, not callbacks: each connection runs the same Engine and the same
//    raw client as a one-connection worker does, so there is one load loop and
//    one HTTP client. Their waits go through IoWaiter (client/io_wait.h), which
//    this loop implements: a waiting fiber is set aside until its socket is
//    ready or its deadline passes.
//  - Level-triggered registrations that stay from one wait to the next on the
//    same socket (no epoll_ctl per call): a client that leaves bytes unread
//    (curl reads one buffer per turn) is woken again; a socket that fires while
//    its fiber waits on something else is dropped from epoll until the next
//    wait on it, so a fiber is never woken for a socket it no longer waits on.
//  - Deadlines in an indexed heap, and epoll_pwait2's nanosecond timeout to
//    60 us before the next one, then polling without a sleep: a paced send is
//    neither rounded to a millisecond nor charged for a late wake-up.
//  - Under ASan and TSan every switch is announced to the sanitizer, which
//    otherwise takes a fiber's stack for a corrupt one.
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "io_wait.h"

namespace soapbench {

class FiberLoop final : public IoWaiter {
 public:
  explicit FiberLoop(size_t stack_bytes = 256 * 1024);
  ~FiberLoop() override;
  FiberLoop(const FiberLoop&) = delete;
  FiberLoop& operator=(const FiberLoop&) = delete;

  // A fiber that runs `body` once run() starts.
  void add(std::function<void()> body);
  // Runs every fiber to its end, this thread's IoWaiter meanwhile. An exception
  // that left a body is rethrown here, after the other fibers have ended.
  void run();

  bool wait(int fd, short events, Clock::time_point deadline) override;
  void closing(int fd) override;

 private:
  struct Fiber;
  void resume(size_t i);
  void yield_to_loop();
  void arm(Fiber& f, int fd, short events);
  // The heap of waiting fibers, earliest deadline first.
  void heap_push(size_t i);
  void heap_remove(size_t i);
  void heap_sift(size_t at);
  bool earlier(size_t a, size_t b) const;
  void heap_swap(size_t a, size_t b);

  size_t stack_bytes_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<size_t> heap_;
  size_t current_;  // the running fiber; npos in the loop itself
  size_t live_ = 0;
  int epoll_fd_ = -1;
  std::exception_ptr failure_;
  struct Loop;  // the loop's own context (Boost.Context) and the sanitizers' state
  std::unique_ptr<Loop> loop_;
};

}  // namespace soapbench
