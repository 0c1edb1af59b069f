// --require-user (HTTP Basic and Digest) and --require-wsse (WS-Security
// UsernameToken), in every server mode: challenges, refusals with their
// reasons, the echo with the right credentials, and the counts in /stats.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <chrono>
#include <ctime>
#include <regex>
#include <strings.h>
#include <string>

#include "test_support.h"

namespace soapbench::test {
namespace {

std::string hex_digest(const EVP_MD* md, const std::string& data) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(data.data(), data.size(), d, &len, md, nullptr);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) out += {kDigits[d[i] >> 4], kDigits[d[i] & 15]};
  return out;
}

std::string base64(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                  static_cast<int>(bytes.size()));
  return out;
}

// An echoString POST with an Authorization field ("" = none).
std::string post_with(const std::string& authorization, const std::string& text = "hello") {
  std::string request = http_post(soap_envelope(echo_string_body(text)));
  if (!authorization.empty()) request.insert(request.find("\r\n") + 2, "Authorization: " + authorization + "\r\n");
  return request;
}

std::string basic(const std::string& user_password) { return "Basic " + base64(user_password); }

std::vector<std::string> challenges(const HttpResponse& r) {
  std::vector<std::string> out;
  for (const auto& [name, value] : r.headers)
    if (strcasecmp(name.c_str(), "WWW-Authenticate") == 0) out.push_back(value);
  return out;
}

std::string faultstring(const std::string& body) {
  std::smatch m;
  return std::regex_search(body, m, std::regex("<faultstring>([^<]*)</faultstring>")) ? m[1].str() : body;
}

nlohmann::json auth_stats(RawConnection& c, const std::string& authorization) {
  c.send("GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + authorization + "\r\n\r\n");
  const ReadResult r = c.read_response(milliseconds(5000));
  if (r.response.status != 200) return {{"error", r.describe()}};
  return nlohmann::json::parse(r.response.body)["auth"];
}

class BasicAuth : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam(), {"--require-user", "u:p"})};
};

TEST_P(BasicAuth, ChallengesRefusesAndEchoes) {
  RawConnection c(server.port());
  ASSERT_TRUE(c.send(post_with("")));
  ReadResult r = c.read_response(milliseconds(5000));
  ASSERT_EQ(r.response.status, 401) << r.describe();
  EXPECT_EQ(challenges(r.response), std::vector<std::string>{"Basic realm=\"soapbench\", charset=\"UTF-8\""});
  EXPECT_EQ(faultstring(r.response.body), "Authentication required: no credentials");
  const std::pair<std::string, std::string> refusals[] = {
      {basic("u:wrong"), "Authentication failed: wrong password for user 'u'"},
      {basic("x:p"), "Authentication failed: unknown user 'x'"},
      {"Digest username=\"u\"", "Authentication failed: wrong scheme 'Digest', the server wants Basic"},
  };
  for (const auto& [authorization, why] : refusals) {  // on the same connection: a 401 keeps it open
    ASSERT_TRUE(c.send(post_with(authorization)));
    r = c.read_response(milliseconds(5000));
    EXPECT_EQ(r.response.status, 401) << r.describe();
    EXPECT_EQ(faultstring(r.response.body), why);
    EXPECT_EQ(challenges(r.response).size(), 1u);
  }
  ASSERT_TRUE(c.send(post_with(basic("u:p"), "authorised")));
  r = c.read_response(milliseconds(5000));
  ASSERT_EQ(r.response.status, 200) << r.describe();
  EXPECT_EQ(echoed_text(r.response.body), "authorised");
  // /stats and ?wsdl need the credentials too.
  EXPECT_EQ(exchange_once(server.port(), http_get("/stats", false)).response.status, 401);
  EXPECT_EQ(exchange_once(server.port(), http_get("/echo?wsdl", false)).response.status, 401);
  const auto stats = auth_stats(c, basic("u:p"));
  EXPECT_EQ(stats["challenged"], 3) << stats;  // the POST, /stats and ?wsdl without credentials
  EXPECT_EQ(stats["refused"], 3) << stats;
  EXPECT_EQ(stats["wsse_refused"], 0) << stats;
}

class DigestAuth : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam(), {"--require-user", "u:p", "--auth", "digest"})};
};

std::string digest_answer(const std::string& algorithm, const std::string& nonce, const std::string& nc,
                          const std::string& password = "p", const std::string& user = "u",
                          const std::string& method = "POST", const std::string& uri = "/echo") {
  const EVP_MD* md = algorithm == "MD5" ? EVP_md5() : EVP_sha256();
  const std::string cnonce = "0a4f113b";
  const std::string ha1 = hex_digest(md, user + ":soapbench:" + password);
  const std::string ha2 = hex_digest(md, method + ":" + uri);
  const std::string response = hex_digest(md, ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":auth:" + ha2);
  return "Digest username=\"" + user + "\", realm=\"soapbench\", nonce=\"" + nonce + "\", uri=\"" + uri + "\", algorithm=" +
         algorithm + ", qop=auth, nc=" + nc + ", cnonce=\"" + cnonce + "\", response=\"" + response + "\"";
}

