// One thread of the chat client: connect and join, then send and receive on
// one epoll loop, checking every delivery as it arrives.
#include "chat/chat_client_worker.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cerrno>
#include <cstring>

#include <fmt/core.h>

#include "chat_protocol.h"

namespace soapbench::chat {

struct Worker::User {
  int fd = -1;
  Room* room = nullptr;
  uint32_t id = 0;               // user id within the room: 0 .. users-1
  std::string in, out;           // bytes read, not yet a frame; bytes to write from out[sent]
  size_t sent = 0;
  bool connected = false, joined = false, alive = true;
  uint32_t interest = 0;
  uint32_t next_seq = 0;         // next message to compose
  uint64_t send_bytes = 0;       // SEND bytes written since the start (whole frames = / frame size)
  uint64_t offset_ns = 0;        // rate mode: its slot within one period
  uint64_t ready_ns = 0;         // --wait: it thinks until then before its next message
  // Receiving side, indexed by sender id.
  std::vector<uint32_t> got;        // distinct messages arrived
  std::vector<uint32_t> newest;     // newest seq arrived + 1
  std::vector<uint64_t> checksum;   // sum of the content hashes of the distinct arrivals
  std::vector<uint64_t> seen;       // bit sender * messages + seq

  size_t pending() const { return out.size() - sent; }
};

struct Worker::Room {
  uint32_t id = 0;
  std::vector<User*> members;       // by user id
  bool touched = true;              // a delivery or a drained socket may let a sender go on
  // Content hashes of recent messages, [sender * kCached + seq % kCached]: the
  // other members receive a message at nearly the same time, so each is
  // generated and hashed about once rather than once per member.
  static constexpr uint32_t kCached = 16;
  std::vector<uint32_t> cached_seq;  // UINT32_MAX = empty
  std::vector<uint64_t> cached_hash;
};

uint64_t Worker::expected_hash(Room& room, uint32_t sender, uint32_t seq) {
  const size_t slot = size_t{sender} * Room::kCached + seq % Room::kCached;
  if (room.cached_seq[slot] != seq) {
    message_content(room.id, sender, seq, plan_.size, scratch_);
    room.cached_seq[slot] = seq;
    room.cached_hash[slot] = content_hash(scratch_);
  }
  return room.cached_hash[slot];
}

Worker::Worker(const ChatPlan& plan, std::vector<uint32_t> room_ids, const Endpoint& endpoint,
               Coordination& co, unsigned index, const std::atomic<bool>& stop)
    : plan_(plan), endpoint_(endpoint), co_(co), index_(index), stop_(stop),
      send_frame_bytes_(kLengthBytes + 1 + kSendHeaderBytes + plan.size) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  const uint64_t period_ns = plan.rate > 0 ? static_cast<uint64_t>(1e9 / plan.rate) : 0;
  const uint64_t total_users = uint64_t{plan.rooms} * plan.users;
  const size_t bits = (size_t{plan.users} * plan.messages + 63) / 64;
  for (uint32_t room_id : room_ids) {
    auto room = std::make_unique<Room>();
    room->id = room_id;
    room->cached_seq.assign(size_t{plan.users} * Room::kCached, UINT32_MAX);
    room->cached_hash.assign(size_t{plan.users} * Room::kCached, 0);
    for (uint32_t u = 0; u < plan.users; ++u) {
      auto user = std::make_unique<User>();
      user->room = room.get();
      user->id = u;
      user->got.assign(plan.users, 0);
      user->newest.assign(plan.users, 0);
      user->checksum.assign(plan.users, 0);
      user->seen.assign(bits, 0);
      // Spread every user of the run over one period, so that sends do not come in bursts.
      const uint64_t global = uint64_t{room_id - plan.first_room} * plan.users + u;
      user->offset_ns = total_users ? period_ns * global / total_users : 0;
      room->members.push_back(user.get());
      users_.push_back(std::move(user));
    }
    rooms_.push_back(std::move(room));
  }
}

