// client/credentials.h without a network: which challenge HttpCredentials
// answers and how (nonce counts, stale nonces, a refusal not retried), and
// where with_wsse puts the UsernameToken; the end-to-end tests are in
// tests/harness/driver_auth_test.cpp.
#include <gtest/gtest.h>

#include "credentials.h"
#include "xml_values.h"

namespace soapbench {
namespace {

TEST(HttpCredentials, AnswersTheStrongestChallengeCountingNonces) {
  HttpCredentials c("u:p");
  EXPECT_FALSE(c.ready());
  EXPECT_FALSE(c.learn({"Bearer realm=\"x\""}));  // no scheme it answers
  ASSERT_TRUE(c.learn({"Basic realm=\"r\"", "Digest realm=\"r\", qop=\"auth\", algorithm=MD5, nonce=\"n1\"",
                       "Digest realm=\"r\", qop=\"auth\", algorithm=SHA-256, nonce=\"n1\""}));
  EXPECT_TRUE(c.digest());
  std::string first = c.field("POST", "/echo");
  EXPECT_NE(first.find("algorithm=SHA-256"), std::string::npos) << first;
  EXPECT_NE(first.find("nc=00000001"), std::string::npos) << first;
  EXPECT_NE(first.find("uri=\"/echo\""), std::string::npos) << first;
  EXPECT_NE(c.field("POST", "/echo").find("nc=00000002"), std::string::npos);
  // The answer went and was refused: wrong credentials, not tried again...
  EXPECT_FALSE(c.learn({"Digest realm=\"r\", qop=\"auth\", algorithm=SHA-256, nonce=\"n2\""}));
  // ...unless the nonce was merely stale: then the new one, from count 1.
  ASSERT_TRUE(c.learn({"Digest realm=\"r\", qop=\"auth\", algorithm=SHA-256, nonce=\"n3\", stale=true"}));
  const std::string renewed = c.field("POST", "/echo");
  EXPECT_NE(renewed.find("nonce=\"n3\""), std::string::npos) << renewed;
  EXPECT_NE(renewed.find("nc=00000001"), std::string::npos) << renewed;
}

TEST(HttpCredentials, BasicIsOneConstantField) {
  HttpCredentials c("u:p");
  ASSERT_TRUE(c.learn({"Basic realm=\"soapbench\", charset=\"UTF-8\""}));
  EXPECT_FALSE(c.digest());
  EXPECT_EQ(c.field("POST", "/echo"), "Authorization: Basic dTpw\r\n");
  EXPECT_EQ(c.field("POST", "/echo"), "Authorization: Basic dTpw\r\n");
  EXPECT_THROW(HttpCredentials("nocolon"), std::invalid_argument);
}

std::unique_ptr<ResponseCheck> wsse_check(bool digest) {
  ClientOptions o;
  o.operation = Operation::echo_string;
  o.wsse = "u:p&q";
  o.wsse_digest = digest;
  return make_response_check(o);
}

TEST(WsseCheck, PutsTheTokenInANewHeaderBeforeTheBody) {
  auto check = wsse_check(false);
  EXPECT_FALSE(check->varies());
  const std::string envelope = check->render_request();
  const size_t header = envelope.find("<soap:Header><wsse:Security ");
  ASSERT_NE(header, std::string::npos) << envelope;
  EXPECT_LT(header, envelope.find("<soap:Body>"));
  EXPECT_NE(envelope.find("#PasswordText\">p&amp;q</wsse:Password>"), std::string::npos) << envelope;
  EXPECT_NE(envelope.find("</wsse:Security></soap:Header><soap:Body>"), std::string::npos) << envelope;
}

// A request file's envelope: its own Header (the token goes first in it), SOAP 1.2, a default namespace.
class FixedEnvelope final : public ResponseCheck {
 public:
  explicit FixedEnvelope(std::string e) : envelope_(std::move(e)) {}
  const std::string& render_request() override { return envelope_; }
  CallResult check(long, std::string&) override { return {true, {}, {}}; }

 private:
  std::string envelope_;
};

TEST(WsseCheck, GoesIntoAnExistingHeaderOrOneOfTheBodysPrefix) {
  auto in_header = with_wsse(std::make_unique<FixedEnvelope>(
                                 "<e:Envelope xmlns:e=\"http://www.w3.org/2003/05/soap-envelope\"><e:Header>"
                                 "<x:Trace xmlns:x=\"t\"/></e:Header><e:Body><x/></e:Body></e:Envelope>"),
                             "u:p", false);
  const std::string a = in_header->render_request();
  EXPECT_EQ(a.find("<e:Header><wsse:Security "), a.find("<e:Header>")) << a;
  EXPECT_NE(a.find("</wsse:Security><x:Trace"), std::string::npos) << a;
  auto unprefixed = with_wsse(std::make_unique<FixedEnvelope>(
                                  "<Envelope xmlns=\"http://schemas.xmlsoap.org/soap/envelope/\"><Body><x/></Body></Envelope>"),
                              "u:p", false);
  const std::string b = unprefixed->render_request();
  EXPECT_NE(b.find("<Header><wsse:Security "), std::string::npos) << b;
  EXPECT_NE(b.find("</wsse:Security></Header><Body>"), std::string::npos) << b;
  EXPECT_THROW(with_wsse(std::make_unique<FixedEnvelope>("<x/>"), "u:p", false)->render_request(), std::invalid_argument);
}

TEST(WsseCheck, DigestGivesEachCallAFreshTokenOfTheSameLength) {
  auto check = wsse_check(true);
  EXPECT_TRUE(check->varies());
  const std::string first = check->render_request();
  std::vector<std::string_view> pieces;
  ASSERT_TRUE(check->render_pieces(pieces));
  ASSERT_EQ(pieces.size(), 1u);
  const std::string second(pieces[0]);
  EXPECT_EQ(first.size(), second.size());
  EXPECT_NE(first, second);  // another Nonce (and digest)
  EXPECT_NE(second.find("#PasswordDigest\">"), std::string::npos) << second;
  EXPECT_EQ(second.find("NNNN"), std::string::npos) << "a place holder left: " << second;
  EXPECT_EQ(second.find("YYYY-"), std::string::npos) << second;
}

TEST(WsseCheck, FailedAuthenticationIsAnAuthFailure) {
  auto check = wsse_check(false);
  std::string body =
      "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:wsse=\"x\">"
      "<SOAP-ENV:Body><SOAP-ENV:Fault><faultcode>wsse:FailedAuthentication</faultcode>"
      "<faultstring>Wrong password for user 'u'</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>";
  const CallResult r = check->check(500, body);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FailureKind::auth);
  EXPECT_EQ(r.detail, "Wrong password for user 'u'");
  std::string unauthorised = "Authentication required";
  EXPECT_EQ(check->check(401, unauthorised).kind, FailureKind::auth);
}

}  // namespace
}  // namespace soapbench
