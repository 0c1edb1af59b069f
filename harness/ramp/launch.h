#pragma once
// Client processes: the driver starts one `soapbench worker` process per
// client with fork + exec, hands it its plan and reads what it reports.
//
// Why exec rather than a bare fork: the worker starts as a fresh program, with
// none of the driver's threads, sockets, libcurl/gSOAP global state or memory;
// and the plan travels as JSON on stdin, so a later launcher can start the
// same `soapbench worker` on another host (ssh host soapbench worker) without
// changing the worker. The cost, a few milliseconds per process, is paid
// before the shared start time.
//
// The protocol, one JSON object per line:
//   driver -> worker stdin:  {"plan": {...}}               at once
//                            {"start_at_unix_s": T}        when every worker is ready
//   worker -> driver stdout: {"type":"ready"}              client built, waiting for T
//                            {"type":"interval","interval":{...}}   per closed interval
//                            {"type":"result","result":{...}}       last line
//                            {"type":"error","message":"..."}       setup failed, then exit 1
// SIGTERM asks a worker to stop: it ends its loop (or, when a call is blocked,
// reports what it has after 200 ms) and writes its result marked partial.
#include <sys/types.h>

#include <atomic>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "proc/signals.h"
#include "proc/subprocess.h"

namespace soapbench {

// What a worker said, or that it ended.
struct WorkerMessage {
  enum class Type {
    ready,     // built its client; waiting for the start time
    interval,  // `interval` holds one closed interval of its measured phase
    result,    // `result` holds its final (or partial) result
    error,     // `text` says why it could not run
    exited,    // the process has ended; `text` says how ("exit 0", "killed by SIGKILL")
  };
  Type type = Type::ready;
  size_t worker = 0;  // index into the plans given to WorkerGroup
  EngineInterval interval;
  WorkerResult result;
  std::string text;
};

class WorkerGroup {
 public:
  // Starts `program worker` once per plan (each in its own process group, so a
  // terminal's Ctrl-C reaches only the driver, and with PR_SET_PDEATHSIG so
  // that no worker outlives a killed driver) and writes each its plan.
  // Throws std::runtime_error when a process cannot be started.
  WorkerGroup(const std::string& program, const std::vector<WorkerPlan>& plans);
  // Kills (SIGKILL) and reaps every worker still running.
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  size_t size() const { return workers_.size(); }
  pid_t pid(size_t worker) const { return workers_[worker].process.pid(); }

  // Tells every worker when to start (realtime seconds since the epoch).
  void go(double start_at_unix_s);

  // Waits up to timeout_s for output from any worker, or for `wake_fd` (when
  // >= 0) to become readable, and returns the complete messages read. A worker
  // whose output ends is reaped and reported as `exited`.
  std::vector<WorkerMessage> poll(double timeout_s, int wake_fd = -1);

  // Every worker has ended (its output closed and the process reaped).
  bool all_exited() const;
  bool exited(size_t worker) const { return workers_[worker].exited; }

  // SIGTERM to every worker still running: each reports a partial result.
  void terminate();
  // SIGKILL to every worker still running, then reaps them all.
  void kill_all();

 private:
  struct Worker {
    Subprocess process;   // its stdin and stdout are pipes to us
    std::string pending;  // bytes read, not yet a whole line
    bool exited = false;
  };
  void spawn(const std::string& program, const std::vector<WorkerPlan>& plans);
  void read_from(size_t index, std::vector<WorkerMessage>& out);
  void parse_line(size_t index, const std::string& line, std::vector<WorkerMessage>& out);
  void reap(size_t index, std::vector<WorkerMessage>& out);

  std::vector<Worker> workers_;
};

// The `soapbench worker` side: reads the plan and the start time from `in_fd`,
// runs the engine with a client of the plan's kind and writes its messages to
// `out_fd`. Returns the process exit code (0 once a result was written).
int run_worker(int in_fd, int out_fd);

}  // namespace soapbench
