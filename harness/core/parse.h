#pragma once
// Parsers for the command-line values of `soapbench run`. Every error throws
// std::invalid_argument whose message quotes the offending text.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace soapbench {

// Upper bound on one client count: each client is a process, so a typo such as
// "1-100000" must fail instead of forking without end.
inline constexpr unsigned kMaxClients = 10000;

// Client counts: comma-separated items, each "N" or "A-B" (A <= B), all in
// 1..kMaxClients; spaces around items are ignored. The result is sorted
// ascending with duplicates removed: "8,1-3,2" gives {1, 2, 3, 8}.
// Errors: "", an empty item ("1,,2"), "0", "5-2", "a", "-3", "3-", "1.5".
std::vector<unsigned> parse_client_list(std::string_view text);

// Upper bound on the steps one --rate list may make: a typo such as
// "1-1000000+1" must fail instead of running for days.
inline constexpr size_t kMaxRateSteps = 100;

// Rates in calls/s, one step each: comma-separated items, each a rate "R" (a
// non-negative decimal number), a geometric range "A-BxF" (A, A*F, A*F^2, ... up to
// B, and B itself when the factor overshoots it; F > 1) or an arithmetic range
// "A-B+S" (A, A+S, ... up to B, and B; S > 0). Kept in the order given, duplicates
// removed: "500-4000x2" = {500, 1000, 2000, 4000}, "100-300+100,50" = {100, 200, 300, 50}.
// 0 means a closed loop and stands only alone ("0"). Errors: "", an empty item,
// "-5", "abc", "4000-500x2", "500-4000" (no step), "500-4000x1", "1,0", more than
// kMaxRateSteps steps.
std::vector<double> parse_rate_list(std::string_view text);
// The same list written back: {500, 1000, 2000} -> "500,1000,2000".
std::string format_rate_list(const std::vector<double>& rates);

// A duration in seconds: a non-negative decimal number with an optional unit
// us, ms, s, m or h; a bare number means seconds. "10s" = 10, "500ms" = 0.5,
// "2m" = 120, "1.5s" = 1.5, "250us" = 0.00025, "0" = 0.
// Errors: "", "-1s", "10x", "s", "inf", "nan".
double parse_duration(std::string_view text);

// A count: a non-negative decimal number with an optional suffix k (1e3),
// M (1e6) or G (1e9), whose value is a whole number: "1000", "10k", "2M", "1.5k".
// Errors: "", "-5", "10x", "1.5", "0.0005k", values above UINT64_MAX.
uint64_t parse_count(std::string_view text);

// Comma-separated counts (parse_count each), in the order given, spaces around
// items ignored: "0,2k,20k,200k,2M". Errors: "", an empty item, a bad count.
std::vector<uint64_t> parse_count_list(std::string_view text);

// Comma-separated items, spaces around each trimmed: "a, b,c" -> {"a", "b", "c"}.
std::vector<std::string> split_list(std::string_view text);

// Client counts as parse_client_list reads them back: {1, ..., 10} -> "1-10",
// {1, 2, 4, 8} -> "1,2,4,8" (runs of three or more as ranges).
std::string format_client_list(const std::vector<unsigned>& clients);

}  // namespace soapbench
