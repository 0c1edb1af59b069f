#pragma once
// One thread of the chat client: the users of its rooms on one epoll loop.
// Internal to chat_client.cpp (and its tests); see chat_client.h for what is measured.
#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "chat/chat_client.h"
#include "engine/engine.h"  // harness/: EngineInterval

namespace soapbench::chat {

struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
};
// Throws std::runtime_error naming the host when it cannot be resolved.
Endpoint resolve(const std::string& host, uint16_t port);
double process_cpu_s();

// Between the workers and run_chat's thread: the common start and the intervals.
struct Coordination {
  std::mutex mutex;
  std::condition_variable cv;
  unsigned ready = 0;      // workers whose users have all joined (or failed to)
  bool go = false;         // start_ns is set (or abort)
  bool abort = false;      // no user could join anywhere: nothing to measure
  uint64_t start_ns = 0;   // monotonic_ns() at which every worker starts sending
  std::map<unsigned, std::vector<EngineInterval>> posted;  // by interval index
  std::vector<int> closed_through;  // per worker: the last interval it closed (-1: none)
  std::vector<bool> finished;       // per worker: posted its last interval

  // `last`: the worker's final (possibly short) interval; it posts nothing after.
  void post(unsigned worker, EngineInterval interval, bool last);
};

// A worker's share of the outcome, read after its thread has ended.
struct WorkerTotals {
  ChatVerdict verdict;
  LatencyHistogram latency, uncorrected;
  uint64_t bytes_sent = 0, bytes_received = 0;
  uint64_t late_sends = 0;
  uint64_t last_activity_ns = 0;  // the last delivery or completed send
  bool bounded = false, stalled = false, interrupted = false;
  std::string setup_error;
};

class Worker {
 public:
  Worker(const ChatPlan& plan, std::vector<uint32_t> room_ids, const Endpoint& endpoint,
         Coordination& co, unsigned index, const std::atomic<bool>& stop);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Connects and joins, reports ready, waits for the start, measures, checks.
  void run();
  const WorkerTotals& totals() const { return totals_; }
  uint64_t join_failures() const { return totals_.verdict.join_failures; }

 private:
  struct User;
  struct Room;

  void connect_all();
  void join_phase(uint64_t deadline_ns);
  void measure();
  bool wait_for_start();  // false: the run was called off

  void set_interest(User& u);
  void flush(User& u, uint64_t now);
  void read_from(User& u, uint64_t now);
  void on_frame(User& u, uint8_t type, std::string_view body, uint64_t now);
  void on_deliver(User& r, std::string_view body, uint64_t now);
  void user_died(User& u, const std::string& why);
  void compose(User& u, uint64_t now);
  void send_closed_loop(Room& room, uint64_t now);
  uint64_t send_due(uint64_t now);  // rate mode; returns the next due time
  uint64_t think_ns();              // --wait: the next think time (fixed, or an exponential draw)
  // --wait: the earliest time after `now` a thinking user may send again (users whose
  // think time is over wait for their window: a delivery wakes them, not a timer).
  uint64_t next_ready(uint64_t now) const;
  bool all_sent() const;
  uint64_t deliveries_owed() const;
  void roll_intervals(uint64_t now);
  void check_pairs();
  uint64_t expected_hash(Room& room, uint32_t sender, uint32_t seq);
  void note(const std::string& problem);

  const ChatPlan& plan_;
  const Endpoint endpoint_;
  Coordination& co_;
  const unsigned index_;
  const std::atomic<bool>& stop_;
  const size_t send_frame_bytes_;
  int epoll_fd_ = -1;
  std::vector<std::unique_ptr<Room>> rooms_;
  std::vector<std::unique_ptr<User>> users_;
  std::string scratch_;
  uint64_t start_ns_ = 0;
  bool measuring_ = false;
  uint64_t last_arrival_ns_ = 0;
  uint64_t think_state_ = 0x9E3779B97F4A7C15ull;  // xorshift state for exponential think times
  EngineInterval current_;
  WorkerTotals totals_;
};

}  // namespace soapbench::chat
