#pragma once
// `soapbench check --url URL`: one call of each operation with the default
// payloads, to see whether an endpoint echoes correctly before a run.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "client.h"

namespace soapbench {

struct OperationCheck {
  Operation operation = Operation::echo_string;
  std::string name;            // a request file's payload name; empty: to_string(operation)
  std::string request, response;  // a request file's call: what was sent and what came back
  CallResult result;
  WireBytes wire;              // of the call, HTTP headers included
  std::string server_header;   // empty if the response had none
  // Not called: an earlier operation got no answer (timeout, connect), so that
  // a silent endpoint fails the check within one timeout, not one per operation.
  bool skipped = false;
};

struct CheckReport {
  std::string url;
  std::string kind;  // "gsoap" or "curl"
  std::vector<OperationCheck> operations;  // echoString, then echoStruct
  bool ok() const;  // every operation echoed correctly
};

// Throws std::invalid_argument for an unknown kind or a bad URL (as make_client);
// every failure of the endpoint itself is reported in the result.
CheckReport check_endpoint(const std::string& url, std::string_view kind, double timeout_s);
// The same with `base`'s timeout, TLS, gzip and credentials (its url and operation are replaced).
CheckReport check_endpoint(const std::string& url, std::string_view kind, const ClientOptions& base);

// One call of the request file in `options.custom` (raw or curl), its request
// and response kept for the report.
CheckReport check_request(const std::string& url, std::string_view kind, const ClientOptions& options);

// A verdict line, then one line per operation, e.g.
//   check http://127.0.0.1:8080/echo with the curl client: FAILED
//     echoString  ok          request 1893 B, response 1772 B, server "gSOAP/2.8"
//     echoStruct  mismatch    item 0: varFloat sent 3.4028234663852886e+38, echoed 0, server "gSOAP/2.8"
void print_check_report(std::ostream& out, const CheckReport& report);

}  // namespace soapbench
