#pragma once
// A run's verdict as JUnit XML, the format Jenkins, GitLab and GitHub test
// reports read: one <testsuite> per operation, one <testcase> per step, a
// <failure> per failed criterion (core/assertions.h) with the measured value.
#include <ostream>
#include <string>

#include "core/results.h"

namespace soapbench {

// Writes the <testsuites> document. Testcases are named "OPERATION xCLIENTS"
// (" at RATE/s" in rate mode), classname "soapbench.OPERATION", time the
// step's measured seconds; a not-measured criterion is a <skipped>. `error`,
// when not empty (the target could not be reached, the ramp broke), is one
// more testcase "soapbench run" with an <error>, so that a run that measured
// nothing still fails in the report.
void write_junit(std::ostream& os, const RunRecord& record, const std::string& error);

}  // namespace soapbench
