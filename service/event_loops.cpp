#include "event_loops.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "echo_service.h"

namespace soapbench::server {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

struct Loop;

// One client connection. Its loop owns it while it is parked; in pool mode a
// worker owns it while it serves a request (busy), then hands it back.
struct Conn {
  Conn(int fd, const Config& c, Stats& s, const TlsContext* tls, Loop& l)
      : conn(fd, c.max_request_bytes, c.max_buffered_bytes, s, tls), loop(l) {}
  Connection conn;
  Loop& loop;
  bool busy = false;
  bool partial = false;        // part of a request has arrived; deadline is the receive timeout
  bool writing = false;        // a response waits for the socket; deadline is the send timeout
  Clock::time_point deadline;  // parked: when the idle or receive timeout expires
  bool open = true;            // loops: served in this batch; whether it stays open once its answers are sent
};

// One epoll instance and the connections registered with it.
struct Loop {
  Loop() = default;
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  ~Loop() { ::close(epoll_fd); }

  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  std::unique_ptr<EchoService> service;  // serves this loop's connections when loops serve inline
  std::mutex mutex;  // guards conns: the accepting loop adds, the owner and the workers remove
  std::unordered_map<Conn*, std::unique_ptr<Conn>> conns;
  std::vector<Conn*> served;  // inline: served in this epoll batch, answers not yet sent
  std::chrono::steady_clock::time_point batch_started;  // when the first of them was served
};

// How long a served answer may wait for the rest of its epoll batch
// (Connection::hold), and the request size that is not served behind held answers.
constexpr std::chrono::microseconds kMaxHold{500};
constexpr size_t kLargeRequest = 16 * 1024;

class EventLoops {
 public:
  EventLoops(const Config& config, Stats& stats, int listen_fd, int stop_fd, const TlsContext* tls)
      : config_(config), stats_(stats), tls_(tls), listen_fd_(listen_fd), stop_fd_(stop_fd),
        inline_(config.mode != Mode::pool) {
    const unsigned n = config.mode == Mode::loops ? config.threads : 1;
    for (unsigned i = 0; i < n; ++i) {
      loops_.push_back(std::make_unique<Loop>());
      if (inline_) loops_.back()->service = std::make_unique<EchoService>(config, stats);
    }
  }

  void run() {
    // The first loop accepts and deals connections out in turn; every loop watches the stop.
    watch(*loops_[0], listen_fd_, nullptr);
    for (auto& loop : loops_) watch(*loop, stop_fd_, &stop_fd_);
    if (config_.mode == Mode::pool)
      for (unsigned i = 0; i < config_.threads; ++i) workers_.emplace_back([this] { worker(); });
    std::vector<std::thread> others;
    for (size_t i = 1; i < loops_.size(); ++i) others.emplace_back([this, i] { run_loop(*loops_[i]); });
    run_loop(*loops_[0]);
    for (auto& t : others) t.join();

    stopping_ = true;
    queue_cv_.notify_all();
    for (auto& loop : loops_) {  // past the grace period: cut what is left so that blocked workers return
      std::lock_guard lock(loop->mutex);
      for (auto& [c, owner] : loop->conns) shutdown(c->conn.fd(), SHUT_RDWR);
    }
    for (auto& w : workers_) w.join();
    for (auto& loop : loops_) {
      std::lock_guard lock(loop->mutex);
      while (!loop->conns.empty()) destroy(loop->conns.begin()->first);
    }
  }

 private:
  const Config& config_;
  Stats& stats_;
  const TlsContext* tls_;  // nullptr: plain HTTP
  const int listen_fd_;
  int stop_fd_;
  // Whether loops serve requests themselves. They then own their connections
  // for good, and epoll can stay level-triggered without re-arming per request.
  const bool inline_;
  std::vector<std::unique_ptr<Loop>> loops_;
  size_t next_loop_ = 0;  // the loop that gets the next connection; only the first loop accepts
  std::atomic<bool> draining_{false};  // stop seen: accept nothing new, finish what arrived
  std::atomic<bool> stopping_{false};  // the grace period is over: workers exit

  // Pool mode.
  std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<Conn*> ready_;
  std::vector<std::thread> workers_;

  static void watch(Loop& loop, int fd, void* key) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = key;
    epoll_ctl(loop.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  }

  // Pool mode registers connections one-shot: a worker must never find the loop
  // reading the socket it is serving.
  uint32_t conn_events() const { return EPOLLIN | EPOLLRDHUP | (inline_ ? 0u : EPOLLONESHOT); }

  // Watches c for `events`: conn_events() for requests, or EPOLLOUT while a
  // response waits to be sent. Caller holds c->loop.mutex.
  void rearm(Conn* c, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = c;
    epoll_ctl(c->loop.epoll_fd, EPOLL_CTL_MOD, c->conn.fd(), &ev);
  }

