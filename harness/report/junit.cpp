// JUnit XML of a run's criteria (report/junit.h), written by hand: the
// document is small and fixed, and escaping is the only subtle part.
#include "report/junit.h"

#include <fmt/format.h>

#include "core/assertions.h"

namespace soapbench {

namespace {

// Text safe in an attribute or element: the five XML specials escaped and
// control characters (not allowed in XML 1.0) replaced by '?'.
std::string xml(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' ? '?' : c;
    }
  }
  return out;
}

std::string step_name(const std::string& operation, const StepResult& s) {
  return s.target_rate > 0 ? fmt::format("{} x{} at {:g}/s", operation, s.clients, s.target_rate)
                           : fmt::format("{} x{}", operation, s.clients);
}

struct Counts {
  size_t tests = 0, failures = 0, skipped = 0;
  double time = 0;
};

Counts count(const OperationResult& op) {
  Counts c;
  for (const auto& s : op.steps) {
    ++c.tests;
    c.time += s.duration_s;
    bool failed = false, skipped = false;
    for (const auto& a : s.assertions) {
      failed |= a.status == "failed";
      skipped |= a.status == "not measured";
    }
    c.failures += failed;
    c.skipped += !failed && skipped;
  }
  return c;
}

}  // namespace

void write_junit(std::ostream& os, const RunRecord& record, const std::string& error) {
  Counts all;
  for (const auto& op : record.operations) {
    const Counts c = count(op);
    all.tests += c.tests;
    all.failures += c.failures;
    all.time += c.time;
  }
  const size_t errors = error.empty() ? 0 : 1;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  os << fmt::format("<testsuites name=\"soapbench\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n",
                    all.tests + errors, all.failures, errors, all.time);
  const std::string host = xml(record.context.host);
  const std::string stamp = xml(record.context.start_time.substr(0, 19));  // xs:dateTime without the zone
  for (const auto& op : record.operations) {
    const Counts c = count(op);
    os << fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\""
        " timestamp=\"{}\" hostname=\"{}\">\n",
        xml(op.operation), c.tests, c.failures, c.skipped, c.time, stamp, host);
    for (const auto& s : op.steps) {
      os << fmt::format("    <testcase name=\"{}\" classname=\"soapbench.{}\" time=\"{:.3f}\">\n",
                        xml(step_name(op.operation, s)), xml(op.operation), s.duration_s);
      std::string failed, not_measured;
      for (const auto& a : s.assertions) {
        if (a.status == "failed") failed += describe(a) + "\n";
        if (a.status == "not measured") not_measured += describe(a) + "\n";
      }
      if (!failed.empty()) {
        failed.pop_back();
        os << fmt::format("      <failure message=\"{}\" type=\"assertion\">{}</failure>\n", xml(failed),
                          xml(failed));
      } else if (!not_measured.empty()) {
        not_measured.pop_back();
        os << fmt::format("      <skipped message=\"{}\"/>\n", xml(not_measured));
      }
      os << "    </testcase>\n";
    }
    os << "  </testsuite>\n";
  }
  if (errors) {
    os << fmt::format(
        "  <testsuite name=\"soapbench\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0\""
        " timestamp=\"{}\" hostname=\"{}\">\n"
        "    <testcase name=\"soapbench run\" classname=\"soapbench\" time=\"0\">\n"
        "      <error message=\"{}\" type=\"run\">{}</error>\n"
        "    </testcase>\n  </testsuite>\n",
        stamp, host, xml(error), xml(error));
  }
  os << "</testsuites>\n";
}

}  // namespace soapbench
