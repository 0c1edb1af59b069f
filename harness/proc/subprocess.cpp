// Spawning, waiting for and reaping children (see subprocess.h).
//
// fork + exec rather than posix_spawn: posix_spawn cannot set PR_SET_PDEATHSIG
// or reset the signal mask portably, and its chdir is a GNU extension. The
// price is the rule of a multi-threaded parent: between fork and exec the
// child makes only async-signal-safe calls, so every string, the argv array and
// the path of the program are prepared before fork.
#include "proc/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "proc/signals.h"

namespace soapbench {

namespace {

using Clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::runtime_error system_error(const char* what) {
  return std::runtime_error(fmt::format("{}: {}", what, std::strerror(errno)));
}

// The file argv[0] names: itself when it holds a '/' or PATH is not searched,
// else the first executable regular file of that name in $PATH. Done in the
// parent because execvp may allocate, which the child must not.
std::string resolve(const std::string& program, bool search_path, int& error) {
  error = 0;
  if (!search_path || program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  const std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  error = ENOENT;
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end == start ? "." : dirs.substr(start, end - start);
    const std::string candidate = dir + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) {
        error = 0;
        return candidate;
      }
      error = EACCES;  // as execvp: remembered, but a later one may do
    }
    start = end + 1;
  }
  return {};
}

// Makes `fd` the child's descriptor `target`, without close-on-exec.
// Async-signal-safe.
bool place(int fd, int target) {
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0;  // dup2 would keep FD_CLOEXEC
  return ::dup2(fd, target) == target;
}

// In the child: the stream `target` as asked; async-signal-safe.
bool connect_stream(Stream how, int pipe_end, int target) {
  if (how == Stream::inherit) return true;
  if (how == Stream::pipe) return place(pipe_end, target);
  const int null = ::open("/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY);
  if (null < 0) return false;
  const bool ok = place(null, target);
  if (null != target) ::close(null);
  return ok;
}

// Why the child did not reach exec, written to the report pipe.
struct Failure {
  int stage;  // 0: the program, 1: the directory, 2: its streams
  int code;   // errno
};

[[noreturn]] void fail_in_child(int report_fd, int stage) {
  const Failure f{stage, errno};
  [[maybe_unused]] ssize_t n = ::write(report_fd, &f, sizeof f);
  _exit(127);
}

}  // namespace

Subprocess::Subprocess(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty() || argv[0].empty()) throw SpawnError("cannot run a program with no name", EINVAL);
  int error = 0;
  const std::string path = resolve(argv[0], options.search_path, error);
  if (error != 0) throw SpawnError(fmt::format("cannot run '{}': {}", argv[0], std::strerror(error)), error);

  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);

  // [0] read, [1] write; every end close-on-exec, so that no other child
  // started meanwhile (by another thread) inherits one and holds it open.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  const auto close_all = [&] {
    for (int* p : {in, out, err, report}) {
      close_fd(p[0]);
      close_fd(p[1]);
    }
  };
  const auto open_pipe = [&](int* p) {
    if (pipe2(p, O_CLOEXEC) != 0) {
      const auto e = system_error("pipe");
      close_all();
      throw e;
    }
  };
  if (options.in == Stream::pipe) open_pipe(in);
  if (options.out == Stream::pipe) open_pipe(out);
  if (options.err == Stream::pipe) open_pipe(err);
  open_pipe(report);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const auto e = system_error("fork");
    close_all();
    throw e;
  }
  if (pid == 0) {
    if (options.death_signal != 0) {
      ::prctl(PR_SET_PDEATHSIG, options.death_signal);
      if (getppid() != parent) _exit(125);  // the parent died before prctl: follow it
    }
    if (options.own_group) ::setpgid(0, 0);
    if (!connect_stream(options.in, in[0], STDIN_FILENO) || !connect_stream(options.out, out[1], STDOUT_FILENO) ||
        !connect_stream(options.err, err[1], STDERR_FILENO))
      fail_in_child(report[1], 2);
    if (!options.dir.empty() && ::chdir(options.dir.c_str()) != 0) fail_in_child(report[1], 1);
    if (options.close_other_fds) {  // all but the report pipe, which exec closes
      if (report[1] > 3) ::close_range(3, static_cast<unsigned>(report[1]) - 1, 0);
      ::close_range(static_cast<unsigned>(report[1]) + 1, ~0U, 0);
    }
    // Signals blocked by our threads (the interrupt watch's, say) must not stay blocked in it.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(path.c_str(), cargs.data());
    fail_in_child(report[1], 0);
  }

  pid_ = pid;
  reaped_ = false;
  close_fd(in[0]);
  close_fd(out[1]);
  close_fd(err[1]);
  close_fd(report[1]);
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  // The report pipe closes at exec (success) or carries why the child failed.
  Failure f{};
  ssize_t n;
  while ((n = ::read(report[0], &f, sizeof f)) < 0 && errno == EINTR) {
  }
  close_fd(report[0]);
  if (n == static_cast<ssize_t>(sizeof f)) {
    wait();
    release();
    const std::string what =
        f.stage == 1 ? fmt::format("cannot run '{}' in '{}': {}", argv[0], options.dir, std::strerror(f.code))
        : f.stage == 2 ? fmt::format("cannot run '{}': its standard streams: {}", argv[0], std::strerror(f.code))
                       : fmt::format("cannot run '{}': {}", argv[0], std::strerror(f.code));
    throw SpawnError(what, f.code);
  }
}

