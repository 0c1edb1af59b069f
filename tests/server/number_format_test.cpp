// The in-tree gSOAP runtime writes numbers through soapbench_gsoap_snprintf
// (generated/gsoap_number_format.cpp): for every format it takes over, the text
// must be glibc's, byte for byte, or echoes a client compares as text change.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" int soapbench_gsoap_snprintf(char* buf, size_t len, const char* format, ...);

namespace {

template <class... A>
void expect_same(const char* format, A... args) {
  char ours[128], glibc[128];
  const int n = soapbench_gsoap_snprintf(ours, sizeof ours, format, args...);
  const int m = std::snprintf(glibc, sizeof glibc, format, args...);
  ASSERT_EQ(n, m) << format;
  ASSERT_STREQ(ours, glibc) << format;
}

double bits_to_double(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

TEST(GsoapNumberFormat, DoublesAndFloatsAreWrittenAsGlibcWritesThem) {
  const std::vector<double> edges = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e-5, 1e-4, 9.9999999999999995e-5, 1e16, 1e17,
                                     123456789012345678.0, 1e100, DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN,
                                     std::nextafter(1.0, 2.0), 2.5, 0.125, 1.0 / 3, 299792458.0};
  for (double d : edges) {
    expect_same("%.17lG", d);
    expect_same("%.9G", static_cast<double>(static_cast<float>(d)));
  }
  for (float f : {FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, 3.14159274f, 1e-5f, 1e9f, 16777216.0f})
    expect_same("%.9G", static_cast<double>(f));
  std::mt19937_64 random(20261201);
  for (int i = 0; i < 200000; ++i) {
    const double d = bits_to_double(random());
    if (std::isfinite(d)) expect_same("%.17lG", d);
    const float f = bits_to_float(static_cast<uint32_t>(random()));
    if (std::isfinite(f)) expect_same("%.9G", static_cast<double>(f));
    // Values of everyday size, where %G switches between fixed and exponent forms.
    const double everyday = std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 120));
    expect_same("%.17lG", everyday);
    expect_same("%.9G", static_cast<double>(static_cast<float>(everyday)));
  }
}

TEST(GsoapNumberFormat, IntegersAreWrittenAsGlibcWritesThem) {
  for (long long v : {0LL, 1LL, -1LL, 255LL, std::numeric_limits<long long>::max(), std::numeric_limits<long long>::min()}) {
    expect_same("%lld", v);
    expect_same("%llu", static_cast<unsigned long long>(v));
    expect_same("%ld", static_cast<long>(v));
    expect_same("%lu", static_cast<unsigned long>(v));
    expect_same("%d", static_cast<int>(v));
    expect_same("%u", static_cast<unsigned>(v));
  }
}

TEST(GsoapNumberFormat, ShortBuffersAreCutAsSnprintfCutsThemAndOtherFormatsPassThrough) {
  char buf[8];
  EXPECT_EQ(soapbench_gsoap_snprintf(buf, sizeof buf, "%.17lG", DBL_MAX), 23);
  EXPECT_STREQ(buf, "1.79769");
  EXPECT_EQ(soapbench_gsoap_snprintf(buf, 1, "%lld", 12345LL), 5);
  EXPECT_STREQ(buf, "");
  EXPECT_EQ(soapbench_gsoap_snprintf(nullptr, 0, "%llu", 12345ULL), 5);
  expect_same("xmlns:%s", "echo");
  expect_same("%+03d:%02d", -5, 30);
  expect_same("%.3f", 2.0 / 3);
}

}  // namespace
