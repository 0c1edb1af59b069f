// The echo loops. Non-threaded: one thread, one level-triggered epoll loop that
// accepts, reads and echoes. Threaded: the same loop only accepts and
// dispatches; a connection with bytes to read is handed (EPOLLONESHOT) to one
// of `threads` workers, which serves it and re-arms it: xSocket's
// dispatcher-and-pool design, handoff cost included.
#include "echo_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include "frame.h"
#include "listen_socket.h"  // service/common/: open_listener, local_port
#include "stats_endpoint.h"

namespace soapbench::tcp {
namespace {

constexpr size_t kBufferBytes = 64 * 1024;  // per connection: the most held between read and echo
// Reads per turn before a busy connection yields to the others (a 2 MB message
// would otherwise keep a single-threaded loop to itself).
constexpr int kReadsPerTurn = 4;

struct Conn {
  Conn(int socket, uint64_t max_frame) : fd(socket), scanner(max_frame), buf(kBufferBytes) {}
  int fd;
  FrameScanner scanner;
  std::vector<uint8_t> buf;
  size_t out_begin = 0, out_end = 0;  // buf[out_begin, out_end): read, not yet echoed
  uint32_t armed = 0;                 // events registered (non-threaded mode)
};

enum class Next { read, write, close };

}  // namespace

struct EchoServer::Impl {
  Impl(EchoConfig c, EchoStats& s) : config(std::move(c)), stats(s) {}
  ~Impl() {
    for (Conn* c : conns) {
      ::close(c->fd);
      delete c;
    }
    for (int fd : {listen_fd, stats_fd, epoll_fd, stop_fd})
      if (fd >= 0) ::close(fd);
  }

  EchoConfig config;
  EchoStats& stats;
  int listen_fd = -1, stats_fd = -1, epoll_fd = -1;
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  std::atomic<bool> stopping{false};

  std::mutex conns_mutex;  // threaded mode: accept (loop) and close (workers) race
  std::unordered_set<Conn*> conns;
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  std::deque<Conn*> ready;