Subprocess::~Subprocess() { release(); }

Subprocess::Subprocess(Subprocess&& other) noexcept { *this = std::move(other); }

Subprocess& Subprocess::operator=(Subprocess&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    in_fd_ = std::exchange(other.in_fd_, -1);
    out_fd_ = std::exchange(other.out_fd_, -1);
    err_fd_ = std::exchange(other.err_fd_, -1);
    reaped_ = std::exchange(other.reaped_, true);
    lost_ = other.lost_;
    status_ = other.status_;
  }
  return *this;
}

void Subprocess::release() {
  close_in();
  close_out();
  close_err();
  if (!reaped_) {
    signal(SIGKILL);
    wait();
  }
}

void Subprocess::close_in() { close_fd(in_fd_); }
void Subprocess::close_out() { close_fd(out_fd_); }
void Subprocess::close_err() { close_fd(err_fd_); }

bool Subprocess::signal(int sig) { return !reaped_ && ::kill(pid_, sig) == 0; }

bool Subprocess::try_wait() {
  if (reaped_) return true;
  int status = 0;
  pid_t got;
  while ((got = waitpid(pid_, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (got == 0) return false;
  reaped_ = true;
  lost_ = got != pid_;  // ECHILD: not ours to reap any more
  status_ = lost_ ? 0 : status;
  return true;
}

bool Subprocess::wait_for(double timeout_s) {
  // Polled in short naps: a child ends within one nap of being seen, and
  // nothing here needs SIGCHLD, which belongs to whoever else wants it.
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(0.0, timeout_s)));
  while (!try_wait()) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(left, std::chrono::milliseconds(5)));
  }
  return true;
}

void Subprocess::wait() {
  if (reaped_) return;
  int status = 0;
  pid_t got;
  while ((got = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  lost_ = got != pid_;
  status_ = lost_ ? 0 : status;
}

void Subprocess::terminate(double grace_s) {
  if (reaped_) return;
  signal(SIGTERM);
  if (wait_for(grace_s)) return;
  signal(SIGKILL);
  wait();
}

// ---------------------------------------------------------------------------

SpawnOptions capture_output() {
  SpawnOptions options;
  options.in = Stream::null;
  options.out = Stream::pipe;
  options.err = Stream::pipe;
  return options;
}

bool RunResult::exited() const { return !timed_out && WIFEXITED(status); }
int RunResult::exit_code() const { return exited() ? WEXITSTATUS(status) : -1; }

std::string RunResult::describe() const {
  if (!timed_out) return describe_wait_status(status);
  return fmt::format("timed out after {:g} s ({})", timeout_s, describe_wait_status(status));
}

RunResult run_to_end(const std::vector<std::string>& argv, double timeout_s, const SpawnOptions& options) {
  RunResult result;
  result.timeout_s = timeout_s;
  Subprocess child(argv, options);
  child.close_in();  // nothing to say: it reads end of input

  const bool forever = timeout_s == std::numeric_limits<double>::infinity();
  const auto deadline =
      forever ? Clock::time_point::max()
              : Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  pollfd fds[2] = {{child.out_fd(), POLLIN, 0}, {child.err_fd(), POLLIN, 0}};
  std::string* into[2] = {&result.out, &result.err};
  // Both at once: a child filling stderr while we wait on stdout would block for ever.
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    int wait_ms = -1;
    if (!forever) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        result.timed_out = true;
        child.signal(SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    if (::poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        into[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // the child's end closed; ours closes with `child`
      }
    }
  }
  child.close_out();
  child.close_err();
  child.wait();
  result.status = child.status();
  return result;
}

}  // namespace soapbench
