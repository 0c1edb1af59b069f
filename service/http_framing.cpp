#include "http_framing.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace soapbench::server {
namespace {

// Character classes of a request head, one table lookup per byte: the head is
// scanned on every request, and locale-aware tolower() or strchr() per byte
// cost more than the rest of the framing together.
enum CharClass : unsigned char {
  kTchar = 1,       // RFC 9110 5.6.2: token characters
  kFieldValue = 2,  // field values: visible characters, space, tab and obs-text
  kHeadByte = 4,    // any byte of a head: not a control byte other than CR, LF and tab
};
constexpr std::array<unsigned char, 256> make_classes() {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool control = (c < 0x20 && c != '\t') || c == 0x7f;
    if (!control) t[c] |= kFieldValue;
    if (!control || c == '\r' || c == '\n') t[c] |= kHeadByte;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) t[c] |= kTchar;
  }
  for (const char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] |= kTchar;
  return t;
}
constexpr std::array<unsigned char, 256> kClasses = make_classes();

bool all_of_class(std::string_view s, unsigned char cls) {
  for (const char c : s)
    if (!(kClasses[static_cast<unsigned char>(c)] & cls)) return false;
  return true;
}

char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

bool is_token(std::string_view s) { return !s.empty() && all_of_class(s, kTchar); }

// Field values: visible characters, spaces, tabs and obs-text; no other control byte.
bool is_field_value(std::string_view s) { return all_of_class(s, kFieldValue); }

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// Whether an Accept-Encoding value accepts gzip (RFC 9110 12.5.3): a coding
// gzip, x-gzip or * whose q is not 0 (q=0 means "not this one").
bool accepts_gzip(std::string_view value) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string_view coding = trim(item.substr(0, semi));
    if (!iequals(coding, "gzip") && !iequals(coding, "x-gzip") && coding != "*") continue;
    if (semi == std::string_view::npos) return true;
    std::string_view q = trim(item.substr(semi + 1));
    if (q.size() < 2 || (q[0] != 'q' && q[0] != 'Q') || q[1] != '=') return true;  // another parameter
    q = trim(q.substr(2));
    // q = 0 or 0.000 refuses it; anything else (0.5, 1) accepts.
    if (q.find_first_not_of("0.") != std::string_view::npos) return true;
  }
  return false;
}

// An absolute-form target (RFC 9112 3.2.2) reduced to its path and query.
bool origin_form(std::string_view target, std::string_view& path) {
  if (target.starts_with('/')) {
    path = target;
    return true;
  }
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() > scheme.size() && iequals(target.substr(0, scheme.size()), scheme)) {
      const std::string_view rest = target.substr(scheme.size());
      const size_t slash = rest.find_first_of("/?");
      if (slash == 0) return false;  // no authority
      path = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
      return !path.starts_with('?');  // "http://h?q" has an empty path: "/?q" would need a copy
    }
  }
  return false;
}

}  // namespace

void RequestFramer::reset() {
  phase_ = Phase::head;
  // The strings keep their buffers for the next request on the connection (one
  // allocation less per request), unless a large head made them big.
  HttpHead fresh;
  const auto reuse = [](std::string& used, std::string& next) {
    if (used.capacity() > 1024) return;
    used.clear();
    next.swap(used);
  };
  reuse(head_.host, fresh.host);
  reuse(head_.authorization, fresh.authorization);
  reuse(head_.passed_fields, fresh.passed_fields);
  head_ = std::move(fresh);
  body_start_ = pos_ = 0;
  chunk_left_ = 0;
  trailer_bytes_ = consumed_ = 0;
  has_length_ = has_host_ = false;
  // A large decoded body's buffer goes with its request: an idle connection keeps nothing.
  if (decoded_.capacity() > 4096) std::string().swap(decoded_);
  decoded_.clear();
  error_ = HttpError{};
}

RequestFramer::State RequestFramer::fail(int status, std::string message) {
  error_ = HttpError{status, std::move(message)};
  return State::error;
}

RequestFramer::State RequestFramer::feed(std::string_view data) {
  if (phase_ == Phase::done) return State::done;
  if (!error_.message.empty()) return State::error;
  if (phase_ == Phase::head) {
    const State s = parse_head(data);
    if (s != State::done) return s;
  }
  if (phase_ == Phase::length_body) {
    if (data.size() - body_start_ < head_.content_length) return State::need_more;
    consumed_ = body_start_ + head_.content_length;
    return finish(data);
  }
  return parse_chunks(data);
}

