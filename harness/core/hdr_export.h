#pragma once
// soapbench's histograms in HdrHistogram's forms, for its tools: the counts of
// an HdrHistogram (integer nanoseconds, 3 significant digits) built from a
// LatencyHistogram at export, its V2 compressed encoding (base64, as a line of
// an .hlog interval log carries it) and the percentile distribution text of
// HdrHistogram's outputPercentileDistribution (.hgrm). soapbench keeps its own
// histogram for measuring; this is a conversion, done once per file.
//
// Conversion: the exact min and max are one sample each; the rest of each of
// soapbench's bins (under 1% wide) goes to the HDR value of its geometric
// midpoint, clamped to the min and max, as soapbench reads a percentile; so a
// percentile read by an HdrHistogram tool is soapbench's own within the two
// histograms' precision (0.5% + 0.1%).
#include <cstdint>
#include <string>
#include <vector>

#include "core/histogram.h"

namespace soapbench {

class HdrCounts {
 public:
  static constexpr int kSignificantDigits = 3;
  static constexpr int64_t kLowest = 1;                    // ns
  static constexpr int64_t kHighest = 3'600'000'000'000;   // ns: an hour, above any call

  HdrCounts();
  static HdrCounts from(const LatencyHistogram& h);  // values in ns

  void record(int64_t value_ns, uint64_t count = 1);
  uint64_t total() const { return total_; }
  int64_t max() const { return max_; }
  // HdrHistogram's getValueAtPercentile (highest equivalent value), in ns.
  int64_t value_at_percentile(double percentile) const;
  double mean() const;
  double stddev() const;

  // The V2 compressed encoding (cookie 0x1c849314, zlib), base64: what an
  // .hlog line and HdrHistogram's decodeFromCompressedByteBuffer read.
  std::string compressed_base64() const;
  // outputPercentileDistribution(out, 5 ticks per half distance, unit_ratio):
  // values divided by `unit_ratio` (1e6: ns to ms).
  std::string percentile_distribution(double unit_ratio = 1e6) const;

 private:
  size_t index_of(int64_t value) const;
  int64_t value_from_index(size_t index) const;
  int64_t lowest_equivalent(int64_t value) const;
  int64_t highest_equivalent(int64_t value) const;
  std::vector<uint8_t> encode() const;  // V2, uncompressed (cookie 0x1c849313)

  int unit_magnitude_ = 0;
  int sub_bucket_half_count_magnitude_ = 0;
  int64_t sub_bucket_count_ = 0;
  int64_t sub_bucket_half_count_ = 0;
  int64_t sub_bucket_mask_ = 0;
  int bucket_count_ = 0;
  int leading_zero_count_base_ = 0;
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
  int64_t min_ = 0, max_ = 0;  // min_ = 0 when empty, as HdrHistogram reports it
};

// An .hlog interval log (format 1.3): header with #[StartTime], then one line
// per interval "Tag=TAG,start_s,length_s,max,HISTFAA...".
struct HlogInterval {
  std::string tag;          // no commas or spaces
  double start_s = 0;       // since the log's start time
  double length_s = 0;
  const HdrCounts* counts = nullptr;
};
std::string hlog_text(double start_time_unix_s, const std::string& start_time_text,
                      const std::vector<HlogInterval>& intervals);

}  // namespace soapbench
