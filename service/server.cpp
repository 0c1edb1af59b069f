#include "server.h"

#include "auth.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_set>
#include <vector>

#ifdef WITH_OPENSSL
#include <openssl/crypto.h>
#endif

#include "echo_service.h"
#include "event_loops.h"
#include "listen_socket.h"
#include "connection.h"

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

}  // namespace

struct Server::Impl {
  Impl(Config c, Stats& s, const TlsContext* t) : config(std::move(c)), stats(s), tls(t) {}

  Config config;
  Stats& stats;
  const TlsContext* tls;  // nullptr: plain HTTP
  int listen_fd = -1;
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);  // readable once stop() was called
  std::atomic<bool> stopping{false};  // the grace period is over (or never needed): workers exit

  // Per-connection mode: the sockets of live connection threads, for shutdown.
  std::mutex threads_mutex;
  std::condition_variable threads_cv;
  std::unordered_set<int> live;  // sockets of live connection threads
  size_t live_threads = 0;

  std::mutex stop_mutex;  // stop() may run on the signal thread while main destroys the server

  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    std::lock_guard lock(stop_mutex);
    if (stop_fd >= 0) ::close(stop_fd);
    stop_fd = -1;
  }

  bool over_connection_limit() {
    if (static_cast<uint64_t>(stats.open.load()) < config.max_connections) return false;
    stats.add(stats.refused);
    return true;
  }

  // ---- per-connection mode -------------------------------------------------

  // Reads until a whole request is buffered on c (or an answer is due: refused,
  // timed out, or cut short), the idle timeout passes, or the server stops.
  // Blank lines before a request are read and dropped. Returns true when there
  // is something to answer.
  bool wait_for_request(Connection& c) {
    if (c.has_buffered_input() && c.frame() != RequestFramer::State::need_more) return true;
    pollfd fds[2] = {{c.fd(), POLLIN, 0}, {stop_fd, POLLIN, 0}};
    auto deadline = Clock::now() + seconds(c.request_begun() ? config.recv_timeout_s : config.idle_timeout_s);
    bool partial = c.request_begun();
    for (;;) {
      const int n = poll(fds, 2, poll_timeout_ms(deadline));
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 && partial) {
        c.refusal = HttpError{408, "Request timed out: part of it arrived, then nothing within the receive timeout"};
        return true;
      }
      if (n > 0 && fds[1].revents) {
        // Stopping: an idle connection closes; a request in flight gets the grace
        // period to arrive (after it, run_per_connection shuts the socket down).
        if (!partial && fds[0].revents == 0) return false;
        fds[1].fd = -1;
      }
      if (n <= 0 || fds[0].revents == 0) {
        if (n > 0) continue;
        return false;
      }
      switch (c.read()) {
        case Arrival::closed: return false;
        case Arrival::complete: return true;
        case Arrival::blank: break;
        case Arrival::partial:
          if (!partial) deadline = Clock::now() + seconds(config.recv_timeout_s);
          partial = true;
          break;
      }
      // A 100 Continue, or TLS handshake messages the socket did not take at once.
      if (c.has_unsent_output() && !c.flush_blocking(config.send_timeout_s)) return false;
    }
  }

  void connection_thread(int fd) {
    {
      EchoService service(config, stats);
      Connection c(fd, config.max_request_bytes, config.max_buffered_bytes, stats, tls);
      while (wait_for_request(c)) {
        const bool open = service.serve_buffered(c);
        if (!c.flush_blocking(config.send_timeout_s) || !open || stopping) break;
      }
      std::lock_guard lock(threads_mutex);
      live.erase(fd);
    }  // c closes the socket here, once shutdown can no longer find it in `live`
#ifdef WITH_OPENSSL
    // The thread is detached: free OpenSSL's per-thread state (made by soap_init)
    // now, not in a thread-exit destructor that may run after main() has returned
    // (LeakSanitizer saw it as a leak when the server stopped with a connection open).
    OPENSSL_thread_stop();
#endif
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

Server::Server(Config config, Stats& stats, const TlsContext* tls)
    : impl_(std::make_unique<Impl>(std::move(config), stats, tls)) {
#ifdef WITH_OPENSSL
  // gSOAP initialises OpenSSL in the first soap_init() through an unguarded global
  // flag: done here, before any thread makes a context, it is never raced (TSan).
  soap_ssl_init();
#endif
  // One checker per flag, shared by every serving thread (their nonce tables too).
  std::string name, password;
  if (split_credentials(impl_->config.require_user, name, password))
    stats.http_auth = std::make_shared<HttpAuth>(
        name, password, impl_->config.digest,
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(impl_->config.nonce_lifetime_s)));
  if (split_credentials(impl_->config.require_wsse, name, password))
    stats.wsse_auth = std::make_shared<WsseAuth>(name, password);
  // Once, before any load: each interval --time-layers times has this taken out.
  if (impl_->config.time_layers) stats.clock_read_ns = measure_thread_clock_read_ns();
}
Server::~Server() = default;

uint16_t Server::listen() {
  impl_->listen_fd = open_listener(impl_->config.bind, impl_->config.port);
  return local_port(impl_->listen_fd);
}

void Server::run() {
  if (impl_->config.mode == Mode::per_connection) impl_->run_per_connection();
  else run_event_loops(impl_->config, impl_->stats, impl_->listen_fd, impl_->stop_fd, impl_->tls);
}

void Server::stop() {
  const uint64_t one = 1;
  std::lock_guard lock(impl_->stop_mutex);
  if (impl_->stop_fd >= 0) [[maybe_unused]] ssize_t n = write(impl_->stop_fd, &one, sizeof one);
}

}  // namespace soapbench::server
