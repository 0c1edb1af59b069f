// HdrHistogram's data structure and formats, as far as export needs them:
// the counts array of Histogram.java (bucket/sub-bucket indexing), its V2
// encoding, outputPercentileDistribution and the interval log.
#include "core/hdr_export.h"

#include <zlib.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace soapbench {

namespace {

constexpr int32_t kV2EncodingCookie = 0x1c849303 | 0x10;
constexpr int32_t kV2CompressedEncodingCookie = 0x1c849304 | 0x10;

void put_int32(std::vector<uint8_t>& out, int32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(static_cast<uint32_t>(v) >> shift));
}
void put_int64(std::vector<uint8_t>& out, int64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> shift));
}
// ZigZag, then LEB128 (HdrHistogram's ZigZagEncoding: the same for |v| < 2^55).
void put_zigzag(std::vector<uint8_t>& out, int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<uint8_t>(z | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<uint8_t>(z));
}

std::string base64(const std::vector<uint8_t>& data) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < data.size(); i += 3) {
    const uint32_t n = static_cast<uint32_t>(data[i]) << 16 |
                       (i + 1 < data.size() ? static_cast<uint32_t>(data[i + 1]) << 8 : 0) |
                       (i + 2 < data.size() ? data[i + 2] : 0);
    out += kAlphabet[n >> 18 & 63];
    out += kAlphabet[n >> 12 & 63];
    out += i + 1 < data.size() ? kAlphabet[n >> 6 & 63] : '=';
    out += i + 2 < data.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

}  // namespace

HdrCounts::HdrCounts() {
  // Histogram.java's init() for (lowest 1, highest, 3 digits).
  const int64_t single_unit_resolution = 2 * static_cast<int64_t>(std::pow(10, kSignificantDigits));
  const int sub_bucket_count_magnitude = static_cast<int>(std::ceil(std::log2(static_cast<double>(single_unit_resolution))));
  sub_bucket_half_count_magnitude_ = std::max(sub_bucket_count_magnitude, 1) - 1;
  unit_magnitude_ = static_cast<int>(std::floor(std::log2(static_cast<double>(kLowest))));
  sub_bucket_count_ = int64_t{1} << (sub_bucket_half_count_magnitude_ + 1);
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = (sub_bucket_count_ - 1) << unit_magnitude_;
  leading_zero_count_base_ = 64 - unit_magnitude_ - sub_bucket_count_magnitude;
  int64_t smallest_untrackable = sub_bucket_count_ << unit_magnitude_;
  bucket_count_ = 1;
  while (smallest_untrackable <= kHighest) {
    smallest_untrackable <<= 1;
    ++bucket_count_;
  }
  counts_.assign(static_cast<size_t>((bucket_count_ + 1) * sub_bucket_half_count_), 0);
}

size_t HdrCounts::index_of(int64_t value) const {
  const int bucket = leading_zero_count_base_ - std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
  const int64_t sub_bucket = value >> (bucket + unit_magnitude_);
  return static_cast<size_t>(((static_cast<int64_t>(bucket) + 1) << sub_bucket_half_count_magnitude_) +
                             (sub_bucket - sub_bucket_half_count_));
}

