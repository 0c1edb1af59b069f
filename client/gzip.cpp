#include "gzip.h"

#include <zlib.h>

#include <stdexcept>

namespace soapbench {

std::string gzip_compress(std::string_view data) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("gzip: deflateInit2 failed");
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
  return out;
}

std::string gzip_decompress(std::string_view in, std::string& out, size_t limit) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return "inflateInit2 failed";
  out.resize(std::max<size_t>(in.size() * 4, 4096));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (z.total_out == out.size()) {
      if (out.size() >= limit) {
        inflateEnd(&z);
        return "the gzip body inflates to more than " + std::to_string(limit) + " bytes";
      }
      out.resize(std::min(out.size() * 2, limit));
    }
    z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
    z.avail_out = static_cast<uInt>(out.size() - z.total_out);
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // the input ended inside the stream
    if (rc == Z_BUF_ERROR) rc = Z_OK;                  // out of room: grow and go on
  }
  const size_t total = z.total_out;
  const bool trailing = z.avail_in != 0;
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return rc == Z_DATA_ERROR ? "not gzip data, or corrupt" : "the gzip body is cut short";
  if (trailing) return "bytes after the end of the gzip body";
  out.resize(total);
  return "";
}

}  // namespace soapbench
