#include "payload.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

namespace soapbench {

const char* const kStringPattern = "SOAP & <bench> \"echo\" 'string' payload: 0123456789 abcdefghijklm";
static_assert(std::char_traits<char>::length(
                  "SOAP & <bench> \"echo\" 'string' payload: 0123456789 abcdefghijklm") == 64);

std::string make_string(size_t length) {
  const std::string pattern = kStringPattern;
  std::string s;
  s.reserve(length);
  while (s.size() < length) s.append(pattern, 0, std::min(pattern.size(), length - s.size()));
  return s;
}

std::vector<ItemValue> make_items(const PayloadSize& size) {
  std::vector<ItemValue> items(size.items);
  for (size_t i = 0; i < items.size(); ++i) {
    ItemValue& it = items[i];
    it.var_string = "item " + std::to_string(i) + " " + make_string(64);
    it.var_ubyte = static_cast<uint8_t>(255 - i % 256);
    it.var_ulong = std::numeric_limits<uint64_t>::max() - i;
    it.var_float = i == 0 ? FLT_MAX : -FLT_MIN * static_cast<float>(i);
    it.var_qname = {"urn:soapbench:echo:1", "sample" + std::to_string(i)};
    it.var_base64.resize(size.binary_bytes);
    it.var_hex.resize(size.binary_bytes);
    for (size_t b = 0; b < size.binary_bytes; ++b) {
      it.var_base64[b] = static_cast<uint8_t>((b + i) & 0xff);
      it.var_hex[b] = static_cast<uint8_t>((255 - b - i) & 0xff);
    }
    it.var_color = static_cast<Color>(i % 3);
    NestedValue& n = it.var_struct;
    n.var_float = -FLT_MAX;
    n.var_short = std::numeric_limits<int16_t>::min();
    n.var_string = "nested <" + std::to_string(i) + "> & more";
    n.var_byte = std::numeric_limits<int8_t>::min();
    n.var_decimal = "-12345678901234567890.123456789";
    n.var_double = i == 0 ? DBL_MAX : 1.0 / 3.0 + static_cast<double>(i);
    n.var_date_time = {1164803696 + static_cast<int64_t>(i), 789012};  // 2006-11-29T12:34:56.789012Z
    n.var_attr_string = "attr \"" + std::to_string(i) + "\"";
  }
  return items;
}

std::vector<uint8_t> make_bytes(size_t n) {
  std::vector<uint8_t> bytes(n);
  uint32_t x = 0x9e3779b9u;  // xorshift: cheap, and no period a 2 MB echo could hide in
  for (auto& b : bytes) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x >> 24);
  }
  return bytes;
}

namespace {

// Where two byte strings known to differ first differ.
std::string describe_bytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size())
    return std::to_string(a.size()) + " bytes sent, " + std::to_string(b.size()) + " echoed";
  const auto at = std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin();
  return "byte " + std::to_string(at) + " differs";
}

template <class T>
std::string num(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

}  // namespace

