// compare's verdict (report/compare_verdict.h).
#include "report/compare_verdict.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace soapbench {

namespace {

std::string option_text(const RunRecord& r, const char* key) {
  const auto& o = r.context.options;
  return o.contains(key) ? o.at(key).dump() : "null";
}

std::vector<std::string> operation_names(const RunRecord& r) {
  std::vector<std::string> names;
  for (const auto& op : r.operations) names.push_back(op.operation);
  return names;
}

std::string step_name(const StepResult& s) {
  return s.target_rate > 0 ? fmt::format("x{} at {:g}/s", s.clients, s.target_rate) : fmt::format("x{}", s.clients);
}

// A figure of a step and its per-interval samples (empty when intervals do not carry it).
struct Figure {
  const char* name;
  bool higher_is_better;
  double (*whole)(const StepResult&);
  double (*interval)(const IntervalSample&);  // nullptr: no per-interval figure
};

double cpu_us_per_request(const StepResult& s) {
  return s.server_cpu_pct && s.throughput > 0 ? *s.server_cpu_pct / 100 * 1e6 / s.throughput : 0;
}

const Figure kFigures[] = {
    {"throughput", true, [](const StepResult& s) { return s.throughput; },
     [](const IntervalSample& i) { return i.throughput; }},
    {"mean ms", false, [](const StepResult& s) { return s.latency.mean() * 1e3; },
     [](const IntervalSample& i) { return i.mean_ms; }},
    {"p50 ms", false, [](const StepResult& s) { return s.latency.percentile(50) * 1e3; },
     [](const IntervalSample& i) { return i.p50_ms; }},
    {"p99 ms", false, [](const StepResult& s) { return s.latency.percentile(99) * 1e3; },
     [](const IntervalSample& i) { return i.p99_ms; }},
    {"p99.9 ms", false, [](const StepResult& s) { return s.latency.percentile(99.9) * 1e3; }, nullptr},
    {"server CPU us/req", false, cpu_us_per_request, nullptr},
};

// The steps of one operation measured at a load (client count and rate): one,
// or `run --runs N` repeats of it.
std::vector<const StepResult*> repeats_of(const OperationResult& op, const StepResult& like) {
  std::vector<const StepResult*> out;
  for (const auto& s : op.steps)
    if (s.clients == like.clients && s.target_rate == like.target_rate) out.push_back(&s);
  return out;
}

std::vector<double> samples(const StepResult& s, const Figure& f) {
  std::vector<double> out;
  if (!f.interval) return out;
  for (const auto& i : s.intervals)
    if (i.requests > 0) out.push_back(f.interval(i));
  return out;
}

// The run's rates, one step each: `rates` (written since rate lists), else the one `rate`.
std::vector<double> rates_of(const RunRecord& r) {
  const nlohmann::json& o = r.context.options;
  if (const auto it = o.find("rates"); it != o.end() && it->is_array() && !it->empty()) {
    std::vector<double> rates;
    for (const auto& v : *it) rates.push_back(v.is_number() ? v.get<double>() : 0.0);
    return rates;
  }
  const auto it = o.find("rate");
  return {it != o.end() && it->is_number() ? it->get<double>() : 0.0};
}

}  // namespace

std::string not_comparable(const RunRecord& base, const RunRecord& next) {
  if (operation_names(base) != operation_names(next))
    return fmt::format("different operations ({} against {})", fmt::join(operation_names(base), ","),
                       fmt::join(operation_names(next), ","));
  for (const char* key : {"string_length", "items", "binary_bytes"})
    if (option_text(base, key) != option_text(next, key))
      return fmt::format("different payload ({} {} against {})", key, option_text(base, key), option_text(next, key));
  if (base.context.client_kind != next.context.client_kind)
    return fmt::format("different client kind ({} against {})", base.context.client_kind, next.context.client_kind);
  const std::vector<double> rb = rates_of(base), rn = rates_of(next);
  const auto fixed = [](const std::vector<double>& r) { return r.size() > 1 || r.front() > 0; };
  if (fixed(rb) != fixed(rn))
    return fmt::format("closed loop against fixed rate ({} against {})", fixed(rb) ? "rate" : "closed loop",
                       fixed(rn) ? "rate" : "closed loop");
  if (rb != rn)
    return fmt::format("different rate ({:g}/s against {:g}/s)", fmt::join(rb, ","), fmt::join(rn, ","));
  return "";
}

std::optional<double> mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n1 = a.size(), n2 = b.size();
  if (n1 < kMinSamples || n2 < kMinSamples) return std::nullopt;
  std::vector<std::pair<double, int>> all;
  for (double v : a) all.emplace_back(v, 0);
  for (double v : b) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double r1 = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ties: the mean rank
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) r1 += rank;
    i = j;
  }
  const double u1 = r1 - static_cast<double>(n1 * (n1 + 1)) / 2;
  const double mu = static_cast<double>(n1 * n2) / 2;
  const double sigma = std::sqrt(static_cast<double>(n1 * n2) * static_cast<double>(n1 + n2 + 1) / 12);
  if (sigma == 0) return 1.0;
  return std::erfc(std::fabs(u1 - mu) / sigma / std::sqrt(2.0));
}

