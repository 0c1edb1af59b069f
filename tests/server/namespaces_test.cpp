// Requests spelled with any valid prefixes are understood, and every response
// declares only the namespaces it uses. generated/namespaces.cpp blanks SOAP-ENC,
// xsi and xsd from the table before a response is written and relies on gSOAP
// copying the table afresh for the next request: these requests, one after the
// other on one keep-alive connection, would see a table left blanked, or a wildcard
// match (an older XML Schema namespace) kept from the request before.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "test_support.h"

namespace soapbench::test {
namespace {

constexpr std::string_view kEnv = "http://schemas.xmlsoap.org/soap/envelope/";

std::string envelope(std::string_view open_attributes, std::string_view env, std::string_view body) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<" + std::string(env) + ":Envelope xmlns:" +
         std::string(env) + "=\"" + std::string(kEnv) + "\" " + std::string(open_attributes) + "><" +
         std::string(env) + ":Body>" + std::string(body) + "</" + std::string(env) + ":Body></" +
         std::string(env) + ":Envelope>";
}

size_t count(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Namespaces : public ::testing::TestWithParam<ServerMode> {
 protected:
  void SetUp() override { server = std::make_unique<ServerProcess>(flags_for(GetParam())); }
  std::unique_ptr<ServerProcess> server;

  // Sends `xml` on `c`; the response must be a 200 echoing `text` and declaring
  // exactly the envelope's and the service's namespaces.
  static void expect_echo(RawConnection& c, const std::string& xml, const std::string& text) {
    ASSERT_TRUE(c.send(http_post(xml)));
    const auto r = c.read_response(milliseconds(10000));
    ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
    ASSERT_EQ(r.response.status, 200) << r.response.body;
    EXPECT_EQ(echoed_text(r.response.body), text) << r.response.body;
    const std::string& body = r.response.body;
    EXPECT_EQ(count(body, "xmlns"), 2u) << body;
    EXPECT_NE(body.find("xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\""), std::string::npos) << body;
    EXPECT_NE(body.find("xmlns:echo=\"urn:soapbench:echo:1\""), std::string::npos) << body;
  }
};

TEST_P(Namespaces, AnyPrefixesUnderstoodAndOnlyUsedNamespacesDeclared) {
  RawConnection c(server->port());
  const std::string xsi_xsd =
      "xmlns:i=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:t=\"http://www.w3.org/2001/XMLSchema\" "
      "xmlns:enc=\"http://schemas.xmlsoap.org/soap/encoding/\"";
  // Unusual prefixes everywhere, xsi:type on the text, SOAP-ENC declared.
  expect_echo(c,
              envelope(xsi_xsd, "e1",
                       "<q:echoString xmlns:q=\"urn:soapbench:echo:1\"><q:text i:type=\"t:string\">a &lt;b&gt; "
                       "&amp; c</q:text></q:echoString>"),
              "a <b> & c");
  // The service's namespace as the default namespace, nothing else declared.
  expect_echo(c,
              envelope("", "SOAP-ENV",
                       "<echoString xmlns=\"urn:soapbench:echo:1\"><text>default ns</text></echoString>"),
              "default ns");
  // The prefixes a gSOAP client writes, but bound to other URIs than gSOAP's table:
  // xsi and xsd of 1999 (gSOAP's table matches them by wildcard).
  expect_echo(c,
              envelope("xmlns:xsi=\"http://www.w3.org/1999/XMLSchema-instance\" "
                       "xmlns:xsd=\"http://www.w3.org/1999/XMLSchema\" xmlns:echo=\"urn:soapbench:echo:1\"",
                       "SOAP-ENV", "<echo:echoString><echo:text xsi:type=\"xsd:string\">1999</echo:text></echo:echoString>"),
              "1999");
  // The prefix echo bound to another namespace, and the service's bound to SOAP-ENC's
  // usual prefix: matched by URI, not by prefix.
  expect_echo(c,
              envelope("xmlns:echo=\"urn:other\" xmlns:SOAP-ENC=\"urn:soapbench:echo:1\"", "x",
                       "<SOAP-ENC:echoString><SOAP-ENC:text>swapped</SOAP-ENC:text></SOAP-ENC:echoString>"),
              "swapped");
  // And the plain request after all of them.
  expect_echo(c, soap_envelope(echo_string_body("plain")), "plain");
}

TEST_P(Namespaces, ElementInAnotherNamespaceIsAFault) {
  RawConnection c(server->port());
  // The right local names under the wrong URI are not the operation.
  ASSERT_TRUE(c.send(http_post(envelope("xmlns:echo=\"urn:soapbench:echo:2\"", "SOAP-ENV",
                                        "<echo:echoString><echo:text>x</echo:text></echo:echoString>"))));
  const auto r = c.read_response(milliseconds(10000));
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 500) << r.response.body;
  EXPECT_NE(r.response.body.find("Fault"), std::string::npos) << r.response.body;
  // The server may close a connection after a fault: a new one asks.
  RawConnection next(server->port());
  expect_echo(next, soap_envelope(echo_string_body("after fault")), "after fault");
}

INSTANTIATE_TEST_SUITE_P(AllModes, Namespaces, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
