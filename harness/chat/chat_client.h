#pragma once
// The client side of the chat-room benchmark: `rooms` rooms of `users` users,
// one TCP connection per user with a sending and a receiving side, spread over
// `threads` event loops (each owns whole rooms, so checking a room's deliveries
// takes no lock).
//
// Sending: closed loop by default. A user sends its next message once fewer
// than `window` of its messages are still on their way to some other live
// member of its room (window 0: as fast as TCP takes them, the original
// benchmark's way). With `rate` > 0, user k sends message i at
// start + offset_k + i / rate whatever happens (offsets spread the users over
// one period); latency is then measured from that intended time (coordinated
// omission corrected) and, as `uncorrected`, from the actual send.
//
// Checking: every delivery is matched against the message its (sender, seq)
// must carry (content hash); a repeat is a duplicate, one older than the
// newest seen from that sender an out-of-order arrival. At the end each
// (receiver, sender) pair of a room must hold exactly the messages the sender
// wrote to its socket: count and content checksum (sum of hashes).
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/histogram.h"  // harness/
#include "core/results.h"    // harness/: IntervalSample

namespace soapbench::chat {

struct ChatPlan {
  std::string host = "127.0.0.1";  // the server (numeric address or name)
  uint16_t port = 0;
  unsigned rooms = 10;             // room ids first_room .. first_room + rooms - 1
  uint32_t first_room = 0;
  unsigned users = 20;             // members per room
  uint32_t messages = 100;         // messages each user sends
  size_t size = 100;               // content bytes per message
  unsigned window = 1;             // closed loop: messages per user not yet delivered everywhere
  double rate = 0;                 // messages/s per user; 0 = closed loop
  double pause_s = 0;              // closed loop: each user's think time after each message it sends
  bool pause_exponential = false;  // each think time drawn from an exponential distribution of mean pause_s
  double duration_s = 300;         // bound on the measured phase; what has not arrived is lost
  double stall_s = 5;              // stop once all is sent and nothing arrived for this long
  double connect_timeout_s = 10;   // for every user to connect and be JOINED
  unsigned threads = 1;            // event loops
  double interval_s = 5;           // length of the per-interval samples (> 0)
};

// What the check found. Message counts unless said otherwise.
struct ChatVerdict {
  uint64_t sent = 0;           // SEND frames written whole to the socket
  uint64_t expected = 0;       // deliveries owed: each sent message x the other members of its room
  uint64_t delivered = 0;      // right content, first copy, in order
  uint64_t lost = 0;           // owed and never arrived (to a live or a disconnected member)
  uint64_t duplicated = 0;     // a message that had already arrived
  uint64_t corrupted = 0;      // wrong content, or a sender/seq that no member could have sent
  uint64_t out_of_order = 0;   // arrived after a later message of the same sender
  uint64_t pair_count_mismatches = 0;     // (receiver, sender) pairs with the wrong number of messages
  uint64_t pair_checksum_mismatches = 0;  // (receiver, sender) pairs whose content checksum differs
  uint64_t join_failures = 0;  // users that could not connect or join (users, not messages)
  uint64_t disconnected = 0;   // users whose connection closed during the run (users)
  std::string first_problem;   // a description of the first problem seen, "" if none

  bool ok() const;             // nothing lost, extra, wrong or missing, every user joined and stayed
  uint64_t failed_messages() const { return lost + duplicated + corrupted + out_of_order; }
};

struct ChatOutcome {
  ChatVerdict verdict;
  LatencyHistogram latency;      // send -> delivery of `delivered` messages (rate mode: from the intended send)
  LatencyHistogram uncorrected;  // rate mode only: from the actual send
  std::vector<IntervalSample> intervals;  // every interval, all threads merged
  double measured_s = 0;         // from the common start to the last delivery (or the stop)
  double cpu_s = 0;              // this process's user + system CPU over the measured phase
  uint64_t bytes_sent = 0;       // by every user during the measured phase
  uint64_t bytes_received = 0;
  uint64_t late_sends = 0;       // rate mode: sends more than one period behind schedule
  bool bounded = false;          // stopped by duration_s before everything arrived
  bool stalled = false;          // stopped by stall_s
  bool interrupted = false;      // stopped by the caller's flag
};

// Connects and joins every user (throws std::runtime_error when not one can
// connect), starts them together, runs until every delivery owed has arrived,
// or the bound, the stall rule or `stop` ends it, and checks. `on_interval` is
// called on the calling thread with each interval as it closes.
ChatOutcome run_chat(const ChatPlan& plan, const std::atomic<bool>& stop,
                     const std::function<void(const IntervalSample&)>& on_interval = {});

// One STATS request on a fresh connection: the server's JSON, or "" when it
// does not answer within timeout_s.
std::string query_server_stats(const std::string& host, uint16_t port, double timeout_s = 2);

}  // namespace soapbench::chat
