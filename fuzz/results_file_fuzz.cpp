// Fuzzes the results-file reader (harness/core: the JSON that compare, report, plot,
// merge and export read, and that users hand over between machines): any text is
// either read into a record or refused with std::runtime_error naming the file;
// nothing else may escape, and no sanitizer may fire.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "core/results.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const soapbench::RunRecord record = soapbench::parse_results(text, "fuzz-input.json");
    // What was read must serialise again: reporters write it back out (merge, export).
    const nlohmann::json again = record;
    (void)again.dump();
  } catch (const std::runtime_error&) {
    // refused with a message: what the reader promises for bad input
  }
  return 0;
}
