#include "server.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "echo_service.h"
#include "listener.h"

namespace soapbench::server {
namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

int poll_timeout_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

// One client connection in the event-loop modes. The loop thread owns parked
// connections; a worker owns a busy one until it hands it back.
struct Conn {
  Conn(const Config& c, Stats& s) : service(c, s) {}
  EchoService service;
  bool busy = false;
  bool partial = false;             // part of a request has arrived; deadline is the receive timeout
  Clock::time_point deadline;       // parked: when the idle or receive timeout expires
};

}  // namespace

struct Server::Impl {
  Impl(Config c, Stats& s) : config(std::move(c)), stats(s) {}

  Config config;
  Stats& stats;
  int listen_fd = -1;
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);  // readable once stop() was called
  std::atomic<bool> draining{false};  // stop() was called: accept nothing new, finish what arrived
  std::atomic<bool> stopping{false};  // the grace period is over (or never needed): workers exit

  // Event-loop modes (iterative, pool).
  int epoll_fd = -1;
  std::mutex conns_mutex;
  std::unordered_map<Conn*, std::unique_ptr<Conn>> conns;
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::deque<Conn*> ready;
  std::vector<std::thread> workers;

  // Per-connection mode: the sockets of live connection threads, for shutdown.
  std::mutex threads_mutex;
  std::condition_variable threads_cv;
  std::unordered_set<int> live;  // sockets of live connection threads
  size_t live_threads = 0;

  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    if (epoll_fd >= 0) ::close(epoll_fd);
    if (stop_fd >= 0) ::close(stop_fd);
  }

  bool over_connection_limit() {
    if (static_cast<uint64_t>(stats.open.load()) < config.max_connections) return false;
    stats.add(stats.refused);
    return true;
  }

  // ---- event-loop modes ----------------------------------------------------

  void arm(Conn* c) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.ptr = c;
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->service.fd(), &ev);
  }

  void destroy(Conn* c) {  // caller holds conns_mutex
    if (c->service.fd() >= 0) epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->service.fd(), nullptr);
    c->service.close();
    stats.open.fetch_sub(1, std::memory_order_relaxed);
    conns.erase(c);
  }

  void accept_all() {
    for (;;) {
      const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a transient error the next event retries
      stats.add(stats.accepted);
      if (over_connection_limit()) { ::close(fd); continue; }
      auto conn = std::make_unique<Conn>(config, stats);
      Conn* c = conn.get();
      c->service.attach(fd);
      c->deadline = Clock::now() + seconds(config.idle_timeout_s);
      stats.open.fetch_add(1, std::memory_order_relaxed);
      std::lock_guard lock(conns_mutex);
      conns.emplace(c, std::move(conn));
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
      ev.data.ptr = c;
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
  }

  // Serves requests on c while they are already buffered, then parks it again
  // or closes it. Runs on a worker (pool) or on the loop thread (iterative).
  void serve(Conn* c) {
    bool open = true;
    do open = c->service.serve_one();
    while (open && !draining && c->service.has_buffered_input());
    std::lock_guard lock(conns_mutex);
    if (!open || draining) { destroy(c); return; }
    c->busy = false;
    c->partial = false;
    c->deadline = Clock::now() + seconds(config.idle_timeout_s);
    arm(c);
  }

  void on_readable(Conn* c) {
    switch (read_request(c->service.fd(), c->service.pending_input(), config.max_request_bytes)) {
      case Arrival::closed: {
        std::lock_guard lock(conns_mutex);
        destroy(c);
        return;
      }
      case Arrival::partial:
        if (!c->partial) {
          c->partial = true;
          c->deadline = Clock::now() + seconds(config.recv_timeout_s);
        }
        { std::lock_guard lock(conns_mutex); arm(c); }
        return;
      case Arrival::complete:
        break;
    }
    dispatch(c);
  }

  // Hands a connection with a request to serve to a worker, or serves it here.
  void dispatch(Conn* c) {
    { std::lock_guard lock(conns_mutex); c->busy = true; }
    if (config.mode == Mode::iterative) { serve(c); return; }
    { std::lock_guard lock(queue_mutex); ready.push_back(c); }
    queue_cv.notify_one();
  }

  // Closes parked connections whose idle or receive timeout has passed, and with
  // idle_too every parked connection that has no part of a request yet.
  // A partial request past its receive timeout is served with what arrived, so
  // that its client gets the same timeout fault as in per-connection mode.
  void sweep(bool idle_too) {
    const auto now = Clock::now();
    std::vector<Conn*> timed_out;
    {
      std::lock_guard lock(conns_mutex);
      std::vector<Conn*> expired;
      for (auto& [c, owner] : conns) {
        if (c->busy) continue;
        if (c->partial && now >= c->deadline) {
          epoll_event none{};  // disarmed: nothing may wake the loop for it while it is served
          epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->service.fd(), &none);
          timed_out.push_back(c);
        }
        else if (now >= c->deadline || (idle_too && !c->partial)) expired.push_back(c);
      }
      for (Conn* c : expired) destroy(c);
    }
    for (Conn* c : timed_out) {
      c->service.end_input_after_pending();
      dispatch(c);
    }
  }

  // Waits for events and dispatches them until `until` says to stop.
  template <class Until>
  void poll_events(Until until) {
    std::vector<epoll_event> events(256);
    auto next_sweep = Clock::now();
    while (!until()) {
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), 100);
      for (int i = 0; i < n; ++i) {
        void* p = events[static_cast<size_t>(i)].data.ptr;
        if (p == nullptr) { if (!draining) accept_all(); }
        else if (p == &stop_fd) draining = true;
        else on_readable(static_cast<Conn*>(p));
      }
      if (Clock::now() >= next_sweep) {
        sweep(draining);
        next_sweep = Clock::now() + std::chrono::milliseconds(100);
      }
    }
  }

  void worker() {
    for (;;) {
      Conn* c = nullptr;
      {
        std::unique_lock lock(queue_mutex);
        queue_cv.wait(lock, [&] { return !ready.empty() || stopping; });
        if (ready.empty()) return;  // stopping, and nothing left that had arrived
        c = ready.front();
        ready.pop_front();
      }
      serve(c);
    }
  }

  void run_event_loop() {
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev);
    ev.data.ptr = &stop_fd;
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, stop_fd, &ev);
    if (config.mode == Mode::pool)
      for (unsigned i = 0; i < config.threads; ++i) workers.emplace_back([this] { worker(); });

    poll_events([&] { return draining.load(); });

    // Stop accepting and drop idle connections; requests that have started to
    // arrive, or are being served, get the grace period to finish.
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, stop_fd, nullptr);
    ::close(listen_fd);
    listen_fd = -1;
    sweep(true);
    const auto grace_end = Clock::now() + seconds(config.grace_s);
    poll_events([&] {
      std::lock_guard lock(conns_mutex);
      return conns.empty() || Clock::now() >= grace_end;
    });
    stopping = true;
    queue_cv.notify_all();
    {  // Past the grace period: cut what is left so that blocked workers return.
      std::lock_guard lock(conns_mutex);
      for (auto& [c, owner] : conns) shutdown(c->service.fd(), SHUT_RDWR);
    }
    for (auto& w : workers) w.join();
    std::lock_guard lock(conns_mutex);
    while (!conns.empty()) destroy(conns.begin()->first);
  }

  // ---- per-connection mode -------------------------------------------------

  // Waits until the connection has bytes to read, the idle timeout passes, or
  // the server stops. Returns true when there is something to serve.
  bool wait_for_request(int fd) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    const auto deadline = Clock::now() + seconds(config.idle_timeout_s);
    for (;;) {
      const int n = poll(fds, 2, poll_timeout_ms(deadline));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      // Bytes that arrived before or with the stop are a request in flight: serve it.
      return fds[0].revents != 0;
    }
  }

  void connection_thread(int fd) {
    {
      EchoService service(config, stats);
      service.attach(fd);
      for (;;) {
        if (!service.has_buffered_input() && !wait_for_request(fd)) break;
        if (!service.serve_one() || stopping) break;
      }
      std::lock_guard lock(threads_mutex);
      live.erase(fd);
      service.close();
    }
    stats.open.fetch_sub(1, std::memory_order_relaxed);
    std::lock_guard lock(threads_mutex);
    --live_threads;
    threads_cv.notify_all();
  }

  void run_per_connection() {
    pollfd fds[2] = {{listen_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
    while (!stopping) {
      if (poll(fds, 2, -1) < 0) continue;
      if (fds[1].revents) break;
      const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      stats.add(stats.accepted);
      if (over_connection_limit()) { ::close(fd); continue; }
      stats.open.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard lock(threads_mutex);
        ++live_threads;
        live.insert(fd);
      }
      std::thread([this, fd] { connection_thread(fd); }).detach();
    }
    stopping = true;
    ::close(listen_fd);
    listen_fd = -1;
    std::unique_lock lock(threads_mutex);
    if (!threads_cv.wait_for(lock, seconds(config.grace_s), [&] { return live_threads == 0; })) {
      for (int fd : live) shutdown(fd, SHUT_RDWR);
      threads_cv.wait_for(lock, std::chrono::seconds(2), [&] { return live_threads == 0; });
    }
  }
};

Server::Server(Config config, Stats& stats) : impl_(std::make_unique<Impl>(std::move(config), stats)) {}
Server::~Server() = default;

uint16_t Server::listen() {
  impl_->listen_fd = open_listener(impl_->config.bind, impl_->config.port);
  return local_port(impl_->listen_fd);
}

void Server::run() {
  if (impl_->config.mode == Mode::per_connection) impl_->run_per_connection();
  else impl_->run_event_loop();
}

void Server::stop() {
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(impl_->stop_fd, &one, sizeof one);
}

}  // namespace soapbench::server
