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
  ClientOptions base;
  base.timeout_s = timeout_s;
  return check_endpoint(url, kind, base);
}

CheckReport check_endpoint(const std::string& url, std::string_view kind, const ClientOptions& base) {
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
    ClientOptions options = base;  // its timeout, TLS, gzip and credentials
    options.url = url;
    options.operation = op;
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

CheckReport check_request(const std::string& url, std::string_view kind, const ClientOptions& options) {
  CheckReport report;
  report.url = url;
  report.kind = std::string(kind);
  ClientOptions o = options;
  o.url = url;
  o.keep_response = true;
  const auto client = make_client(kind, o);
  OperationCheck check;
  check.operation = Operation::request;
  check.name = o.custom->name;
  check.result = client->call();
  check.wire = client->last_wire_bytes();
  check.server_header = client->server_header();
  check.request = client->last_request();
  check.response = client->last_response();
  report.operations.push_back(std::move(check));
  return report;
}

namespace {
// `text` indented, cut at 4 KiB.
void print_body(std::ostream& out, const char* title, const std::string& text) {
  constexpr size_t kMost = 4096;
  out << "  " << title << " (" << text.size() << " bytes):\n";
  std::string shown = text.substr(0, kMost);
  size_t start = 0;
  while (start < shown.size()) {
    const size_t nl = shown.find('\n', start);
    out << "    " << shown.substr(start, nl == std::string::npos ? std::string::npos : nl - start) << '\n';
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  if (text.size() > kMost) out << "    ... (" << text.size() - kMost << " more bytes)\n";
}
}  // namespace

void print_check_report(std::ostream& out, const CheckReport& report) {
  out << "check " << report.url << " with the " << report.kind << " client: "
      << (report.ok() ? "ok" : "FAILED") << '\n';
  for (const OperationCheck& op : report.operations) {
    out << "  " << std::left << std::setw(11) << (op.name.empty() ? std::string(to_string(op.operation)) : op.name)
        << ' ' << std::setw(11)
        << (op.result.ok ? std::string_view("ok") : op.skipped ? "skipped" : to_string(op.result.kind)) << std::right;
    if (op.result.ok) {
      out << " request " << op.wire.request << " B, response " << op.wire.response << " B";
    } else {
      out << ' ' << op.result.detail;
    }
    if (!op.server_header.empty()) out << ", server \"" << op.server_header << '"';
    out << '\n';
    if (op.operation == Operation::request) {
      print_body(out, "request", op.request);
      print_body(out, "response", op.response);
    }
  }
}

}  // namespace soapbench
