#pragma once
// Charts of one or more runs with gnuplot.
#include <filesystem>
#include <string>
#include <vector>

#include "core/results.h"

namespace soapbench {

struct PlotOptions {
  std::string gnuplot = "gnuplot";  // program name (looked up on PATH) or path
  std::vector<std::string> labels;  // names of the runs; empty = run_label()
  // Response times on a linear axis from 0; by default the axis is log, so that
  // stacks at 0.05 ms and at 50 ms both stay readable on one chart.
  bool linear = false;
};

// For each operation in any run, writes into out_dir (created if needed):
//   <op>-run<N>.dat   clients, throughput (req/s), mean (ms), p99 (ms) of run N
//                     (1-based; runs without the operation have no file)
//   <op>.gp           the gnuplot script, re-runnable in out_dir
//   <op>-throughput.png/.svg   throughput vs clients, one line per run
//   <op>-latency.png/.svg      mean and p99 response time (ms) vs clients, log
//                              axis unless options.linear
// The legends list the runs by their peak throughput of the operation, highest
// first; each run keeps its colour in every chart. Beyond three runs the
// legend sits right of the plot, where it hides no point.
// <op> is the operation name made file-safe. Uses pngcairo when gnuplot has it,
// png otherwise. Throws std::runtime_error when gnuplot cannot be started
// ("gnuplot not found ...") or exits non-zero (with its stderr), and
// std::invalid_argument when `labels` does not match `runs` in size or no run
// has a step. Operations without steps are skipped.
void plot_runs(const std::vector<RunRecord>& runs, const std::filesystem::path& out_dir,
               const PlotOptions& options = {});

// The lines of a gnuplot script that set png_terminal (pngcairo when gnuplot
// has it, png otherwise) and svg_terminal, the terminals of every soapbench
// chart: `eval('set terminal ' . png_terminal)`.
std::string gnuplot_terminals();

// Runs `gnuplot script_name` in `dir` (gnuplot a program name or path). Throws
// std::runtime_error when it cannot be started ("gnuplot not found ...") or
// fails (with its stderr). `soapbench sweep` draws its chart with it too.
void run_gnuplot(const std::string& gnuplot, const std::filesystem::path& dir, const std::string& script_name);

}  // namespace soapbench
