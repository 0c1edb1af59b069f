// The sweep's table and chart, from a results record.
#include <fstream>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

#include "report/plot.h"
#include "report/report.h"
#include "commands/sweep.h"

namespace soapbench {

namespace {

constexpr std::string_view kSoapOp = "echoBinary";
constexpr std::string_view kTcpOp = "tcpEcho";

// "echoBinary 2000B" -> ("echoBinary", 2000); nullopt for other names.
std::optional<std::pair<std::string, uint64_t>> split_operation(const std::string& name) {
  const size_t space = name.rfind(' ');
  if (space == std::string::npos || name.size() < space + 3 || name.back() != 'B') return std::nullopt;
  const std::string digits = name.substr(space + 1, name.size() - space - 2);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::make_pair(name.substr(0, space), std::stoull(digits));
}

std::string ms(const std::optional<StepResult>& s, double percentile) {
  if (!s || s->latency.empty()) return "-";
  return fmt::format("{:.3f}", (percentile < 0 ? s->latency.mean() : s->latency.percentile(percentile)) * 1e3);
}

}  // namespace

std::string sweep_operation(std::string_view base, uint64_t bytes) { return fmt::format("{} {}B", base, bytes); }

std::vector<SweepRow> sweep_rows(const RunRecord& record) {
  std::vector<SweepRow> rows;
  for (const OperationResult& op : record.operations) {
    const auto parts = split_operation(op.operation);
    if (!parts || op.steps.empty()) continue;
    auto row = std::find_if(rows.begin(), rows.end(), [&](const SweepRow& r) { return r.bytes == parts->second; });
    if (row == rows.end()) row = rows.insert(rows.end(), SweepRow{parts->second, {}, {}});
    if (parts->first == kSoapOp) row->soap = op.steps.front();
    if (parts->first == kTcpOp) row->tcp = op.steps.front();
  }
  return rows;
}

void sweep_table(std::ostream& os, const std::vector<SweepRow>& rows, uint64_t calls) {
  constexpr auto kLine = "{:>10} {:>12} {:>11} {:>11} {:>12} {:>11} {:>11} {:>10} {:>13} {:>12} {:>7}\n";
  os << fmt::format(kLine, "bytes", "SOAP 1 call", "SOAP p99", fmt::format("SOAP x{}", calls), "TCP 1 call",
                    "TCP p99", fmt::format("TCP x{}", calls), "SOAP/TCP", "SOAP B/call", "TCP B/call", "errors");
  os << fmt::format(kLine, "", "ms", "ms", "s", "ms", "ms", "s", "", "", "", "");
  std::vector<std::string> warnings;
  for (const SweepRow& r : rows) {
    const auto total = [](const std::optional<StepResult>& s) {
      return s ? fmt::format("{:.4f}", s->duration_s) : std::string("-");
    };
    const auto wire = [](const std::optional<StepResult>& s) {
      return s && s->requests > 0 ? fmt::format("{:.0f}", s->request_bytes + s->response_bytes) : std::string("-");
    };
    std::string ratio = "-";
    if (r.soap && r.tcp && !r.soap->latency.empty() && !r.tcp->latency.empty() && r.tcp->latency.mean() > 0)
      ratio = fmt::format("{:.2f}", r.soap->latency.mean() / r.tcp->latency.mean());
    const uint64_t errors = (r.soap ? r.soap->failures.total() : 0) + (r.tcp ? r.tcp->failures.total() : 0);
    os << fmt::format(kLine, r.bytes, ms(r.soap, -1), ms(r.soap, 99), total(r.soap), ms(r.tcp, -1), ms(r.tcp, 99),
                      total(r.tcp), ratio, wire(r.soap), wire(r.tcp), errors);
    for (const auto* s : {&r.soap, &r.tcp})
      if (*s)
        for (const auto& w : (*s)->warnings)
          warnings.push_back(fmt::format("{} B {}: {}", r.bytes, s == &r.soap ? "SOAP" : "TCP", w));
  }
  if (!warnings.empty()) {
    os << "warnings:\n";
    for (const auto& w : warnings) os << "  " << w << "\n";
  }
}

void sweep_chart(const std::vector<SweepRow>& rows, const std::filesystem::path& dir, const std::string& gnuplot) {
  if (rows.empty()) throw std::invalid_argument("sweep_chart: no rows");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create chart directory '{}': {}", dir.string(), ec.message()));
  std::string data = "# payload_bytes  x(0 drawn at 1)  soap_mean_ms  soap_p99_ms  tcp_mean_ms  tcp_p99_ms\n";
  for (const SweepRow& r : rows)
    data += fmt::format("{} {} {} {} {} {}\n", r.bytes, std::max<uint64_t>(r.bytes, 1), ms(r.soap, -1),
                        ms(r.soap, 99), ms(r.tcp, -1), ms(r.tcp, 99));
  const std::string script =
      "# The payload sweep written by soapbench sweep; run with: gnuplot sweep.gp\n" + gnuplot_terminals() +
      "set datafile missing '-'\n"
      "set logscale xy\n"
      "set grid\n"
      "set key top left box opaque\n"
      "set title 'round call time vs payload: SOAP/HTTP (echoBinary) and plain TCP (mean solid, p99 dashed)'\n"
      "set xlabel 'payload bytes per request (0 drawn at 1)'\n"
      "set ylabel 'time of one round call (ms)'\n"
      "p = \"plot 'sweep.dat' using 2:3 with linespoints lc 1 dt 1 pt 7 title 'SOAP mean', "
      "'sweep.dat' using 2:4 with linespoints lc 1 dt 2 pt 6 title 'SOAP p99', "
      "'sweep.dat' using 2:5 with linespoints lc 2 dt 1 pt 7 title 'TCP mean', "
      "'sweep.dat' using 2:6 with linespoints lc 2 dt 2 pt 6 title 'TCP p99'\"\n"
      "eval('set terminal ' . png_terminal)\nset output 'sweep.png'\neval(p)\n"
      "eval('set terminal ' . svg_terminal)\nset output 'sweep.svg'\neval(p)\nset output\n";
  for (const auto& [name, text] : {std::pair{"sweep.dat", data}, std::pair{"sweep.gp", script}}) {
    std::ofstream f(dir / name, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw std::runtime_error(fmt::format("cannot write '{}'", (dir / name).string()));
  }
  run_gnuplot(gnuplot, dir, "sweep.gp");
}

}  // namespace soapbench
