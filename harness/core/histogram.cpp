#include "core/histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace soapbench {

namespace bh = boost::histogram;

LatencyHistogram::LatencyHistogram()
    : hist_(bh::make_histogram_with(Storage(), Axis(kBins, kLowerSeconds, kUpperSeconds))) {}

void LatencyHistogram::record(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw std::invalid_argument(fmt::format("latency sample {} s is negative or not finite", seconds));
  hist_(seconds);
  ++count_;
  sum_ += seconds;
  min_ = std::min(min_, seconds);
  max_ = std::max(max_, seconds);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  hist_ += other.hist_;
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double LatencyHistogram::min() const { return empty() ? 0 : min_; }
double LatencyHistogram::max() const { return empty() ? 0 : max_; }
double LatencyHistogram::mean() const { return empty() ? 0 : sum_ / static_cast<double>(count_); }

double LatencyHistogram::percentile(double p) const {
  if (!(p >= 0 && p <= 100))
    throw std::invalid_argument(fmt::format("percentile {} is outside [0, 100]", p));
  if (empty()) return 0;
  // Nearest rank. The tolerance keeps 99.9% of 10000 at rank 9990 although 99.9
  // is not exact in binary.
  const auto exact = static_cast<long double>(p) / 100 * static_cast<long double>(count_);
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(exact - 1e-9L)));
  // The smallest and largest samples are known exactly.
  if (rank == 1) return min_;
  if (rank >= count_) return max_;
  uint64_t seen = 0;
  for (auto&& cell : bh::indexed(hist_, bh::coverage::all)) {
    seen += *cell;
    if (seen < rank) continue;
    const int index = cell.index();
    if (index < 0) return min_;
    if (index >= static_cast<int>(kBins)) return max_;
    const double mid = std::sqrt(cell.bin().lower() * cell.bin().upper());
    return std::clamp(mid, min_, max_);
  }
  return max_;  // unreachable: the bins add up to count_
}

std::vector<LatencyHistogram::Bin> LatencyHistogram::nonempty_bins() const {
  std::vector<Bin> bins;
  for (auto&& cell : bh::indexed(hist_, bh::coverage::all)) {
    if (*cell == 0) continue;
    const int index = cell.index();
    // The log transform maps the underflow bin's lower edge to 0 and the overflow's upper to inf.
    bins.push_back({index, cell.bin().lower(), cell.bin().upper(), *cell});
  }
  return bins;
}

bool LatencyHistogram::operator==(const LatencyHistogram& other) const {
  if (count_ != other.count_ || sum_ != other.sum_) return false;
  if (!empty() && (min_ != other.min_ || max_ != other.max_)) return false;
  return hist_ == other.hist_;
}

nlohmann::json LatencyHistogram::to_json() const {
  nlohmann::json bins = nlohmann::json::array();
  for (const Bin& b : nonempty_bins()) bins.push_back({b.index, b.count});
  return {
      {"axis",
       {{"transform", "log"}, {"bins", kBins}, {"lower", kLowerSeconds}, {"upper", kUpperSeconds},
        {"unit", "s"}}},
      {"count", count_},
      {"min", min()},
      {"max", max()},
      {"sum", sum_},
      {"bins", std::move(bins)},
  };
}

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) throw std::runtime_error("histogram is not a JSON object");
  auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(fmt::format("histogram: missing field '{}'", key));
  return *it;
}

double number(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_number()) throw std::runtime_error(fmt::format("histogram: field '{}' is not a number", key));
  return v.get<double>();
}

// JSON parsed from text holds non-negative integers as unsigned, JSON built in
// code may hold them as signed: both are accepted.
bool is_count(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

uint64_t unsigned_number(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!is_count(v))
    throw std::runtime_error(fmt::format("histogram: field '{}' is not a non-negative integer", key));
  return v.get<uint64_t>();
}

}  // namespace

LatencyHistogram LatencyHistogram::from_json(const nlohmann::json& j) {
  const auto& axis = field(j, "axis");
  const auto& transform = field(axis, "transform");
  if (transform != "log" || unsigned_number(axis, "bins") != kBins ||
      number(axis, "lower") != kLowerSeconds || number(axis, "upper") != kUpperSeconds ||
      field(axis, "unit") != "s")
    throw std::runtime_error(fmt::format(
        "histogram axis {} differs from this build's (log, {} bins, {} to {} s)", axis.dump(),
        kBins, kLowerSeconds, kUpperSeconds));

  LatencyHistogram h;
  h.count_ = unsigned_number(j, "count");
  h.sum_ = number(j, "sum");
  if (h.count_ > 0) {
    h.min_ = number(j, "min");
    h.max_ = number(j, "max");
  }
  const auto& bins = field(j, "bins");
  if (!bins.is_array()) throw std::runtime_error("histogram: field 'bins' is not an array");
  uint64_t total = 0;
  for (const auto& b : bins) {
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !is_count(b[1]))
      throw std::runtime_error(fmt::format("histogram: bin {} is not [index, count]", b.dump()));
    const auto index = b[0].get<int64_t>();
    if (index < -1 || index > static_cast<int64_t>(kBins))
      throw std::runtime_error(fmt::format("histogram: bin index {} is outside -1..{}", index, kBins));
    const auto n = b[1].get<uint64_t>();
    h.hist_.at(static_cast<int>(index)) += n;
    total += n;
  }
  if (total != h.count_)
    throw std::runtime_error(
        fmt::format("histogram: bins add up to {} samples but count is {}", total, h.count_));
  return h;
}

}  // namespace soapbench
