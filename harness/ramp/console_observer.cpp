#include "ramp/console_observer.h"

#include <ostream>

#include <fmt/core.h>

namespace soapbench {

void ConsoleObserver::step_starting(const RampPlan& plan, Operation op, StepLoad step, double warmup_s) {
  // "== echoString with 4 clients: warm-up 2 s, then 10 s measured" (+ rate).
  const LoadSpec& load = plan.load;
  const unsigned per = load.connections_per_client;
  name_ = plan.name_of(op);
  out_ << fmt::format("\n== {} with {} client{}{}: warm-up {:g} s, then {}{}\n", name_, step.clients,
                      step.clients == 1 ? "" : "s", per > 1 ? fmt::format(" x {} connections", per) : "", warmup_s,
                      load.requests > 0 ? fmt::format("{} calls per {}", load.requests, per > 1 ? "connection" : "client")
                                        : fmt::format("{:g} s measured", load.duration_s),
                      step.rate > 0 ? fmt::format(" at {:g} calls/s", step.rate) : "");
  out_.flush();
}

void ConsoleObserver::interval(Operation op, unsigned clients, const IntervalSample& sample) {
  if (live_lines_) lines_.print(name_.empty() ? std::string(to_string(op)) : name_, clients, sample);
}

void ConsoleObserver::step_finished(Operation op, const StepResult& step, const StepServerView& server,
                                    uint64_t warmup_calls) {
  step_table(out_, OperationResult{name_.empty() ? std::string(to_string(op)) : name_, {step}});
  if (step.uncorrected && !step.uncorrected->empty())
    out_ << fmt::format("uncorrected (from the actual send): p50 {:.3f} ms, p99 {:.3f} ms, max {:.3f} ms\n",
                        step.uncorrected->percentile(50) * 1e3, step.uncorrected->percentile(99) * 1e3,
                        step.uncorrected->max() * 1e3);
  if (const auto line = request_count_line(step, server, warmup_calls)) out_ << *line << "\n";
  out_.flush();
}

}  // namespace soapbench