RequestFramer::State RequestFramer::parse_head(std::string_view data) {
  const size_t head_end = data.find("\r\n\r\n", pos_ >= 3 ? pos_ - 3 : 0);
  // Bytes that cannot be part of a request head are refused as soon as they arrive,
  // not after a wait for the blank line that ends it.
  const size_t scan_end = std::min({data.size(), head_end, kMaxHeaderBytes + 4});
  if (scan_end > pos_ && !all_of_class(data.substr(pos_, scan_end - pos_), kHeadByte))
    return fail(400, "Bad request: a control character in the request head");
  if (head_end == std::string_view::npos || head_end > kMaxHeaderBytes) {
    if (data.size() > kMaxHeaderBytes) return fail(431, "Request header fields too large: the head exceeds 64 KiB");
    pos_ = data.size();
    return State::need_more;
  }
  std::string_view head = data.substr(0, head_end + 2);  // every line ends with CRLF
  const size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  head.remove_prefix(line_end + 2);

  // request-line = method SP request-target SP HTTP-version
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return fail(400, "Bad request: the request line is not 'method target HTTP-version'");
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return fail(400, "Bad request: the method is not a token");
  if (version.size() != 8 || !version.starts_with("HTTP/") || version[6] != '.')
    return fail(400, "Bad request: the HTTP version is malformed");
  if (version != "HTTP/1.1" && version != "HTTP/1.0")
    return fail(505, "HTTP version not supported: only HTTP/1.0 and HTTP/1.1 are served");
  head_.http10 = version == "HTTP/1.0";
  std::string_view path;
  if (!origin_form(target, path))
    return fail(400, "Bad request: the request target is neither a path nor an absolute http URI");
  if (method != "GET" && method != "POST")
    return fail(501, "Not implemented: the method '" + std::string(method) + "' (only GET and POST)");
  head_.method = method;
  head_.path = path;

  size_t fields = 0;
  while (!head.empty()) {
    const size_t eol = head.find("\r\n");
    if (++fields > kMaxHeaderFields) return fail(431, "Request header fields too large: more than 100 fields");
    if (const State s = parse_field(head.substr(0, eol)); s == State::error) return s;
    head.remove_prefix(eol + 2);
  }
  if (head_.chunked && has_length_)
    return fail(400, "Bad request: both Content-Length and Transfer-Encoding (RFC 9112, 6.3)");
  if (head_.method == "POST" && !head_.chunked && !has_length_)
    return fail(411, "Length required: a POST needs Content-Length or chunked Transfer-Encoding");
  if (!head_.http10 && !has_host_) return fail(400, "Bad request: no Host header (RFC 9112, 3.2)");
  if (head_.content_length > max_body_) return fail(413, "Request entity too large: the body exceeds the server's --max-request-size");
  body_start_ = pos_ = head_end + 4;
  phase_ = head_.chunked ? Phase::chunk_size : Phase::length_body;
  return State::done;
}

RequestFramer::State RequestFramer::parse_field(std::string_view line) {
  if (line.starts_with(' ') || line.starts_with('\t'))
    return fail(400, "Bad request: a folded header line (obs-fold, RFC 9112 5.2)");
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon)))
    return fail(400, "Bad request: a header line that is not 'name: value' (no space before the colon)");
  const std::string_view name = line.substr(0, colon);
  const std::string_view value = trim(line.substr(colon + 1));
  if (!is_field_value(value)) return fail(400, "Bad request: a control character in the value of " + std::string(name));
  if (iequals(name, "Content-Length")) {
    // Digits only: no sign, no list, no spaces; a repeat must agree (RFC 9112 6.3).
    if (value.empty() || value.size() > 19 || !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return fail(400, "Bad request: Content-Length is not a number of digits");
    uint64_t n = 0;
    for (char c : value) n = n * 10 + static_cast<uint64_t>(c - '0');
    if (has_length_ && n != head_.content_length) return fail(400, "Bad request: two different Content-Length values");
    has_length_ = true;
    head_.content_length = n;
    return State::need_more;
  }
  if (iequals(name, "Transfer-Encoding")) {
    if (head_.http10) return fail(400, "Bad request: Transfer-Encoding in an HTTP/1.0 request (RFC 9112, 6.1)");
    if (head_.chunked || !iequals(value, "chunked"))
      return fail(501, "Not implemented: Transfer-Encoding other than one 'chunked'");
    head_.chunked = true;
    return State::need_more;
  }
  if (iequals(name, "Content-Encoding")) {
    if (iequals(value, "gzip") || iequals(value, "x-gzip")) head_.gzip = true;
    else if (!iequals(value, "identity"))
      return fail(415, "Unsupported media type: Content-Encoding '" + std::string(value) + "' (only gzip)");
    return State::need_more;
  }
  if (iequals(name, "Expect")) {
    if (!iequals(value, "100-continue")) return fail(417, "Expectation failed: only 100-continue is understood");
    head_.expect_continue = true;
    return State::need_more;
  }
  if (iequals(name, "Trailer")) return State::need_more;
  if (iequals(name, "Accept-Encoding") && accepts_gzip(value)) head_.accepts_gzip = true;
  if (iequals(name, "Authorization")) head_.authorization.assign(value);
  if (iequals(name, "Connection") && iequals(value, "close")) head_.close = true;
  if (iequals(name, "Host")) {
    if (has_host_) return fail(400, "Bad request: more than one Host header");
    has_host_ = true;
    head_.host.assign(value);
  }
  head_.passed_fields.append(name).append(": ").append(value).append("\r\n");
  return State::need_more;
}

