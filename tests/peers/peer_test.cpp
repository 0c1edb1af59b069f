// Every peer of peers/stacks.txt: installed, conformant on both operations
// (every field compared by the raw client), one short ramp with no error, the
// results naming the stack, and nothing left running afterwards.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "driver_support.h"
#include "core/results.h"
#include "proc/stacks.h"

namespace soapbench::test {
namespace {

std::vector<std::string> peer_names() {
  std::vector<std::string> names = stack_names(SOAPBENCH_SOURCE_DIR "/peers");
  names.erase(names.begin());  // "gsoap", the embedded server: tested everywhere else
  return names;
}

// peers/NAME/known-faults: "OPERATION<TAB>fault text" lines, what the stack
// cannot echo with the default payload (its README says why).
std::map<std::string, std::string> known_faults(const std::string& name) {
  std::map<std::string, std::string> faults;
  std::ifstream in(SOAPBENCH_SOURCE_DIR "/peers/" + name + "/known-faults");
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    faults[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return faults;
}

class Peer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    // Own pid files and logs, so that "nothing left" means this test's peer.
    setenv("SOAPBENCH_PEER_RUN_DIR", (run_dir_.path() / "run").c_str(), 1);
    setenv("SOAPBENCH_PEERS_DIR", SOAPBENCH_SOURCE_DIR "/peers", 1);
  }
  std::string peers() const { return SOAPBENCH_SOURCE_DIR "/peers"; }
  std::string still_running() {
    std::string out;
    run_program({peers() + "/lib/peerctl", "status", GetParam()}, &out);
    return out;
  }
  TempDir run_dir_;
};

TEST_P(Peer, IsInstalledConformsAndRunsARampStep) {
  const std::string name = GetParam();
  const StackStatus status = probe_stack(peers(), name);
  ASSERT_TRUE(status.installed) << name << " is not installed: " << status.reason
                                << " (run peers/" << name << "/install or peers/install-all)";

  std::string out, err;
  const int check = run_program({bin_path("soapbench"), "check", "--stack", name}, &out, &err, 300s);
  // Every operation echoed, but for the peer's known faults: those must show
  // as the fault it declares (the validator makes no exception for them).
  const auto faults = known_faults(name);
  EXPECT_EQ(check, faults.empty() ? 0 : 1) << out << err;
  std::string ops;
  for (const std::string op : {"echoString", "echoStruct"}) {
    const auto known = faults.find(op);
    const std::string expected = known == faults.end() ? op + "  ok" : op + "  soap_fault  " + known->second;
    EXPECT_NE(out.find(expected), std::string::npos) << "expected '" << expected << "'\n" << out << err;
    if (known == faults.end()) ops += (ops.empty() ? "" : ",") + op;
  }
  EXPECT_EQ(still_running(), "") << "check left " << name << " running";
  ASSERT_FALSE(ops.empty()) << name << " echoes no operation";

  const TempDir results;
  const int run = run_program({bin_path("soapbench"), "run", "--stack", name, "--op", ops, "--clients", "2",
                               "--duration", "1s", "--warmup", "1s", "--first-warmup", "3s",
                               "--interval", "0", "--out", results.path().string()},
                              &out, &err, 300s);
  ASSERT_EQ(run, 0) << out << err;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(results.path()))
    if (e.path().extension() == ".json") files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << out;
  const RunRecord record = read_results(files.front());
  EXPECT_EQ(record.context.stack_label, status.version);
  EXPECT_EQ(record.context.label, name);
  EXPECT_FALSE(record.partial);
  ASSERT_EQ(record.operations.size(), 2u - faults.size());
  for (const auto& op : record.operations) {
    ASSERT_EQ(op.steps.size(), 1u) << op.operation;
    EXPECT_GT(op.steps[0].requests, 0u) << op.operation;
    EXPECT_EQ(op.steps[0].failures.total(), 0u) << op.operation << "\n" << out;
    // No /stats: the CPU of the peer's process group, read from /proc.
    ASSERT_TRUE(op.steps[0].server_cpu_pct.has_value()) << op.operation;
    EXPECT_GT(*op.steps[0].server_cpu_pct, 0.0) << op.operation;
  }
  EXPECT_EQ(still_running(), "") << "run left " << name << " running";
}

INSTANTIATE_TEST_SUITE_P(Stacks, Peer, ::testing::ValuesIn(peer_names()),
                         [](const auto& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace soapbench::test
