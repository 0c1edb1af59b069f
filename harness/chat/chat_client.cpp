// The chat client's run: workers (one per thread, each with whole rooms),
// their common start, the merge of their intervals and verdicts.
#include "chat/chat_client.h"

#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/core.h>

#include "chat/chat_client_worker.h"
#include "ramp/merge.h"  // harness/: merge_interval
#include "chat_protocol.h"

namespace soapbench::chat {

bool ChatVerdict::ok() const {
  return sent > 0 && delivered == expected && failed_messages() == 0 && pair_count_mismatches == 0 &&
         pair_checksum_mismatches == 0 && join_failures == 0 && disconnected == 0;
}

Endpoint resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0 || !res)
    throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(rc));
  Endpoint e;
  std::memcpy(&e.addr, res->ai_addr, res->ai_addrlen);
  e.len = res->ai_addrlen;
  freeaddrinfo(res);
  return e;
}

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

void Coordination::post(unsigned worker, EngineInterval interval, bool last) {
  {
    std::lock_guard lock(mutex);
    const unsigned index = interval.index;
    posted[index].push_back(std::move(interval));
    if (last) finished[worker] = true;
    else closed_through[worker] = static_cast<int>(index);
  }
  cv.notify_all();
}

ChatOutcome run_chat(const ChatPlan& plan, const std::atomic<bool>& stop,
                     const std::function<void(const IntervalSample&)>& on_interval) {
  const Endpoint endpoint = resolve(plan.host, plan.port);
  const unsigned threads = std::max(1u, std::min(plan.threads, plan.rooms));
  Coordination co;
  co.finished.assign(threads, false);
  co.closed_through.assign(threads, -1);
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned t = 0; t < threads; ++t) {
    std::vector<uint32_t> rooms;
    for (unsigned r = t; r < plan.rooms; r += threads) rooms.push_back(plan.first_room + r);
    workers.push_back(std::make_unique<Worker>(plan, std::move(rooms), endpoint, co, t, stop));
  }
  std::vector<std::thread> running;
  for (auto& w : workers) running.emplace_back([&w] { w->run(); });

  // Every worker connects and joins its users; then all start together.
  double cpu_at_start = 0;
  {
    std::unique_lock lock(co.mutex);
    co.cv.wait(lock, [&] { return co.ready == threads; });
    uint64_t failed = 0;  // the workers wrote these before counting themselves ready
    for (auto& w : workers) failed += w->join_failures();
    co.abort = failed == uint64_t{plan.rooms} * plan.users;
    cpu_at_start = process_cpu_s();
    co.start_ns = monotonic_ns() + 20'000'000;  // a moment for every thread to see the start
    co.go = true;
  }
  co.cv.notify_all();
  if (co.abort) {
    for (auto& t : running) t.join();
    throw std::runtime_error(fmt::format("no user could join at {}:{}: {}", plan.host, plan.port,
                                         workers.front()->totals().verdict.first_problem));
  }

  // Live intervals: index i is complete once every worker has closed it or finished.
  ChatOutcome outcome;
  unsigned next = 0;
  auto emit_ready = [&](std::unique_lock<std::mutex>& lock, bool all_done) {
    for (;;) {
      auto it = co.posted.find(next);
      if (it == co.posted.end()) {
        if (all_done && !co.posted.empty() && co.posted.rbegin()->first > next) { ++next; continue; }
        return;
      }
      bool complete = all_done;
      if (!complete) {
        complete = true;
        for (unsigned t = 0; t < threads; ++t)
          if (!co.finished[t] && co.closed_through[t] < static_cast<int>(next)) complete = false;
      }
      if (!complete) return;
      std::vector<const EngineInterval*> parts;
      for (const auto& p : it->second) parts.push_back(&p);
      const IntervalSample sample = merge_interval(parts, plan.interval_s);
      outcome.intervals.push_back(sample);
      ++next;
      lock.unlock();
      if (on_interval) on_interval(sample);
      lock.lock();
    }
  };
  {
    std::unique_lock lock(co.mutex);
    for (;;) {
      const bool all_done = std::all_of(co.finished.begin(), co.finished.end(), [](bool f) { return f; });
      emit_ready(lock, all_done);
      if (all_done) break;
      co.cv.wait_for(lock, std::chrono::milliseconds(200));
    }
  }
  for (auto& t : running) t.join();
  outcome.cpu_s = process_cpu_s() - cpu_at_start;

  uint64_t end_ns = co.start_ns;
  for (auto& w : workers) {
    const WorkerTotals& r = w->totals();
    if (r.setup_error.size() && outcome.verdict.first_problem.empty()) outcome.verdict.first_problem = r.setup_error;
    ChatVerdict& v = outcome.verdict;
    const ChatVerdict& p = r.verdict;
    v.sent += p.sent;
    v.expected += p.expected;
    v.delivered += p.delivered;
    v.lost += p.lost;
    v.duplicated += p.duplicated;
    v.corrupted += p.corrupted;
    v.out_of_order += p.out_of_order;
    v.pair_count_mismatches += p.pair_count_mismatches;
    v.pair_checksum_mismatches += p.pair_checksum_mismatches;
    v.join_failures += p.join_failures;
    v.disconnected += p.disconnected;
    if (v.first_problem.empty()) v.first_problem = p.first_problem;
    outcome.latency.merge(r.latency);
    outcome.uncorrected.merge(r.uncorrected);
    outcome.bytes_sent += r.bytes_sent;
    outcome.bytes_received += r.bytes_received;
    outcome.late_sends += r.late_sends;
    outcome.bounded |= r.bounded;
    outcome.stalled |= r.stalled;
    outcome.interrupted |= r.interrupted;
    end_ns = std::max(end_ns, r.last_activity_ns);
  }
  outcome.measured_s = static_cast<double>(end_ns - co.start_ns) / 1e9;
  return outcome;
}

std::string query_server_stats(const std::string& host, uint16_t port, double timeout_s) {
  Endpoint e;
  try {
    e = resolve(host, port);
  } catch (const std::exception&) {
    return "";
  }
  const int fd = socket(e.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_s);
  tv.tv_usec = static_cast<suseconds_t>((timeout_s - static_cast<double>(tv.tv_sec)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::string reply;
  std::string request;
  append_frame(request, FrameType::stats, "");
  if (connect(fd, reinterpret_cast<const sockaddr*>(&e.addr), e.len) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    std::string in;
    char buf[4096];
    for (int reads = 0; reads < 1000; ++reads) {  // bounded: each read waits at most timeout_s
      const ParseResult r = parse_frame(in, 1 << 20);
      if (r.status == ParseStatus::frame) {
        if (r.frame.type == FrameType::stats_reply) reply = std::string(r.frame.body);
        break;
      }
      if (r.status != ParseStatus::need_more) break;
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return reply;
}

}  // namespace soapbench::chat