int64_t HdrCounts::value_from_index(size_t index) const {
  int bucket = static_cast<int>(index >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub_bucket = static_cast<int64_t>(index & static_cast<size_t>(sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrCounts::lowest_equivalent(int64_t value) const {
  const int bucket = leading_zero_count_base_ - std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
  const int64_t sub_bucket = value >> (bucket + unit_magnitude_);
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t HdrCounts::highest_equivalent(int64_t value) const {
  const int bucket = leading_zero_count_base_ - std::countl_zero(static_cast<uint64_t>(value | sub_bucket_mask_));
  const int64_t sub_bucket = value >> (bucket + unit_magnitude_);
  const int64_t size = int64_t{1} << (unit_magnitude_ + (sub_bucket >= sub_bucket_count_ ? bucket + 1 : bucket));
  return lowest_equivalent(value) + size - 1;
}

void HdrCounts::record(int64_t value, uint64_t count) {
  if (value < 0 || value > kHighest) throw std::invalid_argument("HdrCounts: value out of range");
  if (count == 0) return;
  counts_[index_of(value)] += count;
  if (total_ == 0 || value < min_) min_ = value;
  max_ = std::max(max_, value);
  total_ += count;
}

HdrCounts HdrCounts::from(const LatencyHistogram& h) {
  HdrCounts hdr;
  const auto ns = [](double s) { return std::clamp<int64_t>(std::llround(s * 1e9), 0, kHighest); };
  const std::vector<LatencyHistogram::Bin> bins = h.nonempty_bins();
  for (size_t i = 0; i < bins.size(); ++i) {
    const LatencyHistogram::Bin& bin = bins[i];
    uint64_t left = bin.count;
    // The exact min and max as samples of their own, as soapbench reports them.
    if (i == 0) hdr.record(ns(h.min())), --left;
    if (i + 1 == bins.size() && left > 0) hdr.record(ns(h.max())), --left;
    const double mid = bin.index < 0 ? h.min() : !std::isfinite(bin.upper) ? h.max() : std::sqrt(bin.lower * bin.upper);
    hdr.record(ns(std::clamp(mid, h.min(), h.max())), left);
  }
  return hdr;
}

int64_t HdrCounts::value_at_percentile(double percentile) const {
  const double p = std::clamp(percentile, 0.0, 100.0);
  const auto wanted = std::max<uint64_t>(1, static_cast<uint64_t>(p / 100.0 * static_cast<double>(total_) + 0.5));
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= wanted) {
      const int64_t v = value_from_index(i);
      return p == 0 ? lowest_equivalent(v) : highest_equivalent(v);
    }
  }
  return 0;
}

double HdrCounts::mean() const {
  if (total_ == 0) return 0;
  double sum = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (!counts_[i]) continue;
    const int64_t v = value_from_index(i);
    const int64_t median = lowest_equivalent(v) + ((highest_equivalent(v) - lowest_equivalent(v) + 1) >> 1);
    sum += static_cast<double>(median) * static_cast<double>(counts_[i]);
  }
  return sum / static_cast<double>(total_);
}

double HdrCounts::stddev() const {
  if (total_ == 0) return 0;
  const double m = mean();
  double sum = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (!counts_[i]) continue;
    const int64_t v = value_from_index(i);
    const int64_t median = lowest_equivalent(v) + ((highest_equivalent(v) - lowest_equivalent(v) + 1) >> 1);
    sum += std::pow(static_cast<double>(median) - m, 2) * static_cast<double>(counts_[i]);
  }
  return std::sqrt(sum / static_cast<double>(total_));
}

std::vector<uint8_t> HdrCounts::encode() const {
  std::vector<uint8_t> out;
  put_int32(out, kV2EncodingCookie);
  put_int32(out, 0);  // payload length, filled in below
  put_int32(out, 0);  // normalizing index offset
  put_int32(out, kSignificantDigits);
  put_int64(out, kLowest);
  put_int64(out, kHighest);
  const double ratio = 1.0;
  int64_t bits;
  std::memcpy(&bits, &ratio, sizeof bits);
  put_int64(out, bits);
  const size_t header = out.size();
  const size_t limit = total_ == 0 ? 0 : index_of(max_) + 1;
  // Counts, a run of two or more zeros as its negated length.
  for (size_t i = 0; i < limit;) {
    const uint64_t count = counts_[i++];
    if (count != 0) {
      put_zigzag(out, static_cast<int64_t>(count));
      continue;
    }
    int64_t zeros = 1;
    while (i < limit && counts_[i] == 0) ++zeros, ++i;
    put_zigzag(out, zeros > 1 ? -zeros : 0);
  }
  const auto payload = static_cast<int32_t>(out.size() - header);
  for (int k = 0; k < 4; ++k) out[4 + k] = static_cast<uint8_t>(static_cast<uint32_t>(payload) >> (24 - 8 * k));
  return out;
}

std::string HdrCounts::compressed_base64() const {
  const std::vector<uint8_t> plain = encode();
  uLongf length = compressBound(plain.size());
  std::vector<uint8_t> packed(length);
  if (compress2(packed.data(), &length, plain.data(), plain.size(), Z_DEFAULT_COMPRESSION) != Z_OK)
    throw std::runtime_error("zlib could not compress a histogram");
  std::vector<uint8_t> out;
  put_int32(out, kV2CompressedEncodingCookie);
  put_int32(out, static_cast<int32_t>(length));
  out.insert(out.end(), packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(length));
  return base64(out);
}

std::string HdrCounts::percentile_distribution(double unit_ratio) const {
  // AbstractHistogram.outputPercentileDistribution with a PercentileIterator
  // of 5 ticks per half distance, step by step as HdrHistogram walks it.
  constexpr int kTicks = 5;
  std::string out = fmt::format("{:>12} {:>14} {:>10} {:>14}\n\n", "Value", "Percentile", "TotalCount",
                                "1/(1-Percentile)");
  double level_to = 0;
  uint64_t to_index = 0;
  size_t index = 0;
  bool fresh = true, reached_last = false;
  for (;;) {
    if (to_index >= total_) {  // PercentileIterator.hasNext(): one more line, at 100%
      if (reached_last || total_ == 0) break;
      level_to = 100.0;
      reached_last = true;
    }
    bool emitted = false;
    while (index < counts_.size()) {
      const uint64_t here = counts_[index];
      if (fresh) {
        to_index += here;
        fresh = false;
      }
      if (here != 0 && 100.0 * static_cast<double>(to_index) / static_cast<double>(total_) >= level_to) {
        const double value = static_cast<double>(highest_equivalent(value_from_index(index))) / unit_ratio;
        if (level_to != 100.0)
          out += fmt::format("{:12.3f} {:2.12f} {:10d} {:14.2f}\n", value, level_to / 100.0, to_index,
                             1.0 / (1.0 - level_to / 100.0));
        else
          out += fmt::format("{:12.3f} {:2.12f} {:10d}\n", value, level_to / 100.0, to_index);
        const auto ticks = static_cast<int64_t>(kTicks) *
                           static_cast<int64_t>(std::pow(2, static_cast<int64_t>(std::log(100.0 / (100.0 - level_to)) /
                                                                                 std::log(2)) + 1));
        level_to += 100.0 / static_cast<double>(ticks);
        emitted = true;
        break;
      }
      ++index;
      fresh = true;
    }
    if (!emitted) break;
  }
  out += fmt::format("#[Mean    = {:12.3f}, StdDeviation   = {:12.3f}]\n", mean() / unit_ratio, stddev() / unit_ratio);
  out += fmt::format("#[Max     = {:12.3f}, Total count    = {:12d}]\n",
                     (max_ == 0 ? 0.0 : static_cast<double>(highest_equivalent(max_))) / unit_ratio, total_);
  out += fmt::format("#[Buckets = {:12d}, SubBuckets     = {:12d}]\n", bucket_count_, sub_bucket_count_);
  return out;
}

std::string hlog_text(double start_time_unix_s, const std::string& start_time_text,
                      const std::vector<HlogInterval>& intervals) {
  std::string out = "#[Histogram log format version 1.3]\n";
  out += fmt::format("#[StartTime: {:.3f} (seconds since epoch), {}]\n", start_time_unix_s, start_time_text);
  out += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
  for (const HlogInterval& i : intervals) {
    // Interval_Max in ms (values are ns; HdrHistogram's writer divides by 1e6 too).
    const double max_ms = i.counts->max() == 0 ? 0 : static_cast<double>(i.counts->max()) / 1e6;
    out += fmt::format("Tag={},{:.3f},{:.3f},{:.3f},{}\n", i.tag, i.start_s, i.length_s, max_ms,
                       i.counts->compressed_base64());
  }
  return out;
}

}  // namespace soapbench
