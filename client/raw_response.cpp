#include "raw_response.h"

#include <strings.h>

#include <algorithm>

namespace soapbench::raw {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Whether the comma-separated list `value` holds `token` (case-insensitive).
bool has_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (iequals(trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

// Whether the last transfer coding is chunked: then the body is chunked; any
// other coding leaves the body to end with the connection (RFC 9112 6.3).
bool last_coding_is_chunked(std::string_view value) {
  const size_t comma = value.rfind(',');
  return iequals(trim(comma == std::string_view::npos ? value : value.substr(comma + 1)), "chunked");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

const char* parse_head(std::string_view head, ResponseHead& out) {
  out = ResponseHead{};
  size_t eol = head.find('\n');
  const std::string_view status_line = trim(head.substr(0, eol));
  // "HTTP/1.x SSS reason": the version decides the default of keep-alive.
  if (status_line.size() < 12 || !status_line.starts_with("HTTP/1.") || status_line[8] != ' ')
    return "not an HTTP/1.x status line";
  const bool http10 = status_line[7] == '0';
  out.minor_version = http10 ? 0 : 1;
  for (size_t i = 9; i < 12; ++i) {
    if (status_line[i] < '0' || status_line[i] > '9') return "no status code in the status line";
    out.status = out.status * 10 + (status_line[i] - '0');
  }
  bool has_length = false, chunked = false, has_coding = false, close = false, keep_alive = false;
  while (eol != std::string_view::npos && eol + 1 < head.size()) {
    const size_t start = eol + 1;
    eol = head.find('\n', start);
    const std::string_view line = head.substr(start, eol == std::string_view::npos ? eol : eol - start);
    if (trim(line).empty()) break;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return "a header line without a name";
    const std::string_view name = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (iequals(name, "content-length")) {
      uint64_t length = 0;
      if (value.empty() || value.size() > 18) return "a bad Content-Length";
      for (char c : value) {
        if (c < '0' || c > '9') return "a bad Content-Length";
        length = length * 10 + static_cast<uint64_t>(c - '0');
      }
      if (has_length && length != out.content_length) return "two different Content-Length headers";
      out.content_length = length;
      has_length = true;
    } else if (iequals(name, "transfer-encoding")) {
      has_coding = true;
      chunked = last_coding_is_chunked(value);
    } else if (iequals(name, "connection")) {
      if (has_token(value, "close")) close = true;
      if (has_token(value, "keep-alive")) keep_alive = true;
    } else if (iequals(name, "server")) {
      out.server = value;
    } else if (iequals(name, "content-encoding")) {
      if (iequals(value, "gzip") || iequals(value, "x-gzip")) out.gzip = true;
      else if (!iequals(value, "identity")) out.other_coding = true;
    }
  }
  // HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when asked.
  out.keep_alive = http10 ? keep_alive && !close : !close;
  if (out.status < 200 || out.status == 204 || out.status == 304) {
    out.framing = Framing::none;
  } else if (has_coding) {
    out.framing = chunked ? Framing::chunked : Framing::until_close;
  } else if (has_length) {
    out.framing = Framing::length;
  } else {
    out.framing = Framing::until_close;
  }
  if (out.framing == Framing::until_close) out.keep_alive = false;
  return nullptr;
}

void ChunkedDecoder::reset() {
  state_ = State::size;
  remaining_ = 0;
  has_digit_ = false;
}

size_t ChunkedDecoder::feed(const char* data, size_t size, std::string& body) {
  size_t i = 0;
  while (i < size && state_ != State::done && state_ != State::failed) {
    const char c = data[i];
    switch (state_) {
      case State::size:
        if (const int d = hex_digit(c); d >= 0) {
          if (remaining_ >> 56) {  // more than 2^60 bytes: nonsense, and it would overflow
            state_ = State::failed;
            break;
          }
          remaining_ = remaining_ * 16 + static_cast<uint64_t>(d);
          has_digit_ = true;
        } else if (!has_digit_) {
          state_ = State::failed;
        } else if (c == '\r') {
          state_ = State::size_lf;
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::extension;
        } else {
          state_ = State::failed;
        }
        ++i;
        break;
      case State::extension:
        if (c == '\r') state_ = State::size_lf;
        ++i;
        break;
      case State::size_lf:
        state_ = c != '\n' ? State::failed : remaining_ ? State::data : State::trailer_start;
        ++i;
        break;
      case State::data: {
        const size_t take = static_cast<size_t>(std::min<uint64_t>(remaining_, size - i));
        body.append(data + i, take);
        i += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::data_cr;
        break;
      }
      case State::data_cr:
        state_ = c == '\r' ? State::data_lf : State::failed;
        ++i;
        break;
      case State::data_lf:
        state_ = c == '\n' ? State::size : State::failed;
        has_digit_ = false;
        ++i;
        break;
      case State::trailer_start:
        state_ = c == '\r' ? State::final_lf : State::trailer;
        ++i;
        break;
      case State::trailer:
        if (c == '\n') state_ = State::trailer_start;
        ++i;
        break;
      case State::final_lf:
        state_ = c == '\n' ? State::done : State::failed;
        ++i;
        break;
      case State::done:
      case State::failed:
        break;
    }
  }
  return i;
}

}  // namespace soapbench::raw
