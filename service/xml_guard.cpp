#include "xml_guard.h"

#include <strings.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace soapbench::server {
namespace {

bool is_xml_char(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

std::string code_point(uint32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", c);
  return buf;
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// Eight bytes at a time: the guard runs on every request, and most bytes are
// plain ASCII text that needs no look of its own.
static_assert(std::endian::native == std::endian::little, "load8() puts the first byte lowest");
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;
uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
// Non-zero when some byte of w is below n (n <= 128).
uint64_t has_less(uint64_t w, uint8_t n) { return (w - kOnes * n) & ~w & kHighs; }
uint64_t has_byte(uint64_t w, char c) { return has_less(w ^ (kOnes * static_cast<uint8_t>(c)), 1); }
// The high bits of the bytes of w in [lo, hi], for w without high bits (no
// byte then carries into the next).
uint64_t in_range(uint64_t w, uint8_t lo, uint8_t hi) {
  return (w + kOnes * static_cast<uint8_t>(0x80 - lo)) & ~(w + kOnes * static_cast<uint8_t>(0x7F - hi)) & kHighs;
}
// Eight hex digits, or eight characters of the base64 alphabet (no padding):
// binary fields are most of an echoStruct's bytes.
bool all_hex(uint64_t w) {
  return (w & kHighs) == 0 && (in_range(w, '0', '9') | in_range(w | kOnes * 0x20, 'a', 'f')) == kHighs;
}
bool all_base64(uint64_t w) {
  return (w & kHighs) == 0 && (in_range(w | kOnes * 0x20, 'a', 'z') | in_range(w, '0', '9') | in_range(w, '+', '+') |
                               in_range(w, '/', '/')) == kHighs;
}

// The first byte that is not a well-formed UTF-8 XML character, and why.
size_t first_bad_char(std::string_view s, std::string& why) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    if (i + 8 <= n) {  // eight printable ASCII characters: nothing to check
      const uint64_t w = load8(s.data() + i);
      if ((w & kHighs) == 0 && has_less(w, 0x20) == 0) {
        i += 8;
        continue;
      }
    }
    const unsigned char b = p[i];
    if (b >= 0x20 && b < 0x80) { ++i; continue; }
    if (b < 0x80) {
      if (b == '\t' || b == '\n' || b == '\r') { ++i; continue; }
      why = b == 0 ? "a NUL character (U+0000), which XML 1.0 does not allow" : "the character " + code_point(b) + ", which XML 1.0 does not allow";
      return i;
    }
    // RFC 3629: 2 to 4 bytes, no overlong forms, no surrogates, nothing past U+10FFFF.
    size_t len = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    uint32_t c = len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (p[i + k] & 0xC0) == 0x80;
      c = (c << 6) | (p[i + k] & 0x3F);
    }
    if (ok && len == 3) ok = c >= 0x800 && (c < 0xD800 || c > 0xDFFF);
    if (ok && len == 4) ok = c >= 0x10000 && c <= 0x10FFFF;
    if (!ok) {
      why = "invalid UTF-8 (byte " + std::to_string(i) + ")";
      return i;
    }
    if (!is_xml_char(c)) {
      why = "the character " + code_point(c) + ", which XML 1.0 does not allow";
      return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view collapse(std::string_view v) {
  while (!v.empty() && is_space(v.front())) v.remove_prefix(1);
  while (!v.empty() && is_space(v.back())) v.remove_suffix(1);
  return v;
}

bool valid_decimal(std::string_view v) {
  v = collapse(v);
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
  size_t digits = 0, i = 0;
  for (; i < v.size() && is_digit(v[i]); ++i) ++digits;
  if (i < v.size() && v[i] == '.')
    for (++i; i < v.size() && is_digit(v[i]); ++i) ++digits;
  return digits > 0 && i == v.size();
}

// xsd:dateTime: [-]YYYY-MM-DDThh:mm:ss[.s+][Z|(+|-)hh:mm], a day that exists in its month.
bool valid_date_time(std::string_view v) {
  v = collapse(v);
  if (!v.empty() && v[0] == '-') v.remove_prefix(1);
  size_t y = 0;
  while (y < v.size() && is_digit(v[y])) ++y;
  if (y < 4 || (y > 4 && v[0] == '0')) return false;
  auto num = [&](size_t at, size_t len) {
    int n = 0;
    for (size_t k = at; k < at + len; ++k) {
      if (k >= v.size() || !is_digit(v[k])) return -1;
      n = n * 10 + (v[k] - '0');
    }
    return n;
  };
  const long year = std::stol(std::string(v.substr(y > 9 ? y - 9 : 0, y > 9 ? 9 : y)));
  if (v.size() < y + 15 || v[y] != '-' || v[y + 3] != '-' || v[y + 6] != 'T' || v[y + 9] != ':' || v[y + 12] != ':')
    return false;
  const int month = num(y + 1, 2), day = num(y + 4, 2), hour = num(y + 7, 2), minute = num(y + 10, 2), second = num(y + 13, 2);
  if (year == 0 && y == 4) return false;  // XML Schema 1.0 has no year 0000
  if (month < 1 || month > 12 || day < 1 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (day > days[month - 1] || hour < 0 || hour > 24 || (hour == 24 && (minute || second))) return false;
  size_t i = y + 15;
  if (i < v.size() && v[i] == '.') {
    const size_t start = ++i;
    while (i < v.size() && is_digit(v[i])) ++i;
    if (i == start) return false;
  }
  if (i == v.size()) return true;
  if (v[i] == 'Z') return i + 1 == v.size();
  if ((v[i] != '+' && v[i] != '-') || v.size() != i + 6 || v[i + 3] != ':') return false;
  const int zh = num(i + 1, 2), zm = num(i + 4, 2);
  return zh >= 0 && zm >= 0 && zm <= 59 && (zh < 14 || (zh == 14 && zm == 0));
}

// Character classes for the binary types: one table look per character, since
// binary fields are most of an echoStruct's bytes.
enum : uint8_t { kOther = 0, kBase64 = 1, kHex = 2, kPad = 4, kSpace = 8 };
constexpr std::array<uint8_t, 256> kClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kBase64;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kBase64;
  for (int c = '0'; c <= '9'; ++c) t[c] = kBase64 | kHex;
  for (int c = 'a'; c <= 'f'; ++c) t[c] |= kHex;
  for (int c = 'A'; c <= 'F'; ++c) t[c] |= kHex;
  t['+'] = t['/'] = kBase64;
  t['='] = kPad;
  t[' '] = t['\t'] = t['\r'] = t['\n'] = kSpace;
  return t;
}();
uint8_t char_class(char c) { return kClass[static_cast<unsigned char>(c)]; }
// Where a tag's name ends (white space, '>' or '/') and where an attribute's does
// (white space, '=' or '>'): one table look per character of every name.
enum : uint8_t { kEndsTagName = 1, kEndsAttributeName = 2 };
constexpr std::array<uint8_t, 256> kNameEnd = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned char c : {' ', '\t', '\r', '\n', '>'}) t[c] = kEndsTagName | kEndsAttributeName;
  t['/'] = kEndsTagName;
  t['='] = kEndsAttributeName;
  return t;
}();
bool ends(char c, uint8_t what) { return kNameEnd[static_cast<unsigned char>(c)] & what; }

bool valid_base64(std::string_view v) {
  size_t i = 0;
  while (i + 8 <= v.size() && all_base64(load8(v.data() + i))) i += 8;
  size_t n = i, pad = 0;
  for (char c : v.substr(i)) {
    const uint8_t k = char_class(c);
    if (k & kBase64) {
      if (pad > 0) return false;  // a character after padding
      ++n;
    } else if (k == kPad) {
      ++pad;
      ++n;
    } else if (k != kSpace) {
      return false;
    }
  }
  return n % 4 == 0 && pad <= 2;
}

bool valid_hex(std::string_view v) {
  v = collapse(v);
  size_t i = 0;
  while (i + 8 <= v.size() && all_hex(load8(v.data() + i))) i += 8;
  for (char c : v.substr(i))
    if (!(char_class(c) & kHex)) return false;
  return v.size() % 2 == 0;
}

// The contract's simple-typed elements gSOAP would normalise or pass unchecked,
// by local name (wsdl/echo.wsdl gives each name one type).
enum class Typed { none, decimal, date_time, base64, hex, qname };
Typed typed(std::string_view local) {
  if (local.size() < 4 || (local[0] != 'v' && local[0] != 'd')) return Typed::none;  // most elements, at once
  if (local == "varDecimal") return Typed::decimal;
  if (local == "varDateTime") return Typed::date_time;
  if (local == "varBase64Binary" || local == "data") return Typed::base64;
  if (local == "varHexBinary") return Typed::hex;
  if (local == "varQName") return Typed::qname;
  return Typed::none;
}
const char* type_name(Typed t) {
  switch (t) {
    case Typed::decimal: return "xsd:decimal";
    case Typed::date_time: return "xsd:dateTime";
    case Typed::base64: return "xsd:base64Binary";
    case Typed::hex: return "xsd:hexBinary";
    default: return "xsd:QName";
  }
}

std::string_view prefix_of(std::string_view qname) {
  const size_t colon = qname.find(':');
  return colon == std::string_view::npos ? std::string_view() : qname.substr(0, colon);
}
std::string_view local_of(std::string_view qname) {
  const size_t colon = qname.find(':');
  return colon == std::string_view::npos ? qname : qname.substr(colon + 1);
}

class Scanner {
 public:
  Scanner(std::string_view body, const XmlLimits& limits, std::string& out, XmlGuard::Buffers& buffers)
      : s_(body), limits_(limits), out_(out), stack_(buffers.stack), decls_(buffers.decls), prefixes_(buffers.prefixes) {
    stack_.clear();
    decls_.clear();
  }