Worker::~Worker() {
  for (auto& u : users_)
    if (u->fd >= 0) ::close(u->fd);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void Worker::note(const std::string& problem) {
  if (totals_.verdict.first_problem.empty()) totals_.verdict.first_problem = problem;
}

void Worker::set_interest(User& u) {
  if (u.fd < 0) return;
  const uint32_t want = EPOLLIN | EPOLLRDHUP | (u.pending() || !u.connected ? uint32_t{EPOLLOUT} : 0u);
  if (want == u.interest) return;
  epoll_event ev{};
  ev.events = want;
  ev.data.ptr = &u;
  epoll_ctl(epoll_fd_, u.interest ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, u.fd, &ev);
  u.interest = want;
}

void Worker::user_died(User& u, const std::string& why) {
  if (!u.alive) return;
  u.alive = false;
  if (measuring_) {
    ++totals_.verdict.disconnected;
    note(fmt::format("room {} user {}: {}", u.room->id, u.id, why));
  } else {
    ++totals_.verdict.join_failures;
    note(fmt::format("room {} user {} could not join: {}", u.room->id, u.id, why));
  }
  if (u.fd >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, u.fd, nullptr);
    ::close(u.fd);
    u.fd = -1;
  }
  u.room->touched = true;  // its senders no longer wait for it
}

