#pragma once
// The SOAP stacks a run can drive: the embedded gSOAP server ("gsoap") and the
// peers in peers/ (see peers/README.md for the scripts each keeps). This file
// only finds, probes, starts and stops them; measuring is the ramp's job.
#include <sys/types.h>

#include <string>
#include <vector>

namespace soapbench {

inline constexpr const char* kEmbeddedStack = "gsoap";  // soapbench-server, no peer scripts

// $SOAPBENCH_PEERS_DIR when set, else the source tree's peers/ this binary was built from.
std::string peers_dir();

// "gsoap" then the peers of <dir>/stacks.txt, in its order. Throws
// std::runtime_error naming the file when it cannot be read.
std::vector<std::string> stack_names(const std::string& dir);

struct StackStatus {
  std::string name;
  bool installed = false;
  std::string version;  // the `version` script's line, e.g. "PHP 8.2.26 ext/soap"
  std::string reason;   // why not installed: its stderr, or what went wrong running it
};

// Runs <dir>/<name>/version (at most timeout_s). For "gsoap", reports the
// embedded server and the gSOAP version this binary was built with.
StackStatus probe_stack(const std::string& dir, const std::string& name, double timeout_s = 30);

// What a program printed and how it ended.
struct ProgramOutput {
  int exit_code = -1;      // -1 when killed (timeout) or not started
  std::string out, err;
  bool timed_out = false;
};

// Runs argv[0] with argv, standard input from /dev/null, for at most timeout_s
// (then SIGKILL). Never throws for the program's own failures.
ProgramOutput run_program(const std::vector<std::string>& argv, double timeout_s);

// A peer started with peers/NAME/start and stopped with peers/NAME/stop.
class PeerProcess {
 public:
  // Starts it on a free loopback port. Throws std::runtime_error with the
  // start script's messages when it does not answer within timeout_s.
  PeerProcess(const std::string& dir, const std::string& name, double timeout_s = 120);
  ~PeerProcess();  // stop()
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  const std::string& url() const { return url_; }
  // Its process group (from `peerctl status`), for its CPU time; 0 if unknown.
  pid_t process_group() const { return pgid_; }
  // Runs the stop script once; returns "" or what went wrong.
  std::string stop();

 private:
  std::string dir_, name_, url_, port_;
  pid_t pgid_ = 0;
  bool stopped_ = false;
};

// The port of "http://host:PORT/path" ("" when there is none).
std::string url_port(const std::string& url);

}  // namespace soapbench
