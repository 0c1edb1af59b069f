#include "xml_values.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "soapbench/contract.h"

namespace soapbench::xml {
namespace {

void append_element(std::string& out, const char* name, std::string_view escaped_or_plain, bool escape) {
  out += "<tns:";
  out += name;
  out += '>';
  if (escape) append_escaped(out, escaped_or_plain);
  else out += escaped_or_plain;
  out += "</tns:";
  out += name;
  out += '>';
}

template <class Int>
void append_int_element(std::string& out, const char* name, Int v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  append_element(out, name, std::string_view(buf, static_cast<size_t>(r.ptr - buf)), false);
}

void open(std::string& out, const char* name) {
  out += "<tns:";
  out += name;
  out += '>';
}

void close(std::string& out, const char* name) {
  out += "</tns:";
  out += name;
  out += '>';
}

// A QName's prefix must be declared where the value is read: "tns" is declared on
// the envelope; any other namespace gets its own prefix on the element itself.
void append_qname_element(std::string& out, const QName& q) {
  if (q.ns == kNamespace) {
    out += "<tns:varQName>tns:";
  } else if (q.ns.empty()) {
    out += "<tns:varQName>";  // no default namespace is in scope: unprefixed means no namespace
  } else {
    out += "<tns:varQName xmlns:q=\"";
    append_escaped(out, q.ns);
    out += "\">q:";
  }
  out += q.local;  // an NCName: nothing to escape
  close(out, "varQName");
}

void append_item(std::string& out, const ItemValue& it) {
  open(out, "item");
  append_element(out, "varString", it.var_string, true);
  append_int_element(out, "varUByte", unsigned{it.var_ubyte});
  append_int_element(out, "varULong", it.var_ulong);
  open(out, "varFloat");
  append_float(out, it.var_float);
  close(out, "varFloat");
  append_qname_element(out, it.var_qname);
  open(out, "varBase64Binary");
  append_base64(out, it.var_base64);
  close(out, "varBase64Binary");
  open(out, "varHexBinary");
  append_hex(out, it.var_hex);
  close(out, "varHexBinary");
  append_element(out, "varColor", to_string(it.var_color), false);

  const NestedValue& n = it.var_struct;
  out += "<tns:varStruct";
  if (n.var_attr_string) {
    out += " varAttrString=\"";  // attributeFormDefault="unqualified": no prefix
    append_escaped(out, *n.var_attr_string);
    out += '"';
  }
  out += '>';
  open(out, "varFloat");
  append_float(out, n.var_float);
  close(out, "varFloat");
  append_int_element(out, "varShort", int{n.var_short});
  append_element(out, "varString", n.var_string, true);
  append_int_element(out, "varByte", int{n.var_byte});
  append_element(out, "varDecimal", n.var_decimal, true);
  open(out, "varDouble");
  append_double(out, n.var_double);
  close(out, "varDouble");
  append_element(out, "varDateTime", format_date_time(n.var_date_time), false);
  close(out, "varStruct");
  close(out, "item");
}

void begin_envelope(std::string& out, const char* wrapper) {
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<soap:Envelope xmlns:soap=\"";
  out += kSoap11EnvelopeNs;
  out += "\" xmlns:tns=\"";
  out += kNamespace;
  out += "\"><soap:Body>";
  open(out, wrapper);
}

void end_envelope(std::string& out, const char* wrapper) {
  close(out, wrapper);
  out += "</soap:Body></soap:Envelope>";
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// 256-entry tables: one load per character instead of a chain of range tests.
// kBad marks a character outside the alphabet, kSkip whitespace base64 allows.
constexpr uint8_t kBad = 0xff, kSkip = 0xfe, kPad = 0xfd;

struct DecodeTables {
  uint8_t base64[256];
  uint8_t hex[256];
  constexpr DecodeTables() : base64(), hex() {
    for (int i = 0; i < 256; ++i) base64[i] = hex[i] = kBad;
    for (int i = 0; i < 64; ++i) base64[static_cast<uint8_t>(kBase64[i])] = static_cast<uint8_t>(i);
    base64[' '] = base64['\t'] = base64['\n'] = base64['\r'] = kSkip;
    base64['='] = kPad;
    for (int i = 0; i < 10; ++i) hex['0' + i] = static_cast<uint8_t>(i);
    for (int i = 0; i < 6; ++i) hex['a' + i] = hex['A' + i] = static_cast<uint8_t>(10 + i);
  }
};
constexpr DecodeTables kTables;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// xsd:float and xsd:double spell infinity INF and allow a leading '+', which
// from_chars does not; it also accepts "inf"/"infinity" spellings we tolerate.
template <class F>
std::optional<F> parse_floating(std::string_view text) {
  text = trim(text);
  if (text == "INF" || text == "+INF") return std::numeric_limits<F>::infinity();
  if (text == "-INF") return -std::numeric_limits<F>::infinity();
  if (text == "NaN") return std::numeric_limits<F>::quiet_NaN();
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '-') return std::nullopt;
  }
  F v{};
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

template <class F>
void append_floating(std::string& out, F v) {
  if (std::isnan(v)) { out += "NaN"; return; }
  if (std::isinf(v)) { out += v < 0 ? "-INF" : "INF"; return; }
  char buf[40];
  // Shortest form that reads back to the same value (like %.9g / %.17g, but shorter).
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

}  // namespace

std::string render_echo_string(std::string_view text, Message message) {
  const char* wrapper = message == Message::request ? "echoString" : "echoStringResponse";
  std::string out;
  out.reserve(text.size() + text.size() / 4 + 256);
  begin_envelope(out, wrapper);
  append_element(out, "text", text, true);
  end_envelope(out, wrapper);
  return out;
}

std::string render_echo_struct(const std::vector<ItemValue>& items, Message message) {
  const char* wrapper = message == Message::request ? "echoStruct" : "echoStructResponse";
  std::string out;
  out.reserve(256 + items.size() * 2048);
  begin_envelope(out, wrapper);
  for (const ItemValue& it : items) append_item(out, it);
  end_envelope(out, wrapper);
  return out;
}

std::string render_echo_binary(const std::vector<uint8_t>& data, Message message) {
  const char* wrapper = message == Message::request ? "echoBinary" : "echoBinaryResponse";
  std::string out;
  out.reserve(data.size() / 3 * 4 + 512);
  begin_envelope(out, wrapper);
  open(out, "data");
  append_base64(out, data);
  close(out, "data");
  end_envelope(out, wrapper);
  return out;
}

void append_escaped(std::string& out, std::string_view text) {
  size_t plain = 0;  // start of the run of characters copied as they are
  for (size_t i = 0; i < text.size(); ++i) {
    const char* entity = nullptr;
    switch (text[i]) {
      case '&': entity = "&amp;"; break;
      case '<': entity = "&lt;"; break;
      case '>': entity = "&gt;"; break;
      case '"': entity = "&quot;"; break;
      case '\'': entity = "&apos;"; break;
      case '\t': entity = "&#9;"; break;
      case '\n': entity = "&#10;"; break;
      case '\r': entity = "&#13;"; break;
      default: continue;
    }
    out.append(text.data() + plain, i - plain);
    out += entity;
    plain = i + 1;
  }
  out.append(text.data() + plain, text.size() - plain);
}

void append_float(std::string& out, float v) { append_floating(out, v); }
void append_double(std::string& out, double v) { append_floating(out, v); }

void append_base64(std::string& out, const std::vector<uint8_t>& bytes) {
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = uint32_t{bytes[i]} << 16 | uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (const size_t left = bytes.size() - i; left > 0) {
    const uint32_t v = uint32_t{bytes[i]} << 16 | (left == 2 ? uint32_t{bytes[i + 1]} << 8 : 0);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += left == 2 ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
}

void append_hex(std::string& out, const std::vector<uint8_t>& bytes) {
  constexpr char digits[] = "0123456789ABCDEF";
  for (uint8_t b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
}

bool decode_base64(std::string_view text, std::vector<uint8_t>& out) {
  // Sized for the whitespace-free case up front, trimmed at the end: no push_back.
  out.resize(text.size() / 4 * 3 + 3);
  uint8_t* dst = out.data();
  uint32_t acc = 0;
  int bits = 0;
  size_t padding = 0;
  const auto* in = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  // Whole quadruples of alphabet characters, the bulk of any value, three bytes at
  // a time; whitespace, padding and errors leave to the character loop below.
  for (; i + 4 <= n; i += 4) {
    const uint32_t a = kTables.base64[in[i]], b = kTables.base64[in[i + 1]];
    const uint32_t c = kTables.base64[in[i + 2]], d = kTables.base64[in[i + 3]];
    if ((a | b | c | d) >= 64) break;
    const uint32_t v = a << 18 | b << 12 | c << 6 | d;
    dst[0] = static_cast<uint8_t>(v >> 16);
    dst[1] = static_cast<uint8_t>(v >> 8);
    dst[2] = static_cast<uint8_t>(v);
    dst += 3;
  }
  for (; i < n; ++i) {
    const uint8_t v = kTables.base64[in[i]];
    if (v < 64) {
      if (padding > 0) return false;  // data after padding
      acc = (acc << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        *dst++ = static_cast<uint8_t>(acc >> bits);
      }
    } else if (v == kPad) {
      ++padding;
    } else if (v != kSkip) {
      return false;
    }
  }
  out.resize(static_cast<size_t>(dst - out.data()));
  // Complete quadruples only: 2 or 4 leftover bits mean one or two '=' of padding.
  return padding <= 2 && (bits == 0 ? padding == 0 : (bits == 4 ? padding == 2 : bits == 2 && padding == 1));
}

bool decode_hex(std::string_view text, std::vector<uint8_t>& out) {
  text = trim(text);
  out.clear();
  if (text.size() % 2 != 0) return false;
  out.resize(text.size() / 2);
  uint8_t* dst = out.data();
  for (size_t i = 0; i < text.size(); i += 2) {
    const uint8_t hi = kTables.hex[static_cast<uint8_t>(text[i])];
    const uint8_t lo = kTables.hex[static_cast<uint8_t>(text[i + 1])];
    if ((hi | lo) > 15) return false;  // kBad has high bits set
    *dst++ = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

std::optional<float> parse_float(std::string_view text) { return parse_floating<float>(text); }
std::optional<double> parse_double(std::string_view text) { return parse_floating<double>(text); }

template <class Int>
std::optional<Int> parse_integer(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '-') return std::nullopt;
  }
  Int v{};
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

template std::optional<uint8_t> parse_integer<uint8_t>(std::string_view);
template std::optional<uint64_t> parse_integer<uint64_t>(std::string_view);
template std::optional<int16_t> parse_integer<int16_t>(std::string_view);
template std::optional<int8_t> parse_integer<int8_t>(std::string_view);

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace soapbench::xml
