// `soapbench` flags: defaults, conversions, and every bad value exiting 2 with
// a message that names the flag. Then the program itself for exit codes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "commands/cli.h"
#include "commands/command_table.h"
#include "core/results.h"
#include "driver_support.h"
#include "ramp/plan.h"

namespace soapbench {
namespace {

struct Parsed {
  ParsedCommandLine p;
  std::string out, err;
};

Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "soapbench");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  Parsed r{parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err), "", ""};
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(DriverCli, RunDefaults) {
  const Parsed r = parse({"run"});
  ASSERT_EQ(r.p.exit_code, -1) << r.err;
  ASSERT_EQ(r.p.command, Command::run);
  const RunConfig& c = r.p.run;
  EXPECT_TRUE(c.call.client.url.empty());
  EXPECT_EQ(c.operations, (std::vector<Operation>{Operation::echo_string, Operation::echo_struct}));
  EXPECT_EQ(c.load.clients, (std::vector<unsigned>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(c.load.duration_s, 10);
  EXPECT_EQ(c.load.requests, 0u);
  EXPECT_EQ(c.load.warmup_s, 2);
  EXPECT_LT(c.load.first_warmup_s, 0) << "unset: the same as --warmup";
  EXPECT_EQ(c.call.client_kind, "raw");
  EXPECT_EQ(c.call.client.timeout_s, 5);
  EXPECT_EQ(c.load.interval_s, 5);
  EXPECT_EQ(c.out_dir, "results");
  EXPECT_EQ(c.server_mode, "per-connection");
  EXPECT_FALSE(c.server_mode_given);
}

TEST(DriverCli, RunConvertsUnitsListsAndSizes) {
  const Parsed r = parse({"run", "--url", "http://127.0.0.1:9/echo", "--op", "echoStruct", "--clients",
                          "4,1-2", "--requests", "2k", "--warmup", "500ms", "--first-warmup", "1m",
                          "--client", "curl", "--new-connection", "--rate", "250.5", "--timeout", "1.5s",
                          "--interval", "0", "--label", "my run", "--out", "/tmp/x", "--string-length",
                          "64", "--items", "3", "--binary-bytes", "1k"});
  ASSERT_EQ(r.p.exit_code, -1) << r.err;
  const RunConfig& c = r.p.run;
  EXPECT_EQ(c.call.client.url, "http://127.0.0.1:9/echo");
  EXPECT_EQ(c.operations, std::vector<Operation>{Operation::echo_struct});
  EXPECT_EQ(c.load.clients, (std::vector<unsigned>{1, 2, 4}));
  EXPECT_EQ(c.load.requests, 2000u);
  EXPECT_EQ(c.load.warmup_s, 0.5);
  EXPECT_EQ(c.load.first_warmup_s, 60);
  EXPECT_EQ(c.call.client_kind, "curl");
  EXPECT_TRUE(c.call.client.new_connection);
  EXPECT_EQ(c.load.rates, std::vector<double>{250.5});
  EXPECT_EQ(c.call.client.timeout_s, 1.5);
  EXPECT_EQ(c.load.interval_s, 0);
  EXPECT_EQ(c.label, "my run");
  EXPECT_EQ(c.call.client.payload.string_length, 64u);
  EXPECT_EQ(c.call.client.payload.items, 3u);
  EXPECT_EQ(c.call.client.payload.binary_bytes, 1000u);
  EXPECT_NE(c.command_line.find("'my run'"), std::string::npos) << c.command_line;
}

TEST(DriverCli, PayloadSizeSetsLengthAndOptionallyItems) {
  const Parsed both = parse({"run", "--payload-size", "2k,4"});
  ASSERT_EQ(both.p.exit_code, -1) << both.err;
  EXPECT_EQ(both.p.run.call.client.payload.string_length, 2000u);
  EXPECT_EQ(both.p.run.call.client.payload.items, 4u);
  const Parsed length_only = parse({"run", "--payload-size", "100"});
  ASSERT_EQ(length_only.p.exit_code, -1) << length_only.err;
  EXPECT_EQ(length_only.p.run.call.client.payload.string_length, 100u);
  EXPECT_EQ(length_only.p.run.call.client.payload.items, 1u);  // the default stays
}

struct BadFlag {
  std::vector<std::string> args;
  std::string named;  // what the message must contain
};

void PrintTo(const BadFlag& f, std::ostream* os) {
  for (size_t i = 0; i < f.args.size(); ++i) *os << (i ? " " : "") << f.args[i];
}

// A SOAP 1.1 envelope of the echo contract, as any service's request file.
const std::string kRequest = std::string(SOAPBENCH_SOURCE_DIR) + "/wsdl/examples/echoString-request.xml";

class DriverCliBadFlag : public testing::TestWithParam<BadFlag> {};

TEST_P(DriverCliBadFlag, ExitsTwoNamingTheFlag) {
  const Parsed r = parse(GetParam().args);
  EXPECT_EQ(r.p.exit_code, 2);
  EXPECT_NE(r.err.find(GetParam().named), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Values, DriverCliBadFlag,
    testing::Values(BadFlag{{"run", "--clients", "0"}, "--clients"},
                    BadFlag{{"run", "--clients", "5-2"}, "--clients"},
                    BadFlag{{"run", "--duration", "-1s"}, "--duration"},
                    BadFlag{{"run", "--duration", "10x"}, "--duration"},
                    BadFlag{{"run", "--duration", "0"}, "--duration"},
                    BadFlag{{"run", "--requests", "0"}, "--requests"},
                    BadFlag{{"run", "--requests", "1.5"}, "--requests"},
                    BadFlag{{"run", "--duration", "1s", "--requests", "5"}, "--requests"},
                    BadFlag{{"run", "--warmup", "soon"}, "--warmup"},
                    BadFlag{{"run", "--first-warmup", "-2s"}, "--first-warmup"},
                    BadFlag{{"run", "--client", "axis"}, "--client"},
                    BadFlag{{"run", "--op", "echoFloat"}, "--op"},
                    BadFlag{{"run", "--rate", "-5"}, "--rate"},
                    BadFlag{{"run", "--rate", "fast"}, "--rate"},
                    BadFlag{{"run", "--rate", "500-4000"}, "--rate"},
                    BadFlag{{"run", "--rate", "0,100"}, "--rate"},
                    BadFlag{{"run", "--rate", "100,200", "--clients", "1,2"}, "--rate"},
                    BadFlag{{"run", "--wait", "soon"}, "--wait"},
                    BadFlag{{"run", "--runs", "0"}, "--runs"},
                    BadFlag{{"run", "--request-file", "/nonexistent.xml"}, "--request-file: /nonexistent.xml"},
                    BadFlag{{"run", "--request-file", kRequest, "--op", "echoString"}, "--op"},
                    BadFlag{{"run", "--request-file", kRequest, "--client", "gsoap"}, "--request-file"},
                    BadFlag{{"run", "--request-file", kRequest, "--expect", "xpath:count("}, "--expect"},
                    BadFlag{{"run", "--request-file", kRequest, "--expect", "same"}, "--expect"},
                    BadFlag{{"run", "--request-file", kRequest, "--header", "no colon"}, "--header"},
                    BadFlag{{"run", "--request-file", kRequest, "--soap", "2.0"}, "--soap"},
                    BadFlag{{"run", "--request-file", kRequest, "--soap", "1.2"}, "--request-file"},
                    BadFlag{{"run", "--soap-action", "urn:x"}, "--soap-action"},
                    BadFlag{{"run", "--expect", "echo"}, "--expect"},
                    BadFlag{{"check", "--url", "http://127.0.0.1:9/", "--header", "X: y"}, "--header"},
                    BadFlag{{"compare-stacks", "--request-file", kRequest}, "--request-file"},
                    BadFlag{{"run", "--connections-per-client", "0"}, "--connections-per-client"},
                    BadFlag{{"run", "--connections-per-client", "many"}, "--connections-per-client"},
                    BadFlag{{"run", "--connections-per-client", "2", "--client", "gsoap"},
                            "--connections-per-client"},
                    BadFlag{{"run", "--wait", "exp:"}, "--wait"},
                    BadFlag{{"run", "--wait", "10ms", "--rate", "100"}, "--wait"},
                    BadFlag{{"run", "--timeout", "0"}, "--timeout"},
                    BadFlag{{"run", "--interval", "10ms"}, "--interval"},
                    BadFlag{{"run", "--string-length", "-1"}, "--string-length"},
                    BadFlag{{"run", "--items", "many"}, "--items"},
                    BadFlag{{"run", "--payload-size", "1k,x"}, "--payload-size"},
                    BadFlag{{"run", "--payload-size", "10", "--items", "2"}, "--payload-size"},
                    BadFlag{{"run", "--server-mode", "forking"}, "--server-mode"},
                    BadFlag{{"run", "--url", "http://127.0.0.1:9/echo", "--server-mode", "pool"},
                            "--server-mode"},
                    BadFlag{{"run", "--url", "ftp://127.0.0.1/echo"}, "--url"},
                    BadFlag{{"run", "--bogus"}, "--bogus"},
                    BadFlag{{"run", "--server-pid", "1"}, "--server-pid: only with --url"},
                    BadFlag{{"run", "--url", "http://127.0.0.1:9/echo", "--server-pid", "4194303"},
                            "--server-pid: no process 4194303"},
                    BadFlag{{"run", "--url", "http://127.0.0.1:9/echo", "--server-pid", "0"}, "--server-pid"},
                    BadFlag{{"check"}, "--url"},
                    BadFlag{{"check", "--url", "nonsense"}, "--url"},
                    BadFlag{{"compare"}, "files"},
                    BadFlag{{}, "subcommand"}));

// --wait: a fixed think time, or exp: for an exponential one of that mean; the
// engine's plan carries both.
TEST(DriverCli, WaitFixedOrExponential) {
  Parsed r = parse({"run", "--url", "http://127.0.0.1:9/echo", "--wait", "exp:100ms"});
  ASSERT_EQ(r.p.exit_code, -1) << r.err;
  EXPECT_DOUBLE_EQ(r.p.run.load.pause_s, 0.1);
  EXPECT_TRUE(r.p.run.load.pause_exponential);
  RampPlan plan;
  plan.load = r.p.run.load;
  const WorkerPlan wp = client_plan(plan, Operation::echo_string, {1, 0}, 0, 0);
  EXPECT_DOUBLE_EQ(wp.pause_s, 0.1);
  EXPECT_TRUE(wp.pause_exponential);
  // The step loop waits this long on top of a call before it takes a client for silent.
  EXPECT_DOUBLE_EQ(r.p.run.load.longest_pause_s(), 1.0) << "exponential draws are cut at 10x the mean";
  r = parse({"run", "--url", "http://127.0.0.1:9/echo", "--wait", "20ms"});
  ASSERT_EQ(r.p.exit_code, -1) << r.err;
  EXPECT_DOUBLE_EQ(r.p.run.load.pause_s, 0.02);
  EXPECT_FALSE(r.p.run.load.pause_exponential);
  EXPECT_DOUBLE_EQ(r.p.run.load.longest_pause_s(), 0.02);
}

// A list of rates: one step per rate, in the order given, at the one client count.
TEST(DriverCli, RateListsAndRanges) {
  Parsed r = parse({"run", "--url", "http://127.0.0.1:9/echo", "--clients", "4", "--rate", "500-4000x2,300"});
  ASSERT_EQ(r.p.exit_code, -1) << r.err;
  EXPECT_EQ(r.p.run.load.rates, (std::vector<double>{500, 1000, 2000, 4000, 300}));
  auto steps = r.p.run.load.steps();
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[4].clients, 4u);
  EXPECT_EQ(steps[4].rate, 300);
  // --runs: each load that many times in a row.
  r = parse({"run", "--url", "http://127.0.0.1:9/echo", "--clients", "1,2", "--runs", "3"});
  ASSERT_EQ(r.p.exit_code, -1) << r.err;
  steps = r.p.run.load.steps();
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[2].clients, 1u);
  EXPECT_EQ(steps[3].clients, 2u);
  r = parse({"run", "--rate", "100,200", "--clients", "1-3"});
  EXPECT_EQ(r.p.exit_code, 2);
  EXPECT_NE(r.err.find("--rate: a list of rates (100,200) takes one --clients count, not 1-3"), std::string::npos)
      << r.err;
}

TEST(DriverCli, OutMustNotBeAFile) {
  test::TempDir dir;
  const auto file = dir.path() / "plain";
  std::ofstream(file) << "x";
  const Parsed r = parse({"run", "--out", file.string()});
  EXPECT_EQ(r.p.exit_code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}

TEST(DriverCli, WorkerIsHiddenFromHelp) {
  const Parsed r = parse({"--help"});
  EXPECT_EQ(r.p.exit_code, 0);
  EXPECT_NE(r.out.find("run"), std::string::npos);
  EXPECT_EQ(r.out.find("worker"), std::string::npos) << r.out;
  EXPECT_EQ(parse({"worker"}).p.command, Command::worker);
}

// soapbench --help: every command of the table in one list, each with its summary.
TEST(CommandTable, HelpListsEveryCommandWithItsSummary) {
  std::vector<const char*> argv{"soapbench", "--help"};
  std::ostringstream out, err;
  EXPECT_EQ(run_command_table("soapbench", "about", soapbench_commands(), 2, argv.data(), out, err), 0);
  const std::string help = out.str();
  size_t listed = 0;
  for (const auto& c : soapbench_commands()) {
    const std::string line = fmt::format("  {:<15} {}\n", c.name, c.summary);
    if (c.listed) {
      EXPECT_NE(help.find(line), std::string::npos) << "missing: " << line << help;
      ++listed;
    } else {
      EXPECT_EQ(help.find(std::string(c.name)), std::string::npos) << c.name << " is internal:\n" << help;
    }
  }
  EXPECT_EQ(listed, 14u)
      << "run check compare report plot stacks compare-stacks requests capacity tcp-echo sweep merge export chat";
  for (const char* name : {"run", "report", "requests", "capacity", "tcp-echo", "sweep", "merge", "export", "chat",
                           "compare-stacks"})
    EXPECT_FALSE(command_summary(name).empty()) << name;
  EXPECT_NE(help.find("Exit status: 0"), std::string::npos) << help;
}

TEST(Flags, ATimeoutBelowWhatTheClientHonoursIsRefusedNamingTheFlag) {
  const std::string bin = test::bin_path("soapbench");
  std::string out, err;
  EXPECT_EQ(test::run_program({bin, "check", "--url", "http://127.0.0.1:1/echo", "--client", "curl", "--timeout",
                               "500us"},
                              &out, &err),
            2);
  EXPECT_NE(err.find("--timeout: 0.5 ms is below the shortest timeout the curl client honours (1 ms)"),
            std::string::npos)
      << err;
  // raw honours it: a refused connection (exit 3: not reachable), not a usage error.
  EXPECT_EQ(test::run_program({bin, "check", "--url", "http://127.0.0.1:1/echo", "--timeout", "500us"}, &out, &err),
            3)
      << err;
}

TEST(ExportCommand, NeedsAnOutputAndAReadableFile) {
  const std::string bin = test::bin_path("soapbench");
  std::string out, err;
  EXPECT_EQ(test::run_program({bin, "export", "/nonexistent.json"}, &out, &err), 2);
  EXPECT_NE(err.find("--hgrm or --hlog"), std::string::npos) << err;
  EXPECT_EQ(test::run_program({bin, "export", "/nonexistent.json", "--hlog", "/tmp/x.hlog"}, &out, &err), 1);
  EXPECT_NE(err.find("soapbench export: results file '/nonexistent.json'"), std::string::npos) << err;
}

TEST(CommandTable, UnknownOrMissingCommandExitsTwo) {
  std::ostringstream out, err;
  std::vector<const char*> argv{"soapbench", "nonsense"};
  EXPECT_EQ(run_command_table("soapbench", "about", soapbench_commands(), 2, argv.data(), out, err), 2);
  EXPECT_NE(err.str().find("soapbench: unknown command 'nonsense'"), std::string::npos) << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(run_command_table("soapbench", "about", soapbench_commands(), 1, argv.data(), out2, err2), 2);
  EXPECT_NE(err2.str().find("Commands:"), std::string::npos) << err2.str();
}

// The flags show the specs' own defaults: one default per field.
TEST(CommandTable, RunHelpShowsTheSpecDefaults) {
  const Parsed r = parse({"run", "--help"});
  EXPECT_EQ(r.p.exit_code, 0);
  for (const char* shown : {"--timeout FLOAT:DURATION=5s", "--duration FLOAT:DURATION=10s", "--warmup FLOAT:DURATION=2s",
                            "--clients TEXT:LIST=1-10", "--interval FLOAT:DURATION=5s", "--client TEXT:{raw,gsoap,curl}=raw"})
    EXPECT_NE(r.out.find(shown), std::string::npos) << shown << "\n" << r.out;
  const Parsed cs = parse({"compare-stacks", "--help"});
  for (const char* shown : {"--clients TEXT:LIST=1,2,4,8", "--duration FLOAT:DURATION=5s", "--first-warmup FLOAT:DURATION=45s"})
    EXPECT_NE(cs.out.find(shown), std::string::npos) << shown << "\n" << cs.out;
}

// ---- the program ----------------------------------------------------------

TEST(DriverProgram, VersionNamesSoapbenchAndGsoap) {
  std::string out;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "--version"}, &out), 0);
  EXPECT_NE(out.find("soapbench 0."), std::string::npos) << out;
  EXPECT_NE(out.find("(gSOAP 2.8."), std::string::npos) << out;
}

