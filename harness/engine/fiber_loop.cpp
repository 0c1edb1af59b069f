#include "engine/fiber_loop.h"

#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SOAPBENCH_FIBER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define SOAPBENCH_FIBER_TSAN 1
#endif

namespace soapbench {

namespace ctx = boost::context;
namespace {
constexpr size_t npos = std::numeric_limits<size_t>::max();
constexpr auto kSpin = std::chrono::microseconds(60);  // as Engine::wait_precisely

// The stack allocator, telling us where the stack is (ASan needs its bounds).
struct RecordedStack {
  ctx::protected_fixedsize_stack inner;
  ctx::stack_context* where;
  ctx::stack_context allocate() { return *where = inner.allocate(); }
  void deallocate(ctx::stack_context& sc) noexcept { inner.deallocate(sc); }
};
}  // namespace

struct FiberLoop::Fiber {
  std::function<void()> body;
  ctx::fiber context;
  ctx::stack_context stack{};
  bool started = false;
  bool done = false;
  bool waiting = false;        // set aside in wait()
  bool ready = false;          // woken by its socket (false: by its deadline)
  short events = 0;            // what it waits for
  int wait_fd = -1;            // the socket it waits on, -1 for a sleep
  int armed_fd = -1;           // the socket registered with epoll for it
  uint32_t armed_events = 0;   // its registered EPOLLIN/EPOLLOUT mask
  Clock::time_point deadline{};
  size_t heap_at = npos;
  void* asan_fake_stack = nullptr;
  void* tsan_fiber = nullptr;
};

struct FiberLoop::Loop {
  ctx::fiber context;  // the loop, while a fiber runs
  const void* asan_bottom = nullptr;
  size_t asan_size = 0;
  void* asan_fake_stack = nullptr;
  void* tsan_fiber = nullptr;
};

FiberLoop::FiberLoop(size_t stack_bytes) : stack_bytes_(stack_bytes), current_(npos), loop_(std::make_unique<Loop>()) {}

FiberLoop::~FiberLoop() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
#ifdef SOAPBENCH_FIBER_TSAN
  for (auto& f : fibers_)
    if (f->tsan_fiber) __tsan_destroy_fiber(f->tsan_fiber);
#endif
}

void FiberLoop::add(std::function<void()> body) {
  auto f = std::make_unique<Fiber>();
  f->body = std::move(body);
  fibers_.push_back(std::move(f));
}

void FiberLoop::resume(size_t i) {
  Fiber& f = *fibers_[i];
  current_ = i;
#ifdef SOAPBENCH_FIBER_TSAN
  __tsan_switch_to_fiber(f.tsan_fiber, 0);
#endif
#ifdef SOAPBENCH_FIBER_ASAN
  __sanitizer_start_switch_fiber(&loop_->asan_fake_stack, static_cast<char*>(f.stack.sp) - f.stack.size,
                                 f.stack.size);
#endif
  f.context = std::move(f.context).resume();
#ifdef SOAPBENCH_FIBER_ASAN
  __sanitizer_finish_switch_fiber(loop_->asan_fake_stack, nullptr, nullptr);
#endif
  current_ = npos;
  if (!f.context) {
    f.done = true;
    --live_;
  }
}

void FiberLoop::yield_to_loop() {
  [[maybe_unused]] Fiber& f = *fibers_[current_];
#ifdef SOAPBENCH_FIBER_TSAN
  __tsan_switch_to_fiber(loop_->tsan_fiber, 0);
#endif
#ifdef SOAPBENCH_FIBER_ASAN
  __sanitizer_start_switch_fiber(&f.asan_fake_stack, loop_->asan_bottom, loop_->asan_size);
#endif
  loop_->context = std::move(loop_->context).resume();
#ifdef SOAPBENCH_FIBER_ASAN
  __sanitizer_finish_switch_fiber(f.asan_fake_stack, &loop_->asan_bottom, &loop_->asan_size);
#endif
}

void FiberLoop::run() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw std::runtime_error(std::string("epoll_create1: ") + std::strerror(errno));
  ScopedIoWaiter installed(this);
#ifdef SOAPBENCH_FIBER_TSAN
  loop_->tsan_fiber = __tsan_get_current_fiber();
