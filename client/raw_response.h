#pragma once
// HTTP/1.x response framing for the raw client, without sockets: the status
// line and headers it needs, and an incremental chunked-body decoder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace soapbench::raw {

enum class Framing {
  length,       // Content-Length bytes
  chunked,      // Transfer-Encoding: chunked
  until_close,  // no length: the body ends where the connection does
  none,         // 1xx, 204, 304: no body at all
};

struct ResponseHead {
  int status = 0;
  int minor_version = 1;   // HTTP/1.x: 0 or 1
  bool keep_alive = true;  // the connection may carry another request afterwards
  Framing framing = Framing::until_close;
  uint64_t content_length = 0;  // for Framing::length
  std::string_view server;      // the Server header, trimmed; points into the parsed text
  bool gzip = false;            // Content-Encoding: gzip (or x-gzip): the body is to be gunzipped
  bool other_coding = false;    // a Content-Encoding other than gzip and identity
};

// Parses `head`: the status line and header lines, the blank line's final CRLF
// included or not. Returns nullptr, or what is malformed.
const char* parse_head(std::string_view head, ResponseHead& out);

// Decodes a chunked body fed in arbitrary slices; chunk extensions and trailers
// are skipped. Bounded: every byte fed is looked at once.
class ChunkedDecoder {
 public:
  void reset();
  // Appends chunk data of [data, data + size) to body and returns how many bytes
  // it consumed: fewer than size only once done() or failed().
  size_t feed(const char* data, size_t size, std::string& body);
  bool done() const { return state_ == State::done; }
  bool failed() const { return state_ == State::failed; }

 private:
  enum class State { size, extension, size_lf, data, data_cr, data_lf, trailer_start, trailer, final_lf, done, failed };
  State state_ = State::size;
  uint64_t remaining_ = 0;  // of the current chunk's size, then of its data
  bool has_digit_ = false;
};

}  // namespace soapbench::raw
