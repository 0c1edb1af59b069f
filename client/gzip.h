#pragma once
// gzip for --gzip (zlib): request bodies compressed before they are sent, and
// response bodies that say Content-Encoding: gzip inflated before they are checked.
#include <string>
#include <string_view>

namespace soapbench {

// `data` as one gzip member (zlib's default level, as a client library sends it).
std::string gzip_compress(std::string_view data);
// Inflates the gzip data `in` into `out` (replaced). Returns "" or why it failed;
// a body larger than `limit` bytes inflated is refused (a gzip bomb).
std::string gzip_decompress(std::string_view in, std::string& out, size_t limit = size_t{1} << 30);

}  // namespace soapbench