std::optional<std::string> compare_items(const std::vector<ItemValue>& sent,
                                         const std::vector<ItemValue>& got) {
  if (sent.size() != got.size())
    return std::to_string(sent.size()) + " items sent, " + std::to_string(got.size()) + " echoed";
  for (size_t i = 0; i < sent.size(); ++i) {
    const ItemValue& a = sent[i];
    const ItemValue& b = got[i];
    // Built only when something differs: this runs on every call of a benchmark.
    auto at = [i] { return "item " + std::to_string(i) + ": "; };
    auto differ = [&](const char* field, const std::string& x, const std::string& y) {
      return at() + field + " sent " + x + ", echoed " + y;
    };
    if (a.var_string != b.var_string) return differ("varString", a.var_string, b.var_string);
    if (a.var_ubyte != b.var_ubyte) return differ("varUByte", num(a.var_ubyte), num(b.var_ubyte));
    if (a.var_ulong != b.var_ulong) return differ("varULong", num(a.var_ulong), num(b.var_ulong));
    if (a.var_float != b.var_float) return differ("varFloat", num(a.var_float), num(b.var_float));
    if (a.var_qname != b.var_qname)
      return differ("varQName", "{" + a.var_qname.ns + "}" + a.var_qname.local,
                    "{" + b.var_qname.ns + "}" + b.var_qname.local);
    // vector == is a size check and memcmp; the description loop runs only on a difference.
    if (a.var_base64 != b.var_base64) return at() + "varBase64Binary: " + describe_bytes(a.var_base64, b.var_base64);
    if (a.var_hex != b.var_hex) return at() + "varHexBinary: " + describe_bytes(a.var_hex, b.var_hex);
    if (a.var_color != b.var_color) return differ("varColor", to_string(a.var_color), to_string(b.var_color));
    const NestedValue& x = a.var_struct;
    const NestedValue& y = b.var_struct;
    if (x.var_float != y.var_float) return differ("varStruct.varFloat", num(x.var_float), num(y.var_float));
    if (x.var_short != y.var_short) return differ("varStruct.varShort", num(x.var_short), num(y.var_short));
    if (x.var_string != y.var_string) return differ("varStruct.varString", x.var_string, y.var_string);
    if (x.var_byte != y.var_byte)
      return differ("varStruct.varByte", num(int{x.var_byte}), num(int{y.var_byte}));
    if (!decimal_equal(x.var_decimal, y.var_decimal))
      return differ("varStruct.varDecimal", x.var_decimal, y.var_decimal);
    if (x.var_double != y.var_double) return differ("varStruct.varDouble", num(x.var_double), num(y.var_double));
    if (x.var_date_time != y.var_date_time)
      return differ("varStruct.varDateTime", format_date_time(x.var_date_time),
                    format_date_time(y.var_date_time));
    if (x.var_attr_string != y.var_attr_string)
      return differ("varStruct@varAttrString", x.var_attr_string.value_or("(absent)"),
                    y.var_attr_string.value_or("(absent)"));
  }
  return std::nullopt;
}