  // Reads and echoes until the socket would block, the turn is over or the
  // connection ends. What could not be written waits in buf, and no more is
  // read until it is gone: memory per connection stays at one buffer.
  Next serve(Conn& c) {
    for (int reads = 0;;) {
      if (c.out_begin < c.out_end) {
        const ssize_t n = send(c.fd, c.buf.data() + c.out_begin, c.out_end - c.out_begin,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          stats.add(stats.bytes_out, static_cast<uint64_t>(n));
          c.out_begin += static_cast<size_t>(n);
          if (c.out_begin == c.out_end) c.out_begin = c.out_end = 0;
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Next::write;
        return hung_up(c);
      }
      if (reads++ == kReadsPerTurn) return Next::read;  // level-triggered or re-armed: it comes back
      const ssize_t n = recv(c.fd, c.buf.data(), c.buf.size(), MSG_DONTWAIT);
      if (n > 0) {
        stats.add(stats.bytes_in, static_cast<uint64_t>(n));
        uint64_t completed = 0;
        const bool ok = c.scanner.scan(c.buf.data(), static_cast<size_t>(n), completed);
        stats.add(stats.frames, completed);
        if (!ok) {
          stats.add(stats.bad_frames);
          return Next::close;
        }
        c.out_end = static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Next::read;
      return hung_up(c);
    }
  }

  // The peer closed or reset, on a read or a write: counted when mid-message.
  Next hung_up(const Conn& c) {
    if (!c.scanner.at_boundary()) stats.add(stats.cut);
    return Next::close;
  }

  void destroy(Conn* c) {
    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
    ::close(c->fd);
    stats.open.fetch_sub(1, std::memory_order_relaxed);
    {
      std::lock_guard lock(conns_mutex);
      conns.erase(c);
    }
    delete c;
  }

  void accept_all(uint32_t events) {
    for (;;) {
      const int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) return;  // EAGAIN, or a transient error the next event retries
      stats.add(stats.accepted);
      if (static_cast<uint64_t>(stats.open.load()) >= config.max_connections) {
        stats.add(stats.refused);
        ::close(fd);
        continue;
      }
      const int one = 1;  // an echo is one small write: it must not wait for an ACK
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto* c = new Conn(fd, config.max_frame_bytes);
      c->armed = events;
      stats.open.fetch_add(1, std::memory_order_relaxed);
      {
        std::lock_guard lock(conns_mutex);
        conns.insert(c);
      }
      epoll_event ev{events, {.ptr = c}};
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    }
  }

  void add_marker(int fd) {  // listen and stop sockets: data.ptr is null, data.fd tells them apart
    epoll_event ev{EPOLLIN, {}};
    ev.data.u64 = static_cast<uint64_t>(fd) << 1 | 1;  // odd: never a Conn* (aligned)
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  }
  static bool is_marker(const epoll_event& ev, int fd) { return ev.data.u64 == (static_cast<uint64_t>(fd) << 1 | 1); }

  void run_non_threaded() {
    std::vector<epoll_event> events(256);
    while (!stopping.load()) {
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), -1);
      for (int i = 0; i < n; ++i) {
        const epoll_event& ev = events[i];
        if (is_marker(ev, stop_fd)) return;
        if (is_marker(ev, listen_fd)) {
          accept_all(EPOLLIN);
          continue;
        }
        auto* c = static_cast<Conn*>(ev.data.ptr);
        const Next next = serve(*c);
        if (next == Next::close) {
          destroy(c);
          continue;
        }
        const uint32_t want = next == Next::read ? EPOLLIN : EPOLLOUT;
        if (want != c->armed) {
          epoll_event mod{want, {.ptr = c}};
          epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &mod);
          c->armed = want;
        }
      }
    }
  }

  void worker() {
    for (;;) {
      Conn* c = nullptr;
      {
        std::unique_lock lock(queue_mutex);
        queue_cv.wait(lock, [&] { return stopping.load() || !ready.empty(); });
        if (stopping.load()) return;
        c = ready.front();
        ready.pop_front();
      }
      const Next next = serve(*c);
      if (next == Next::close) {
        destroy(c);
        continue;
      }
      epoll_event mod{(next == Next::read ? EPOLLIN : EPOLLOUT) | EPOLLONESHOT, {.ptr = c}};
      epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &mod);
    }
  }

  void run_threaded() {
    std::vector<std::thread> workers;
    for (unsigned i = 0; i < config.threads; ++i) workers.emplace_back([this] { worker(); });
    std::vector<epoll_event> events(256);
    while (!stopping.load()) {
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), -1);
      for (int i = 0; i < n && !stopping.load(); ++i) {
        const epoll_event& ev = events[i];
        if (is_marker(ev, stop_fd)) {
          stopping = true;
        } else if (is_marker(ev, listen_fd)) {
          accept_all(EPOLLIN | EPOLLONESHOT);
        } else {
          std::lock_guard lock(queue_mutex);
          ready.push_back(static_cast<Conn*>(ev.data.ptr));
          queue_cv.notify_one();
        }
      }
    }
    {
      std::lock_guard lock(queue_mutex);
      stopping = true;
    }
    queue_cv.notify_all();
    for (auto& t : workers) t.join();
  }
};

EchoServer::EchoServer(EchoConfig config, EchoStats& stats)
    : impl_(std::make_unique<Impl>(std::move(config), stats)) {}

EchoServer::~EchoServer() = default;

uint16_t EchoServer::listen() {
  impl_->listen_fd = server::open_listener(impl_->config.bind, impl_->config.port);
  if (impl_->config.stats)
    impl_->stats_fd = server::open_listener(impl_->config.bind, impl_->config.stats_port, 64);
  impl_->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl_->add_marker(impl_->listen_fd);
  impl_->add_marker(impl_->stop_fd);
  return server::local_port(impl_->listen_fd);
}

uint16_t EchoServer::stats_port() const { return impl_->stats_fd >= 0 ? server::local_port(impl_->stats_fd) : 0; }

void EchoServer::run() {
  std::thread stats_thread;
  if (impl_->stats_fd >= 0)
    stats_thread = std::thread(
        [this] { serve_stats(impl_->stats_fd, impl_->stop_fd, impl_->stats, impl_->config); });
  if (impl_->config.mode == EchoMode::threaded) impl_->run_threaded();
  else impl_->run_non_threaded();
  impl_->stopping = true;
  if (stats_thread.joinable()) stats_thread.join();
}

void EchoServer::stop() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = write(impl_->stop_fd, &one, sizeof one);
}

}  // namespace soapbench::tcp
