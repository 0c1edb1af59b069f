#include "core/parse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace soapbench {

namespace {

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A client count within 1..kMaxClients; `whole` is the full text for the message.
unsigned client_count(std::string_view item, std::string_view whole) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (!all_digits(item) || ec == std::errc::result_out_of_range || value == 0 || value > kMaxClients)
    throw std::invalid_argument(fmt::format(
        "bad client list '{}': '{}' is not a client count from 1 to {}", whole, item, kMaxClients));
  (void)end;
  return value;
}

// Splits "12.5ms" into the number 12.5 and the suffix "ms". The number must be
// a plain non-negative decimal: digits with at most one '.', no sign, no exponent.
std::pair<double, std::string_view> number_and_suffix(std::string_view text, const char* what) {
  const auto stop = text.find_first_not_of("0123456789.");
  const std::string_view digits = text.substr(0, stop);
  const std::string_view suffix = stop == std::string_view::npos ? "" : text.substr(stop);
  const bool one_dot_at_most = std::count(digits.begin(), digits.end(), '.') <= 1;
  const bool has_digit = digits.find_first_of("0123456789") != std::string_view::npos;
  double value = 0;
  if (!one_dot_at_most || !has_digit ||
      std::from_chars(digits.data(), digits.data() + digits.size(), value).ptr !=
          digits.data() + digits.size() ||
      !std::isfinite(value))
    throw std::invalid_argument(fmt::format("bad {} '{}': expected a non-negative number", what, text));
  return {value, suffix};
}

}  // namespace

std::vector<unsigned> parse_client_list(std::string_view text) {
  if (trim(text).empty()) throw std::invalid_argument("bad client list '': it is empty");
  std::vector<unsigned> clients;
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item.empty())
      throw std::invalid_argument(fmt::format("bad client list '{}': empty item between commas", text));
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      clients.push_back(client_count(item, text));
    } else {
      const unsigned first = client_count(trim(item.substr(0, dash)), text);
      const unsigned last = client_count(trim(item.substr(dash + 1)), text);
      if (first > last)
        throw std::invalid_argument(
            fmt::format("bad client list '{}': range '{}' runs backwards", text, item));
      for (unsigned n = first; n <= last; ++n) clients.push_back(n);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(clients.begin(), clients.end());
  clients.erase(std::unique(clients.begin(), clients.end()), clients.end());
  return clients;
}

namespace {

// One rate of a --rate list: a plain non-negative decimal, as durations are.
double rate_value(std::string_view item, std::string_view whole) {
  try {
    const auto [value, suffix] = number_and_suffix(item, "rate");
    if (suffix.empty()) return value;
  } catch (const std::invalid_argument&) {
  }
  throw std::invalid_argument(fmt::format("bad rate list '{}': '{}' is not a rate in calls/s (a number >= 0)", whole, item));
}

}  // namespace

std::vector<double> parse_rate_list(std::string_view text) {
  if (trim(text).empty()) throw std::invalid_argument("bad rate list '': it is empty");
  std::vector<double> rates;
  const auto add = [&](double r) {
    if (std::find(rates.begin(), rates.end(), r) == rates.end()) rates.push_back(r);
    if (rates.size() > kMaxRateSteps)
      throw std::invalid_argument(fmt::format("bad rate list '{}': more than {} steps", text, kMaxRateSteps));
  };
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) throw std::invalid_argument(fmt::format("bad rate list '{}': empty item between commas", text));
    const auto dash = item.find('-');
    if (dash == std::string_view::npos || dash == 0) {  // "-5" is a negative rate, not a range
      add(rate_value(item, text));
    } else {
      const std::string_view upper = item.substr(dash + 1);
      const auto op = upper.find_first_of("x+");
      if (op == std::string_view::npos)
        throw std::invalid_argument(fmt::format(
            "bad rate list '{}': range '{}' needs a step: A-BxF (times F) or A-B+S (plus S)", text, item));
      const double first = rate_value(trim(item.substr(0, dash)), text);
      const double last = rate_value(trim(upper.substr(0, op)), text);
      const double step = rate_value(trim(upper.substr(op + 1)), text);
      const bool times = upper[op] == 'x';
      if (first <= 0 || first > last)
        throw std::invalid_argument(fmt::format(
            "bad rate list '{}': range '{}' must start above 0 and not run backwards", text, item));
      if (times ? step <= 1 : step <= 0)
        throw std::invalid_argument(fmt::format("bad rate list '{}': range '{}' needs a {}", text, item,
                                                times ? "factor above 1" : "step above 0"));
      // Up to the end within rounding (500-4000x2 reaches 4000, not 3999.9999).
      for (double r = first; r < last * (1 - 1e-9); r = times ? r * step : r + step) add(r);
      add(last);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (rates.size() > 1 && std::find(rates.begin(), rates.end(), 0.0) != rates.end())
    throw std::invalid_argument(fmt::format(
        "bad rate list '{}': 0 (a closed loop) stands only alone, not in a list of rates", text));
  return rates;
}