TEST(DriverProgram, BadFlagExitsTwo) {
  std::string err;
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "run", "--clients", "1-x"}, nullptr, &err), 2);
  EXPECT_NE(err.find("--clients"), std::string::npos) << err;
}

TEST(DriverProgram, CompareAndPlotNameAMissingOrCorruptFile) {
  test::TempDir dir;
  const std::string missing = (dir.path() / "missing.json").string();
  const std::string corrupt = (dir.path() / "corrupt.json").string();
  std::ofstream(corrupt) << "{ not json";
  for (const auto& file : {missing, corrupt}) {
    std::string err;
    EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "compare", file}, nullptr, &err), 1);
    EXPECT_NE(err.find(file), std::string::npos) << err;
    err.clear();
    EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "plot", file, "-o", dir.path().string()},
                                nullptr, &err),
              1);
    EXPECT_NE(err.find(file), std::string::npos) << err;
  }
}

TEST(DriverProgram, UnreachableUrlFailsAtOnce) {
  const std::string url = "http://127.0.0.1:" + std::to_string(test::unused_port()) + "/echo";
  test::TempDir dir;
  std::string out, err;
  const int code = test::run_program({test::bin_path("soapbench"), "run", "--url", url, "--clients", "1",
                                      "--duration", "1s", "--out", dir.path().string()},
                                     &out, &err, std::chrono::seconds(20));
  EXPECT_EQ(code, 3) << out << err;
  EXPECT_NE(err.find("cannot reach " + url), std::string::npos) << err;
  // The results file is written in every case but a usage error: partial, no steps.
  std::vector<std::filesystem::path> json;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    if (e.path().extension() == ".json") json.push_back(e.path());
  ASSERT_EQ(json.size(), 1u);
  const RunRecord record = read_results(json.front());
  EXPECT_TRUE(record.partial);
  EXPECT_TRUE(record.operations.empty());
  // check of the same URL: nothing could be checked, exit 3.
  EXPECT_EQ(test::run_program({test::bin_path("soapbench"), "check", "--url", url}, &out, &err), 3) << out << err;
}

}  // namespace
}  // namespace soapbench
