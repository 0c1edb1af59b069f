// Bad input, in every server mode. Each case states the one answer it expects
// and checks that /stats "faults" counted it; after every case (TearDown) the
// server must be alive and serve a valid request on a new connection.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <memory>
#include <thread>

#include "test_support.h"

namespace soapbench::test {
namespace {

// Every server here runs with --recv-timeout 1: a request that stops arriving is
// given up after 1 s, so any wait for that is bounded by this much.
constexpr milliseconds kRecvTimeoutWait{3000};

// True when the server has neither answered nor closed the connection yet.
bool nothing_arrived(const RawConnection& c) {
  pollfd p{c.fd(), POLLIN, 0};
  return poll(&p, 1, 0) == 0;
}

class BadInput : public ::testing::TestWithParam<ServerMode> {
 protected:
  std::unique_ptr<ServerProcess> server;
  uint64_t faults_before = 0;

  void start(std::vector<std::string> extra = {}, const std::string& recv_timeout = "1") {
    extra.insert(extra.begin(), {"--recv-timeout", recv_timeout});
    server = std::make_unique<ServerProcess>(flags_for(GetParam(), extra));
    faults_before = fetch_stats(port())["faults"].get<uint64_t>();
  }
  uint16_t port() const { return server->port(); }

  void TearDown() override {
    if (!server) return;
    ASSERT_TRUE(server->running()) << "the server died";
    EXPECT_EQ(check_echo_on_new_connection(port()), "") << "a valid request after the bad one was not served";
  }

  // Waits (bounded) for the server to count the fault: some are counted only
  // when the server gives up on a connection.
  void expect_faults_counted(uint64_t n) {
    const auto stats = wait_for_stats(
        port(), [&](const nlohmann::json& s) { return s["faults"].get<uint64_t>() >= faults_before + n; },
        kRecvTimeoutWait);
    EXPECT_EQ(stats["faults"].get<uint64_t>() - faults_before, n) << "/stats faults did not count the bad input";
  }

  // Five echoes of the default string on `client`, each answered in full.
  static void expect_five_echoes(EchoClient& client) {
    const std::string text = make_string(PayloadSize{}.string_length);
    for (int i = 0; i < 5; ++i) {
      std::string echoed;
      ASSERT_EQ(client.echo_string(text, echoed), "") << "request " << i;
      EXPECT_TRUE(echoed == text) << "request " << i;
    }
  }

  // While `silent` has sent part of a request and stopped: five echoes on another
  // connection are served before the server answers or drops `silent`, which it
  // does after the receive timeout, counting one fault.
  void expect_others_served_then_dropped(RawConnection& silent) {
    EchoClient other(server->endpoint());
    expect_five_echoes(other);
    EXPECT_TRUE(nothing_arrived(silent)) << "served only after the server answered or dropped the silent connection";
    std::string answer;
    EXPECT_TRUE(silent.wait_closed(kRecvTimeoutWait, &answer)) << "still open after the receive timeout";
    expect_faults_counted(1);
  }

