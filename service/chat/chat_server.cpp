#include "chat_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "listen_socket.h"  // service/common/: open_listener, local_port
#include "chat_protocol.h"

namespace soapbench::chat {

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

struct Conn {
  int fd = -1;
  std::string in;             // bytes read, not yet a whole frame
  std::string out;            // queued output; out[sent..] is still to go
  size_t sent = 0;
  uint32_t room = 0, user = 0;
  bool joined = false;
  bool dead = false;          // closed; freed at the end of the loop's event batch
  bool over = false;          // queue above max_backlog: counted in its room's `over`
  bool paused = false;        // not read from while its room has a member over the backlog
  uint32_t interest = 0;      // epoll events registered now
  Clock::time_point join_deadline;
  Clock::time_point last_progress;  // last time queued output moved (or began to wait)

  size_t pending() const { return out.size() - sent; }
};

struct Room {
  std::vector<Conn*> members;
  unsigned over = 0;  // members above max_backlog
};

}  // namespace

std::string stats_json(const ServerStats& s, const ServerConfig& c) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  const auto v = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  return nlohmann::json{{"server", "soapbench-chat-server"},
                        {"threads", c.threads},
                        {"accepted", v(s.accepted)},
                        {"refused", v(s.refused)},
                        {"open", s.open.load(std::memory_order_relaxed)},
                        {"joined", v(s.joined)},
                        {"received", v(s.received)},
                        {"delivered", v(s.delivered)},
                        {"protocol_errors", v(s.protocol_errors)},
                        {"slow_dropped", v(s.slow_dropped)},
                        {"join_timeouts", v(s.join_timeouts)},
                        {"peer_closed", v(s.peer_closed)},
                        {"paused", v(s.paused)},
                        {"bytes_in", v(s.bytes_in)},
                        {"bytes_out", v(s.bytes_out)},
                        {"max_frame", c.max_frame},
                        {"max_backlog", c.max_backlog},
                        {"cpu_s", cpu}}
      .dump();
}

struct ChatServer::Impl {
  struct Loop;

  ServerConfig config;
  ServerStats& stats;
  int listen_fd = -1;
  std::atomic<bool> stopping{false};
  std::vector<std::unique_ptr<Loop>> loops;

