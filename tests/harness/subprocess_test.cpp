// harness/proc/subprocess.h: spawning, waiting, terminating, reaping and
// run_to_end, with /bin/sh and coreutils as the children.
#include "proc/subprocess.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "proc/signals.h"

namespace soapbench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reads fd until `text` has arrived (or 20 s pass: a hang, not a timing).
std::string read_until(int fd, const std::string& text) {
  std::string got;
  const auto end = Clock::now() + std::chrono::seconds(20);
  while (got.find(text) == std::string::npos && Clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[256];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

// Options with one field set (designated initializers would warn about the rest).
SpawnOptions with(void (*set)(SpawnOptions&)) {
  SpawnOptions o;
  set(o);
  return o;
}

RunResult sh(const std::string& script, double timeout_s = 60) {
  return run_to_end({"/bin/sh", "-c", script}, timeout_s);
}

TEST(Subprocess, ExitCodesInWords) {
  const RunResult ok = sh("exit 0");
  EXPECT_TRUE(ok.exited());
  EXPECT_EQ(ok.exit_code(), 0);
  EXPECT_EQ(ok.describe(), "exit 0");
  const RunResult three = sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(three.exit_code(), 3);
  EXPECT_EQ(three.describe(), "exit 3");
  EXPECT_EQ(three.out, "out\n");
  EXPECT_EQ(three.err, "err\n");
  EXPECT_FALSE(three.timed_out);
}

TEST(Subprocess, SignalsInWords) {
  const RunResult r = sh("kill -TERM $$");
  EXPECT_FALSE(r.exited());
  EXPECT_EQ(r.exit_code(), -1);
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  EXPECT_EQ(r.describe(), "killed by signal 15 (Terminated)");
  EXPECT_EQ(describe_wait_status(r.status), "killed by signal 15 (Terminated)");
}

TEST(Subprocess, TerminateEndsAChildThatHonoursSigtermWithSigterm) {
  Subprocess child({"/bin/sh", "-c", "echo ready; exec sleep 30"}, with([](SpawnOptions& o) { o.out = Stream::pipe; }));
  ASSERT_EQ(read_until(child.out_fd(), "ready\n"), "ready\n");
  child.terminate(20);
  ASSERT_TRUE(child.reaped());
  EXPECT_FALSE(child.lost());
  EXPECT_EQ(describe_wait_status(child.status()), "killed by signal 15 (Terminated)");
}

TEST(Subprocess, AChildThatIgnoresSigtermIsKilledAfterTheGrace) {
  // `exec sleep` keeps the ignored SIGTERM: the sleep itself is the child.
  Subprocess child({"/bin/sh", "-c", "trap '' TERM; echo ready; exec sleep 30"}, with([](SpawnOptions& o) { o.out = Stream::pipe; }));
  ASSERT_EQ(read_until(child.out_fd(), "ready\n"), "ready\n");
  const auto start = Clock::now();
  child.terminate(0.3);
  const double took = seconds_since(start);
  ASSERT_TRUE(child.reaped());
  EXPECT_EQ(describe_wait_status(child.status()), "killed by signal 9 (Killed)");
  EXPECT_GE(took, 0.3) << "SIGKILL came before the grace was over";
  EXPECT_LT(took, 20) << "hung after the grace";
}

TEST(Subprocess, ReapsExactlyOnce) {
  Subprocess child({"/bin/sh", "-c", "exit 7"});
  EXPECT_EQ(child.reaped(), false);
  child.wait();
  ASSERT_TRUE(child.reaped());
  EXPECT_EQ(describe_wait_status(child.status()), "exit 7");
  // Every later call keeps the first status and sends nothing to the old pid.
  EXPECT_TRUE(child.try_wait());
  EXPECT_TRUE(child.wait_for(0));
  child.wait();
  child.terminate(0);
  EXPECT_FALSE(child.signal(SIGKILL));
  EXPECT_EQ(describe_wait_status(child.status()), "exit 7");
  EXPECT_FALSE(child.lost());
  // The kernel agrees that nothing is left to reap.
  errno = 0;
  EXPECT_EQ(waitpid(child.pid(), nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(Subprocess, WaitForSaysWhenTheChildIsStillRunning) {
  Subprocess child({"/bin/sh", "-c", "read line; exit 4"}, with([](SpawnOptions& o) { o.in = Stream::pipe; }));
  EXPECT_FALSE(child.wait_for(0.05));
  EXPECT_FALSE(child.reaped());
  child.close_in();  // `read` sees end of input
  EXPECT_TRUE(child.wait_for(20));
  EXPECT_EQ(describe_wait_status(child.status()), "exit 4");
}

TEST(Subprocess, TheDestructorKillsAndReapsARunningChild) {
  pid_t pid = -1;
  {
    Subprocess child({"/bin/sh", "-c", "exec sleep 30"});
    pid = child.pid();
    ASSERT_GT(pid, 0);
  }
  errno = 0;
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "left unreaped";
  EXPECT_EQ(errno, ECHILD);
}

TEST(Subprocess, RunToEndCollectsBothStreamsBeyondAPipeBuffer) {
  // stderr first: a reader that drained stdout before stderr would wait for
  // ever on a child blocked writing its stderr.
  const RunResult r = sh("head -c 200000 /dev/zero | tr '\\0' e >&2; head -c 200000 /dev/zero | tr '\\0' o", 60);
  EXPECT_EQ(r.describe(), "exit 0");
  EXPECT_EQ(r.out, std::string(200000, 'o'));
  EXPECT_EQ(r.err, std::string(200000, 'e'));
}

TEST(Subprocess, RunToEndKillsAChildAtTheDeadlineAndSaysSo) {
  const auto start = Clock::now();
  const RunResult r = run_to_end({"/bin/sh", "-c", "echo started; exec sleep 30"}, 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited());
  EXPECT_EQ(r.exit_code(), -1);
  EXPECT_EQ(r.describe(), "timed out after 0.3 s (killed by signal 9 (Killed))");
  EXPECT_EQ(r.out, "started\n");
  EXPECT_LT(seconds_since(start), 20) << "the deadline did not end it";
}

TEST(Subprocess, OwnProcessGroupOnlyWhenAsked) {
  Subprocess own({"/bin/sh", "-c", "exec sleep 30"}, with([](SpawnOptions& o) { o.own_group = true; }));
  EXPECT_EQ(getpgid(own.pid()), own.pid());
  Subprocess shared({"/bin/sh", "-c", "exec sleep 30"});
  EXPECT_EQ(getpgid(shared.pid()), getpgrp());
}

TEST(Subprocess, WorkingDirectoryPathSearchAndDevNull) {
  SpawnOptions options = capture_output();
  options.dir = "/tmp";
  options.search_path = true;
  const RunResult r = run_to_end({"pwd"}, 60, options);
  EXPECT_EQ(r.describe(), "exit 0");
  EXPECT_EQ(r.out, "/tmp\n");
  // stdin from /dev/null: cat reads end of input at once.
  options.dir.clear();
  EXPECT_EQ(run_to_end({"cat"}, 60, options).out, "");
  // stdout to /dev/null: nothing is collected.
  options.out = Stream::null;
  const RunResult quiet = run_to_end({"sh", "-c", "echo lost; echo kept >&2"}, 60, options);
  EXPECT_EQ(quiet.out, "");
  EXPECT_EQ(quiet.err, "kept\n");
}

TEST(Subprocess, CloseOtherFdsClosesDescriptorsWithoutCloseOnExec) {
  int leak[2];
  ASSERT_EQ(pipe(leak), 0);  // no O_CLOEXEC: a child inherits both ends
  const std::string fd = std::to_string(leak[1]);
  const std::string script = "if [ -e /proc/self/fd/" + fd + " ]; then echo open; else echo closed; fi";
  EXPECT_EQ(run_to_end({"/bin/sh", "-c", script}, 60).out, "open\n");
  SpawnOptions options = capture_output();
  options.close_other_fds = true;
  EXPECT_EQ(run_to_end({"/bin/sh", "-c", script}, 60, options).out, "closed\n");
  // A failure is still reported through the pipe it keeps.
  try {
    run_to_end({"/nonexistent/program"}, 60, options);
    ADD_FAILURE() << "started a missing program";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.code(), ENOENT);
  }
  close(leak[0]);
  close(leak[1]);
}

TEST(Subprocess, AMissingProgramIsAClearError) {
  try {
    Subprocess child({"/nonexistent/soapbench-no-such-program"});
    FAIL() << "started a missing program";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.code(), ENOENT);
    EXPECT_STREQ(e.what(), "cannot run '/nonexistent/soapbench-no-such-program': No such file or directory");
  }
  try {
    run_to_end({"soapbench-no-such-program"}, 60, with([](SpawnOptions& o) { o.search_path = true; }));
    FAIL() << "found a missing program in PATH";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.code(), ENOENT);
    EXPECT_STREQ(e.what(), "cannot run 'soapbench-no-such-program': No such file or directory");
  }
  try {
    run_to_end({"/bin/true"}, 60, with([](SpawnOptions& o) { o.dir = "/nonexistent-dir"; }));
    FAIL() << "ran in a missing directory";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.code(), ENOENT);
    EXPECT_STREQ(e.what(), "cannot run '/bin/true' in '/nonexistent-dir': No such file or directory");
  }
  // Not executable: /etc/passwd exists but cannot be run.
  try {
    Subprocess child({"/etc/passwd"});
    FAIL() << "ran a file that is not a program";
  } catch (const SpawnError& e) {
    EXPECT_EQ(e.code(), EACCES);
    EXPECT_STREQ(e.what(), "cannot run '/etc/passwd': Permission denied");
  }
}

TEST(Subprocess, DeathSignalEndsTheChildWithItsParent) {
  // A middle process starts a grandchild with death_signal = SIGKILL, reports
  // its pid and dies; the grandchild must then die too.
  int pids[2];
  ASSERT_EQ(pipe(pids), 0);
  const pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    try {
      Subprocess grandchild({"/bin/sh", "-c", "exec sleep 30"}, with([](SpawnOptions& o) { o.death_signal = SIGKILL; }));
      const pid_t g = grandchild.pid();
      if (write(pids[1], &g, sizeof g) != sizeof g) _exit(1);
    } catch (...) {
      _exit(2);
    }
    _exit(0);  // without the destructor: the grandchild is left to the death signal
  }
  close(pids[1]);
  pid_t grandchild = -1;
  ASSERT_EQ(read(pids[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  close(pids[0]);
  int status = 0;
  ASSERT_EQ(waitpid(middle, &status, 0), middle);
  EXPECT_EQ(describe_wait_status(status), "exit 0");
  // The grandchild (reparented, so not ours to reap) is gone, or a zombie.
  const auto end = Clock::now() + std::chrono::seconds(20);
  bool gone = false;
  while (!gone && Clock::now() < end) {
    std::string stat;
    if (FILE* f = std::fopen(("/proc/" + std::to_string(grandchild) + "/stat").c_str(), "r")) {
      char buf[512] = {};
      stat = std::fgets(buf, sizeof buf, f) ? buf : "";
      std::fclose(f);
    }
    const auto paren = stat.rfind(')');
    gone = stat.empty() || (paren != std::string::npos && stat.size() > paren + 2 && stat[paren + 2] == 'Z');
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the grandchild " << grandchild << " outlived its parent";
}

}  // namespace
}  // namespace soapbench
