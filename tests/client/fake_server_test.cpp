// Every client kind against a fake server that answers canned bytes: every failure
// kind, tolerated spellings of an equal echo, and connection handling.
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>

#include "client.h"
#include "fake_server.h"
#include "xml_values.h"

namespace soapbench {
namespace {

using test::Behaviour;
using test::FakeServer;
using test::http_response;

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The correct echoStruct response to the default payload, as an HTTP response.
std::string struct_echo_body() { return xml::render_echo_struct(make_items(PayloadSize{}), xml::Message::response); }
std::string string_echo_body() { return xml::render_echo_string(make_string(PayloadSize{}.string_length), xml::Message::response); }

class FakeServerTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<EchoClient> client(const std::string& url, Operation op, double timeout_s = 5,
                                     bool new_connection = false) {
    ClientOptions o;
    o.url = url;
    o.operation = op;
    o.timeout_s = timeout_s;
    o.new_connection = new_connection;
    return make_client(GetParam(), o);
  }
};

TEST_P(FakeServerTest, CorrectEchoesSucceedAndTheRequestIsASoapPost) {
  FakeServer strings(http_response("200 OK", string_echo_body()));
  const CallResult r = client(strings.url(), Operation::echo_string)->call();
  EXPECT_TRUE(r.ok) << to_string(r.kind) << ": " << r.detail;
  const std::string request = strings.last_request();
  EXPECT_EQ(request.rfind("POST /echo HTTP/1.1\r\n", 0), 0u) << request;
  EXPECT_NE(request.find("SOAPAction: \"urn:soapbench:echo:1#echoString\"\r\n"), std::string::npos) << request;
  EXPECT_NE(request.find("text/xml; charset=utf-8"), std::string::npos) << request;
  EXPECT_EQ(request.find("Expect:"), std::string::npos) << request;

  FakeServer structs(http_response("200 OK", struct_echo_body()));
  auto c = client(structs.url(), Operation::echo_struct);
  const CallResult s = c->call();
  EXPECT_TRUE(s.ok) << to_string(s.kind) << ": " << s.detail;
  EXPECT_NE(structs.last_request().find("#echoStruct\""), std::string::npos);
  EXPECT_EQ(c->server_header(), "fake/1.0");
  // What the fake server received and sent, byte for byte.
  EXPECT_EQ(c->last_wire_bytes().request, structs.last_request().size());
  EXPECT_EQ(c->last_wire_bytes().response, http_response("200 OK", struct_echo_body()).size());
}

TEST_P(FakeServerTest, SoapFaultIsReportedWithItsFaultString) {
  const std::string fault =
      "<?xml version=\"1.0\"?><SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\">"
      "<SOAP-ENV:Body><SOAP-ENV:Fault><faultcode>SOAP-ENV:Server</faultcode>"
      "<faultstring>backend unavailable</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>";
  FakeServer server(http_response("500 Internal Server Error", fault));
  const CallResult r = client(server.url(), Operation::echo_string)->call();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "soap_fault");
  EXPECT_NE(r.detail.find("backend unavailable"), std::string::npos) << r.detail;
}

TEST_P(FakeServerTest, ErrorStatusWithoutFaultIsHttpStatus) {
  for (const char* status : {"503 Service Unavailable", "500 Internal Server Error", "404 Not Found"}) {
    FakeServer server(http_response(status, "<html><body>busy</body></html>"));
    const CallResult r = client(server.url(), Operation::echo_struct)->call();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(to_string(r.kind), "http_status") << status << ": " << r.detail;
    EXPECT_NE(r.detail.find(std::string(status).substr(0, 3)), std::string::npos) << r.detail;
  }
}

TEST_P(FakeServerTest, ChangedFloatIsMismatch) {
  std::vector<ItemValue> items = make_items(PayloadSize{});
  items[0].var_struct.var_float = 1.25f;
  FakeServer server(http_response("200 OK", xml::render_echo_struct(items, xml::Message::response)));
  const CallResult r = client(server.url(), Operation::echo_struct)->call();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "mismatch");
  EXPECT_NE(r.detail.find("varFloat"), std::string::npos) << r.detail;
}

