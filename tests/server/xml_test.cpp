// The XML findings of issue 13, in every server mode: every value is echoed
// exactly or refused with a SOAP Client fault that names the element, and no
// shape of message makes the parse quadratic.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "test_support.h"

namespace soapbench::test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr milliseconds kWait{10000};

std::string fault_string(std::string_view body) {
  const size_t open = body.find("<faultstring>");
  const size_t close = body.find("</faultstring>");
  if (open == std::string_view::npos || close == std::string_view::npos) return "(no faultstring)";
  std::string text(body.substr(open + 13, close - open - 13));
  for (size_t at = text.find("&amp;"); at != std::string::npos; at = text.find("&amp;", at + 1)) text.erase(at + 1, 4);
  return text;
}

// An echoStruct whose one item holds `fields` (the guard checks values before gSOAP sees the rest).
std::string echo_struct_body(std::string_view fields) {
  return "<echo:echoStruct><echo:item>" + std::string(fields) + "</echo:item></echo:echoStruct>";
}

class Xml : public ::testing::TestWithParam<ServerMode> {
 protected:
  std::unique_ptr<ServerProcess> server;

  void start(std::vector<std::string> extra = {}) { server = std::make_unique<ServerProcess>(flags_for(GetParam(), extra)); }
  uint16_t port() const { return server->port(); }

  void TearDown() override {
    if (!server) return;
    ASSERT_TRUE(server->running()) << "the server died";
    EXPECT_EQ(check_echo_on_new_connection(port()), "") << "a valid request afterwards was not served";
  }

  // 500 with a Client fault saying exactly `fault`.
  void expect_fault(const std::string& body_xml, const std::string& fault) {
    const ReadResult r = exchange_once(port(), http_post(soap_envelope(body_xml)), kWait);
    ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
    EXPECT_EQ(r.response.status, 500) << r.describe();
    EXPECT_NE(r.response.body.find("<faultcode>SOAP-ENV:Client</faultcode>"), std::string::npos) << r.describe();
    EXPECT_EQ(fault_string(r.response.body), fault) << r.describe();
  }

  // 200, and the echoed text read back byte for byte (no unescaping: the server
  // writes non-ASCII characters as UTF-8).
  void expect_echo_raw(const std::string& text_xml, const std::string& echoed) {
    const ReadResult r = exchange_once(
        port(), http_post(soap_envelope("<echo:echoString><echo:text>" + text_xml + "</echo:text></echo:echoString>")),
        kWait);
    ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
    EXPECT_EQ(r.response.status, 200) << r.describe();
    const size_t open = r.response.body.find(":text>");
    const size_t close = r.response.body.find("</", open);
    ASSERT_NE(open, std::string::npos) << r.describe();
    EXPECT_EQ(r.response.body.substr(open + 6, close - open - 6), echoed) << r.describe();
  }
};

// Finding 4: character references of seven or more characters are echoed exactly.
TEST_P(Xml, LongCharacterReferencesAreEchoedExactly) {
  start();
  expect_echo_raw("&#x1F600;", "\xF0\x9F\x98\x80");
  expect_echo_raw("&#x00041;", "A");
  expect_echo_raw("&#128512;&#0000065;", "\xF0\x9F\x98\x80" "A");
  expect_echo_raw("&#x0003C;&#x00026;", "&lt;&amp;");  // markup characters stay escaped
  expect_echo_raw("\xF0\x9F\x98\x80 &#65;", "\xF0\x9F\x98\x80 A");
}

// Finding 7: characters XML 1.0 forbids, raw or as references, and invalid UTF-8.
TEST_P(Xml, ForbiddenCharactersAndInvalidUtf8AreRefused) {
  start();
  expect_fault(echo_string_body(std::string("a\0b", 3)),
               "Not allowed: a NUL character (U+0000), which XML 1.0 does not allow in element 'echo:text'");
  expect_fault("<echo:echoString><echo:text>a&#0;b</echo:text></echo:echoString>",
               "Not allowed: the character reference '&#0;', which is no XML 1.0 character in element 'echo:text'");
  expect_fault("<echo:echoString><echo:text>&#xD800;</echo:text></echo:echoString>",
               "Not allowed: the character reference '&#xD800;', which is no XML 1.0 character in element 'echo:text'");
  expect_fault(echo_string_body("\x01"), "Not allowed: the character U+0001, which XML 1.0 does not allow in element 'echo:text'");
  for (const std::string bad : {"\xED\xA0\x80", "\xF8\x88\x80\x80\x80", "\xC0\xAF", "\xFF"}) {
    const std::string body_xml = echo_string_body("ok " + bad);
    const size_t at = soap_envelope(body_xml).find(bad);
    expect_fault(body_xml, "Not allowed: invalid UTF-8 (byte " + std::to_string(at) + ") in element 'echo:text'");
  }
}