  std::string run() {
    if (s_.starts_with("\xFE\xFF") || s_.starts_with("\xFF\xFE") || s_.starts_with(std::string_view("<\0", 2)) ||
        s_.starts_with(std::string_view("\0<", 2)))
      return "The message is UTF-16: this service reads UTF-8 only";
    std::string& why = why_;
    bad_ = first_bad_char(s_, why);
    size_t p = s_.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    while (p < s_.size()) {
      const size_t stop = next_markup(p);
      if (bad_ < stop) return with_element("Not allowed: " + why);
      if (stop == s_.size()) break;
      std::string fault = s_[stop] == '&' ? reference(stop, p) : markup(stop, p);
      if (!fault.empty()) return fault;
    }
    if (bad_ != std::string_view::npos) return with_element("Not allowed: " + why);
    if (!out_.empty()) out_.append(s_.substr(copied_));
    return {};
  }

 private:
  using Element = XmlGuard::Element;

  // The next '<' or '&' from p, or the end.
  size_t next_markup(size_t p) const {
    const char* d = s_.data();
    const size_t n = s_.size();
    while (p + 8 <= n) {
      // The lowest flagged byte is exact (a false flag only follows a true one).
      if (const uint64_t hit = has_byte(load8(d + p), '<') | has_byte(load8(d + p), '&'))
        return p + static_cast<size_t>(std::countr_zero(hit) / 8);
      p += 8;
    }
    while (p < n && d[p] != '<' && d[p] != '&') ++p;
    return p;
  }