  static void expect_soap_fault(const ReadResult& r, int status = 500) {
    ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
    EXPECT_EQ(r.response.status, status) << r.describe();
    EXPECT_TRUE(r.response.header("Content-Type").starts_with("text/xml")) << r.describe();
    // Bad input is the sender's fault: SOAP 1.1's Client code, nothing else.
    EXPECT_NE(r.response.body.find("<faultcode>SOAP-ENV:Client</faultcode>"), std::string::npos) << r.describe();
  }
};

std::string valid_request() { return http_post(soap_envelope(echo_string_body("hello"))); }

// Answer: 500 with a SOAP Fault whose code is Client, for a body that is no XML at all.
TEST_P(BadInput, BodyThatIsNotXml) {
  start();
  expect_soap_fault(exchange_once(port(), http_post("garbage here")));
  expect_faults_counted(1);
  expect_soap_fault(exchange_once(port(), http_post("<a>")));
  expect_faults_counted(2);
}

// Answer: 500 with a SOAP Fault (the sender's XML is not well-formed).
TEST_P(BadInput, MalformedXml) {
  start();
  expect_soap_fault(exchange_once(port(), http_post(soap_envelope(
                                              "<echo:echoString><echo:text>hi</echo:txet></echo:echoString>"))));
  expect_faults_counted(1);
}

// Answer: 500 with a SOAP Fault naming the operation.
TEST_P(BadInput, UnknownOperation) {
  start();
  const auto r = exchange_once(
      port(), http_post(soap_envelope("<echo:echoNothing><echo:text>hi</echo:text></echo:echoNothing>")));
  expect_soap_fault(r);
  EXPECT_NE(r.response.body.find("echoNothing"), std::string::npos) << r.describe();
  expect_faults_counted(1);
}

// Answer: 500 with a SOAP Fault: echoString in another namespace is another operation.
TEST_P(BadInput, WrongNamespace) {
  start();
  std::string envelope = soap_envelope(echo_string_body("hi"));
  const std::string ns = "urn:soapbench:echo:1";
  envelope.replace(envelope.find(ns), ns.size(), "urn:soapbench:echo:2");
  expect_soap_fault(exchange_once(port(), http_post(envelope)));
  expect_faults_counted(1);
}

// Answer: 404 for a path other than /echo, for POST and for GET.
TEST_P(BadInput, OtherPathIs404) {
  start();
  const auto post = exchange_once(port(), http_post(soap_envelope(echo_string_body("hi")), "/other"));
  ASSERT_EQ(post.outcome, ReadResult::Outcome::response) << post.describe();
  EXPECT_EQ(post.response.status, 404) << post.describe();
  const auto get = exchange_once(port(), http_get("/nothing", false));
  ASSERT_EQ(get.outcome, ReadResult::Outcome::response) << get.describe();
  EXPECT_EQ(get.response.status, 404) << get.describe();
  expect_faults_counted(2);
}

// The client declares the whole body, sends half of it and half-closes: the
// server sees the end of input inside the request. Answer: 400 with a SOAP
// Fault (the client can still read it), then the connection is closed.
TEST_P(BadInput, TruncatedBody) {
  start();
  const std::string request = valid_request();
  RawConnection c(port());
  ASSERT_TRUE(c.send(std::string_view(request).substr(0, request.size() - 40)));
  c.shutdown_write();
  const auto r = c.read_response(kRecvTimeoutWait);
  expect_soap_fault(r, 400);
  EXPECT_NE(r.response.body.find("<faultstring>Truncated request: the input ended inside the request</faultstring>"),
            std::string::npos) << r.describe();
  EXPECT_TRUE(c.wait_closed(kRecvTimeoutWait));
  expect_faults_counted(1);
}

// Answer: 413, sent after the headers alone: the body is never sent.
TEST_P(BadInput, DeclaredBodyOverTheLimitGets413) {
  start({"--max-request-size", "64k"});
  RawConnection c(port());
  ASSERT_TRUE(c.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n"
                     "Content-Length: 10000000\r\nSOAPAction: \"\"\r\n\r\n"));
  const auto r = c.read_response(kRecvTimeoutWait);
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 413) << r.describe();
  EXPECT_TRUE(c.wait_closed(kRecvTimeoutWait)) << "the unread body would put the stream out of step";
  expect_faults_counted(1);
}

// 100,000 nested elements inside the operation. Answer: 500 with a SOAP Fault
// (and no stack overflow).
TEST_P(BadInput, HundredThousandNestedElements) {
  start();
  std::string nested;
  nested.reserve(700000);
  for (int i = 0; i < 100000; ++i) nested += "<a>";
  for (int i = 0; i < 100000; ++i) nested += "</a>";
  expect_soap_fault(exchange_once(port(), http_post(soap_envelope("<echo:echoString>" + nested +
                                                                  "<echo:text>hi</echo:text></echo:echoString>"))));
  expect_faults_counted(1);
}