TEST_P(DigestAuth, ChallengesRefusesReplaysAndEchoes) {
  RawConnection c(server.port());
  ASSERT_TRUE(c.send(post_with("")));
  ReadResult r = c.read_response(milliseconds(5000));
  ASSERT_EQ(r.response.status, 401) << r.describe();
  const auto offered = challenges(r.response);
  ASSERT_EQ(offered.size(), 2u);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(offered[0], m, std::regex("nonce=\"([0-9a-f]+)\"")));
  const std::string nonce = m[1];
  EXPECT_EQ(offered[0], "Digest realm=\"soapbench\", qop=\"auth\", algorithm=SHA-256, nonce=\"" + nonce + "\"");
  EXPECT_EQ(offered[1], "Digest realm=\"soapbench\", qop=\"auth\", algorithm=MD5, nonce=\"" + nonce + "\"");

  auto answer = [&](const std::string& authorization) {
    EXPECT_TRUE(c.send(post_with(authorization)));
    return c.read_response(milliseconds(5000)).response;
  };
  EXPECT_EQ(answer(digest_answer("SHA-256", nonce, "00000001")).status, 200);
  HttpResponse again = answer(digest_answer("SHA-256", nonce, "00000001"));
  EXPECT_EQ(again.status, 401);
  EXPECT_EQ(faultstring(again.body), "Authentication failed: replayed nonce count 00000001");
  EXPECT_EQ(answer(digest_answer("SHA-256", nonce, "00000002")).status, 200);
  EXPECT_EQ(answer(digest_answer("MD5", nonce, "00000003")).status, 200);
  HttpResponse wrong = answer(digest_answer("MD5", nonce, "00000004", "wrong"));
  EXPECT_EQ(faultstring(wrong.body), "Authentication failed: wrong password for user 'u'");
  EXPECT_EQ(faultstring(answer(digest_answer("MD5", nonce, "00000005", "p", "x")).body),
            "Authentication failed: unknown user 'x'");
  EXPECT_EQ(faultstring(answer(basic("u:p")).body), "Authentication failed: wrong scheme 'Basic', the server wants Digest");
  // A nonce the server did not issue, or no longer knows (issued over 5 minutes
  // ago), with the right password: stale, so the client may retry at once.
  HttpResponse stale = answer(digest_answer("SHA-256", "00112233445566778899aabbccddeeff", "00000001"));
  EXPECT_EQ(stale.status, 401);
  EXPECT_EQ(faultstring(stale.body), "Authentication failed: stale nonce");
  ASSERT_EQ(challenges(stale).size(), 2u);
  EXPECT_TRUE(challenges(stale)[0].ends_with(", stale=true")) << challenges(stale)[0];
  const auto stats = auth_stats(c, digest_answer("SHA-256", nonce, "00000006", "p", "u", "GET", "/stats"));
  EXPECT_EQ(stats["challenged"], 1) << stats;
  EXPECT_EQ(stats["refused"], 5) << stats;
}

// A nonce past --nonce-lifetime is stale: the right answer gets 401 with
// stale=true and a new nonce, which then works.
class DigestNonceLifetime : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam(), {"--require-user", "u:p", "--auth", "digest", "--nonce-lifetime", "200ms"})};
};

std::string nonce_of(const HttpResponse& r) {
  std::smatch m;
  const auto offered = challenges(r);
  return !offered.empty() && std::regex_search(offered[0], m, std::regex("nonce=\"([0-9a-f]+)\"")) ? m[1].str() : "";
}

TEST_P(DigestNonceLifetime, AnExpiredNonceIsStale) {
  RawConnection c(server.port());
  ASSERT_TRUE(c.send(post_with("")));
  const std::string nonce = nonce_of(c.read_response(milliseconds(5000)).response);
  ASSERT_FALSE(nonce.empty());
  ASSERT_TRUE(c.send(post_with(digest_answer("SHA-256", nonce, "00000001"))));
  EXPECT_EQ(c.read_response(milliseconds(5000)).response.status, 200);
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_TRUE(c.send(post_with(digest_answer("SHA-256", nonce, "00000002"))));
  const HttpResponse stale = c.read_response(milliseconds(5000)).response;
  EXPECT_EQ(stale.status, 401);
  EXPECT_EQ(faultstring(stale.body), "Authentication failed: stale nonce");
  ASSERT_EQ(challenges(stale).size(), 2u);
  EXPECT_TRUE(challenges(stale)[1].ends_with(", stale=true")) << challenges(stale)[1];
  const std::string renewed = nonce_of(stale);
  EXPECT_NE(renewed, nonce);
  ASSERT_TRUE(c.send(post_with(digest_answer("MD5", renewed, "00000001"))));
  EXPECT_EQ(c.read_response(milliseconds(5000)).response.status, 200);
}