  std::string with_element(const std::string& what) const {
    return what + (stack_.empty() ? std::string(" (outside any element)") : " in element '" + std::string(stack_.back().name) + "'");
  }

  // "&...;" at `at`: a predefined entity or a character reference. Sets p past it.
  std::string reference(size_t at, size_t& p) {
    if (!stack_.empty()) stack_.back().simple = false;
    // The five predefined entities, the common case, without a search.
    const char* d = s_.data() + at + 1;
    const size_t left = s_.size() - at - 1;
    size_t known = 0;
    if (left >= 3 && d[1] == 't' && d[2] == ';' && (d[0] == 'l' || d[0] == 'g')) known = 3;
    else if (left >= 4 && std::memcmp(d, "amp;", 4) == 0) known = 4;
    else if (left >= 5 && (std::memcmp(d, "quot;", 5) == 0 || std::memcmp(d, "apos;", 5) == 0)) known = 5;
    if (known) {
      p = at + 1 + known;
      return {};
    }
    const size_t semi = s_.find(';', at);
    if (semi == std::string_view::npos || semi - at > 40) return with_element("An '&' that starts no reference");
    const std::string_view ref = s_.substr(at + 1, semi - at - 1);
    p = semi + 1;
    if (!ref.starts_with('#')) {
      if (ref == "lt" || ref == "gt" || ref == "amp" || ref == "quot" || ref == "apos") return {};
      return with_element("Undefined entity '&" + std::string(ref) + ";'");
    }
    const bool hex = ref.size() > 1 && ref[1] == 'x';
    const std::string_view digits = ref.substr(hex ? 2 : 1);
    uint64_t c = 0;
    for (char ch : digits) {
      const int v = is_digit(ch) ? ch - '0' : hex && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : hex && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
      if (v < 0) return with_element("A malformed character reference '&" + std::string(ref) + ";'");
      c = c * (hex ? 16 : 10) + static_cast<uint64_t>(v);
      if (c > 0x10FFFF) break;
    }
    if (digits.empty() || c > 0x10FFFF || !is_xml_char(static_cast<uint32_t>(c)))
      return with_element("Not allowed: the character reference '&" + std::string(ref) + ";', which is no XML 1.0 character");
    if (semi + 1 - at <= 6) return {};
    // gSOAP mis-reads references of seven or more characters: pass the character
    // itself, or the short reference for markup and white space.
    if (out_.empty()) out_.reserve(s_.size());
    out_.append(s_.substr(copied_, at - copied_));
    if (c == '<' || c == '&' || c == '>' || c == '"' || c == '\'' || c == 0x9 || c == 0xA || c == 0xD)
      out_.append("&#").append(std::to_string(c)).append(";");
    else append_utf8(out_, static_cast<uint32_t>(c));
    copied_ = semi + 1;
    return {};
  }

