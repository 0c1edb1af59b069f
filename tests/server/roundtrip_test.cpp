// Round trips through the generated gSOAP client, in every server mode: what
// goes out must come back field for field, extremes included.
#include <gtest/gtest.h>

#include "test_support.h"

namespace soapbench::test {
namespace {

class RoundTrip : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam())};
  EchoClient client{server.endpoint()};

  void expect_string_echoed(size_t length) {
    const std::string sent = make_string(length);
    std::string echoed = "not touched";
    ASSERT_EQ(client.echo_string(sent, echoed), "");
    EXPECT_EQ(echoed.size(), sent.size());
    EXPECT_TRUE(echoed == sent) << "the echoed text differs from the " << length << " characters sent";
  }

  void expect_items_echoed(size_t count) {
    const std::vector<ItemValue> sent = make_items({.items = count});
    std::vector<ItemValue> echoed;
    ASSERT_EQ(client.echo_struct(sent, echoed), "");
    EXPECT_EQ(compare_items(sent, echoed), std::nullopt);
  }
};

TEST_P(RoundTrip, EchoStringDefaultPayload) { expect_string_echoed(PayloadSize{}.string_length); }

TEST_P(RoundTrip, EchoStringEmpty) { expect_string_echoed(0); }

TEST_P(RoundTrip, EchoString100000Characters) { expect_string_echoed(100000); }

TEST_P(RoundTrip, EchoStructOneItemOfAbout2KB) {
  expect_items_echoed(1);
  // The CXF Complex_Type request this benchmark models is about 2 KB on the
  // wire; a much smaller or larger one would measure something else.
  const std::string& request = client.last_request();
  EXPECT_GE(request.size(), 1800u) << request;
  EXPECT_LE(request.size(), 2400u) << request;
  EXPECT_TRUE(request.starts_with("POST /echo HTTP/1.1\r\n")) << request.substr(0, 200);
  EXPECT_NE(request.find("<echo:echoStruct>"), std::string::npos) << request;
}

TEST_P(RoundTrip, EchoStructFiftyItems) { expect_items_echoed(50); }

TEST_P(RoundTrip, ThreeHundredRequestsShareOneKeepAliveConnection) {
  // /stats is read on its own keep-alive connection, before and after, so that
  // the difference is the echo client's connections only.
  RawConnection stats_connection(server.port());
  const auto before = fetch_stats(stats_connection);
  const std::string sent = make_string(PayloadSize{}.string_length);
  const std::vector<ItemValue> items = make_items({.items = 1});
  // More than gSOAP's default cap of 100 requests per connection; both operations.
  constexpr int kRequests = 300;
  for (int i = 0; i < kRequests; ++i) {
    if (i % 3 == 2) {
      std::vector<ItemValue> echoed;
      ASSERT_EQ(client.echo_struct(items, echoed), "") << "request " << i;
      ASSERT_EQ(compare_items(items, echoed), std::nullopt) << "request " << i;
    } else {
      std::string echoed;
      ASSERT_EQ(client.echo_string(sent, echoed), "") << "request " << i;
      ASSERT_TRUE(echoed == sent) << "request " << i;
    }
  }
  const auto after = fetch_stats(stats_connection);
  EXPECT_EQ(after["connections"]["accepted"].get<uint64_t>() - before["connections"]["accepted"].get<uint64_t>(), 1u);
  EXPECT_EQ(after["requests"]["total"].get<uint64_t>() - before["requests"]["total"].get<uint64_t>(),
            static_cast<uint64_t>(kRequests));
  EXPECT_EQ(after["faults"], before["faults"]);
}

// HTTP/1.1 pipelining: requests sent back to back in one write, before any
// response is read, small and large (past gSOAP's 64 KiB buffer), with a GET
// among them. Each gets its own response, in order. gSOAP writes a response into
// the buffer it read the next request into; the server keeps those bytes aside.
TEST_P(RoundTrip, PipelinedRequestsAreAnsweredInOrder) {
  const std::vector<std::string> texts = {"first", std::string(100000, 'b'), "third & <fourth>", "4", "last"};
  std::string batch;
  for (size_t i = 0; i < texts.size(); ++i) {
    batch += http_post(soap_envelope(echo_string_body(texts[i])));
    if (i == 1) batch += http_get("/stats", true);
  }
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.send(batch));
  for (size_t i = 0; i < texts.size(); ++i) {
    const ReadResult r = connection.read_response(milliseconds(10000));
    ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << "response " << i << ": " << r.describe();
    EXPECT_EQ(r.response.status, 200) << "response " << i;
    EXPECT_EQ(echoed_text(r.response.body), texts[i]) << "response " << i;
    if (i == 1) {
      const ReadResult stats = connection.read_response(milliseconds(10000));
      ASSERT_EQ(stats.outcome, ReadResult::Outcome::response) << stats.describe();
      EXPECT_NE(stats.response.body.find("\"requests\""), std::string::npos) << stats.describe();
    }
  }
  EXPECT_FALSE(connection.closed_by_peer());
}

INSTANTIATE_TEST_SUITE_P(AllModes, RoundTrip, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
