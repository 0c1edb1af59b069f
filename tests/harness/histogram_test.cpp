#include "core/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <vector>

namespace soapbench {
namespace {

// The exact nearest-rank percentile of the samples: the ceil(p/100 * n)-th smallest.
double exact_percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  const auto n = static_cast<double>(samples.size());
  const auto rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(p / 100 * n - 1e-9)));
  return samples[rank - 1];
}

std::vector<double> one_to_ten_thousand_us() {
  std::vector<double> samples;
  for (int us = 1; us <= 10000; ++us) samples.push_back(us * 1e-6);
  return samples;
}

LatencyHistogram histogram_of(const std::vector<double>& samples) {
  LatencyHistogram h;
  for (double s : samples) h.record(s);
  return h;
}

TEST(LatencyHistogram, EmptyReportsZeros) {
  LatencyHistogram h;
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0);
  EXPECT_EQ(h.percentile(99), 0);
  EXPECT_TRUE(h.nonempty_bins().empty());
}

TEST(LatencyHistogram, AxisBinsAreUnderOnePercentWide) {
  LatencyHistogram h;
  h.record(1e-6);
  h.record(59.9);
  h.record(0.0123);
  for (const auto& bin : h.nonempty_bins()) {
    EXPECT_LT(bin.upper / bin.lower, 1.01) << "bin " << bin.index;
    EXPECT_LE(bin.lower, bin.upper);
  }
  EXPECT_EQ(h.nonempty_bins().front().index, 0);
  EXPECT_NEAR(h.nonempty_bins().front().lower, 1e-6, 1e-15);
  EXPECT_EQ(h.nonempty_bins().back().index, static_cast<int>(LatencyHistogram::kBins) - 1);
  EXPECT_NEAR(h.nonempty_bins().back().upper, 60.0, 1e-9);
}

TEST(LatencyHistogram, PercentilesWithinOnePercentOfExact) {
  const auto samples = one_to_ten_thousand_us();
  const LatencyHistogram h = histogram_of(samples);
  // The exact nearest-rank values are p/100 * 10000 microseconds.
  const std::vector<std::pair<double, double>> expected = {
      {50, 5000e-6}, {90, 9000e-6}, {99, 9900e-6}, {99.9, 9990e-6}, {10, 1000e-6}, {75, 7500e-6}};
  for (const auto& [p, want] : expected) {
    ASSERT_DOUBLE_EQ(exact_percentile(samples, p), want) << "p" << p;
    EXPECT_NEAR(h.percentile(p), want, want * 0.01) << "p" << p;
  }
}

TEST(LatencyHistogram, PercentileEndsAreMinAndMax) {
  const LatencyHistogram h = histogram_of(one_to_ten_thousand_us());
  EXPECT_EQ(h.percentile(0), 1e-6);
  EXPECT_EQ(h.percentile(100), 10000e-6);
  EXPECT_THROW(h.percentile(-0.1), std::invalid_argument);
  EXPECT_THROW(h.percentile(100.1), std::invalid_argument);
  EXPECT_THROW(h.percentile(std::nan("")), std::invalid_argument);
}

TEST(LatencyHistogram, PercentilesOfSkewedRandomSamplesWithinOnePercent) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(2e-3), 1.0);  // median 2 ms, long tail
  std::vector<double> samples;
  for (int i = 0; i < 50000; ++i) samples.push_back(std::min(dist(rng), 59.0));
  const LatencyHistogram h = histogram_of(samples);
  for (double p : {1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
    const double want = exact_percentile(samples, p);
    EXPECT_NEAR(h.percentile(p), want, want * 0.01) << "p" << p;
  }
}

TEST(LatencyHistogram, SingleSampleIsEveryPercentile) {
  LatencyHistogram h;
  h.record(0.0042);
  for (double p : {0.0, 1.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.percentile(p), 0.0042) << p;
}

TEST(LatencyHistogram, MinMaxMeanAreExact) {
  const LatencyHistogram h = histogram_of({0.25, 0.5, 0.125, 1.0});
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 0.125);
  EXPECT_EQ(h.max(), 1.0);
  EXPECT_EQ(h.sum(), 1.875);
  EXPECT_EQ(h.mean(), 1.875 / 4);
}

TEST(LatencyHistogram, OutOfRangeSamplesAreCountedInUnderAndOverflow) {
  const LatencyHistogram h = histogram_of({0.0, 100.0, 0.001});
  EXPECT_EQ(h.count(), 3u);
  EXPECT_EQ(h.min(), 0.0);
  EXPECT_EQ(h.max(), 100.0);
  EXPECT_DOUBLE_EQ(h.mean(), 100.001 / 3);
  const auto bins = h.nonempty_bins();
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins.front().index, -1);
  EXPECT_EQ(bins.front().count, 1u);
  EXPECT_EQ(bins.back().index, static_cast<int>(LatencyHistogram::kBins));
  EXPECT_EQ(bins.back().count, 1u);
  EXPECT_EQ(h.percentile(0), 0.0);     // underflow answers the exact min
  EXPECT_EQ(h.percentile(100), 100.0);  // overflow answers the exact max
  EXPECT_NEAR(h.percentile(50), 0.001, 0.001 * 0.01);
}

