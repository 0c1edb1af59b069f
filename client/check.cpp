#include "check.h"

#include <iomanip>
#include <optional>

namespace soapbench {

bool CheckReport::ok() const {
  if (operations.empty()) return false;
  for (const OperationCheck& op : operations)
    if (!op.result.ok) return false;
  return true;
}

CheckReport check_endpoint(const std::string& url, std::string_view kind, double timeout_s) {
  CheckReport report;
  report.url = url;
  report.kind = std::string(kind);
  std::optional<OperationCheck> unanswered;  // a copy: the vector below grows
  for (Operation op : {Operation::echo_string, Operation::echo_struct}) {
    if (unanswered) {
      OperationCheck skipped;
      skipped.operation = op;
      skipped.skipped = true;
      skipped.result = failure(unanswered->result.kind,
                               "not tried: " + std::string(to_string(unanswered->operation)) + " got no answer");
      report.operations.push_back(std::move(skipped));
      continue;
    }
    ClientOptions options;
    options.url = url;
    options.operation = op;
    options.timeout_s = timeout_s;
    const auto client = make_client(kind, options);
    OperationCheck check;
    check.operation = op;
    check.result = client->call();
    check.wire = client->last_wire_bytes();
    check.server_header = client->server_header();
    report.operations.push_back(std::move(check));
    const FailureKind failed = report.operations.back().result.kind;
    if (!report.operations.back().result.ok && (failed == FailureKind::timeout || failed == FailureKind::connect))
      unanswered = report.operations.back();
  }
  return report;
}

void print_check_report(std::ostream& out, const CheckReport& report) {
  out << "check " << report.url << " with the " << report.kind << " client: "
      << (report.ok() ? "ok" : "FAILED") << '\n';
  for (const OperationCheck& op : report.operations) {
    out << "  " << std::left << std::setw(11) << to_string(op.operation) << ' ' << std::setw(11)
        << (op.result.ok ? std::string_view("ok") : op.skipped ? "skipped" : to_string(op.result.kind)) << std::right;
    if (op.result.ok) {
      out << " request " << op.wire.request << " B, response " << op.wire.response << " B";
    } else {
      out << ' ' << op.result.detail;
    }
    if (!op.server_header.empty()) out << ", server \"" << op.server_header << '"';
    out << '\n';
  }
}

}  // namespace soapbench