  void destroy(Conn* c) {  // caller holds c->loop.mutex
    epoll_ctl(c->loop.epoll_fd, EPOLL_CTL_DEL, c->conn.fd(), nullptr);
    stats_.open.fetch_sub(1, std::memory_order_relaxed);
    c->loop.conns.erase(c);
  }

  bool over_connection_limit() {
    if (static_cast<uint64_t>(stats_.open.load()) < config_.max_connections) return false;
    stats_.add(stats_.refused);
    return true;
  }

  void accept_all() {
    for (;;) {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a transient error the next event retries
      stats_.add(stats_.accepted);
      if (over_connection_limit()) { ::close(fd); continue; }
      Loop& owner = *loops_[next_loop_];
      next_loop_ = (next_loop_ + 1) % loops_.size();
      auto conn = std::make_unique<Conn>(fd, config_, stats_, tls_, owner);
      Conn* c = conn.get();
      c->deadline = Clock::now() + seconds(config_.idle_timeout_s);
      stats_.open.fetch_add(1, std::memory_order_relaxed);
      std::lock_guard lock(owner.mutex);
      owner.conns.emplace(c, std::move(conn));
      epoll_event ev{};
      ev.events = conn_events();
      ev.data.ptr = c;
      epoll_ctl(owner.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
  }

  // Serves the requests buffered on c, then parks it again, waits for its output
  // to drain, or closes it. Runs on its loop's thread, or on a worker in pool mode.
  void serve(Conn* c, EchoService& service) {
    const bool open = service.serve_buffered(c->conn, draining_);
    if (inline_) {  // its answers leave with the rest of the batch (end_batch)
      c->open = open;
      if (c->loop.served.empty()) c->loop.batch_started = Clock::now();
      c->loop.served.push_back(c);
      return;
    }
    after_serving(c, open);
  }

  // The answers of one epoll batch leave together, after the last is made (Connection::hold).
  void end_batch(Loop& loop) {
    for (Conn* c : loop.served) {
      c->conn.release();
      after_serving(c, c->open);
    }
    loop.served.clear();
  }

  void after_serving(Conn* c, bool open) {
    std::lock_guard lock(c->loop.mutex);
    if (c->conn.has_unsent_output() && !c->conn.failed()) {  // the client reads slower than we answer
      await_output(c);
      return;
    }
    if (!open || c->conn.failed() || draining_) { destroy(c); return; }
    park(c);
  }

  // Watches c for its socket to take the output that waits, with the send
  // timeout; the loop owns it meanwhile. Caller holds c->loop.mutex.
  void await_output(Conn* c) {
    c->writing = true;
    c->busy = false;  // the loop owns it again: its sweep applies the send timeout
    c->deadline = Clock::now() + seconds(config_.send_timeout_s);
    rearm(c, EPOLLOUT);  // not EPOLLRDHUP: a half-closed client would wake the loop until then
  }

  // Waits for c's next request (or the rest of one already begun). Caller holds c->loop.mutex.
  void park(Conn* c) {
    // One-shot registrations (pool) and output watches need re-arming; a loop's
    // level-triggered watch for requests is still in place.
    if (!inline_ || c->writing) rearm(c, conn_events());
    c->busy = false;
    c->writing = false;
    c->partial = c->conn.request_begun();  // a pipelined request (or a TLS handshake) still arriving
    c->deadline = Clock::now() + seconds(c->partial ? config_.recv_timeout_s : config_.idle_timeout_s);
  }

  // c's socket takes output again: sends what waits; when all is sent, reads
  // requests again (serving any already buffered) or closes as serve_one decided.
  void on_writable(Conn* c) {
    const bool ok = c->conn.flush();
    if (ok && c->conn.has_unsent_output()) return;  // more when the socket is writable again
    if (!ok || c->conn.close_after_output || draining_) {
      std::lock_guard lock(c->loop.mutex);
      destroy(c);
      return;
    }
    if (c->conn.has_buffered_input()) {  // pipelined requests waited for the output
      // A worker serves it: the loop must not watch the socket meanwhile (park re-arms it).
      if (!inline_) { std::lock_guard lock(c->loop.mutex); rearm(c, 0); }
      dispatch(c);
      return;
    }
    std::lock_guard lock(c->loop.mutex);
    park(c);
  }

  void on_readable(Conn* c) {
    switch (c->conn.read()) {
      case Arrival::closed: {
        std::lock_guard lock(c->loop.mutex);
        destroy(c);
        return;
      }
      case Arrival::partial:
        if (!c->partial) {
          c->partial = true;
          c->deadline = Clock::now() + seconds(config_.recv_timeout_s);
        }
        [[fallthrough]];
      case Arrival::blank: {
        std::lock_guard lock(c->loop.mutex);
        // TLS handshake messages the socket did not take at once (read() sent what it took).
        if (c->conn.has_unsent_output() && !c->conn.failed()) await_output(c);
        else if (!inline_) rearm(c, conn_events());
        return;
      }
      case Arrival::complete:
        break;
    }
    dispatch(c);
  }

  // Serves c here, or hands it to a worker in pool mode.
  void dispatch(Conn* c) {
    if (inline_) {
      // Answers held so far leave first when this request is large or they have
      // waited long enough: a big parse must not hold back the small answers before it.
      Loop& loop = c->loop;
      if (!loop.served.empty() &&
          (c->conn.input().size() > kLargeRequest || Clock::now() - loop.batch_started > kMaxHold))
        end_batch(loop);
      c->conn.hold();
      serve(c, *loop.service);
      return;
    }
    { std::lock_guard lock(c->loop.mutex); c->busy = true; }
    { std::lock_guard lock(queue_mutex_); ready_.push_back(c); }
    queue_cv_.notify_one();
  }

  // Closes the loop's parked connections whose idle or receive timeout has passed,
  // and with idle_too every parked connection that has no part of a request yet.
  // A partial request past its receive timeout is answered 408 with a fault, so
  // that its client learns why (as in per-connection mode).
  void sweep(Loop& loop, bool idle_too) {
    const auto now = Clock::now();
    std::vector<Conn*> timed_out;
    {
      std::lock_guard lock(loop.mutex);
      std::vector<Conn*> expired;
      for (auto& [c, owner] : loop.conns) {
        if (c->busy) continue;
        if (c->writing) {  // a client that stopped reading: dropped after the send timeout
          if (now >= c->deadline) expired.push_back(c);
          continue;
        }
        if (c->partial && now >= c->deadline) {
          epoll_event none{};  // disarmed: nothing may wake a loop for it while it is served
          epoll_ctl(loop.epoll_fd, EPOLL_CTL_MOD, c->conn.fd(), &none);
          timed_out.push_back(c);
        } else if (now >= c->deadline || (idle_too && !c->partial)) {
          expired.push_back(c);
        }
      }
      for (Conn* c : expired) destroy(c);
    }
    for (Conn* c : timed_out) {
      c->conn.refusal = HttpError{408, "Request timed out: part of it arrived, then nothing within the receive timeout"};
      dispatch(c);  // the fault closes it
    }
    end_batch(loop);
  }

  // Waits for the loop's events and handles them until `until` says to stop.
  template <class Until>
  void poll_events(Loop& loop, Until until) {
    std::vector<epoll_event> events(256);
    auto next_sweep = Clock::now();
    while (!until()) {
      const int n = epoll_wait(loop.epoll_fd, events.data(), static_cast<int>(events.size()), 100);
      for (int i = 0; i < n; ++i) {
        void* p = events[static_cast<size_t>(i)].data.ptr;
        if (p == nullptr) { if (!draining_) accept_all(); }
        else if (p == &stop_fd_) draining_ = true;
        else {
          Conn* c = static_cast<Conn*>(p);
          // The lock orders this loop after the worker (or accepting loop) that last
          // touched c and re-armed it: epoll hands c over, but is no fence to the compiler or TSan.
          bool writing;
          { std::lock_guard lock(c->loop.mutex); writing = c->writing; }
          if (writing) on_writable(c);
          else on_readable(c);
        }
      }
      end_batch(loop);
      if (Clock::now() >= next_sweep) {
        sweep(loop, draining_);
        next_sweep = Clock::now() + std::chrono::milliseconds(100);
      }
    }
  }

  void run_loop(Loop& loop) {
    poll_events(loop, [&] { return draining_.load(); });
    // Stop accepting and drop idle connections; requests that have started to
    // arrive, or are being served, get the grace period to finish.
    if (&loop == loops_[0].get()) {
      epoll_ctl(loop.epoll_fd, EPOLL_CTL_DEL, listen_fd_, nullptr);
      shutdown(listen_fd_, SHUT_RDWR);  // new connections are refused from here on
    }
    epoll_ctl(loop.epoll_fd, EPOLL_CTL_DEL, stop_fd_, nullptr);
    sweep(loop, true);
    const auto grace_end = Clock::now() + seconds(config_.grace_s);
    poll_events(loop, [&] {
      std::lock_guard lock(loop.mutex);
      return loop.conns.empty() || Clock::now() >= grace_end;
    });
  }

  void worker() {
    EchoService service(config_, stats_);
    for (;;) {
      Conn* c = nullptr;
      {
        std::unique_lock lock(queue_mutex_);
        queue_cv_.wait(lock, [&] { return !ready_.empty() || stopping_; });
        if (ready_.empty()) return;  // stopping, and nothing left that had arrived
        c = ready_.front();
        ready_.pop_front();
      }
      serve(c, service);
    }
  }
};

}  // namespace

void run_event_loops(const Config& config, Stats& stats, int listen_fd, int stop_fd, const TlsContext* tls) {
  EventLoops(config, stats, listen_fd, stop_fd, tls).run();
}

}  // namespace soapbench::server
