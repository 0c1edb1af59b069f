#pragma once
// The ramp across an MPI job: every rank is one client running the same
// engine as a `soapbench worker`; rank 0 also coordinates. Per step: rank 0
// decides to go on, the step's clients are spread over the hosts
// (spread_clients), each builds its client, all meet at a barrier and start
// together, rank 0 prints the live lines from the intervals the others send,
// and the results are gathered to rank 0, which concludes the step exactly as
// the local driver does, with a per-host breakdown.
#include <atomic>
#include <iosfwd>

#include "coordinate.h"
#include "mpi_job.h"

namespace soapbench {

// Collective: every rank calls it with the same plan. `go` matters at rank 0
// only: false (e.g. the probe failed) ends the ramp before its first step.
// `stop`, set by a signal handler on any rank, ends that rank's client early
// (its result marked partial); a step with a partial result, or rank 0's
// `stop`, marks the step interrupted and ends the ramp after it.
// Rank 0's outcome holds the steps; the other ranks' is empty. A rank that
// stops reporting while measuring ends the whole job (MPI_Abort) with a message.
RampOutcome run_mpi_ramp(const RampPlan& plan, const MpiJob& job, bool go, const std::atomic<bool>& stop,
                         std::ostream& out);

}  // namespace soapbench
