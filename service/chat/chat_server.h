#pragma once
// soapbench-chat-server: the relay of the chat-room benchmark (chat_protocol.h).
//
// Threads: each of `threads` event loops (epoll) owns whole rooms (room id
// modulo threads), so relaying within a room takes no lock. Loop 0 also
// accepts; a connection moves to its room's loop when it joins.
//
// Slow readers: every connection has an output queue. When a member's queue
// passes max_backlog bytes, the server stops reading from every member of that
// room (TCP then holds the senders back) until the queue is below half of it:
// nothing is dropped, and memory per connection stays below max_backlog plus
// what one read (kReadChunk bytes) from one sender expands to. A member whose
// queue makes no progress for send_timeout_s is disconnected, so one stuck
// reader cannot stall its room for longer than that.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace soapbench::chat {

struct ServerConfig {
  std::string bind = "127.0.0.1";     // loopback unless a test network is served on purpose
  uint16_t port = 9999;               // the original chat_s port; 0 picks a free one (printed)
  unsigned threads = 1;               // event loops; rooms are spread over them
  size_t max_frame = 64 * 1024;       // longest frame accepted (type + body); longer is a protocol error
  size_t max_backlog = 1 << 20;       // queued bytes to one member before its room's senders pause
  double send_timeout_s = 10;         // a member whose queue makes no progress this long is dropped
  double join_timeout_s = 10;         // a connection that has not joined by then is dropped
  unsigned max_connections = 10000;   // connections beyond this are closed at accept
  unsigned max_room_users = 1000;     // a JOIN to a fuller room is refused (protocol error)
  bool quiet = false;                 // no summary at exit
};

// Bytes read from one connection per readiness event: bounds what one sender
// can add to each member's queue beyond max_backlog.
inline constexpr size_t kReadChunk = 64 * 1024;

// Relaxed atomics: tallies for STATS and the summary, never used to synchronise.
struct ServerStats {
  std::atomic<uint64_t> accepted{0};         // connections accepted
  std::atomic<uint64_t> refused{0};          // closed at accept (over max_connections)
  std::atomic<int64_t> open{0};              // connections open now
  std::atomic<uint64_t> joined{0};           // successful JOINs
  std::atomic<uint64_t> received{0};         // SEND frames relayed
  std::atomic<uint64_t> delivered{0};        // DELIVER frames queued (one per other member)
  std::atomic<uint64_t> protocol_errors{0};  // connections closed for a bad frame
  std::atomic<uint64_t> slow_dropped{0};     // members dropped after send_timeout_s without progress
  std::atomic<uint64_t> join_timeouts{0};    // connections dropped for not joining in time
  std::atomic<uint64_t> peer_closed{0};      // connections the client closed or reset
  std::atomic<uint64_t> paused{0};           // times a room's senders were paused for a slow member
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_out{0};

  void add(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
};

// The STATS_REPLY body: every counter above, the config's limits and the
// process's CPU seconds ("cpu_s", user + system).
std::string stats_json(const ServerStats& s, const ServerConfig& c);

class ChatServer {
 public:
  ChatServer(ServerConfig config, ServerStats& stats);
  ~ChatServer();
  ChatServer(const ChatServer&) = delete;
  ChatServer& operator=(const ChatServer&) = delete;

  // Binds and listens; returns the port bound. Throws std::runtime_error.
  uint16_t listen();
  // Serves until stop(); then closes every connection and returns.
  void run();
  // Async-signal-safe.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace soapbench::chat
