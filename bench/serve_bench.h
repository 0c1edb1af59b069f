#pragma once
// Benchmarks of one whole HTTP exchange through the generated service skeleton.
#include <string>

namespace soapbench::bench {

// Registers serve/<op>/<store|count>, each serving one HTTP request that carries
// the given envelope (the default echoString request, an echoStruct with 1 item).
void register_serve_benchmarks(const std::string& echo_string_request,
                               const std::string& echo_struct_request);

}  // namespace soapbench::bench
