#pragma once
// Child processes, the one way soapbench starts them: spawn from an argv with
// each standard stream inherited, /dev/null or a pipe to us; wait with a
// deadline; terminate with escalation (SIGTERM, a grace, SIGKILL); reap once.
// `run_to_end` runs a program to its end and collects its stdout and stderr.
// How a wait status reads in words is describe_wait_status (proc/signals.h).
#include <sys/types.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace soapbench {

// Where a child's standard stream goes.
enum class Stream {
  inherit,  // ours
  null,     // /dev/null
  pipe,     // a pipe to us: in_fd() / out_fd() / err_fd()
};

struct SpawnOptions {
  Stream in = Stream::inherit, out = Stream::inherit, err = Stream::inherit;
  std::string dir;           // the child's working directory; empty: ours
  bool search_path = false;  // argv[0] without a '/' is looked up in $PATH
  bool own_group = false;    // its own process group (a terminal's Ctrl-C stays ours)
  int death_signal = 0;      // sent to it when we die (PR_SET_PDEATHSIG); 0: none
  // Closes every descriptor above stderr in it, even those without
  // close-on-exec (a socket a library opened without it would otherwise
  // live on in the child and keep a connection open).
  bool close_other_fds = false;
};

// The program could not be started: "cannot run 'PROG': No such file or
// directory" (or "cannot run 'PROG' in 'DIR': ..." when the directory failed).
class SpawnError : public std::runtime_error {
 public:
  SpawnError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }  // the errno of the failed step (ENOENT, EACCES, ...)

 private:
  int code_;
};

// One child. Its pid stays its own until it is reaped (a zombie keeps it), and
// only this object reaps it, so signal() never reaches a stranger.
class Subprocess {
 public:
  // Starts argv[0] with argv. Returns once the program is executing, with the
  // pipes asked for open; throws SpawnError when it cannot be (a missing
  // program, directory or permission) and std::runtime_error when pipe or fork fail.
  explicit Subprocess(const std::vector<std::string>& argv, const SpawnOptions& options = {});
  Subprocess() = default;  // no child (reaped() is true): a place to move one into
  // SIGKILL and reap if still running; closes our ends of the pipes.
  ~Subprocess();
  Subprocess(Subprocess&& other) noexcept;
  Subprocess& operator=(Subprocess&& other) noexcept;
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  // Our ends of its pipes; -1 when not a pipe or closed.
  int in_fd() const { return in_fd_; }
  int out_fd() const { return out_fd_; }
  int err_fd() const { return err_fd_; }
  void close_in();  // it reads end of input
  void close_out();
  void close_err();

  // Sends sig unless it has been reaped; true when sent.
  bool signal(int sig);
  // Reaps it if it has ended, without waiting; true once reaped.
  bool try_wait();
  // Waits up to timeout_s for it to end; true once reaped.
  bool wait_for(double timeout_s);
  // Waits for as long as it takes.
  void wait();
  // SIGTERM, up to grace_s to end, then SIGKILL; reaps it. Nothing when
  // already reaped, so calling it twice is harmless.
  void terminate(double grace_s);

  bool reaped() const { return reaped_; }
  // Once reaped: its wait status (describe_wait_status puts it in words).
  int status() const { return status_; }
  // Reaped without a status: waitpid failed (someone else reaped it).
  bool lost() const { return lost_; }

 private:
  void release();
  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  bool reaped_ = true;  // nothing to reap until a child is started
  bool lost_ = false;
  int status_ = 0;
};

// stdin from /dev/null, stdout and stderr to pipes: what run_to_end uses by default.
SpawnOptions capture_output();

// What run_to_end saw.
struct RunResult {
  int status = 0;          // the wait status
  bool timed_out = false;  // the deadline passed first: it was killed with SIGKILL
  double timeout_s = 0;
  std::string out, err;    // what it wrote to each stream that was a pipe
  bool exited() const;     // ended with exit(), not by a signal and not at the deadline
  int exit_code() const;   // its exit code when exited(), else -1
  // "exit 0", "killed by signal 15 (Terminated)", or
  // "timed out after 0.5 s (killed by signal 9 (Killed))".
  std::string describe() const;
};

// Runs argv to its end: stdin, stdout and stderr as `options` say (by default
// /dev/null, then two pipes), reading both pipes at once so that neither can
// fill and block the child, until both close. At timeout_s (infinity: never)
// the child is killed (SIGKILL). Throws SpawnError when it cannot be started.
// A daemon the child leaves holding the pipes keeps them open: then the
// deadline ends the wait.
RunResult run_to_end(const std::vector<std::string>& argv,
                     double timeout_s = std::numeric_limits<double>::infinity(),
                     const SpawnOptions& options = capture_output());

}  // namespace soapbench