TEST_P(FakeServerTest, ChangedTextIsMismatch) {
  FakeServer server(http_response("200 OK", xml::render_echo_string(make_string(1023), xml::Message::response)));
  const CallResult r = client(server.url(), Operation::echo_string)->call();
  EXPECT_EQ(to_string(r.kind), "mismatch");
  EXPECT_FALSE(r.ok);
}

TEST_P(FakeServerTest, OtherZoneFormAndOtherPrefixAreNotMismatches) {
  const std::string body = struct_echo_body();
  const std::string plus_zero = replace_all(body, "Z</tns:varDateTime>", "+00:00</tns:varDateTime>");
  ASSERT_NE(plus_zero, body);
  const std::string other_prefix = replace_all(replace_all(body, "tns:", "ns7:"), "xmlns:tns=", "xmlns:ns7=");
  for (const std::string& variant : {plus_zero, other_prefix}) {
    FakeServer server(http_response("200 OK", variant));
    const CallResult r = client(server.url(), Operation::echo_struct)->call();
    EXPECT_TRUE(r.ok) << to_string(r.kind) << ": " << r.detail;
  }
}

TEST_P(FakeServerTest, SilentServerIsTimeout) {
  FakeServer server("", Behaviour::never_answer);
  const CallResult r = client(server.url(), Operation::echo_string, 0.3)->call();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "timeout") << r.detail;
  EXPECT_EQ(server.requests(), 1);
}

TEST_P(FakeServerTest, CloseInTheMiddleOfTheResponseIsRead) {
  FakeServer server(http_response("200 OK", struct_echo_body()), Behaviour::close_mid_response);
  const CallResult r = client(server.url(), Operation::echo_struct)->call();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "read") << r.detail;
}

TEST_P(FakeServerTest, RefusedConnectionIsConnect) {
  test::ClosedPort port;
  const CallResult r = client(port.url(), Operation::echo_string, 1)->call();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "connect") << r.detail;
}

TEST_P(FakeServerTest, KeepAliveUsesOneConnectionAndNewConnectionOnePerCall) {
  FakeServer keep(http_response("200 OK", string_echo_body()));
  auto kept = client(keep.url(), Operation::echo_string);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(kept->call().ok);
  EXPECT_EQ(keep.accepted(), 1);
  EXPECT_EQ(kept->connections_opened(), 1u);

  FakeServer fresh(http_response("200 OK", string_echo_body()));
  auto each = client(fresh.url(), Operation::echo_string, 5, true);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(each->call().ok);
  EXPECT_EQ(fresh.requests(), 3);
  EXPECT_EQ(fresh.accepted(), 3);
  EXPECT_EQ(each->connections_opened(), 3u);
}

TEST_P(FakeServerTest, FailureClosesTheConnection) {
  FakeServer server(http_response("200 OK", xml::render_echo_string("wrong", xml::Message::response)));
  auto c = client(server.url(), Operation::echo_string);
  EXPECT_EQ(to_string(c->call().kind), "mismatch");
  EXPECT_EQ(to_string(c->call().kind), "mismatch");
  EXPECT_EQ(server.accepted(), 2);
}

TEST_P(FakeServerTest, ServerThatClosesAfterEachResponseIsFollowed) {
  // HTTP/1.0 without Content-Length: the body ends where the connection does.
  FakeServer old("HTTP/1.0 200 OK\r\nContent-Type: text/xml\r\n\r\n" + string_echo_body(),
                 Behaviour::respond_and_close);
  auto c = client(old.url(), Operation::echo_string);
  for (int i = 0; i < 2; ++i) {
    const CallResult r = c->call();
    EXPECT_TRUE(r.ok) << to_string(r.kind) << ": " << r.detail;
  }
  EXPECT_EQ(old.accepted(), 2);
  EXPECT_EQ(c->connections_opened(), 2u);
  // gSOAP does not tell the response's version; the other two do.
  if (GetParam() != std::string("gsoap")) {
    EXPECT_EQ(c->http_version(), "HTTP/1.0");
  }

  FakeServer closing(http_response("200 OK", string_echo_body(), "Connection: close\r\n"),
                     Behaviour::respond_and_close);
  auto d = client(closing.url(), Operation::echo_string);
  for (int i = 0; i < 2; ++i) {
    const CallResult r = d->call();
    EXPECT_TRUE(r.ok) << to_string(r.kind) << ": " << r.detail;
  }
  EXPECT_EQ(closing.accepted(), 2);
  EXPECT_EQ(d->connections_opened(), 2u);
  if (GetParam() != std::string("gsoap")) {
    EXPECT_EQ(d->http_version(), "HTTP/1.1");
  }
}

