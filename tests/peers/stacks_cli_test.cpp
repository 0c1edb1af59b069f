// `soapbench stacks`, `check --stack`, `run --stack` and `compare-stacks`
// against a peers directory of fakes (SOAPBENCH_PEERS_DIR): "fake" serves with
// soapbench-server, "broken" dies at start, "missing" is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "driver_support.h"
#include "core/results.h"

namespace soapbench::test {
namespace {

namespace fs = std::filesystem;

void write_script(const fs::path& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
}

class StacksCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path peers = dir_.path() / "peers";
    fs::create_directories(peers);
    fs::create_directory_symlink(SOAPBENCH_SOURCE_DIR "/peers/lib", peers / "lib");
    std::ofstream(peers / "stacks.txt") << "# test peers\nfake\nbroken\n\nmissing\n";
    for (const char* name : {"fake", "broken", "missing"}) {
      fs::create_directory(peers / name);
      fs::create_symlink("../lib/start", peers / name / "start");
      fs::create_symlink("../lib/stop", peers / name / "stop");
    }
    write_script(peers / "fake" / "version", "echo 'Fake SOAP 1.0'");
    write_script(peers / "fake" / "serve",
                 "exec '" + bin_path("soapbench-server") + "' --port \"$1\" --bind \"$2\" --report-interval 0");
    write_script(peers / "broken" / "version", "echo 'Broken SOAP 0.1'");
    write_script(peers / "broken" / "serve", "echo 'broken: cannot bind' >&2; exit 1");
    write_script(peers / "missing" / "version", "echo 'missing: libfoo is not installed' >&2; exit 1");
    write_script(peers / "missing" / "serve", "exit 1");
    setenv("SOAPBENCH_PEERS_DIR", peers.c_str(), 1);
    setenv("SOAPBENCH_PEER_RUN_DIR", (dir_.path() / "run").c_str(), 1);
    peers_ = peers.string();
  }
  void TearDown() override {
    run_program({peers_ + "/lib/peerctl", "stop", "fake"});
    unsetenv("SOAPBENCH_PEERS_DIR");
    unsetenv("SOAPBENCH_PEER_RUN_DIR");
  }
  int soapbench(std::vector<std::string> args) {
    args.insert(args.begin(), bin_path("soapbench"));
    out_.clear();
    err_.clear();
    return run_program(args, &out_, &err_, 120s);
  }
  std::string fake_running() {
    std::string out;
    run_program({peers_ + "/lib/peerctl", "status", "fake"}, &out);
    return out;
  }
  std::vector<fs::path> json_files(const fs::path& dir) {
    std::vector<fs::path> files;
    if (fs::exists(dir))
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
  }

  TempDir dir_;
  std::string peers_, out_, err_;
};

