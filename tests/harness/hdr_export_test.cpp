// core/hdr_export: HdrHistogram's indexing, percentiles, encoding and texts.
// The round trip through the real HdrHistogram libraries is tests/hdr.
#include <gtest/gtest.h>

#include <string>

#include "core/hdr_export.h"

namespace soapbench {
namespace {

TEST(HdrCounts, PercentilesAreHdrHistogramsHighestEquivalentValues) {
  HdrCounts h;
  for (int64_t v = 1; v <= 10000; ++v) h.record(v);
  EXPECT_EQ(h.total(), 10000u);
  // Below 2048 every value is its own bucket; above, pairs, then fours.
  EXPECT_EQ(h.value_at_percentile(10), 1000);
  EXPECT_EQ(h.value_at_percentile(50), 5003);   // 5000 in [5000, 5003]
  EXPECT_EQ(h.value_at_percentile(99), 9903);   // 9900 in [9896, 9903]
  EXPECT_EQ(h.value_at_percentile(100), 10007);
  EXPECT_EQ(h.value_at_percentile(0), 1);
  EXPECT_NEAR(h.mean(), 5000.5, 5.0);
}

TEST(HdrCounts, ConvertsSoapbenchsHistogramWithinItsPrecision) {
  LatencyHistogram ours;
  for (int i = 1; i <= 1000; ++i) ours.record(i * 1e-6);  // 1 us .. 1 ms
  const HdrCounts hdr = HdrCounts::from(ours);
  EXPECT_EQ(hdr.total(), 1000u);
  for (double p : {50.0, 90.0, 99.0}) {
    const double want = ours.percentile(p);
    const double got = static_cast<double>(hdr.value_at_percentile(p)) / 1e9;
    EXPECT_NEAR(got, want, want * 0.011) << "p" << p;
  }
  EXPECT_EQ(hdr.max(), 1000000);
}

TEST(HdrCounts, CompressedEncodingStartsWithTheV2CompressedCookie) {
  HdrCounts h;
  h.record(1234, 5);
  // 0x1c849314 and a length, base64: "HIST" is how every HdrHistogram V2 log line starts.
  EXPECT_EQ(h.compressed_base64().substr(0, 4), "HIST");
  HdrCounts empty;
  EXPECT_EQ(empty.compressed_base64().substr(0, 4), "HIST");
}

TEST(HdrCounts, PercentileDistributionHasHdrHistogramsLayout) {
  HdrCounts h;
  for (int64_t v = 1; v <= 100; ++v) h.record(v);  // small enough to be exact
  const std::string text = h.percentile_distribution(1.0);
  EXPECT_EQ(text.substr(0, text.find('\n')), "       Value     Percentile TotalCount 1/(1-Percentile)");
  EXPECT_NE(text.find("      50.000 0.500000000000         50           2.00\n"), std::string::npos) << text;
  EXPECT_NE(text.find("     100.000 1.000000000000        100\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Max     =      100.000, Total count    =          100]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#[Buckets =           32, SubBuckets     =         2048]\n"), std::string::npos) << text;
}

TEST(Hlog, HeaderAndOneTaggedLinePerInterval) {
  HdrCounts h;
  h.record(2000000, 3);
  const std::string log = hlog_text(1700000000.5, "2023-11-14T22:13:20Z", {{"echoString.s1.c2.latency", 2.5, 10, &h}});
  EXPECT_EQ(log.substr(0, log.find('\n')), "#[Histogram log format version 1.3]");
  EXPECT_NE(log.find("#[StartTime: 1700000000.500 (seconds since epoch), 2023-11-14T22:13:20Z]\n"), std::string::npos);
  EXPECT_NE(log.find("Tag=echoString.s1.c2.latency,2.500,10.000,2.000,HIST"), std::string::npos) << log;
}

}  // namespace
}  // namespace soapbench
