#pragma once
// Timing shared by the two coordinators of a ramp (coordinate.cpp, for client
// processes on this host; mpi_ramp.cpp, for MPI ranks) and the engine they start.
#include <chrono>

namespace soapbench {

// Seconds since the Unix epoch: the shared start time every client is given.
inline double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Time from the go to the shared start: enough for the word to reach every
// client, which has already built its connection.
inline constexpr double kStartDelayS = 0.1;
// A client silent for interval + timeout + this, once measuring, is stuck.
inline constexpr double kSilenceSlackS = 5;
// GET /stats of a busy server on a loaded host can be slow; a dead one costs this.
inline constexpr double kStatsTimeoutS = 2;

}  // namespace soapbench