  // Markup at `at`. Sets p past it.
  std::string markup(size_t at, size_t& p) {
    const std::string_view rest = s_.substr(at);
    auto skip_to = [&](std::string_view end) {
      const size_t e = s_.find(end, at);
      p = e == std::string_view::npos ? s_.size() : e + end.size();
    };
    // By the second character: start and end tags, the common cases, first.
    const char second = rest.size() > 1 ? rest[1] : '\0';
    if (second == '/') return end_tag(at, p);
    if (second == '?') { skip_to("?>"); return {}; }
    if (second != '!') return start_tag(at, p);
    if (rest.starts_with("<!--")) { skip_to("-->"); return {}; }
    if (rest.starts_with("<![CDATA[")) {
      if (!stack_.empty()) stack_.back().simple = false;
      skip_to("]]>");
      return {};
    }
    if (rest.size() >= 9 && strncasecmp(rest.data() + 2, "DOCTYPE", 7) == 0)
      return "A DTD is not allowed in a SOAP message (SOAP 1.1, section 3)";
    return with_element("A markup declaration ('<!') outside a DTD");
  }

  std::string end_tag(size_t at, size_t& p) {
    const size_t gt = s_.find('>', at);
    p = gt == std::string_view::npos ? s_.size() : gt + 1;
    if (stack_.empty()) return {};  // gSOAP reports the stray end tag
    std::string fault = close_element(at);
    return fault;
  }

  std::string close_element(size_t text_end) {
    const Element& e = stack_.back();
    const auto type = static_cast<Typed>(e.type);
    if (type != Typed::none && e.simple) {
      const std::string_view v = s_.substr(e.text_start, text_end - e.text_start);
      bool ok = true;
      switch (type) {
        case Typed::decimal: ok = valid_decimal(v); break;
        case Typed::date_time: ok = valid_date_time(v); break;
        case Typed::base64: ok = valid_base64(v); break;
        case Typed::hex: ok = valid_hex(v); break;
        case Typed::qname: {
          const std::string_view q = collapse(v);
          ok = !q.empty() && (prefix_of(q).empty() || declared(prefix_of(q)));
          break;
        }
        case Typed::none: break;
      }
      if (!ok) return with_element("Invalid " + std::string(type_name(type)) + " value '" + std::string(collapse(v).substr(0, 64)) + "'");
    }
    while (!decls_.empty() && decls_.back().first == stack_.size()) decls_.pop_back();
    stack_.pop_back();
    return {};
  }