// Howard Hinnant's algorithm.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Exactly `n` digits at text[i], advancing i; -1 when they are not all there.
int fixed_digits(std::string_view text, size_t& i, size_t n) {
  if (text.size() - i < n) return -1;
  int v = 0;
  for (size_t end = i + n; i < end; ++i) {
    if (!is_digit(text[i])) return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

bool expect(std::string_view text, size_t& i, char c) {
  if (i >= text.size() || text[i] != c) return false;
  ++i;
  return true;
}

unsigned days_in_month(int64_t y, int m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

// By hand rather than sscanf: this runs on every echoStruct call. The xsd:dateTime
// form: '-'? yyyy-mm-ddThh:mm:ss('.'s+)? then Z, (+|-)hh:mm or no zone.
std::optional<DateTime> parse_date_time(const std::string& str) {
  const std::string_view text = str;
  size_t i = 0;
  const bool bce = !text.empty() && text[0] == '-';
  if (bce) ++i;
  int64_t y = 0;
  const size_t year_start = i;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    if (i - year_start == 9) return std::nullopt;  // years beyond 999999999 are not worth an overflow
    y = y * 10 + (text[i] - '0');
  }
  if (i - year_start < 4) return std::nullopt;
  if (bce) y = -y;
  int mo, d, h, mi, s;
  if (!expect(text, i, '-') || (mo = fixed_digits(text, i, 2)) < 0 || !expect(text, i, '-') ||
      (d = fixed_digits(text, i, 2)) < 0 || !expect(text, i, 'T') || (h = fixed_digits(text, i, 2)) < 0 ||
      !expect(text, i, ':') || (mi = fixed_digits(text, i, 2)) < 0 || !expect(text, i, ':') ||
      (s = fixed_digits(text, i, 2)) < 0)
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || static_cast<unsigned>(d) > days_in_month(y, mo) || mi > 59 || s > 60)
    return std::nullopt;
  int32_t micros = 0;
  bool fraction_zero = true;
  if (i < text.size() && text[i] == '.') {
    int digits = 0;
    for (++i; i < text.size() && is_digit(text[i]); ++i, ++digits) {
      if (digits < 6) micros = micros * 10 + (text[i] - '0');  // finer than microseconds: truncated
      fraction_zero = fraction_zero && text[i] == '0';
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 6; ++digits) micros *= 10;
  }
  // 24:00:00 is the end of the day, the next day's midnight; no other time in hour 24.
  if (h > 24 || (h == 24 && (mi != 0 || s != 0 || !fraction_zero))) return std::nullopt;
  int64_t offset = 0;
  if (i < text.size()) {
    if (text[i] == 'Z' && i + 1 == text.size()) {
    } else if ((text[i] == '+' || text[i] == '-') && text.size() - i == 6) {
      const int sign = text[i] == '-' ? -1 : 1;
      ++i;
      const int oh = fixed_digits(text, i, 2);
      if (oh < 0 || !expect(text, i, ':')) return std::nullopt;
      const int om = fixed_digits(text, i, 2);
      if (om < 0 || om > 59 || oh > 14 || (oh == 14 && om != 0)) return std::nullopt;
      offset = sign * (oh * 3600 + om * 60);
    } else {
      return std::nullopt;
    }
  }  // no zone: read as UTC, as the CXF test and gSOAP do
  const int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return DateTime{days * 86400 + h * 3600 + mi * 60 + s - offset, micros};
}

std::string format_date_time(const DateTime& t) {
  int64_t days = t.seconds >= 0 ? t.seconds / 86400 : (t.seconds - 86399) / 86400;
  const int64_t secs = t.seconds - days * 86400;
  // civil_from_days, the inverse of days_from_civil.
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%06dZ", static_cast<long long>(y), m,
                d, static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60), t.micros);
  return buf;
}

namespace {

// An xsd:decimal split into the parts that decide its value, as views into the
// text: no string is built on the comparison path.
struct DecimalParts {
  bool negative = false;
  std::string_view whole;     // without leading zeros
  std::string_view fraction;  // without trailing zeros
};

std::optional<DecimalParts> split_decimal(std::string_view text) {
  size_t i = 0;
  DecimalParts p;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) p.negative = text[i++] == '-';
  const size_t whole_start = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  p.whole = text.substr(whole_start, i - whole_start);
  if (i < text.size() && text[i] == '.') {
    const size_t fraction_start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    p.fraction = text.substr(fraction_start, i - fraction_start);
  }
  if (i != text.size() || (p.whole.empty() && p.fraction.empty())) return std::nullopt;
  p.whole.remove_prefix(std::min(p.whole.find_first_not_of('0'), p.whole.size()));
  const size_t last = p.fraction.find_last_not_of('0');
  p.fraction = p.fraction.substr(0, last == std::string_view::npos ? 0 : last + 1);
  if (p.whole.empty() && p.fraction.empty()) p.negative = false;  // -0 is 0
  return p;
}

}  // namespace

bool decimal_equal(const std::string& a, const std::string& b) {
  const auto x = split_decimal(a);
  if (!x) return false;
  if (a == b) return true;  // the usual echo: byte-equal valid text is equal
  const auto y = split_decimal(b);
  return y && x->negative == y->negative && x->whole == y->whole && x->fraction == y->fraction;
}

const char* to_string(Color c) {
  switch (c) {
    case Color::red: return "RED";
    case Color::green: return "GREEN";
    case Color::blue: return "BLUE";
  }
  return "?";
}

std::optional<Color> parse_color(const std::string& text) {
  if (text == "RED") return Color::red;
  if (text == "GREEN") return Color::green;
  if (text == "BLUE") return Color::blue;
  return std::nullopt;
}

}  // namespace soapbench
