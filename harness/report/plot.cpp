// Charts with gnuplot: data files and a script per operation, then gnuplot run
// on the script in the output directory.
#include "report/plot.h"

#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "proc/subprocess.h"
#include "report/report.h"

namespace soapbench {

namespace fs = std::filesystem;

namespace {

// Operation names come from the WSDL, but keep file names safe whatever they are.
std::string file_safe(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_';
    out += keep ? c : '-';
  }
  return out.empty() ? "operation" : out;
}

// A gnuplot single-quoted string: no escapes inside, '' stands for one quote.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    if (c == '\n' || c == '\r') c = ' ';
    out += c;
  }
  return out + "'";
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", path.string()));
}

// One row per step with a clients value: clients, req/s, mean ms, p99 ms;
// "-" (gnuplot's missing value here) for the times of a step without successes.
std::string data_file(const OperationResult& op) {
  std::vector<const StepResult*> steps;
  for (const StepResult& s : op.steps) steps.push_back(&s);
  std::stable_sort(steps.begin(), steps.end(),
                   [](const StepResult* a, const StepResult* b) { return a->clients < b->clients; });
  std::string text = "# clients  throughput_req_per_s  mean_ms  p99_ms\n";
  for (const StepResult* s : steps) {
    const LatencyHistogram& h = s->latency;
    text += h.empty() ? fmt::format("{} {:.3f} - -\n", s->clients, s->throughput)
                      : fmt::format("{} {:.3f} {:.6f} {:.6f}\n", s->clients, s->throughput,
                                    h.mean() * 1e3, h.percentile(99) * 1e3);
  }
  return text;
}

struct Series {
  std::string label;
  std::string data_file;  // name within the output directory
  size_t colour = 0;      // the run's index: the same colour in every chart
  double peak = 0;        // highest throughput, for the legend's order
};

std::string script(const std::string& operation, const std::string& stem,
                   const std::vector<Series>& series, unsigned max_clients, bool linear) {
  std::string s;
  s += fmt::format("# Charts of {} written by soapbench; run with: gnuplot {}.gp\n", operation, stem);
  s += gnuplot_terminals();
  s += "set datafile missing '-'\n";
  s += series.size() > 3 ? "set key outside right top noenhanced box\n" : "set key top left noenhanced box opaque\n";
  s += "set grid\n"
       "set xlabel 'clients'\n"
       "set xrange [0:*]\n"
       "set yrange [0:*]\n"
       // Room right of the largest client count and above the highest point.
       "set offsets 0, 0.5, graph 0.05, 0\n";
  // Client counts are whole: one tic per client while that stays legible.
  if (max_clients <= 20) s += "set xtics 1\n";

  std::string throughput_plot = "plot ";
  std::string latency_plot = "plot ";
  for (size_t i = 0; i < series.size(); ++i) {
    const std::string sep = i == 0 ? "" : ", \\\n     ";
    const std::string file = quoted(series[i].data_file);
    const size_t lc = series[i].colour + 1;
    throughput_plot += fmt::format("{}{} using 1:2 with linespoints lc {} pt 7 title {}", sep, file,
                                   lc, quoted(series[i].label));
    latency_plot += fmt::format(
        "{}{} using 1:3 with linespoints lc {} dt 1 pt 7 title {}, \\\n"
        "     {} using 1:4 with linespoints lc {} dt 2 pt 6 title {}",
        sep, file, lc, quoted(series[i].label + " mean"), file, lc,
        quoted(series[i].label + " p99"));
  }

  const auto chart = [&](const std::string& kind, const std::string& title,
                         const std::string& ylabel, const std::string& plot) {
    std::string c = fmt::format("\nset title {} noenhanced\nset ylabel {}\n", quoted(title), quoted(ylabel));
    c += fmt::format("eval('set terminal ' . png_terminal)\nset output {}\n{}\n",
                     quoted(stem + "-" + kind + ".png"), plot);
    c += fmt::format("eval('set terminal ' . svg_terminal)\nset output {}\nreplot\nset output\n",
                     quoted(stem + "-" + kind + ".svg"));
    return c;
  };
  s += chart("throughput", operation + ": throughput vs clients", "throughput (requests/s)",
             throughput_plot);
  // Log: a decade per tic, so that 0.05 ms and 50 ms both read. Missing or zero
  // times (a step without successes) are left out rather than breaking the axis.
  if (!linear) s += "\nset logscale y 10\nset yrange [*:*]\nset format y '%g'\nset mytics 10\n";
  s += chart("latency",
             operation + ": response time vs clients (mean solid, p99 dashed" + (linear ? ")" : "; log scale)"),
             "response time (ms)", latency_plot);
  return s;
}

}  // namespace