void Worker::connect_all() {
  for (auto& owned : users_) {
    User& u = *owned;
    u.fd = socket(endpoint_.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (u.fd < 0) { user_died(u, std::string("socket: ") + std::strerror(errno)); continue; }
    const int one = 1;  // each send is one small frame: no Nagle delay
    setsockopt(u.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(u.fd, reinterpret_cast<const sockaddr*>(&endpoint_.addr), endpoint_.len) == 0) u.connected = true;
    else if (errno != EINPROGRESS) { user_died(u, std::string("connect: ") + std::strerror(errno)); continue; }
    append_join(u.out, u.room->id, u.id);
    set_interest(u);
    if (u.connected) flush(u, monotonic_ns());
  }
}

void Worker::flush(User& u, uint64_t now) {
  while (u.alive && u.pending() > 0) {
    const ssize_t n = send(u.fd, u.out.data() + u.sent, u.pending(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      u.sent += static_cast<size_t>(n);
      if (measuring_) {
        u.send_bytes += static_cast<uint64_t>(n);
        totals_.bytes_sent += static_cast<uint64_t>(n);
        totals_.last_activity_ns = std::max(totals_.last_activity_ns, now);
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    user_died(u, std::string("send: ") + std::strerror(errno));
    return;
  }
  if (!u.alive) return;
  if (u.pending() == 0) {
    u.out.clear();
    u.sent = 0;
    u.room->touched = true;
  }
  set_interest(u);
}

void Worker::read_from(User& u, uint64_t now) {
  char buf[64 * 1024];
  for (int reads = 0; reads < 4 && u.alive; ++reads) {  // at most 256 KiB per event: fairness
    const ssize_t n = recv(u.fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      user_died(u, n == 0 ? "the server closed the connection" : std::string("recv: ") + std::strerror(errno));
      return;
    }
    if (measuring_) totals_.bytes_received += static_cast<uint64_t>(n);
    u.in.append(buf, static_cast<size_t>(n));
    size_t pos = 0;
    while (u.alive) {
      const ParseResult r = parse_frame(std::string_view(u.in).substr(pos), 1 << 20);
      if (r.status == ParseStatus::need_more) break;
      if (r.status != ParseStatus::frame) {
        user_died(u, "unreadable frame from the server");
        return;
      }
      pos += r.frame.wire_bytes;
      on_frame(u, static_cast<uint8_t>(r.frame.type), r.frame.body, now);
    }
    if (!u.alive) return;
    u.in.erase(0, pos);
    if (static_cast<size_t>(n) < sizeof buf) return;
  }
}

void Worker::on_frame(User& u, uint8_t type, std::string_view body, uint64_t now) {
  switch (static_cast<FrameType>(type)) {
    case FrameType::deliver: on_deliver(u, body, now); return;
    case FrameType::joined: {
      const auto j = parse_join(body);
      if (j && j->room == u.room->id && j->user == u.id) u.joined = true;
      else user_died(u, "JOINED for another room or user");
      return;
    }
    case FrameType::error: user_died(u, "server error: " + std::string(body)); return;
    case FrameType::stats_reply: return;
    default: user_died(u, fmt::format("unexpected frame type {} from the server", type)); return;
  }
}

void Worker::on_deliver(User& r, std::string_view body, uint64_t now) {
  ChatVerdict& v = totals_.verdict;
  last_arrival_ns_ = now;
  const auto d = parse_deliver(body);
  if (!d || d->sender >= plan_.users || d->sender == r.id || d->seq >= plan_.messages) {
    ++v.corrupted;
    ++current_.failed;
    note(fmt::format("room {} user {}: a delivery no member could have sent ({} bytes)", r.room->id, r.id, body.size()));
    return;
  }
  const uint32_t s = d->sender;
  const size_t bit = size_t{s} * plan_.messages + d->seq;
  uint64_t& word = r.seen[bit / 64];
  const uint64_t mask = uint64_t{1} << (bit % 64);
  if (word & mask) {
    ++v.duplicated;
    ++current_.failed;
    note(fmt::format("room {} user {}: message {} of user {} arrived twice", r.room->id, r.id, d->seq, s));
    return;
  }
  word |= mask;
  ++r.got[s];
  const uint64_t hash = content_hash(d->content);
  r.checksum[s] += hash;
  r.room->touched = true;
  if (hash != expected_hash(*r.room, s, d->seq)) {
    ++v.corrupted;
    ++current_.failed;
    note(fmt::format("room {} user {}: message {} of user {} has the wrong content", r.room->id, r.id, d->seq, s));
    return;
  }
  if (d->seq < r.newest[s]) {
    ++v.out_of_order;
    ++current_.failed;
    note(fmt::format("room {} user {}: message {} of user {} arrived after message {}", r.room->id, r.id,
                     d->seq, s, r.newest[s] - 1));
    return;
  }
  r.newest[s] = d->seq + 1;
  ++v.delivered;
  ++current_.ok;
  totals_.last_activity_ns = std::max(totals_.last_activity_ns, now);
  const double actual = now > d->sent_ns ? static_cast<double>(now - d->sent_ns) / 1e9 : 0.0;
  double latency = actual;
  if (plan_.rate > 0) {
    const User& sender = *r.room->members[s];
    const uint64_t intended = start_ns_ + sender.offset_ns + static_cast<uint64_t>(d->seq * (1e9 / plan_.rate));
    latency = now > intended ? static_cast<double>(now - intended) / 1e9 : 0.0;
    totals_.uncorrected.record(actual);
  }
  totals_.latency.record(latency);
  current_.latency.record(latency);
}

void Worker::compose(User& u, uint64_t now) {
  message_content(u.room->id, u.id, u.next_seq, plan_.size, scratch_);
  append_send(u.out, u.next_seq, now, scratch_);
  ++u.next_seq;
}

// Closed loop: each live user sends while fewer than `window` of its messages
// are missing at some other live member (window 0: while its socket takes them).
void Worker::send_closed_loop(Room& room, uint64_t now) {
  for (User* s : room.members) {
    if (!s->alive || s->next_seq >= plan_.messages || now < s->ready_ns) continue;
    const size_t before = s->pending();
    if (plan_.pause_s > 0) {  // one message, then the user thinks (if its window lets it send at all)
      uint32_t least = s->next_seq;
      for (User* r : room.members)
        if (r != s && r->alive) least = std::min(least, r->got[s->id]);
      if (plan_.window == 0 || s->next_seq - least < plan_.window) {
        compose(*s, now);
        s->ready_ns = now + think_ns();
      }
    } else if (plan_.window == 0) {
      while (s->next_seq < plan_.messages && s->pending() < 16 * 1024) compose(*s, now);
    } else {
      uint32_t least = s->next_seq;
      for (User* r : room.members)
        if (r != s && r->alive) least = std::min(least, r->got[s->id]);
      while (s->next_seq < plan_.messages && s->next_seq - least < plan_.window) compose(*s, now);
    }
    if (s->pending() != before) flush(*s, now);
  }
}

uint64_t Worker::think_ns() {
  double s = plan_.pause_s;
  if (plan_.pause_exponential) {
    think_state_ ^= think_state_ << 13;
    think_state_ ^= think_state_ >> 7;
    think_state_ ^= think_state_ << 17;
    s = std::min(-s * std::log1p(-static_cast<double>(think_state_ >> 11) / static_cast<double>(1ull << 53)),
                 10 * s);  // cut at 10x the mean, as the engine cuts run's (engine/specs.h)
  }
  return static_cast<uint64_t>(s * 1e9);
}

uint64_t Worker::next_ready(uint64_t now) const {
  uint64_t next = UINT64_MAX;
  for (const auto& u : users_)
    if (u->alive && u->next_seq < plan_.messages && u->ready_ns > now) next = std::min(next, u->ready_ns);
  return next;
}

uint64_t Worker::send_due(uint64_t now) {
  const double period_ns = 1e9 / plan_.rate;
  uint64_t next_due = UINT64_MAX;
  for (auto& owned : users_) {
    User& u = *owned;
    if (!u.alive) continue;
    const size_t before = u.pending();
    while (u.next_seq < plan_.messages) {
      const uint64_t due = start_ns_ + u.offset_ns + static_cast<uint64_t>(u.next_seq * period_ns);
      if (due > now) { next_due = std::min(next_due, due); break; }
      if (static_cast<double>(now - due) > period_ns) ++totals_.late_sends;
      compose(u, now);
    }
    if (u.pending() != before) flush(u, now);
  }
  return next_due;
}

bool Worker::all_sent() const {
  for (const auto& u : users_)
    if (u->alive && (u->next_seq < plan_.messages || u->pending() > 0)) return false;
  return true;
}

// Deliveries still owed to live members for what has been sent.
uint64_t Worker::deliveries_owed() const {
  uint64_t owed = 0;
  for (const auto& room : rooms_)
    for (const User* s : room->members) {
      const uint64_t sent = s->send_bytes / send_frame_bytes_;
      for (const User* r : room->members)
        if (r != s && r->alive && r->got[s->id] < sent) owed += sent - r->got[s->id];
    }
  return owed;
}

void Worker::roll_intervals(uint64_t now) {
  const auto interval_ns = static_cast<uint64_t>(plan_.interval_s * 1e9);
  while (now >= start_ns_ + (current_.index + 1) * interval_ns) {
    current_.end_s = (current_.index + 1) * plan_.interval_s;
    EngineInterval next;
    next.index = current_.index + 1;
    co_.post(index_, std::move(current_), false);
    current_ = std::move(next);
  }
}

bool Worker::wait_for_start() {
  std::unique_lock lock(co_.mutex);
  ++co_.ready;
  co_.cv.notify_all();
  co_.cv.wait(lock, [&] { return co_.go; });
  start_ns_ = co_.start_ns;
  return !co_.abort;
}

void Worker::join_phase(uint64_t deadline_ns) {
  std::vector<epoll_event> events(256);
  for (;;) {
    bool waiting = false;
    for (const auto& u : users_) waiting |= u->alive && !u->joined;
    const uint64_t now = monotonic_ns();
    if (!waiting || now >= deadline_ns || stop_) break;
    const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                             static_cast<int>(std::min<uint64_t>((deadline_ns - now) / 1000000 + 1, 100)));
    for (int i = 0; i < n; ++i) {
      User& u = *static_cast<User*>(events[static_cast<size_t>(i)].data.ptr);
      if (!u.alive) continue;
      if (!u.connected && (events[static_cast<size_t>(i)].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int error = 0;
        socklen_t len = sizeof error;
        getsockopt(u.fd, SOL_SOCKET, SO_ERROR, &error, &len);
        if (error != 0) { user_died(u, std::string("connect: ") + std::strerror(error)); continue; }
        u.connected = true;
      }
      if (events[static_cast<size_t>(i)].events & EPOLLOUT) flush(u, now);
      if (u.alive && (events[static_cast<size_t>(i)].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
        read_from(u, now);
    }
  }
  for (auto& u : users_)
    if (u->alive && !u->joined) user_died(*u, "no JOINED before the connect timeout");
}

void Worker::measure() {
  // Start together: sleep until start_ns_ (the 20 ms margin run_chat gave).
  while (monotonic_ns() < start_ns_) usleep(static_cast<useconds_t>(std::min<uint64_t>((start_ns_ - monotonic_ns()) / 1000 + 1, 20000)));
  measuring_ = true;
  last_arrival_ns_ = start_ns_;
  totals_.last_activity_ns = start_ns_;
  const uint64_t bound_ns = start_ns_ + static_cast<uint64_t>(plan_.duration_s * 1e9);
  const auto stall_ns = static_cast<uint64_t>(plan_.stall_s * 1e9);
  std::vector<epoll_event> events(512);
  uint64_t next_owed_check = 0;
  uint64_t next_due = start_ns_;
  for (;;) {
    uint64_t now = monotonic_ns();
    roll_intervals(now);
    if (plan_.rate > 0) next_due = send_due(now);
    else
      for (auto& room : rooms_)
        if (room->touched || (plan_.pause_s > 0 && now >= next_due)) {
          room->touched = false;
          send_closed_loop(*room, now);
        }
    if (stop_) { totals_.interrupted = true; break; }
    if (now >= bound_ns) { totals_.bounded = true; break; }
    if (all_sent()) {
      if (now >= next_owed_check) {
        if (deliveries_owed() == 0) break;
        next_owed_check = now + 10'000'000;
      }
      if (now - last_arrival_ns_ >= stall_ns) { totals_.stalled = true; break; }
    }
    if (plan_.rate == 0 && plan_.pause_s > 0) next_due = next_ready(now);  // a thinking user's next message
    uint64_t wake = std::min(bound_ns, now + 50'000'000);
    if (plan_.rate > 0 || plan_.pause_s > 0) wake = std::min(wake, next_due);
    const int timeout_ms = wake > now ? static_cast<int>((wake - now + 999'999) / 1'000'000) : 0;
    const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout_ms);
    now = monotonic_ns();
    for (int i = 0; i < n; ++i) {
      const epoll_event& e = events[static_cast<size_t>(i)];
      User& u = *static_cast<User*>(e.data.ptr);
      if (!u.alive) continue;
      if (e.events & EPOLLOUT) flush(u, now);
      if (u.alive && (e.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) read_from(u, now);
    }
  }
  const uint64_t end = monotonic_ns();
  current_.end_s = static_cast<double>(end - start_ns_) / 1e9;
  co_.post(index_, std::move(current_), true);
  check_pairs();
}

// The end-of-run check of every (receiver, sender) pair against what the sender wrote.
void Worker::check_pairs() {
  ChatVerdict& v = totals_.verdict;
  for (const auto& room : rooms_)
    for (const User* s : room->members) {
      const uint64_t sent = s->send_bytes / send_frame_bytes_;
      v.sent += sent;
      uint64_t sum = 0;
      for (uint32_t seq = 0; seq < sent; ++seq) sum += expected_hash(*room, s->id, seq);
      for (const User* r : room->members) {
        if (r == s || !(r->joined)) continue;
        v.expected += sent;
        const uint64_t got = r->got[s->id];
        if (got < sent) v.lost += sent - got;
        if (got != sent) {
          ++v.pair_count_mismatches;
          note(fmt::format("room {}: user {} has {} of the {} messages user {} sent", room->id, r->id, got, sent, s->id));
        }
        if (r->checksum[s->id] != sum) ++v.pair_checksum_mismatches;
      }
    }
}

void Worker::run() {
  connect_all();
  join_phase(monotonic_ns() + static_cast<uint64_t>(plan_.connect_timeout_s * 1e9));
  if (wait_for_start()) measure();
}

}  // namespace soapbench::chat