  // At most --max-namespaces declarations are in scope: a bounded look.
  bool declared(std::string_view prefix) const {
    if (prefix == "xml") return true;
    for (const auto& d : decls_)
      if (d.second == prefix) return true;
    return false;
  }

  std::string start_tag(size_t at, size_t& p) {
    size_t i = at + 1;
    const size_t name_start = i;
    while (i < s_.size() && !ends(s_[i], kEndsTagName)) ++i;
    const std::string_view name = s_.substr(name_start, i - name_start);
    if (!stack_.empty()) stack_.back().simple = false;
    stack_.push_back({name, static_cast<int>(typed(local_of(name))), 0});
    size_t attributes = 0;
    std::vector<std::string_view>& prefixes = prefixes_;  // reused: no allocation per element
    prefixes.assign(1, prefix_of(name));
    for (;;) {
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size()) { p = s_.size(); return {}; }  // gSOAP reports the truncated tag
      if (s_[i] == '>' || s_[i] == '/') break;
      const size_t an = i;
      while (i < s_.size() && !ends(s_[i], kEndsAttributeName)) ++i;
      const std::string_view attr = s_.substr(an, i - an);
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size() || s_[i] != '=') { p = i; return {}; }  // malformed: gSOAP's to report
      ++i;
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size() || (s_[i] != '"' && s_[i] != '\'')) { p = i; return {}; }
      const size_t close = s_.find(s_[i], i + 1);
      if (close == std::string_view::npos) { p = s_.size(); return {}; }
      const std::string_view value = s_.substr(i + 1, close - i - 1);
      if (++attributes > limits_.max_attributes)
        return with_element("More than " + std::to_string(limits_.max_attributes) + " attributes (the server's --max-attributes)");
      if (bad_ < close) return with_element("Not allowed: " + why_);
      for (size_t amp = value.find('&'); amp != std::string_view::npos; amp = value.find('&', amp + 1)) {
        size_t ignored = 0;
        if (std::string fault = reference(i + 1 + amp, ignored); !fault.empty()) return fault;
      }
      if (attr == "xmlns" || attr.starts_with("xmlns:")) {
        decls_.emplace_back(stack_.size(), attr == "xmlns" ? std::string_view() : attr.substr(6));
        if (decls_.size() > limits_.max_namespaces)
          return with_element("More than " + std::to_string(limits_.max_namespaces) +
                              " namespace declarations in scope (the server's --max-namespaces)");
      } else {
        if (local_of(attr) == "nil") stack_.back().simple = false;  // xsi:nil: no value to check
        prefixes.push_back(prefix_of(attr));
        if (local_of(attr) == "type" && !prefix_of(attr).empty()) prefixes.push_back(prefix_of(collapse(value)));
      }
      i = close + 1;
    }
    for (std::string_view prefix : prefixes)
      if (!prefix.empty() && !declared(prefix)) return with_element("Undeclared namespace prefix '" + std::string(prefix) + "'");
    const bool empty = s_[i] == '/';
    const size_t gt = s_.find('>', i);
    p = gt == std::string_view::npos ? s_.size() : gt + 1;
    stack_.back().text_start = p;
    return empty ? close_element(p) : std::string();
  }

  std::string_view s_;
  const XmlLimits& limits_;
  std::string& out_;
  size_t copied_ = 0;  // s_ is copied to out_ up to here (once a rewrite began)
  size_t bad_ = std::string_view::npos;  // the first character XML forbids, and why_
  std::string why_;
  std::vector<Element>& stack_;
  std::vector<std::pair<size_t, std::string_view>>& decls_;  // in scope: (depth, prefix), innermost last
  std::vector<std::string_view>& prefixes_;
};

}  // namespace

std::string XmlGuard::check(std::string_view body, const XmlLimits& limits, std::string& rewritten) {
  rewritten.clear();
  return Scanner(body, limits, rewritten, buffers_).run();
}

}  // namespace soapbench::server