// A DTD with nested entities (billion laughs). SOAP 1.1 section 3: a message
// MUST NOT contain a Document Type Declaration. Answer: 500 with a SOAP Fault,
// and nothing expanded.
TEST_P(BadInput, BillionLaughsDtd) {
  start();
  std::string dtd = "<!DOCTYPE lolz [<!ENTITY lol \"lol\">";
  for (int level = 1; level <= 9; ++level) {
    const std::string previous = level == 1 ? "lol" : "lol" + std::to_string(level - 1);
    dtd += "<!ENTITY lol" + std::to_string(level) + " \"";
    for (int i = 0; i < 10; ++i) dtd += "&" + previous + ";";
    dtd += "\">";
  }
  dtd += "]>";
  std::string envelope = soap_envelope("<echo:echoString><echo:text>&lol9;</echo:text></echo:echoString>");
  envelope.insert(envelope.find("?>") + 2, dtd);
  const auto r = exchange_once(port(), http_post(envelope));
  EXPECT_EQ(r.received.find("lollollol"), std::string::npos) << "an entity was expanded";
  expect_soap_fault(r);
  expect_faults_counted(1);
}

// The start of a TLS ClientHello: not HTTP at all. Answer: an HTTP error
// status (4xx or 5xx), at the latest when the receive timeout passes, then close.
TEST_P(BadInput, NonHttpBytes) {
  start();
  const unsigned char hello[] = {0x16, 0x03, 0x01, 0x00, 0xc8, 0x01, 0x00, 0x00, 0xc4, 0x03, 0x03,
                                 0x5a, 0x1f, 0x00, 0xff, 0x13, 0x01, 0x13, 0x02, 0xc0, 0x2b, 0x00};
  RawConnection c(port());
  ASSERT_TRUE(c.send(std::string_view(reinterpret_cast<const char*>(hello), sizeof hello)));
  const auto r = c.read_response(kRecvTimeoutWait);
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_GE(r.response.status, 400) << r.describe();
  EXPECT_LT(r.response.status, 600) << r.describe();
  EXPECT_TRUE(c.wait_closed(kRecvTimeoutWait));
  expect_faults_counted(1);
}

// Half a request, then silence (--recv-timeout 1). While that client is silent,
// valid requests on another connection are served; when the receive timeout
// passes, the silent connection is closed (the only sensible answer to a client
// that may not be reading) and counted as a fault.
TEST_P(BadInput, SilentClientDoesNotBlockOthers) {
  start();
  const std::string request = valid_request();
  RawConnection silent(port());
  ASSERT_TRUE(silent.send(std::string_view(request).substr(0, request.size() / 2)));
  expect_others_served_then_dropped(silent);
}

// The same with a request too large to fit in one read: 200 KB of a 300 KB
// echoString, then silence. The event-loop modes hold a request until all of it
// has arrived, however large; reading it in the parser instead would stop the
// loop, and every connection it serves, for the receive timeout.
TEST_P(BadInput, SilentLargeRequestDoesNotBlockOthers) {
  start();
  const std::string request = http_post(soap_envelope(echo_string_body(std::string(300000, 'x'))));
  RawConnection silent(port());
  ASSERT_TRUE(silent.send(std::string_view(request).substr(0, 200000)));
  std::this_thread::sleep_for(milliseconds(200));  // the server has read all of it by now
  expect_others_served_then_dropped(silent);
}

// A client that sends requests and stops reading the responses: 40 pipelined
// echoes of 400 KB, far more than the socket buffers hold. While the server
// cannot send to it, valid requests on another connection are served, and it
// is still open then; it is dropped after the send timeout (here 2 s).
TEST_P(BadInput, ClientThatStopsReadingDoesNotBlockOthers) {
  start({"--send-timeout", "2"});
  const std::string request = http_post(soap_envelope(echo_string_body(std::string(400000, 'x'))));
  RawConnection reader_that_stops(port());
  std::jthread sender([&] {  // blocks once the server stops taking requests; ends when it drops us
    for (int i = 0; i < 40 && reader_that_stops.send(request); ++i) {}
  });
  std::this_thread::sleep_for(milliseconds(500));  // the server's output to it is backed up by now
  EchoClient other(server->endpoint());
  expect_five_echoes(other);
  // Open: the one that stopped reading, `other`, and the connection asking.
  EXPECT_EQ(fetch_stats(port())["connections"]["open"].get<int64_t>(), 3)
      << "served only after the server dropped the client that stopped reading";
  const auto stats = wait_for_stats(
      port(), [](const nlohmann::json& s) { return s["connections"]["open"].get<int64_t>() == 2; },
      milliseconds(6000));
  EXPECT_EQ(stats["connections"]["open"].get<int64_t>(), 2) << "still open long after the send timeout";
  shutdown(reader_that_stops.fd(), SHUT_RDWR);  // in case the sender still waits
  sender.join();
}