std::string format_rate_list(const std::vector<double>& rates) {
  return fmt::format("{:g}", fmt::join(rates, ","));
}

double parse_duration(std::string_view text) {
  const auto [value, unit] = number_and_suffix(text, "duration");
  if (unit.empty() || unit == "s") return value;
  if (unit == "us") return value / 1e6;
  if (unit == "ms") return value / 1e3;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  throw std::invalid_argument(
      fmt::format("bad duration '{}': unknown unit '{}' (use us, ms, s, m or h)", text, unit));
}

uint64_t parse_count(std::string_view text) {
  // Whole numbers without a suffix are parsed as integers so that values above
  // 2^53 stay exact.
  if (all_digits(text)) {
    uint64_t value = 0;
    if (std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc{}) return value;
    throw std::invalid_argument(fmt::format("bad count '{}': larger than {}", text, UINT64_MAX));
  }
  const auto [mantissa, suffix] = number_and_suffix(text, "count");
  double scale = 1;
  if (suffix == "k")
    scale = 1e3;
  else if (suffix == "M")
    scale = 1e6;
  else if (suffix == "G")
    scale = 1e9;
  else if (!suffix.empty())
    throw std::invalid_argument(
        fmt::format("bad count '{}': unknown suffix '{}' (use k, M or G)", text, suffix));
  // 1.1k is 1100.0000000000002 in binary floating point: accept what is whole
  // within rounding error.
  const double scaled = mantissa * scale;
  const double value = std::round(scaled);
  if (std::fabs(scaled - value) > 1e-9 * std::max(1.0, value))
    throw std::invalid_argument(fmt::format("bad count '{}': not a whole number", text));
  if (value >= 18446744073709551616.0)  // 2^64
    throw std::invalid_argument(fmt::format("bad count '{}': larger than {}", text, UINT64_MAX));
  return static_cast<uint64_t>(value);
}

std::vector<uint64_t> parse_count_list(std::string_view text) {
  std::vector<uint64_t> values;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) throw std::invalid_argument("empty item in the list '" + std::string(text) + "'");
    values.push_back(parse_count(item));
    if (comma == std::string_view::npos) return values;
    start = comma + 1;
  }
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  for (;;) {
    const auto comma = text.find(',');
    items.emplace_back(trim(text.substr(0, comma)));
    if (comma == std::string_view::npos) return items;
    text.remove_prefix(comma + 1);
  }
}

std::string format_client_list(const std::vector<unsigned>& clients) {
  std::string text;
  for (size_t i = 0; i < clients.size();) {
    size_t j = i;
    while (j + 1 < clients.size() && clients[j + 1] == clients[j] + 1) ++j;
    if (!text.empty()) text += ",";
    if (j >= i + 2) {
      text += fmt::format("{}-{}", clients[i], clients[j]);
    } else {
      for (size_t k = i; k <= j; ++k) text += (k > i ? "," : "") + std::to_string(clients[k]);
    }
    i = j + 1;
  }
  return text;
}

}  // namespace soapbench