TEST_F(StacksCli, StacksListsEveryPeerWithVersionOrReason) {
  ASSERT_EQ(soapbench({"stacks"}), 0) << err_;
  EXPECT_NE(out_.find("gsoap      installed      gSOAP "), std::string::npos) << out_;
  EXPECT_NE(out_.find("fake       installed      Fake SOAP 1.0\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("broken     installed      Broken SOAP 0.1\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("missing    not installed  missing: libfoo is not installed (install: peers/missing/install)"),
            std::string::npos) << out_;
}

TEST_F(StacksCli, CheckStackStartsChecksAndStopsThePeer) {
  ASSERT_EQ(soapbench({"check", "--stack", "fake"}), 0) << out_ << err_;
  EXPECT_NE(out_.find("fake: Fake SOAP 1.0"), std::string::npos) << out_;
  EXPECT_NE(out_.find("echoString  ok"), std::string::npos) << out_;
  EXPECT_NE(out_.find("echoStruct  ok"), std::string::npos) << out_;
  EXPECT_EQ(fake_running(), "");
}

TEST_F(StacksCli, RunStackRecordsTheStackAndLeavesNothingRunning) {
  const fs::path out_dir = dir_.path() / "results";
  ASSERT_EQ(soapbench({"run", "--stack", "fake", "--op", "echoString", "--clients", "1,2", "--duration",
                       "300ms", "--warmup", "100ms", "--interval", "0", "--out", out_dir.string()}),
            0)
      << out_ << err_;
  EXPECT_NE(out_.find("starting fake (Fake SOAP 1.0)"), std::string::npos) << out_;
  const auto files = json_files(out_dir);
  ASSERT_EQ(files.size(), 1u);
  const RunRecord r = read_results(files[0]);
  EXPECT_EQ(r.context.stack_label, "Fake SOAP 1.0");
  EXPECT_EQ(r.context.label, "fake");
  EXPECT_EQ(r.context.options.at("stack"), "fake");
  ASSERT_EQ(r.operations.size(), 1u);
  ASSERT_EQ(r.operations[0].steps.size(), 2u);
  for (const auto& s : r.operations[0].steps) {
    EXPECT_GT(s.requests, 0u);
    EXPECT_EQ(s.failures.total(), 0u);
    EXPECT_EQ(s.connections_opened, 0u) << "keep-alive: the warm-up's connections carry the measured calls";
    EXPECT_EQ(s.http_version, "HTTP/1.1");
  }
  EXPECT_EQ(fake_running(), "");
}

TEST_F(StacksCli, APeerThatDiesAtStartOrIsMissingFailsWithTheReason) {
  EXPECT_EQ(soapbench({"run", "--stack", "broken", "--clients", "1", "--duration", "200ms"}), 3);  // the target could not be started
  EXPECT_NE(err_.find("cannot start peer broken"), std::string::npos) << err_;
  EXPECT_NE(err_.find("broken: cannot bind"), std::string::npos) << err_;
  EXPECT_EQ(soapbench({"check", "--stack", "missing"}), 3);  // nothing could be checked
  EXPECT_NE(err_.find("stack missing is not installed: missing: libfoo is not installed"), std::string::npos)
      << err_;
}

TEST_F(StacksCli, UnknownStacksAreFlagErrors) {
  EXPECT_EQ(soapbench({"run", "--stack", "nope"}), 2);
  EXPECT_NE(err_.find("--stack: unknown stack 'nope' (known: gsoap, fake, broken, missing)"), std::string::npos)
      << err_;
  EXPECT_EQ(soapbench({"compare-stacks", "--stacks", "fake,nope"}), 2);
  EXPECT_NE(err_.find("--stacks: unknown stack 'nope'"), std::string::npos) << err_;
  EXPECT_EQ(soapbench({"run", "--stack", "fake", "--server-mode", "pool"}), 2);
  EXPECT_NE(err_.find("--server-mode: only for the embedded server"), std::string::npos) << err_;
  EXPECT_EQ(soapbench({"check"}), 2);
  EXPECT_NE(err_.find("--url or --stack"), std::string::npos) << err_;
}

TEST_F(StacksCli, CompareStacksRunsEachAndTablesThemTogether) {
  const fs::path out_dir = dir_.path() / "results";
  ASSERT_EQ(soapbench({"compare-stacks", "--stacks", "gsoap,fake,missing", "--op", "echoString", "--clients",
                       "1", "--duration", "300ms", "--warmup", "100ms", "--first-warmup", "100ms", "--out",
                       out_dir.string()}),
            0)
      << out_ << err_;
  const auto files = json_files(out_dir);
  ASSERT_EQ(files.size(), 2u) << out_;
  // File names start with the second a run began: both may share it, so go by label.
  std::set<std::string> labels;
  for (const auto& f : files) labels.insert(read_results(f).context.label);
  EXPECT_EQ(labels, (std::set<std::string>{"gsoap", "fake"}));
  EXPECT_LT(out_.find("#### gsoap"), out_.find("#### fake")) << "stacks run in the order given";
  EXPECT_NE(out_.find("== Side by side (ratios against gsoap)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("== Stacks compared (cpu us: the server's CPU microseconds per request at the peak)\necho"),
            std::string::npos) << out_;
  EXPECT_NE(out_.find("echoString: requests/s by clients; peak, and peak against gsoap\n"), std::string::npos) << out_;
  EXPECT_NE(out_.find("not in the table: missing: not installed: missing: libfoo is not installed"),
            std::string::npos) << out_;
  EXPECT_NE(out_.find("charts: "), std::string::npos) << out_;
  EXPECT_EQ(fake_running(), "");
}

}  // namespace
}  // namespace soapbench::test