// ---- WS-Security UsernameToken ----

class WsseAuth : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam(), {"--require-wsse", "u:p"})};
};

constexpr const char* kWsse = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
constexpr const char* kWsu = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
constexpr const char* kTokenProfile = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0";

std::string created_at(std::chrono::seconds from_now) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + from_now);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

// An echoString envelope whose header holds `token` (a UsernameToken's children), mustUnderstand="1".
std::string wsse_envelope(const std::string& token) {
  return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" "
                     "xmlns:echo=\"urn:soapbench:echo:1\"><SOAP-ENV:Header>"
                     "<wsse:Security SOAP-ENV:mustUnderstand=\"1\" xmlns:wsse=\"") +
         kWsse + "\" xmlns:wsu=\"" + kWsu + "\"><wsse:UsernameToken>" + token +
         "</wsse:UsernameToken></wsse:Security></SOAP-ENV:Header><SOAP-ENV:Body>" + echo_string_body("secured") +
         "</SOAP-ENV:Body></SOAP-ENV:Envelope>";
}

std::string text_token(const std::string& user, const std::string& password) {
  return "<wsse:Username>" + user + "</wsse:Username><wsse:Password Type=\"" + kTokenProfile + "#PasswordText\">" +
         password + "</wsse:Password>";
}

std::string digest_token(const std::string& nonce, const std::string& created, const std::string& password = "p") {
  unsigned char d[20];
  const std::string input = nonce + created + password;
  EVP_Digest(input.data(), input.size(), d, nullptr, EVP_sha1(), nullptr);
  return "<wsse:Username>u</wsse:Username><wsse:Password Type=\"" + std::string(kTokenProfile) +
         "#PasswordDigest\">" + base64(std::string(reinterpret_cast<char*>(d), sizeof d)) +
         "</wsse:Password><wsse:Nonce EncodingType=\"http://docs.oasis-open.org/wss/2004/01/"
         "oasis-200401-wss-soap-message-security-1.0#Base64Binary\">" + base64(nonce) + "</wsse:Nonce><wsu:Created>" +
         created + "</wsu:Created>";
}

std::string fresh_nonce() {
  unsigned char n[16];
  RAND_bytes(n, sizeof n);
  return std::string(reinterpret_cast<char*>(n), sizeof n);
}

TEST_P(WsseAuth, AcceptsTextAndDigestRefusesTheRest) {
  RawConnection c(server.port());
  auto answer = [&](const std::string& envelope) {
    EXPECT_TRUE(c.send(http_post(envelope)));
    return c.read_response(milliseconds(5000)).response;
  };
  HttpResponse ok = answer(wsse_envelope(text_token("u", "p")));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(echoed_text(ok.body), "secured");
  const std::string nonce = fresh_nonce();
  const std::string now = created_at(std::chrono::seconds(0));
  ok = answer(wsse_envelope(digest_token(nonce, now)));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(echoed_text(ok.body), "secured");

  const std::pair<std::string, std::string> refusals[] = {
      {soap_envelope(echo_string_body("bare")), "No wsse:Security header"},
      {wsse_envelope(text_token("u", "wrong")), "Wrong password for user 'u'"},
      {wsse_envelope(text_token("x", "p")), "Unknown user 'x'"},
      {wsse_envelope(digest_token(nonce, now)), "wsse:Nonce already used within the last 5 minutes"},
      {wsse_envelope(digest_token(fresh_nonce(), now, "wrong")), "Wrong password for user 'u'"},
      {wsse_envelope(digest_token(fresh_nonce(), created_at(std::chrono::minutes(-10)))),
       "wsu:Created is more than 5 minutes old"},
      {wsse_envelope(digest_token(fresh_nonce(), created_at(std::chrono::minutes(10)))),
       "wsu:Created is more than 5 minutes in the future"},
  };
  for (const auto& [envelope, why] : refusals) {
    const HttpResponse r = answer(envelope);
    EXPECT_EQ(r.status, 500) << why;
    EXPECT_NE(r.body.find("<faultcode>wsse:FailedAuthentication</faultcode>"), std::string::npos) << r.body;
    EXPECT_EQ(faultstring(r.body), why);
  }
  const nlohmann::json stats = fetch_stats(c)["auth"];
  EXPECT_EQ(stats["wsse_refused"], 7) << stats;
  EXPECT_EQ(stats["challenged"], 0) << stats;
}

INSTANTIATE_TEST_SUITE_P(AllModes, BasicAuth, ::testing::ValuesIn(all_modes()), mode_param_name);
INSTANTIATE_TEST_SUITE_P(AllModes, DigestAuth, ::testing::ValuesIn(all_modes()), mode_param_name);
INSTANTIATE_TEST_SUITE_P(AllModes, DigestNonceLifetime, ::testing::ValuesIn(all_modes()), mode_param_name);
INSTANTIATE_TEST_SUITE_P(AllModes, WsseAuth, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