  Impl(ServerConfig c, ServerStats& s) : config(std::move(c)), stats(s) {}
  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
  }

  // One event loop: its connections, its rooms, an inbox of connections
  // handed over by other loops, and an eventfd that wakes it for them or for stop.
  struct Loop {
    Impl& server;
    const ServerConfig& config;
    ServerStats& stats;
    const unsigned index;
    int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    std::unordered_map<Conn*, std::unique_ptr<Conn>> conns;
    std::unordered_map<uint32_t, Room> rooms;
    std::vector<Conn*> dead;     // closed in this batch, freed at its end
    std::vector<Conn*> touched;  // got output in this batch, to flush
    std::mutex inbox_mutex;
    std::vector<std::unique_ptr<Conn>> inbox;  // joined elsewhere, for a room of this loop

    Loop(Impl& s, unsigned i) : server(s), config(s.config), stats(s.stats), index(i) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.ptr = nullptr;  // the wake fd
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev);
    }
    ~Loop() {
      for (auto& [c, owner] : conns) ::close(c->fd);
      ::close(epoll_fd);
      ::close(wake_fd);
    }

    void wake() {
      const uint64_t one = 1;
      [[maybe_unused]] ssize_t n = write(wake_fd, &one, sizeof one);
    }

    void set_interest(Conn* c) {
      const uint32_t want = EPOLLRDHUP | (c->paused ? 0u : uint32_t{EPOLLIN}) |
                            (c->pending() ? uint32_t{EPOLLOUT} : 0u);
      if (want == c->interest) return;
      c->interest = want;
      epoll_event ev{};
      ev.events = want;
      ev.data.ptr = c;
      epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
    }

    void adopt(std::unique_ptr<Conn> owned) {
      Conn* c = owned.get();
      conns.emplace(c, std::move(owned));
      c->interest = EPOLLIN | EPOLLRDHUP;
      epoll_event ev{};
      ev.events = c->interest;
      ev.data.ptr = c;
      epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &ev);
    }

    void accept_all() {
      for (;;) {
        const int fd = accept4(server.listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;  // EAGAIN, or a transient error the next event retries
        stats.add(stats.accepted);
        if (stats.open.load(std::memory_order_relaxed) >= static_cast<int64_t>(config.max_connections)) {
          stats.add(stats.refused);
          ::close(fd);
          continue;
        }
        stats.open.fetch_add(1, std::memory_order_relaxed);
        const int one = 1;  // relays are small frames: Nagle + delayed ACK would add ~40 ms
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto c = std::make_unique<Conn>();
        c->fd = fd;
        c->join_deadline = Clock::now() + seconds(config.join_timeout_s);
        adopt(std::move(c));
      }
    }

    // ---- closing --------------------------------------------------------

    void leave_room(Conn* c) {
      if (!c->joined) return;
      auto it = rooms.find(c->room);
      if (it == rooms.end()) return;
      Room& room = it->second;
      std::erase(room.members, c);
      if (c->over) release_backlog(room, c);
      if (room.members.empty()) rooms.erase(it);
    }

    void close_conn(Conn* c, std::atomic<uint64_t>* reason) {
      if (c->dead) return;
      c->dead = true;
      if (reason) stats.add(*reason);
      leave_room(c);
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
      ::close(c->fd);
      c->fd = -1;
      stats.open.fetch_sub(1, std::memory_order_relaxed);
      dead.push_back(c);
    }

    // Tells the client why (best effort, one non-blocking send) and closes.
    void protocol_error(Conn* c, const std::string& why) {
      std::string frame;
      append_frame(frame, FrameType::error, why);
      [[maybe_unused]] ssize_t n = send(c->fd, frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      close_conn(c, &stats.protocol_errors);
    }

    // ---- backlog --------------------------------------------------------

    void release_backlog(Room& room, Conn* c) {
      c->over = false;
      if (--room.over > 0) return;
      for (Conn* m : room.members)
        if (m->paused) {
          m->paused = false;
          set_interest(m);
        }
    }

    void queue_grew(Conn* m, size_t before) {
      if (before == 0) m->last_progress = Clock::now();
      if (m->joined && !m->over && m->pending() > config.max_backlog) {
        m->over = true;
        if (rooms[m->room].over++ == 0) stats.add(stats.paused);
      }
      if (touched.empty() || touched.back() != m) touched.push_back(m);
    }

    void flush(Conn* c) {
      while (!c->dead && c->pending() > 0) {
        const ssize_t n = send(c->fd, c->out.data() + c->sent, c->pending(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          c->sent += static_cast<size_t>(n);
          c->last_progress = Clock::now();
          stats.add(stats.bytes_out, static_cast<uint64_t>(n));
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        close_conn(c, &stats.peer_closed);
        return;
      }
      if (c->dead) return;
      if (c->pending() == 0) {
        c->out.clear();
        c->sent = 0;
      } else if (c->sent > (256u << 10) && c->sent * 2 > c->out.size()) {
        c->out.erase(0, c->sent);  // keep the queue's memory to what is still owed
        c->sent = 0;
      }
      if (c->over && c->pending() <= config.max_backlog / 2) release_backlog(rooms[c->room], c);
      set_interest(c);
    }

    // ---- frames ---------------------------------------------------------

    enum class Handled { more, stop };  // stop: the connection closed or moved to another loop

    Handled on_join(Conn* c, std::string_view body, size_t consumed) {
      if (c->joined) { protocol_error(c, "a second JOIN on one connection"); return Handled::stop; }
      const auto join = parse_join(body);
      if (!join) { protocol_error(c, fmt::format("JOIN body of {} bytes, expected 8", body.size())); return Handled::stop; }
      c->room = join->room;
      c->user = join->user;
      const unsigned owner = join->room % static_cast<unsigned>(server.loops.size());
      if (owner != index) {  // hand the connection, and what follows its JOIN, to its room's loop
        c->in.erase(0, consumed);
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, nullptr);
        auto it = conns.find(c);
        std::unique_ptr<Conn> owned = std::move(it->second);
        conns.erase(it);
        Loop& target = *server.loops[owner];
        { std::lock_guard lock(target.inbox_mutex); target.inbox.push_back(std::move(owned)); }
        target.wake();
        return Handled::stop;
      }
      return enter_room(c) ? Handled::more : Handled::stop;
    }

    bool enter_room(Conn* c) {
      Room& room = rooms[c->room];
      if (room.members.size() >= config.max_room_users) {
        if (room.members.empty()) rooms.erase(c->room);
        protocol_error(c, fmt::format("room {} is full ({} users)", c->room, config.max_room_users));
        return false;
      }
      for (Conn* m : room.members)
        if (m->user == c->user) {
          protocol_error(c, fmt::format("user {} is already in room {}", c->user, c->room));
          return false;
        }
      room.members.push_back(c);
      c->joined = true;
      c->paused = room.over > 0;
      stats.add(stats.joined);
      std::string body(8, '\0');
      put_u32(body.data(), c->room);
      put_u32(body.data() + 4, c->user);
      const size_t before = c->pending();
      append_frame(c->out, FrameType::joined, body);
      queue_grew(c, before);
      return true;
    }

    void relay(Conn* c, std::string_view send_body) {
      stats.add(stats.received);
      Room& room = rooms[c->room];
      const size_t frame_body = 4 + send_body.size();
      for (Conn* m : room.members) {
        if (m == c) continue;
        const size_t before = m->pending();
        const size_t at = m->out.size();
        m->out.resize(at + kLengthBytes + 1 + frame_body);
        char* p = m->out.data() + at;
        put_u32(p, static_cast<uint32_t>(1 + frame_body));
        p[kLengthBytes] = static_cast<char>(FrameType::deliver);
        put_u32(p + kLengthBytes + 1, c->user);
        send_body.copy(p + kLengthBytes + 5, send_body.size());
        stats.add(stats.delivered);
        queue_grew(m, before);
      }
    }

    // Handles every whole frame in c->in.
    Handled on_frames(Conn* c) {
      size_t pos = 0;
      Handled result = Handled::more;
      while (result == Handled::more) {
        const std::string_view rest = std::string_view(c->in).substr(pos);
        const ParseResult r = parse_frame(rest, config.max_frame);
        if (r.status == ParseStatus::need_more) break;
        if (r.status == ParseStatus::too_long) {
          protocol_error(c, fmt::format("frame of {} bytes, over the limit of {}", get_u32(rest.data()), config.max_frame));
          return Handled::stop;
        }
        if (r.status == ParseStatus::empty) { protocol_error(c, "empty frame"); return Handled::stop; }
        const Frame& f = r.frame;
        pos += f.wire_bytes;
        switch (f.type) {
          case FrameType::join:
            result = on_join(c, f.body, pos);
            if (result == Handled::stop) return result;  // closed, or moved with its input trimmed
            break;
          case FrameType::send:
            if (!c->joined) { protocol_error(c, "SEND before JOIN"); return Handled::stop; }
            if (f.body.size() < kSendHeaderBytes) {
              protocol_error(c, fmt::format("SEND body of {} bytes, under the {}-byte header", f.body.size(), kSendHeaderBytes));
              return Handled::stop;
            }
            relay(c, f.body);
            break;
          case FrameType::stats: {
            const size_t before = c->pending();
            append_frame(c->out, FrameType::stats_reply, stats_json(stats, config));
            queue_grew(c, before);
            break;
          }
          default:
            protocol_error(c, fmt::format("unexpected frame type {}", static_cast<unsigned>(f.type)));
            return Handled::stop;
        }
      }
      c->in.erase(0, pos);
      return Handled::more;
    }

    void on_readable(Conn* c) {
      if (c->joined && rooms[c->room].over > 0) {  // a member is behind: let TCP hold this sender back
        c->paused = true;
        set_interest(c);
        return;
      }
      char buf[kReadChunk];
      const ssize_t n = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
      if (n <= 0) {
        close_conn(c, &stats.peer_closed);
        return;
      }
      stats.add(stats.bytes_in, static_cast<uint64_t>(n));
      c->in.append(buf, static_cast<size_t>(n));
      on_frames(c);
    }

    void take_inbox() {
      std::vector<std::unique_ptr<Conn>> arrived;
      { std::lock_guard lock(inbox_mutex); arrived.swap(inbox); }
      for (auto& owned : arrived) {
        Conn* c = owned.get();
        adopt(std::move(owned));
        if (enter_room(c)) on_frames(c);
      }
    }

    // Drops members stuck behind a full socket and connections that never joined.
    void sweep() {
      const auto now = Clock::now();
      for (auto& [c, owner] : conns) {
        if (c->dead) continue;
        if (!c->joined && now >= c->join_deadline) close_conn(c, &stats.join_timeouts);
        else if (c->pending() > 0 && now - c->last_progress >= seconds(config.send_timeout_s))
          close_conn(c, &stats.slow_dropped);
      }
    }

    void run() {
      std::vector<epoll_event> events(512);
      auto next_sweep = Clock::now();
      while (!server.stopping.load(std::memory_order_relaxed)) {
        const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), 100);
        for (int i = 0; i < n; ++i) {
          const epoll_event& e = events[static_cast<size_t>(i)];
          if (e.data.ptr == nullptr) {
            uint64_t count = 0;
            [[maybe_unused]] ssize_t r = read(wake_fd, &count, sizeof count);
            take_inbox();
            continue;
          }
          if (e.data.ptr == &server.listen_fd) { accept_all(); continue; }
          Conn* c = static_cast<Conn*>(e.data.ptr);
          if (!conns.contains(c) || c->dead) continue;  // moved or closed earlier in this batch
          if (e.events & EPOLLOUT) flush(c);
          if (!c->dead && conns.contains(c) && (e.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
            on_readable(c);
        }
        for (size_t i = 0; i < touched.size(); ++i) flush(touched[i]);
        touched.clear();
        if (Clock::now() >= next_sweep) {
          sweep();
          next_sweep = Clock::now() + std::chrono::milliseconds(100);
        }
        for (Conn* c : dead) conns.erase(c);
        dead.clear();
      }
    }
  };
};

ChatServer::ChatServer(ServerConfig config, ServerStats& stats)
    : impl_(std::make_unique<Impl>(std::move(config), stats)) {}
ChatServer::~ChatServer() = default;

uint16_t ChatServer::listen() {
  impl_->listen_fd = server::open_listener(impl_->config.bind, impl_->config.port);
  for (unsigned i = 0; i < std::max(1u, impl_->config.threads); ++i)
    impl_->loops.push_back(std::make_unique<Impl::Loop>(*impl_, i));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &impl_->listen_fd;
  epoll_ctl(impl_->loops[0]->epoll_fd, EPOLL_CTL_ADD, impl_->listen_fd, &ev);
  return server::local_port(impl_->listen_fd);
}

void ChatServer::run() {
  std::vector<std::thread> threads;
  for (size_t i = 1; i < impl_->loops.size(); ++i) threads.emplace_back([this, i] { impl_->loops[i]->run(); });
  impl_->loops[0]->run();
  for (auto& t : threads) t.join();
  impl_->loops.clear();  // closes every connection
}

void ChatServer::stop() {
  impl_->stopping = true;
  for (auto& l : impl_->loops) l->wake();
}

}  // namespace soapbench::chat
