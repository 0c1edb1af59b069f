// RepeatAwareCheck: a response identical to the last accepted one is accepted
// without a parse; any other response, one byte or the status apart, is judged
// in full, so a memo never hides a wrong echo.
#include <gtest/gtest.h>

#include "response_check.h"
#include "xml_values.h"

namespace soapbench {
namespace {

std::unique_ptr<ResponseCheck> echo_string_check() {
  ClientOptions o;
  o.operation = Operation::echo_string;
  return make_response_check(o);
}

std::string good_body() { return xml::render_echo_string(make_string(PayloadSize{}.string_length), xml::Message::response); }

TEST(RepeatAwareCheck, EqualResponsesAreParsedOnceAndAnyChangedByteIsJudgedInFull) {
  std::unique_ptr<ResponseCheck> check = echo_string_check();
  auto* repeat = dynamic_cast<RepeatAwareCheck*>(check.get());
  ASSERT_NE(repeat, nullptr) << "the echo check's verdict depends on the response alone";

  for (int i = 0; i < 5; ++i) {
    std::string body = good_body();
    const CallResult r = check->check(200, body);
    EXPECT_TRUE(r.ok) << i << ": " << r.detail;
  }
  EXPECT_EQ(repeat->full_checks(), 1u);

  // One character of the echoed text changed, same length: a mismatch that says where.
  std::string changed = good_body();
  const size_t digits_at = changed.find("0123456789");
  ASSERT_NE(digits_at, std::string::npos);
  changed[digits_at + 5] = 'x';
  const size_t character = std::string(kStringPattern).find("0123456789") + 5;
  CallResult r = check->check(200, changed);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "mismatch");
  EXPECT_NE(r.detail.find("text differs at character " + std::to_string(character) + " "), std::string::npos) << r.detail;
  EXPECT_EQ(repeat->full_checks(), 2u);

  // The same good bytes under an error status are that status, not a repeat.
  std::string body = good_body();
  r = check->check(503, body);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "http_status");
  EXPECT_EQ(r.detail, "HTTP 503");

  // The accepted response is still remembered after failures in between.
  body = good_body();
  EXPECT_TRUE(check->check(200, body).ok);
  EXPECT_EQ(repeat->full_checks(), 3u);

  // A response that differs only after the envelope is judged again (and accepted:
  // trailing whitespace is no change of value), then remembered in its place.
  body = good_body() + "\n";
  EXPECT_TRUE(check->check(200, body).ok);
  body = good_body() + "\n";
  EXPECT_TRUE(check->check(200, body).ok);
  EXPECT_EQ(repeat->full_checks(), 4u);
}

TEST(RepeatAwareCheck, AFailedFirstResponseIsNeverRemembered) {
  std::unique_ptr<ResponseCheck> check = echo_string_check();
  std::string wrong = xml::render_echo_string(make_string(10), xml::Message::response);
  for (int i = 0; i < 3; ++i) {
    std::string body = wrong;
    const CallResult r = check->check(200, body);
    EXPECT_EQ(to_string(r.kind), "mismatch") << i;
  }
  EXPECT_EQ(dynamic_cast<RepeatAwareCheck&>(*check).full_checks(), 3u);
}

}  // namespace
}  // namespace soapbench