TEST_P(FakeServerTest, ChunkedResponseIsDecoded) {
  // Chunks of odd sizes, one with an extension, and a trailer after the last.
  const std::string body = struct_echo_body();
  std::string chunked = "HTTP/1.1 200 OK\r\nServer: fake/1.0\r\nContent-Type: text/xml\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n";
  const size_t cuts[] = {0, 1, 700, 701, body.size()};
  for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
    const size_t length = cuts[i + 1] - cuts[i];
    char size_line[32];
    std::snprintf(size_line, sizeof size_line, i == 1 ? "%zx;ext=1\r\n" : "%zX\r\n", length);
    chunked.append(size_line).append(body, cuts[i], length).append("\r\n");
  }
  chunked += "0\r\nX-Trailer: yes\r\n\r\n";
  FakeServer server(chunked);
  auto c = client(server.url(), Operation::echo_struct);
  for (int i = 0; i < 2; ++i) {
    const CallResult r = c->call();
    EXPECT_TRUE(r.ok) << to_string(r.kind) << ": " << r.detail;
  }
  EXPECT_EQ(server.accepted(), 1) << "a chunked response keeps the connection";
}

INSTANTIATE_TEST_SUITE_P(Kinds, FakeServerTest, ::testing::Values("raw", "gsoap", "curl"),
                         [](const auto& param_info) { return param_info.param; });

TEST(MakeClient, RejectsUnknownKindsAndBadUrls) {
  ClientOptions o;
  o.url = "http://127.0.0.1:1/echo";
  EXPECT_THROW(make_client("axis", o), std::invalid_argument);
  for (const char* bad : {"", "ftp://127.0.0.1/echo", "https://", "https://:443/echo", "http://", "http://:80/echo",
                          "http://127.0.0.1:99999/echo", "http://127.0.0.1:x/echo", "http://host /echo"}) {
    o.url = bad;
    EXPECT_THROW(make_client("curl", o), std::invalid_argument) << bad;
    EXPECT_THROW(make_client("gsoap", o), std::invalid_argument) << bad;
    EXPECT_THROW(make_client("raw", o), std::invalid_argument) << bad;
  }
  o.url = "http://localhost:8080";
  EXPECT_EQ(make_client("gsoap", o)->kind(), "gsoap");
  EXPECT_EQ(make_client("curl", o)->kind(), "curl");
  EXPECT_EQ(make_client("raw", o)->kind(), "raw");
  o.url = "https://localhost/echo";  // TLS (client/tls.h): the handshake comes with the first call
  EXPECT_EQ(make_client("curl", o)->kind(), "curl");
  EXPECT_EQ(make_client("raw", o)->kind(), "raw");
}

TEST(MakeClient, UnresolvableHostIsAConnectFailureOfTheCall) {
  ClientOptions o;
  o.url = "http://no-such-host.invalid/echo";  // .invalid never resolves (RFC 6761)
  const CallResult r = make_client("raw", o)->call();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(to_string(r.kind), "connect") << r.detail;
}

TEST(Operations, NamesRoundTrip) {
  for (Operation op : {Operation::echo_string, Operation::echo_struct}) EXPECT_EQ(parse_operation(to_string(op)), op);
  EXPECT_EQ(parse_operation("echostring"), std::nullopt);
  EXPECT_EQ(to_string(FailureKind::http_status), "http_status");
}

}  // namespace
}  // namespace soapbench
