// The event loops answer the requests of one epoll batch together (Connection::hold:
// the first send wakes the client, the later ones find it awake), but answers
// already made are sent before a large request is served: a long parse must not
// hold them back.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "raw_http.h"
#include "server_process.h"
#include "test_support.h"

namespace soapbench::test {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

TEST(AnswerBatching, ASmallAnswerIsNotHeldBehindALargeRequestOfTheSameBatch) {
  // One loop, and every request takes 200 ms: requests that arrive meanwhile
  // are served in the next batch, in the order they arrived.
  ServerProcess server{{"--mode", "loops", "--threads", "1", "--delay", "200ms"}};
  RawConnection busy(server.port()), small(server.port()), large(server.port());
  const std::string small_request = http_post(soap_envelope(echo_string_body("small")));
  const std::string large_request = http_post(soap_envelope(echo_string_body(std::string(40000, 'x'))));

  ASSERT_TRUE(busy.send(small_request));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the loop is inside busy's request
  ASSERT_TRUE(small.send(small_request));
  ASSERT_TRUE(large.send(large_request));

  const ReadResult first = small.read_response(milliseconds(10000));
  const Clock::time_point small_answered = Clock::now();
  ASSERT_EQ(first.outcome, ReadResult::Outcome::response) << first.describe();
  const ReadResult second = large.read_response(milliseconds(10000));
  const Clock::time_point large_answered = Clock::now();
  ASSERT_EQ(second.outcome, ReadResult::Outcome::response) << second.describe();
  EXPECT_EQ(echoed_text(first.response.body), "small");
  EXPECT_EQ(echoed_text(second.response.body), std::string(40000, 'x'));
  // Held behind the large request, the small answer would leave with it; sent
  // first, it arrives the large request's 200 ms earlier.
  EXPECT_GT(ms_between(small_answered, large_answered), 100.0);
  ASSERT_EQ(busy.read_response(milliseconds(10000)).outcome, ReadResult::Outcome::response);
}

}  // namespace
}  // namespace soapbench::test