#endif
  for (size_t i = 0; i < fibers_.size(); ++i) {
    Fiber& f = *fibers_[i];
#ifdef SOAPBENCH_FIBER_TSAN
    f.tsan_fiber = __tsan_create_fiber(0);
#endif
    f.context = ctx::fiber(std::allocator_arg, RecordedStack{ctx::protected_fixedsize_stack(stack_bytes_), &f.stack},
                           [this, &f](ctx::fiber&& loop) {
#ifdef SOAPBENCH_FIBER_ASAN
                             __sanitizer_finish_switch_fiber(nullptr, &loop_->asan_bottom, &loop_->asan_size);
#endif
                             loop_->context = std::move(loop);
                             try {
                               f.body();
                             } catch (...) {
                               if (!failure_) failure_ = std::current_exception();
                             }
#ifdef SOAPBENCH_FIBER_TSAN
                             __tsan_switch_to_fiber(loop_->tsan_fiber, 0);
#endif
#ifdef SOAPBENCH_FIBER_ASAN
                             __sanitizer_start_switch_fiber(nullptr, loop_->asan_bottom, loop_->asan_size);
#endif
                             return std::move(loop_->context);
                           });
    ++live_;
  }
  for (size_t i = 0; i < fibers_.size(); ++i) resume(i);

  std::vector<epoll_event> events(64);
  std::vector<size_t> runnable;
  while (live_ > 0) {
    timespec timeout{};
    timespec* bound = nullptr;  // no waiting fiber without a deadline exists, but be safe
    if (!heap_.empty()) {
      // Within kSpin of the next deadline the loop polls without sleeping: a
      // sleep wakes 50-100 us late, which a paced send would be charged for.
      const auto left = fibers_[heap_.front()]->deadline - Clock::now();
      int64_t ns = std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::nanoseconds>(left).count());
      if (left <= kSpin) ns = 0;
      else ns -= std::chrono::duration_cast<std::chrono::nanoseconds>(kSpin).count();
      timeout = {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      bound = &timeout;
    }
    int n = epoll_pwait2(epoll_fd_, events.data(), static_cast<int>(events.size()), bound, nullptr);
    if (n < 0 && errno == ENOSYS) {  // a kernel before 5.11: milliseconds, rounded up
      const int ms = bound ? static_cast<int>(timeout.tv_sec * 1000 + (timeout.tv_nsec + 999999) / 1000000) : -1;
      n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), ms);
    }
    if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("epoll_pwait2: ") + std::strerror(errno));
    runnable.clear();
    for (int k = 0; k < n; ++k) {
      const uint64_t data = events[static_cast<size_t>(k)].data.u64;
      const size_t i = data & 0xffffffffu;
      Fiber& f = *fibers_[i];
      // A socket armed for an earlier wait that ended at its deadline may still
      // fire: it wakes only a fiber that waits on that very socket now, and is
      // dropped from epoll until its fiber waits on it again (level-triggered, it
      // would fire on every turn: a hang-up during a think time, say).
      const int fd = static_cast<int>(data >> 32);
      if (!f.waiting || f.wait_fd < 0 || f.wait_fd != fd) {
        if (f.armed_fd == fd) {
          epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
          f.armed_fd = -1;
        }
        continue;
      }
      f.waiting = false;
      f.ready = true;
      heap_remove(i);
      runnable.push_back(i);
    }
    const auto now = Clock::now();
    while (!heap_.empty() && fibers_[heap_.front()]->deadline <= now) {
      const size_t i = heap_.front();
      heap_remove(i);
      fibers_[i]->waiting = false;
      fibers_[i]->ready = false;
      runnable.push_back(i);
    }
    for (const size_t i : runnable) resume(i);
  }
  if (failure_) std::rethrow_exception(failure_);
}

void FiberLoop::arm(Fiber& f, int fd, short events) {
  const uint32_t mask = ((events & POLLIN) ? EPOLLIN : 0u) | ((events & POLLOUT) ? EPOLLOUT : 0u);
  // Still registered for this very wait (a connection waiting for each response
  // in turn): no system call. That saves an epoll_ctl per call, a tenth of what
  // a call costs the client.
  if (f.armed_fd == fd && f.armed_events == mask) return;
  epoll_event ev{};
  ev.events = mask;
  ev.data.u64 = (static_cast<uint64_t>(fd) << 32) | current_;  // the socket too: see run()
  // MOD re-arms a socket this fiber registered before; ADD a new one. Either
  // may find the other case (a number reused after close): try the other.
  const bool known = f.armed_fd == fd;
  if (epoll_ctl(epoll_fd_, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) != 0 &&
      epoll_ctl(epoll_fd_, known ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev) != 0)
    throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
  f.armed_fd = fd;
  f.armed_events = mask;
}

bool FiberLoop::wait(int fd, short events, Clock::time_point deadline) {
  if (current_ == npos) throw std::logic_error("FiberLoop::wait outside a fiber");
  if (Clock::now() >= deadline) return false;
  Fiber& f = *fibers_[current_];
  if (fd >= 0) arm(f, fd, events);
  f.wait_fd = fd;
  f.events = events;
  f.deadline = deadline;
  f.waiting = true;
  f.ready = false;
  heap_push(current_);
  yield_to_loop();
  return f.ready;
}

void FiberLoop::closing(int fd) {
  if (current_ == npos) return;
  Fiber& f = *fibers_[current_];
  if (f.armed_fd == fd) f.armed_fd = -1;  // close() drops the registration itself
}

bool FiberLoop::earlier(size_t a, size_t b) const {
  return fibers_[heap_[a]]->deadline < fibers_[heap_[b]]->deadline;
}

void FiberLoop::heap_swap(size_t a, size_t b) {
  std::swap(heap_[a], heap_[b]);
  fibers_[heap_[a]]->heap_at = a;
  fibers_[heap_[b]]->heap_at = b;
}

void FiberLoop::heap_sift(size_t at) {
  while (at > 0 && earlier(at, (at - 1) / 2)) {
    heap_swap(at, (at - 1) / 2);
    at = (at - 1) / 2;
  }
  for (;;) {
    const size_t l = 2 * at + 1, r = l + 1;
    size_t best = at;
    if (l < heap_.size() && earlier(l, best)) best = l;
    if (r < heap_.size() && earlier(r, best)) best = r;
    if (best == at) return;
    heap_swap(at, best);
    at = best;
  }
}

void FiberLoop::heap_push(size_t i) {
  fibers_[i]->heap_at = heap_.size();
  heap_.push_back(i);
  heap_sift(heap_.size() - 1);
}

void FiberLoop::heap_remove(size_t i) {
  const size_t at = fibers_[i]->heap_at;
  if (at == npos) return;
  heap_swap(at, heap_.size() - 1);
  heap_.pop_back();
  fibers_[i]->heap_at = npos;
  if (at < heap_.size()) heap_sift(at);
}

}  // namespace soapbench