// Finding 7: undefined entities and undeclared prefixes.
TEST_P(Xml, UndefinedEntitiesAndUndeclaredPrefixesAreRefused) {
  start();
  expect_fault("<echo:echoString><echo:text>&nbsp;</echo:text></echo:echoString>",
               "Undefined entity '&nbsp;' in element 'echo:text'");
  expect_fault("<echo:echoString><nope:text>x</nope:text></echo:echoString>",
               "Undeclared namespace prefix 'nope' in element 'nope:text'");
  expect_fault(echo_struct_body("<echo:varQName>nope:thing</echo:varQName>"),
               "Invalid xsd:QName value 'nope:thing' in element 'echo:varQName'");
}

// Finding 7: xsd values gSOAP would normalise or pass unchecked.
TEST_P(Xml, InvalidXsdValuesAreRefused) {
  start();
  for (const std::string date : {"2006-02-30T00:00:00Z", "2006-13-01T00:00:00Z", "2007-02-29T10:00:00Z"})
    expect_fault(echo_struct_body("<echo:varStruct><echo:varDateTime>" + date + "</echo:varDateTime></echo:varStruct>"),
                 "Invalid xsd:dateTime value '" + date + "' in element 'echo:varDateTime'");
  for (const std::string decimal : {"abc", "12.3.4", "", "1e5"})
    expect_fault(echo_struct_body("<echo:varStruct><echo:varDecimal>" + decimal + "</echo:varDecimal></echo:varStruct>"),
                 "Invalid xsd:decimal value '" + decimal + "' in element 'echo:varDecimal'");
  for (const std::string base64 : {"QUJD!!", "QUJDRA==xyz", "QUJDR"})
    expect_fault(echo_struct_body("<echo:varBase64Binary>" + base64 + "</echo:varBase64Binary>"),
                 "Invalid xsd:base64Binary value '" + base64 + "' in element 'echo:varBase64Binary'");
  expect_fault(echo_struct_body("<echo:varHexBinary>ABC</echo:varHexBinary>"),
               "Invalid xsd:hexBinary value 'ABC' in element 'echo:varHexBinary'");
}

// Finding 9: UTF-16 is refused with a fault that says so.
TEST_P(Xml, Utf16IsRefusedSayingSo) {
  start();
  const std::string ascii = soap_envelope(echo_string_body("hi"));
  std::string utf16 = "\xFF\xFE";
  for (char c : ascii) utf16 += std::string{c, '\0'};
  const ReadResult r = exchange_once(port(), http_post(utf16), kWait);
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 500) << r.describe();
  EXPECT_EQ(fault_string(r.response.body), "The message is UTF-16: this service reads UTF-8 only") << r.describe();
}

// Finding 3: attributes per element and namespace declarations in scope are
// bounded (a parse quadratic in them is refused at once); the flags raise the bounds.
TEST_P(Xml, ManyAttributesAndNamespacesAreBounded) {
  start({"--max-attributes", "100", "--max-namespaces", "80"});
  auto with_attrs = [](int n, const char* form) {
    std::string attrs;
    for (int i = 0; i < n; ++i) attrs.append(" ").append(form).append(std::to_string(i)).append("=\"urn:x\"");
    return "<echo:echoString" + attrs + "><echo:text>x</echo:text></echo:echoString>";
  };
  const auto t0 = Clock::now();
  expect_fault(with_attrs(100000, "a"), "More than 100 attributes (the server's --max-attributes) in element 'echo:echoString'");
  expect_fault(with_attrs(81, "xmlns:p"),
               "More than 80 namespace declarations in scope (the server's --max-namespaces) in element 'echo:echoString'");
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
  EXPECT_LT(took.count(), 2000) << "refusing 100,000 attributes took " << took.count() << " ms";
  const ReadResult ok = exchange_once(port(), http_post(soap_envelope(with_attrs(78, "xmlns:p"))), kWait);
  ASSERT_EQ(ok.outcome, ReadResult::Outcome::response) << ok.describe();
  EXPECT_EQ(ok.response.status, 200) << ok.describe();
}

INSTANTIATE_TEST_SUITE_P(AllModes, Xml, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
