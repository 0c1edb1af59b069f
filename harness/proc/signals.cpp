// The interrupt watch's self-pipe and handler, and wait statuses in words.
#include "proc/signals.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace soapbench {

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "status " + std::to_string(status);
}

namespace {

volatile sig_atomic_t g_signal = 0;
std::atomic<bool> g_flag{false};  // lock-free, so safe to set in a handler
int g_pipe[2] = {-1, -1};
constexpr size_t kMostWatched = 8;
int g_watched[kMostWatched];
size_t g_watched_count = 0;
struct sigaction g_previous[kMostWatched];

extern "C" void on_interrupt(int sig) {
  if (g_signal == 0) g_signal = sig;
  g_flag.store(true);
  const int saved = errno;
  const char byte = 1;
  [[maybe_unused]] ssize_t n = ::write(g_pipe[1], &byte, 1);
  errno = saved;
}

}  // namespace

InterruptWatch::InterruptWatch() : InterruptWatch({SIGINT, SIGTERM, SIGHUP}) {}

InterruptWatch::InterruptWatch(std::initializer_list<int> signals) {
  static_assert(std::atomic<bool>::is_always_lock_free);
  if (signals.size() > kMostWatched) throw std::invalid_argument("InterruptWatch: too many signals");
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  g_signal = 0;
  g_flag = false;
  struct sigaction sa{};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  g_watched_count = 0;
  for (const int sig : signals) {
    g_watched[g_watched_count] = sig;
    sigaction(sig, &sa, &g_previous[g_watched_count++]);
  }
}

InterruptWatch::~InterruptWatch() {
  for (size_t i = 0; i < g_watched_count; ++i) sigaction(g_watched[i], &g_previous[i], nullptr);
  ::close(g_pipe[0]);
  ::close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

bool InterruptWatch::interrupted() const { return g_signal != 0; }
int InterruptWatch::signal_number() const { return g_signal; }
int InterruptWatch::fd() const { return g_pipe[0]; }
const std::atomic<bool>& InterruptWatch::flag() const { return g_flag; }

}  // namespace soapbench
