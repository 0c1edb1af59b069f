#pragma once
// The endpoint a command drives: the URL it was given, a peer stack it starts
// (--stack NAME), or the embedded soapbench-server. run, check and soapbench-mpi
// start their target this way, so that each knows the same things of it: its
// URL, and the process group whose CPU stands in for a peer's missing /stats.
#include <sys/types.h>

#include <iosfwd>
#include <memory>
#include <string>

#include "proc/server_process.h"
#include "proc/stacks.h"

namespace soapbench {

class RunTarget {
 public:
  // `url` given: nothing is started. Else `stack` names a peer (started from
  // peers/) or is "" or "gsoap" (soapbench-server, started in `server_mode`).
  // Says on `out` what it started. Throws std::runtime_error saying why it
  // could not (not installed, not built, did not answer).
  RunTarget(const std::string& url, const std::string& stack, const std::string& server_mode, std::ostream& out);
  ~RunTarget();
  RunTarget(const RunTarget&) = delete;
  RunTarget& operator=(const RunTarget&) = delete;

  const std::string& url() const { return url_; }
  // The process group whose CPU is the server's: a peer's, or one named with
  // observe(); 0 otherwise.
  pid_t process_group() const { return peer_ ? peer_->process_group() : observed_; }
  void observe(pid_t process_group) { observed_ = process_group; }
  const std::string& peer_version() const { return peer_version_; }  // its `version` line; "" when no peer
  bool started_here() const { return server_ || peer_; }
  // Stops what was started; returns "" or what went wrong with a peer's stop script.
  std::string stop();

 private:
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<PeerProcess> peer_;
  std::string url_, peer_version_;
  pid_t observed_ = 0;
};

}  // namespace soapbench
