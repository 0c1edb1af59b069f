#pragma once
// One self-contained HTML page of one or more runs: the numbers as JSON inside
// the page, and the page's own script (report/html/page.js, embedded at build
// time) that draws them as SVG charts with tables. No request leaves the page.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.h"

namespace soapbench {

struct HtmlReportInputs {
  std::vector<RunRecord> runs;      // at least one
  std::vector<std::string> labels;  // names of the runs; empty = run_label()
  // The verdict of `soapbench compare` once it gives one (issue "Verdicts a CI
  // job can use"): an object {"text": "...", "ok": true|false, "details": [..]}
  // shown above everything. null = no verdict box.
  nlohmann::json verdict = nullptr;
  std::string generator;            // e.g. "soapbench 0.1.0", shown in the footer
};

// The percentiles of the spectrum charts (HdrHistogram's "latency by percentile").
inline constexpr double kSpectrumPercentiles[] = {0,    50,    75,    90,     95,     99,
                                                  99.5, 99.9,  99.95, 99.99, 99.999, 100};

// The data the page embeds, every number as the records give it (the page
// rounds only for display). Shape, per run: label, partial, schema_version,
// context, and per operation the steps: clients, throughput, latency_ms
// {min mean p50 p90 p99 p99.9 max} (null without a successful call),
// uncorrected_ms (rate mode, when recorded), spectrum [[percentile, ms]...],
// CPU, bytes, failures by kind (non-zero only), intervals [[t_s since the run's
// first measurement, req/s, p99 ms, errors]...], warnings. "order" lists, per
// operation, the run indexes by peak throughput, highest first.
// Throws std::invalid_argument when there is no run or labels do not match runs.
nlohmann::json html_report_data(const HtmlReportInputs& in);

// The whole page. Throws as html_report_data does.
void write_html_report(std::ostream& os, const HtmlReportInputs& in);

// The JSON as it sits in the page's <script type="application/json">: every
// '<' written \u003c, so that no "</script>" inside a string ends the element.
std::string json_for_script(const nlohmann::json& data);

}  // namespace soapbench
