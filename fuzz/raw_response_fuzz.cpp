// Fuzzes the driver's raw HTTP response parser (client/raw_response.*): the
// head parser on the bytes before the first blank line, and the chunked decoder
// on the rest, fed in slices whose sizes come from the input too.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "raw_response.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t head_end = input.find("\r\n\r\n");
  soapbench::raw::ResponseHead head;
  const std::string_view head_text = input.substr(0, head_end == std::string_view::npos ? size : head_end + 4);
  soapbench::raw::parse_head(head_text, head);
  if (head_end == std::string_view::npos) return 0;
  std::string_view body = input.substr(head_end + 4);
  soapbench::raw::ChunkedDecoder decoder;
  std::string decoded;
  size_t slice = size % 7 + 1;  // arbitrary slice boundaries: the decoder must not care
  while (!body.empty() && !decoder.done() && !decoder.failed()) {
    const size_t n = std::min(slice, body.size());
    const size_t used = decoder.feed(body.data(), n, decoded);
    if (used > n) __builtin_trap();  // consumed more than it was given
    if (used < n && !decoder.done() && !decoder.failed()) __builtin_trap();  // stopped early without reason
    body.remove_prefix(used);
    if (used == 0) break;
    slice = slice * 3 % 11 + 1;
  }
  return 0;
}
