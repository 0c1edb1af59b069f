#include "echo_values.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "payload.h"

namespace soapbench {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trimmed(std::string_view v) {
  const size_t start = v.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return {};
  return v.substr(start, v.find_last_not_of(" \t\r\n") - start + 1);
}

// An xsd:decimal, xsd:float or xsd:double lexical form: its value and its
// significant digits (leading zeros not counted).
struct Number {
  double value;
  size_t digits;
};
std::optional<Number> number(std::string_view v) {
  v = trimmed(v);
  if (v == "INF" || v == "+INF") return Number{HUGE_VAL, 0};
  if (v == "-INF") return Number{-HUGE_VAL, 0};
  if (v == "NaN") return Number{NAN, 0};
  size_t i = 0, digits = 0, significant = 0;
  bool leading = true;  // zeros before the first other digit are not significant
  auto take = [&](char c) {
    if (c != '0') leading = false;
    if (!leading) ++significant;
    ++digits;
  };
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  for (; i < v.size() && is_digit(v[i]); ++i) take(v[i]);
  if (i < v.size() && v[i] == '.')
    for (++i; i < v.size() && is_digit(v[i]); ++i) take(v[i]);
  if (digits == 0) return std::nullopt;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    size_t j = i + 1;
    if (j < v.size() && (v[j] == '+' || v[j] == '-')) ++j;
    const size_t exponent_digits = j;
    while (j < v.size() && is_digit(v[j])) ++j;
    if (j == exponent_digits) return std::nullopt;
    i = j;
  }
  if (i != v.size()) return std::nullopt;
  const std::string text(v);
  return Number{std::strtod(text.c_str(), nullptr), significant};
}

// An xsd:dateTime: seconds since 1970 (less the zone's offset), the fraction's
// digits without trailing zeros, and whether a zone was given.
struct Instant {
  int64_t seconds;
  std::string fraction;
  bool zoned;
};
std::optional<Instant> instant(std::string_view v) {
  v = trimmed(v);
  bool negative = !v.empty() && v[0] == '-';
  if (negative) v.remove_prefix(1);
  size_t y = 0;
  while (y < v.size() && is_digit(v[y])) ++y;
  if (y < 4 || y > 9 || v.size() < y + 15) return std::nullopt;
  auto num = [&](size_t at, size_t len) -> int64_t {
    int64_t n = 0;
    for (size_t k = at; k < at + len; ++k) {
      if (k >= v.size() || !is_digit(v[k])) return -1;
      n = n * 10 + (v[k] - '0');
    }
    return n;
  };
  if (v[y] != '-' || v[y + 3] != '-' || v[y + 6] != 'T' || v[y + 9] != ':' || v[y + 12] != ':') return std::nullopt;
  const int64_t year = num(0, y) * (negative ? -1 : 1), month = num(y + 1, 2), day = num(y + 4, 2),
                hour = num(y + 7, 2), minute = num(y + 10, 2), second = num(y + 13, 2);
  if (month < 1 || day < 1 || hour < 0 || minute < 0 || second < 0) return std::nullopt;
  Instant t{((days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 24 + hour) * 60 +
             minute) * 60 + second,
            "", false};
  size_t i = y + 15;
  if (i < v.size() && v[i] == '.') {
    const size_t start = ++i;
    while (i < v.size() && is_digit(v[i])) ++i;
    if (i == start) return std::nullopt;
    t.fraction = v.substr(start, i - start);
    while (!t.fraction.empty() && t.fraction.back() == '0') t.fraction.pop_back();
  }
  if (i == v.size()) return t;
  t.zoned = true;
  if (v[i] == 'Z' && i + 1 == v.size()) return t;
  if ((v[i] != '+' && v[i] != '-') || v.size() != i + 6 || v[i + 3] != ':') return std::nullopt;
  const int64_t zh = num(i + 1, 2), zm = num(i + 4, 2);
  if (zh < 0 || zm < 0) return std::nullopt;
  t.seconds -= (v[i] == '+' ? 1 : -1) * (zh * 3600 + zm * 60);
  return t;
}

}  // namespace

bool same_echoed_value(std::string_view sent, std::string_view got) {
  if (sent == got) return true;
  if (const auto a = number(sent)) {
    const auto b = number(got);
    if (!b) return false;
    if (a->value == b->value || (std::isnan(a->value) && std::isnan(b->value))) return true;
    return a->digits <= 9 && b->digits <= 9 && static_cast<float>(a->value) == static_cast<float>(b->value);
  }
  if (const auto a = instant(sent)) {
    const auto b = instant(got);
    return b && a->zoned == b->zoned && a->seconds == b->seconds && a->fraction == b->fraction;
  }
  return false;
}

}  // namespace soapbench