// chunked-body = *chunk last-chunk trailer-section CRLF (RFC 9112 7.1), with
// chunk extensions read past and trailer fields checked and dropped.
RequestFramer::State RequestFramer::parse_chunks(std::string_view data) {
  for (;;) {
    switch (phase_) {
      case Phase::chunk_size: {
        const size_t eol = data.find("\r\n", pos_);
        if (eol == std::string_view::npos) {
          if (data.size() - pos_ > 4096) return fail(400, "Bad request: a chunk-size line longer than 4 KiB");
          return State::need_more;
        }
        const std::string_view line = data.substr(pos_, eol - pos_);
        size_t i = 0;
        uint64_t size = 0;
        for (; i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])); ++i) {
          if (size >> 56) return fail(400, "Bad request: a chunk size too large to represent");
          const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i])));
          size = size * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
        }
        const std::string_view ext = trim(line.substr(i));
        if (i == 0 || (!ext.empty() && ext.front() != ';') || !is_field_value(ext))
          return fail(400, "Bad request: a malformed chunk-size line");
        if (decoded_.size() + size > max_body_)
          return fail(413, "Request entity too large: the chunked body exceeds the server's --max-request-size");
        pos_ = eol + 2;
        chunk_left_ = size;
        phase_ = size == 0 ? Phase::trailers : Phase::chunk_data;
        break;
      }
      case Phase::chunk_data: {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk_left_, data.size() - pos_));
        decoded_.append(data.substr(pos_, n));
        pos_ += n;
        chunk_left_ -= n;
        if (chunk_left_ > 0) return State::need_more;
        phase_ = Phase::chunk_data_end;
        break;
      }
      case Phase::chunk_data_end:
        if (data.size() - pos_ < 2) return State::need_more;
        if (data.substr(pos_, 2) != "\r\n") return fail(400, "Bad request: chunk data longer than its chunk size");
        pos_ += 2;
        phase_ = Phase::chunk_size;
        break;
      case Phase::trailers: {
        const size_t eol = data.find("\r\n", pos_);
        if (eol == std::string_view::npos) {
          if (trailer_bytes_ + data.size() - pos_ > kMaxHeaderBytes)
            return fail(431, "Request header fields too large: the trailer exceeds 64 KiB");
          return State::need_more;
        }
        const std::string_view line = data.substr(pos_, eol - pos_);
        trailer_bytes_ += line.size() + 2;
        if (trailer_bytes_ > kMaxHeaderBytes) return fail(431, "Request header fields too large: the trailer exceeds 64 KiB");
        pos_ = eol + 2;
        if (line.empty()) {
          consumed_ = pos_;
          return finish(data);
        }
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos || !is_token(line.substr(0, colon)) ||
            !is_field_value(line.substr(colon + 1)))
          return fail(400, "Bad request: a malformed trailer field");
        break;
      }
      default:
        return State::done;
    }
  }
}

RequestFramer::State RequestFramer::finish(std::string_view data) {
  if (head_.gzip) {
    std::string inflated;
    const std::string_view packed = head_.chunked ? std::string_view(decoded_) : data.substr(body_start_, head_.content_length);
    if (!gunzip(packed, max_body_, inflated, error_)) return State::error;
    decoded_ = std::move(inflated);
  }
  phase_ = Phase::done;
  return State::done;
}

std::string_view RequestFramer::body(std::string_view data) const {
  if (head_.chunked || head_.gzip) return decoded_;
  return data.substr(body_start_, head_.content_length);
}

bool gunzip(std::string_view in, uint64_t max_out, std::string& out, HttpError& error) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    error = {500, "Internal error: zlib failed to start", true};
    return false;
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  char buf[16384];
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > max_out) {
      inflateEnd(&z);
      error = {413, "Request entity too large: the gzip-decoded body exceeds the server's --max-request-size"};
      return false;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the end of the stream
  }
  const bool ok = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!ok) error = {400, "Bad request: the body is not one complete gzip stream (Content-Encoding: gzip)"};
  return ok;
}

}  // namespace soapbench::server