size_t CompareVerdict::worse() const {
  return static_cast<size_t>(std::count_if(figures.begin(), figures.end(), [](const auto& f) { return f.worse; }));
}

CompareVerdict compare_runs(const RunRecord& base, const RunRecord& next, double threshold,
                            const std::string& base_label, const std::string& next_label) {
  CompareVerdict v{base_label, next_label, {}};
  for (const auto& bop : base.operations) {
    const auto nop = std::find_if(next.operations.begin(), next.operations.end(),
                                  [&](const auto& o) { return o.operation == bop.operation; });
    if (nop == next.operations.end()) continue;
    for (const auto& bs : bop.steps) {
      const std::vector<const StepResult*> base_runs = repeats_of(bop, bs), next_runs = repeats_of(*nop, bs);
      if (base_runs.front() != &bs || next_runs.empty()) continue;  // each load once, from its first repeat
      // With repeats (run --runs N), a figure is the mean of the repeats' and, with
      // kMinSamples or more on each side, the repeats are the samples: independent
      // runs rather than intervals of one. Otherwise every repeat's intervals are.
      const bool by_run = base_runs.size() >= kMinSamples && next_runs.size() >= kMinSamples;
      const auto gather = [&](const std::vector<const StepResult*>& runs, const Figure& f, double& whole) {
        std::vector<double> out;
        whole = 0;
        for (const StepResult* s : runs) {
          whole += f.whole(*s) / static_cast<double>(runs.size());
          if (by_run) out.push_back(f.whole(*s));
          else if (f.interval) for (double v : samples(*s, f)) out.push_back(v);
        }
        return out;
      };
      const bool cpu_known = std::all_of(base_runs.begin(), base_runs.end(), [](auto* s) { return s->server_cpu_pct.has_value(); }) &&
                             std::all_of(next_runs.begin(), next_runs.end(), [](auto* s) { return s->server_cpu_pct.has_value(); });
      for (const auto& f : kFigures) {
        if (f.whole == cpu_us_per_request && !cpu_known) continue;
        FigureVerdict fv{bop.operation, step_name(bs), f.name, 0, 0, 0, std::nullopt, false};
        const std::vector<double> base_samples = gather(base_runs, f, fv.base);
        const std::vector<double> next_samples = gather(next_runs, f, fv.next);
        fv.ratio = fv.base > 0 ? fv.next / fv.base : 0;
        fv.p = mann_whitney_p(base_samples, next_samples);
        const bool beyond = fv.base > 0 && (f.higher_is_better ? fv.ratio < 1 - threshold : fv.ratio > 1 + threshold);
        fv.worse = beyond && (!fv.p || *fv.p < 0.05);
        v.figures.push_back(fv);
      }
    }
  }
  return v;
}

void print_verdict(std::ostream& os, const CompareVerdict& v, const std::string& format, double threshold) {
  auto sig = [](const FigureVerdict& f) {
    return f.p ? fmt::format("p={:.3f}{}", *f.p, *f.p < 0.05 ? " significant" : "")
               : std::string("not enough samples for a significance test");
  };
  if (format == "json") {
    nlohmann::json figures = nlohmann::json::array();
    for (const auto& f : v.figures)
      figures.push_back({{"operation", f.operation}, {"step", f.step}, {"figure", f.figure}, {"base", f.base},
                         {"new", f.next}, {"ratio", f.ratio},
                         {"p", f.p ? nlohmann::json(*f.p) : nlohmann::json(nullptr)}, {"worse", f.worse}});
    os << nlohmann::json{{"base", v.base_label}, {"new", v.next_label}, {"threshold", threshold},
                         {"test", "Mann-Whitney U over per-interval samples (per-run with 8 or more --runs), two-sided, 5%"},
                         {"worse", v.worse()}, {"figures", figures}}.dump(2)
       << "\n";
    return;
  }
  const bool md = format == "markdown";
  os << fmt::format("{}{} against {}: {}\n", md ? "### " : "== Verdict: ", v.next_label, v.base_label,
                    v.worse() ? fmt::format("WORSE ({} figures beyond {:g}%)", v.worse(), threshold * 100)
                              : fmt::format("no significant regression beyond {:g}%", threshold * 100));
  if (md) os << "\n| operation | step | figure | base | new | ratio | significance | |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& f : v.figures) {
    if (md)
      os << fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {} | {} |\n", f.operation, f.step, f.figure,
                        f.base, f.next, f.ratio, sig(f), f.worse ? "**worse**" : "");
    else
      os << fmt::format("  {:<11} {:<12} {:<18} {:>12.3f} {:>12.3f} {:>7.3f}  {}{}\n", f.operation, f.step, f.figure,
                        f.base, f.next, f.ratio, sig(f), f.worse ? "  WORSE" : "");
  }
}

}  // namespace soapbench
