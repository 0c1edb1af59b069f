// MPI plumbing for soapbench-mpi: the job's layout and string collectives.
#include "mpi/mpi_job.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <map>
#include <stdexcept>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace soapbench {

namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(fmt::format("{}: {}", what, std::string(text, static_cast<size_t>(length))));
}

int as_count(size_t n) {
  if (n > INT_MAX) throw std::runtime_error("MPI message larger than 2 GiB");
  return static_cast<int>(n);
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Splits `all` (the concatenation) into pieces of `counts` bytes.
std::vector<std::string> split(const std::vector<char>& all, const std::vector<int>& counts) {
  std::vector<std::string> out;
  size_t at = 0;
  for (int c : counts) {
    out.emplace_back(all.data() + at, static_cast<size_t>(c));
    at += static_cast<size_t>(c);
  }
  return out;
}

std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  return offsets;
}

}  // namespace

void mpi_init(int& argc, char**& argv) {
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  if (provided < MPI_THREAD_FUNNELED)
    throw std::runtime_error("this MPI library cannot run a thread beside MPI calls (MPI_THREAD_FUNNELED)");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

void mpi_finalize() { MPI_Finalize(); }

void mpi_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  _exit(code);  // MPI_Abort does not return; this is for the compiler and odd libraries
}

MpiJob discover_job() {
  MpiJob job;
  job.rank = world_rank();
  MPI_Comm_size(MPI_COMM_WORLD, &job.size);
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  // The ranks that share memory are one node; its lowest world rank names it.
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  int node_id = job.rank;
  check(MPI_Allreduce(&job.rank, &node_id, 1, MPI_INT, MPI_MIN, node), "MPI_Allreduce");
  MPI_Comm_free(&node);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const nlohmann::json mine = {{"host", std::string(name, static_cast<size_t>(length))},
                               {"node", node_id},
                               {"cores", cores > 0 ? cores : 0}};

  std::map<std::string, std::vector<int>> nodes_named;  // host name -> node ids, in rank order
  std::vector<nlohmann::json> all;
  for (const auto& text : allgather_strings(mine.dump())) all.push_back(nlohmann::json::parse(text));
  for (const auto& j : all) {
    auto& ids = nodes_named[j.at("host").get<std::string>()];
    if (std::find(ids.begin(), ids.end(), j.at("node").get<int>()) == ids.end())
      ids.push_back(j.at("node").get<int>());
  }
  for (const auto& j : all) {
    const std::string host = j.at("host").get<std::string>();
    const auto& ids = nodes_named[host];
    const auto index = std::find(ids.begin(), ids.end(), j.at("node").get<int>()) - ids.begin();
    job.host_of.push_back(ids.size() == 1 ? host : fmt::format("{}#{}", host, index + 1));
    job.cores_of.push_back(j.at("cores").get<unsigned>());
  }
  return job;
}

std::vector<std::string> gather_strings(const std::string& mine) {
  const int rank = world_rank();
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = as_count(mine.size());
  std::vector<int> counts(rank == 0 ? static_cast<size_t>(size) : 0);
  check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> offsets = offsets_of(counts);
  std::vector<char> all(rank == 0 && size > 0 ? static_cast<size_t>(offsets.back() + counts.back()) : 0);
  check(MPI_Gatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  return rank == 0 ? split(all, counts) : std::vector<std::string>{};
}

std::vector<std::string> allgather_strings(const std::string& mine) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = as_count(mine.size());
  std::vector<int> counts(static_cast<size_t>(size));
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::vector<int> offsets = offsets_of(counts);
  std::vector<char> all(static_cast<size_t>(offsets.back() + counts.back()));
  check(MPI_Allgatherv(mine.data(), count, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  return split(all, counts);
}

void broadcast_string(std::string& text) {
  int count = as_count(text.size());
  check(MPI_Bcast(&count, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  text.resize(static_cast<size_t>(count));
  check(MPI_Bcast(text.data(), count, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

int broadcast_int(int value) {
  check(MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return value;
}

void barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void send_to_root(MpiTag tag, const std::string& bytes) {
  check(MPI_Send(bytes.data(), as_count(bytes.size()), MPI_CHAR, 0, static_cast<int>(tag), MPI_COMM_WORLD),
        "MPI_Send");
}

bool receive_if_any(MpiMessage& message) {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  message.source = status.MPI_SOURCE;
  message.tag = static_cast<MpiTag>(status.MPI_TAG);
  message.bytes.assign(static_cast<size_t>(count), '\0');
  check(MPI_Recv(message.bytes.data(), count, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return true;
}

}  // namespace soapbench
