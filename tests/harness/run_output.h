#pragma once
// The soapbench commands that write a results file (run, tcp-echo, chat), as
// the end-to-end tests start them and read back what they wrote. Header-only:
// only tests that link the driver include it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver_support.h"
#include "core/results.h"

namespace soapbench::test {

// argv for `soapbench COMMAND --out DIR`, followed by `extra`.
inline std::vector<std::string> soapbench_command(const std::string& command, const TempDir& out,
                                                  const std::vector<std::string>& extra) {
  std::vector<std::string> args{bin_path("soapbench"), command, "--out", out.path().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// The results file named on the last line of the command's output.
inline RunRecord results_of(const Program& p) {
  const std::string path = p.last_line();
  EXPECT_NE(path.find(".json"), std::string::npos) << p.out() << p.err();
  return read_results(path);
}

}  // namespace soapbench::test