TEST(LatencyHistogram, RejectsNegativeAndNonFiniteSamples) {
  LatencyHistogram h;
  EXPECT_THROW(h.record(-1e-6), std::invalid_argument);
  EXPECT_THROW(h.record(std::nan("")), std::invalid_argument);
  EXPECT_THROW(h.record(INFINITY), std::invalid_argument);
  EXPECT_TRUE(h.empty());
}

TEST(LatencyHistogram, MergeEqualsHistogramOfUnion) {
  const std::vector<double> a = {1e-5, 2e-3, 2e-3, 0.5, 0.0, 75.0};
  const std::vector<double> b = {3e-4, 2e-3, 7.0, 1e-6};
  std::vector<double> both = a;
  both.insert(both.end(), b.begin(), b.end());

  LatencyHistogram merged = histogram_of(a);
  merged.merge(histogram_of(b));
  const LatencyHistogram direct = histogram_of(both);

  EXPECT_EQ(merged.nonempty_bins(), direct.nonempty_bins());
  EXPECT_EQ(merged.count(), 10u);
  EXPECT_EQ(merged.min(), 0.0);
  EXPECT_EQ(merged.max(), 75.0);
  EXPECT_DOUBLE_EQ(merged.sum(), direct.sum());
  // The bin holding 2 ms has all three 2 ms samples.
  const auto bins = merged.nonempty_bins();
  const auto two_ms = std::find_if(bins.begin(), bins.end(), [](const auto& bin) {
    return bin.lower <= 2e-3 && 2e-3 < bin.upper;
  });
  ASSERT_NE(two_ms, bins.end());
  EXPECT_EQ(two_ms->count, 3u);
}

TEST(LatencyHistogram, MergeWithEmptyKeepsMinAndMax) {
  LatencyHistogram h = histogram_of({0.002, 0.004});
  h.merge(LatencyHistogram{});
  EXPECT_EQ(h.min(), 0.002);
  EXPECT_EQ(h.max(), 0.004);
  LatencyHistogram empty;
  empty.merge(h);
  EXPECT_EQ(empty, h);
}

TEST(LatencyHistogram, JsonRoundTripIsEqualAndSparse) {
  const LatencyHistogram h = histogram_of({0.0, 1e-4, 1e-4, 0.02, 3.5, 100.0});
  const nlohmann::json j = h.to_json();
  EXPECT_EQ(j.at("axis").at("transform"), "log");
  EXPECT_EQ(j.at("axis").at("bins"), LatencyHistogram::kBins);
  EXPECT_EQ(j.at("axis").at("lower"), 1e-6);
  EXPECT_EQ(j.at("axis").at("upper"), 60.0);
  EXPECT_EQ(j.at("count"), 6u);
  EXPECT_EQ(j.at("bins").size(), 5u);  // only non-empty bins
  EXPECT_EQ(j.at("bins").front(), nlohmann::json::parse("[-1, 1]"));

  // Through text, as in a file.
  const LatencyHistogram back = LatencyHistogram::from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back, h);
  EXPECT_EQ(back.nonempty_bins(), h.nonempty_bins());
  EXPECT_EQ(back.min(), 0.0);
  EXPECT_EQ(back.max(), 100.0);
  EXPECT_EQ(back.percentile(50), h.percentile(50));
}

TEST(LatencyHistogram, EmptyJsonRoundTrip) {
  const LatencyHistogram back = LatencyHistogram::from_json(LatencyHistogram{}.to_json());
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(back, LatencyHistogram{});
  LatencyHistogram h = back;
  h.record(0.5);
  EXPECT_EQ(h.min(), 0.5);  // min was restored as "no sample yet", not 0
}

TEST(LatencyHistogram, FromJsonRejectsBadInput) {
  const nlohmann::json good = histogram_of({0.001, 0.002}).to_json();
  const auto message_of = [](const nlohmann::json& j) {
    try {
      LatencyHistogram::from_json(j);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json other_axis = good;
  other_axis["axis"]["bins"] = 100;
  EXPECT_NE(message_of(other_axis).find("axis"), std::string::npos) << message_of(other_axis);

  nlohmann::json bad_count = good;
  bad_count["count"] = 3;
  EXPECT_EQ(message_of(bad_count), "histogram: bins add up to 2 samples but count is 3");

  nlohmann::json bad_index = good;
  bad_index["bins"].push_back({5000, 1});
  EXPECT_EQ(message_of(bad_index), "histogram: bin index 5000 is outside -1..1801");

  nlohmann::json missing = good;
  missing.erase("sum");
  EXPECT_EQ(message_of(missing), "histogram: missing field 'sum'");
}

}  // namespace
}  // namespace soapbench
