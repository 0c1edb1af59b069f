#pragma once
// Benchmarks of one whole HTTP exchange through the generated service skeleton.
#include <string>

namespace soapbench::bench {

// Registers serve/<op>/<output mode>. `envelopes` are request envelopes checked
// by the caller: {echoString request, echoStruct request with 1 item}.
void register_serve_benchmarks(const std::string& echo_string_request,
                               const std::string& echo_struct_request);

}  // namespace soapbench::bench
