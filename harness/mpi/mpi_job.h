#pragma once
// The MPI job soapbench-mpi runs in: which rank this is, where every rank
// runs, and the few collective operations the ramp needs, on strings (JSON)
// so that records travel in the same form as over the local driver's pipes.
// Only soapbench-mpi links this; the local driver needs no MPI.
#include <string>
#include <vector>

namespace soapbench {

struct MpiJob {
  int rank = 0;                        // this process's rank in MPI_COMM_WORLD
  int size = 1;                        // ranks in the job
  std::vector<std::string> host_of;    // per rank: its host's name (MPI_Get_processor_name)
  std::vector<unsigned> cores_of;      // per rank: online cores of its host
  bool root() const { return rank == 0; }
};

// Initialises MPI (MPI_THREAD_FUNNELED: rank 0 runs its client's engine in a
// thread, and only the main thread calls MPI). Throws std::runtime_error.
void mpi_init(int& argc, char**& argv);
void mpi_finalize();
// Ends the whole job at once, e.g. when a rank is stuck.
[[noreturn]] void mpi_abort(int code);

// Learns every rank's host (collective). Two nodes that report the same name
// (hosts simulated without their own hostname) get "#N" appended, so that
// the per-host breakdown never merges distinct nodes.
MpiJob discover_job();

// Collectives on byte strings over MPI_COMM_WORLD.
std::vector<std::string> gather_strings(const std::string& mine);  // at rank 0; elsewhere empty
std::vector<std::string> allgather_strings(const std::string& mine);
void broadcast_string(std::string& text);  // rank 0's text to every rank
int broadcast_int(int value);              // rank 0's value to every rank
void barrier();

// Point to point, for live intervals while a step measures: every rank to rank 0.
enum class MpiTag : int { interval = 11, done = 12 };
void send_to_root(MpiTag tag, const std::string& bytes);
struct MpiMessage {
  int source = -1;
  MpiTag tag = MpiTag::interval;
  std::string bytes;
};
// A message that has arrived at rank 0, without waiting; false when none has.
bool receive_if_any(MpiMessage& message);

}  // namespace soapbench
