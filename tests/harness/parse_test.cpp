#include "core/parse.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace soapbench {
namespace {

using Clients = std::vector<unsigned>;

// The message of the std::invalid_argument that `parse` throws, or "no error".
template <class Parse>
std::string error_of(Parse&& parse) {
  try {
    parse();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

using Rates = std::vector<double>;

TEST(ParseRateList, ListsAndRangesInTheOrderGiven) {
  EXPECT_EQ(parse_rate_list("0"), (Rates{0}));
  EXPECT_EQ(parse_rate_list("250.5"), (Rates{250.5}));
  EXPECT_EQ(parse_rate_list("500,1000,2000"), (Rates{500, 1000, 2000}));
  EXPECT_EQ(parse_rate_list("500-4000x2"), (Rates{500, 1000, 2000, 4000}));
  EXPECT_EQ(parse_rate_list("500-3000x2"), (Rates{500, 1000, 2000, 3000}));  // the end itself too
  EXPECT_EQ(parse_rate_list("100-300+100, 50"), (Rates{100, 200, 300, 50}));
  EXPECT_EQ(parse_rate_list("0.1-0.3+0.1"), (Rates{0.1, 0.2, 0.3}));  // ends on B itself, not 0.30000000000000004
  EXPECT_EQ(parse_rate_list("10,10,20"), (Rates{10, 20}));
  EXPECT_EQ(format_rate_list({500, 1000, 2000.5}), "500,1000,2000.5");
}

TEST(ParseRateList, ErrorsQuoteTheListAndTheItem) {
  EXPECT_EQ(error_of([] { parse_rate_list(""); }), "bad rate list '': it is empty");
  EXPECT_EQ(error_of([] { parse_rate_list("1,,2"); }), "bad rate list '1,,2': empty item between commas");
  EXPECT_EQ(error_of([] { parse_rate_list("abc"); }), "bad rate list 'abc': 'abc' is not a rate in calls/s (a number >= 0)");
  EXPECT_EQ(error_of([] { parse_rate_list("-5"); }), "bad rate list '-5': '-5' is not a rate in calls/s (a number >= 0)");
  EXPECT_EQ(error_of([] { parse_rate_list("10k"); }), "bad rate list '10k': '10k' is not a rate in calls/s (a number >= 0)");
  EXPECT_EQ(error_of([] { parse_rate_list("500-4000"); }),
            "bad rate list '500-4000': range '500-4000' needs a step: A-BxF (times F) or A-B+S (plus S)");
  EXPECT_EQ(error_of([] { parse_rate_list("4000-500x2"); }),
            "bad rate list '4000-500x2': range '4000-500x2' must start above 0 and not run backwards");
  EXPECT_EQ(error_of([] { parse_rate_list("0-500x2"); }),
            "bad rate list '0-500x2': range '0-500x2' must start above 0 and not run backwards");
  EXPECT_EQ(error_of([] { parse_rate_list("500-4000x1"); }),
            "bad rate list '500-4000x1': range '500-4000x1' needs a factor above 1");
  EXPECT_EQ(error_of([] { parse_rate_list("500-4000+0"); }),
            "bad rate list '500-4000+0': range '500-4000+0' needs a step above 0");
  EXPECT_EQ(error_of([] { parse_rate_list("1,0"); }),
            "bad rate list '1,0': 0 (a closed loop) stands only alone, not in a list of rates");
  EXPECT_EQ(error_of([] { parse_rate_list("1-1000+1"); }), "bad rate list '1-1000+1': more than 100 steps");
}

TEST(ParseClientList, RangesListsAndMixes) {
  EXPECT_EQ(parse_client_list("1-10"), (Clients{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(parse_client_list("1,2,4,8"), (Clients{1, 2, 4, 8}));
  EXPECT_EQ(parse_client_list("1-3,8"), (Clients{1, 2, 3, 8}));
  EXPECT_EQ(parse_client_list("5"), (Clients{5}));
  EXPECT_EQ(parse_client_list("4-4"), (Clients{4}));
  EXPECT_EQ(parse_client_list(" 1 - 2 , 6 "), (Clients{1, 2, 6}));
}

TEST(ParseClientList, SortsAndRemovesDuplicates) {
  EXPECT_EQ(parse_client_list("8,1-3,2"), (Clients{1, 2, 3, 8}));
  EXPECT_EQ(parse_client_list("4,4,4"), (Clients{4}));
  EXPECT_EQ(parse_client_list("3-5,1-4"), (Clients{1, 2, 3, 4, 5}));
}

TEST(ParseClientList, UpperBound) {
  EXPECT_EQ(parse_client_list("10000"), (Clients{kMaxClients}));
  EXPECT_EQ(error_of([] { parse_client_list("10001"); }),
            "bad client list '10001': '10001' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("1-99999999999"); }),
            "bad client list '1-99999999999': '99999999999' is not a client count from 1 to 10000");
}

TEST(ParseClientList, ErrorsQuoteTheText) {
  EXPECT_EQ(error_of([] { parse_client_list(""); }), "bad client list '': it is empty");
  EXPECT_EQ(error_of([] { parse_client_list("0"); }),
            "bad client list '0': '0' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("5-2"); }),
            "bad client list '5-2': range '5-2' runs backwards");
  EXPECT_EQ(error_of([] { parse_client_list("a"); }),
            "bad client list 'a': 'a' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("1,,2"); }),
            "bad client list '1,,2': empty item between commas");
  EXPECT_EQ(error_of([] { parse_client_list("1,"); }),
            "bad client list '1,': empty item between commas");
  EXPECT_EQ(error_of([] { parse_client_list("-3"); }),
            "bad client list '-3': '' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("3-"); }),
            "bad client list '3-': '' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("1.5"); }),
            "bad client list '1.5': '1.5' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("1-2-3"); }),
            "bad client list '1-2-3': '2-3' is not a client count from 1 to 10000");
  EXPECT_EQ(error_of([] { parse_client_list("+2"); }),
            "bad client list '+2': '+2' is not a client count from 1 to 10000");
}

TEST(ParseDuration, UnitsAndBareSeconds) {
  EXPECT_EQ(parse_duration("10s"), 10.0);
  EXPECT_EQ(parse_duration("500ms"), 0.5);
  EXPECT_EQ(parse_duration("2m"), 120.0);
  EXPECT_EQ(parse_duration("1.5s"), 1.5);
  EXPECT_EQ(parse_duration("250us"), 250e-6);
  EXPECT_EQ(parse_duration("1h"), 3600.0);
  EXPECT_EQ(parse_duration("30"), 30.0);
  EXPECT_EQ(parse_duration("0.25"), 0.25);
  EXPECT_EQ(parse_duration("0"), 0.0);
  EXPECT_EQ(parse_duration(".5s"), 0.5);
}

TEST(ParseDuration, ErrorsQuoteTheText) {
  EXPECT_EQ(error_of([] { parse_duration(""); }), "bad duration '': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_duration("-1s"); }),
            "bad duration '-1s': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_duration("10x"); }),
            "bad duration '10x': unknown unit 'x' (use us, ms, s, m or h)");
  EXPECT_EQ(error_of([] { parse_duration("s"); }), "bad duration 's': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_duration("inf"); }),
            "bad duration 'inf': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_duration("nan"); }),
            "bad duration 'nan': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_duration("1.2.3s"); }),
            "bad duration '1.2.3s': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_duration("10 s"); }),
            "bad duration '10 s': unknown unit ' s' (use us, ms, s, m or h)");
  EXPECT_EQ(error_of([] { parse_duration("1e3"); }),
            "bad duration '1e3': unknown unit 'e3' (use us, ms, s, m or h)");
}

TEST(ParseCount, PlainAndSuffixed) {
  EXPECT_EQ(parse_count("1000"), 1000u);
  EXPECT_EQ(parse_count("0"), 0u);
  EXPECT_EQ(parse_count("10k"), 10000u);
  EXPECT_EQ(parse_count("2M"), 2000000u);
  EXPECT_EQ(parse_count("3G"), 3000000000u);
  EXPECT_EQ(parse_count("1.5k"), 1500u);
  EXPECT_EQ(parse_count("1.1k"), 1100u);
  EXPECT_EQ(parse_count("0.5k"), 500u);
  EXPECT_EQ(parse_count("18446744073709551615"), UINT64_MAX);
}

TEST(ParseCount, ErrorsQuoteTheText) {
  EXPECT_EQ(error_of([] { parse_count(""); }), "bad count '': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_count("-5"); }), "bad count '-5': expected a non-negative number");
  EXPECT_EQ(error_of([] { parse_count("10x"); }),
            "bad count '10x': unknown suffix 'x' (use k, M or G)");
  EXPECT_EQ(error_of([] { parse_count("10K"); }),
            "bad count '10K': unknown suffix 'K' (use k, M or G)");
  EXPECT_EQ(error_of([] { parse_count("1.5"); }), "bad count '1.5': not a whole number");
  EXPECT_EQ(error_of([] { parse_count("0.0005k"); }), "bad count '0.0005k': not a whole number");
  EXPECT_EQ(error_of([] { parse_count("18446744073709551616"); }),
            "bad count '18446744073709551616': larger than 18446744073709551615");
  EXPECT_EQ(error_of([] { parse_count("20000000000G"); }),
            "bad count '20000000000G': larger than 18446744073709551615");
}

TEST(SplitList, TrimsItemsAndKeepsEmptyOnes) {
  EXPECT_EQ(split_list("a, b ,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_list("one"), std::vector<std::string>{"one"});
  EXPECT_EQ(split_list("a,,b"), (std::vector<std::string>{"a", "", "b"}));
}

TEST(FormatClientList, RunsOfThreeBecomeRangesAndReadBack) {
  EXPECT_EQ(format_client_list({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), "1-10");
  EXPECT_EQ(format_client_list({1, 2, 4, 8}), "1,2,4,8");
  EXPECT_EQ(format_client_list({20}), "20");
  EXPECT_EQ(format_client_list({1, 2, 3, 7, 9, 10, 11}), "1-3,7,9-11");
  for (const auto& list : {std::vector<unsigned>{1, 2, 4, 8}, {1, 2, 3, 7, 9, 10, 11}, {5}})
    EXPECT_EQ(parse_client_list(format_client_list(list)), list);
}

}  // namespace
}  // namespace soapbench