// Not bad input: a body that ends with CRLF after the envelope, as gSOAP's own
// clients send it, and a blank line on its own. Neither is a next request: the
// connection idles past the receive timeout without a fault, and serves the next one.
TEST_P(BadInput, CrlfAfterTheEnvelopeIsNoRequest) {
  start();
  const std::string request = http_post(soap_envelope(echo_string_body("hello")) + "\r\n");
  RawConnection c(port());
  ASSERT_TRUE(c.send(request));
  ReadResult r = c.read_response(milliseconds(5000));
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(echoed_text(r.response.body), "hello");
  std::this_thread::sleep_for(milliseconds(1500));  // past --recv-timeout 1
  EXPECT_TRUE(nothing_arrived(c)) << "the server answered or closed an idle connection";
  ASSERT_TRUE(c.send("\r\n"));  // a blank line alone, in a read of its own
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_TRUE(nothing_arrived(c)) << "the server took a blank line for a request";
  ASSERT_TRUE(c.send(request));
  r = c.read_response(milliseconds(5000));
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 200) << r.describe();
  expect_faults_counted(0);
}

// A silent half request must cost no CPU while the server waits for the rest:
// a busy loop here would distort every measurement taken with slow clients.
TEST_P(BadInput, SilentClientCostsNoCpu) {
  start({}, "3");  // longer than the time measured: the server is still waiting throughout
  auto cpu = [&] {
    const auto s = fetch_stats(port());
    return s["cpu"]["user_s"].get<double>() + s["cpu"]["system_s"].get<double>();
  };
  const std::string request = valid_request();
  RawConnection silent(port());
  const double before = cpu();
  ASSERT_TRUE(silent.send(std::string_view(request).substr(0, request.size() / 2)));
  std::this_thread::sleep_for(milliseconds(1000));
  const double used = cpu() - before;
  EXPECT_LT(used, 0.2) << "CPU seconds the server used during 1 s of one silent half request";
}

// Half a request, then the client closes. Answer: none can be read; the server
// closes its side, stays up and counts the fault.
TEST_P(BadInput, DisconnectMidRequest) {
  start();
  const std::string request = valid_request();
  {
    RawConnection c(port());
    ASSERT_TRUE(c.send(std::string_view(request).substr(0, request.size() / 2)));
  }
  const auto stats = wait_for_stats(
      port(), [](const nlohmann::json& s) { return s["connections"]["open"].get<int64_t>() == 1; },
      kRecvTimeoutWait);
  EXPECT_EQ(stats["connections"]["open"].get<int64_t>(), 1) << "the server kept the dead connection";
  expect_faults_counted(1);
}

// 300 idle connections held open (no byte sent) while valid requests keep being
// served. Answer: nothing for the idle ones, and no fault: idle is not bad input.
TEST_P(BadInput, ThreeHundredIdleConnections) {
  start();
  std::vector<RawConnection> idle;
  idle.reserve(300);
  for (int i = 0; i < 300; ++i) idle.emplace_back(port());
  EchoClient keep_alive(server->endpoint());
  const std::string text = make_string(PayloadSize{}.string_length);
  for (int i = 0; i < 20; ++i) {
    std::string echoed;
    ASSERT_EQ(keep_alive.echo_string(text, echoed), "") << "request " << i;
    EXPECT_TRUE(echoed == text) << "request " << i;
    ASSERT_EQ(check_echo_on_new_connection(port()), "") << "new connection " << i;
  }
  const auto during = fetch_stats(port());
  EXPECT_GE(during["connections"]["open"].get<int64_t>(), 302) << "300 idle + the echo client + this one";
  for (auto& c : idle) EXPECT_FALSE(c.closed_by_peer());
  idle.clear();
  const auto after = wait_for_stats(
      port(), [](const nlohmann::json& s) { return s["connections"]["open"].get<int64_t>() <= 2; },
      kRecvTimeoutWait);
  EXPECT_EQ(after["connections"]["open"].get<int64_t>(), 2) << "closed idle connections were not released";
  EXPECT_EQ(after["faults"].get<uint64_t>(), faults_before);
}

INSTANTIATE_TEST_SUITE_P(AllModes, BadInput, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