std::string gnuplot_terminals() {
  // gnuplot-nox may lack cairo; the libgd png terminal is the fallback.
  return "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
         "  png_terminal = \"pngcairo size 900,600 noenhanced font 'sans,10'\"\n"
         "} else {\n"
         "  png_terminal = 'png size 900,600 noenhanced'\n"
         "}\n"
         "svg_terminal = \"svg size 900,600 noenhanced font 'sans,12' background '#ffffff'\"\n";
}

void run_gnuplot(const std::string& gnuplot, const fs::path& dir, const std::string& script_name) {
  SpawnOptions options;
  options.in = Stream::null;
  options.out = Stream::null;
  options.err = Stream::pipe;  // what it says is the message of a failure
  options.dir = dir.string();
  options.search_path = true;
  RunResult run;
  try {
    run = run_to_end({gnuplot, script_name}, std::numeric_limits<double>::infinity(), options);
  } catch (const SpawnError& e) {
    if (e.code() == ENOENT)
      throw std::runtime_error(fmt::format(
          "gnuplot not found: cannot run '{}' (install gnuplot-nox, or choose another program)",
          gnuplot));
    throw std::runtime_error(fmt::format("cannot run '{}': {}", gnuplot, std::strerror(e.code())));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("cannot run gnuplot: {}", e.what()));  // pipe or fork
  }
  const int status = run.status;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                              : fmt::format("signal {}", WTERMSIG(status));
    throw std::runtime_error(fmt::format("gnuplot failed on '{}' ({}): {}",
                                         (dir / script_name).string(), how, run.err));
  }
}

void plot_runs(const std::vector<RunRecord>& runs, const fs::path& out_dir,
               const PlotOptions& options) {
  if (!options.labels.empty() && options.labels.size() != runs.size())
    throw std::invalid_argument(
        fmt::format("plot_runs: {} labels for {} runs", options.labels.size(), runs.size()));

  std::vector<std::string> operations;  // in order of first appearance, with steps
  for (const RunRecord& run : runs)
    for (const OperationResult& op : run.operations)
      if (!op.steps.empty() &&
          std::find(operations.begin(), operations.end(), op.operation) == operations.end())
        operations.push_back(op.operation);
  if (operations.empty()) throw std::invalid_argument("plot_runs: the runs have no steps to plot");

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("cannot create plot directory '{}': {}", out_dir.string(), ec.message()));

  for (const std::string& operation : operations) {
    const std::string stem = file_safe(operation);
    std::vector<Series> series;
    unsigned max_clients = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      for (const OperationResult& op : runs[i].operations) {
        if (op.operation != operation || op.steps.empty()) continue;
        const std::string label = options.labels.empty() ? run_label(runs[i], i) : options.labels[i];
        const std::string name = fmt::format("{}-run{}.dat", stem, i + 1);
        write_text(out_dir / name, data_file(op));
        double peak = 0;
        for (const StepResult& step : op.steps) {
          max_clients = std::max(max_clients, step.clients);
          peak = std::max(peak, step.throughput);
        }
        series.push_back({label, name, i, peak});
        break;  // the first entry of an operation, as in compare_table
      }
    }
    std::stable_sort(series.begin(), series.end(), [](const Series& a, const Series& b) { return a.peak > b.peak; });
    write_text(out_dir / (stem + ".gp"), script(operation, stem, series, max_clients, options.linear));
    run_gnuplot(options.gnuplot, out_dir, stem + ".gp");
  }
}

}  // namespace soapbench
