#pragma once
// Response-time histogram: a Boost.Histogram log axis from 1 us to 60 s with
// bins under 1% wide, plus the exact count, min, max and sum kept beside it.
// Each client process records into its own histogram; the coordinator merges them.
#include <cstdint>
#include <limits>
#include <vector>

#include <boost/histogram.hpp>
#include <nlohmann/json_fwd.hpp>

namespace soapbench {

class LatencyHistogram {
 public:
  // The axis is fixed so that any two histograms, even from different files, merge.
  static constexpr double kLowerSeconds = 1e-6;
  static constexpr double kUpperSeconds = 60.0;
  // ln(60 / 1e-6) / ln(1.01) = 1800.1, so 1801 bins keep each bin's upper/lower
  // edge ratio below 1.01.
  static constexpr unsigned kBins = 1801;

  // One non-empty bin. index -1 is the underflow bin (below 1 us, lower = 0),
  // index kBins the overflow bin (60 s and above, upper = +inf).
  struct Bin {
    int index;
    double lower;  // seconds
    double upper;  // seconds
    uint64_t count;
    bool operator==(const Bin&) const = default;
  };

  LatencyHistogram();

  // Adds one response time in seconds. Values outside the axis land in the
  // underflow/overflow bins and still update min, max and sum exactly.
  // Throws std::invalid_argument on a negative or non-finite value (a caller bug).
  void record(double seconds);
  // Adds every sample of `other`.
  void merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Exact values in seconds; all three are 0 for an empty histogram.
  double min() const;
  double max() const;
  double mean() const;
  double sum() const { return sum_; }

  // The p-th percentile in seconds, p in [0, 100] (std::invalid_argument otherwise).
  // Definition: nearest rank r = max(1, ceil(p/100 * count)); the result is the
  // geometric midpoint of the bin holding the r-th smallest sample, clamped to
  // [min, max]. Rank 1 (so p=0) answers the exact min, rank count (p=100) the
  // exact max, the underflow bin min and the overflow bin max. Any in-range
  // result is within 0.5% of the exact nearest-rank sample percentile.
  // 0 for an empty histogram.
  double percentile(double p) const;

  // Non-empty bins in index order (underflow first, overflow last).
  std::vector<Bin> nonempty_bins() const;

  // Sparse JSON: {"axis": {"transform":"log","bins":1801,"lower":1e-06,"upper":60,
  // "unit":"s"}, "count", "min", "max", "sum", "bins": [[index, count], ...]}.
  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the problem on a missing field, an axis
  // that differs from this build's, a bin index out of range, or bin counts
  // that do not add up to "count".
  static LatencyHistogram from_json(const nlohmann::json& j);

  // Same samples in every bin and the same count, min, max and sum.
  bool operator==(const LatencyHistogram& other) const;

 private:
  using Axis = boost::histogram::axis::regular<double, boost::histogram::axis::transform::log>;
  using Storage = boost::histogram::dense_storage<uint64_t>;
  using Histogram = boost::histogram::histogram<std::tuple<Axis>, Storage>;

  Histogram hist_;
  uint64_t count_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
  double sum_ = 0;
};

}  // namespace soapbench
