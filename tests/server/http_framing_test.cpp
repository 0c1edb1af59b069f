// RequestFramer alone: the same verdict whether a request arrives whole or a
// byte at a time (the event loops feed it whatever each read brought), and the
// exact refusal for each framing RFC 9112 forbids.
#include <gtest/gtest.h>

#include <string>

#include "http_framing.h"

namespace soapbench::server {
namespace {

struct Verdict {
  RequestFramer::State state;
  std::string body;  // when done
  size_t consumed = 0;
  int status = 0;    // when error
  std::string message;
};

// Feeds `input` in slices of `step` bytes, as successive reads would, until a verdict.
Verdict frame(const std::string& input, size_t step, uint64_t max_body = 1 << 20) {
  RequestFramer f(max_body);
  std::string buffer;
  RequestFramer::State s = RequestFramer::State::need_more;
  for (size_t at = 0; at < input.size() && s == RequestFramer::State::need_more; at += step) {
    buffer.append(input, at, step);
    s = f.feed(buffer);
  }
  Verdict v{s, {}, 0, 0, {}};
  if (s == RequestFramer::State::done) {
    v.body = std::string(f.body(buffer));
    v.consumed = f.consumed();
  } else if (s == RequestFramer::State::error) {
    v.status = f.error().status;
    v.message = f.error().message;
  }
  return v;
}

const std::string kHead = "POST /echo HTTP/1.1\r\nHost: h\r\n";

TEST(HttpFraming, ContentLengthBodyWholeOrByteByByte) {
  const std::string request = kHead + "Content-Length: 5\r\n\r\nhello" + "POST /next";
  for (size_t step : {request.size(), size_t{1}, size_t{3}}) {
    const Verdict v = frame(request, step);
    ASSERT_EQ(v.state, RequestFramer::State::done) << "step " << step;
    EXPECT_EQ(v.body, "hello");
    EXPECT_EQ(v.consumed, request.size() - 10) << "the pipelined rest is not part of it";
  }
}

TEST(HttpFraming, ChunkedWithExtensionsAndTrailersWholeOrByteByByte) {
  const std::string request = kHead + "Transfer-Encoding: chunked\r\n\r\n" +
                              "5;a=b\r\nhello\r\n1 ; x\r\n!\r\n0;last\r\nX-Sum: 6\r\n\r\n";
  for (size_t step : {request.size(), size_t{1}, size_t{2}, size_t{7}}) {
    const Verdict v = frame(request, step);
    ASSERT_EQ(v.state, RequestFramer::State::done) << "step " << step << ": " << v.message;
    EXPECT_EQ(v.body, "hello!");
    EXPECT_EQ(v.consumed, request.size());
  }
}

TEST(HttpFraming, RefusalsNameTheirReason) {
  struct Case {
    std::string request;
    int status;
    std::string message;
  };
  const Case cases[] = {
      {kHead + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400, "Bad request: two different Content-Length values"},
      {kHead + "Content-Length: 5, 5\r\n\r\nhello", 400, "Bad request: Content-Length is not a number of digits"},
      {kHead + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
       "Bad request: both Content-Length and Transfer-Encoding (RFC 9112, 6.3)"},
      {kHead + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501, "Not implemented: Transfer-Encoding other than one 'chunked'"},
      {kHead + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello!!\r\n0\r\n\r\n", 400, "Bad request: chunk data longer than its chunk size"},
      {kHead + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "Bad request: a malformed chunk-size line"},
      {kHead + "Transfer-Encoding: chunked\r\n\r\n801\r\n", 413,
       "Request entity too large: the chunked body exceeds the server's --max-request-size"},
      {kHead + "Content-Length: 2049\r\n\r\n", 413, "Request entity too large: the body exceeds the server's --max-request-size"},
      {kHead + "\r\n", 411, "Length required: a POST needs Content-Length or chunked Transfer-Encoding"},
      {"POST /echo HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400, "Bad request: no Host header (RFC 9112, 3.2)"},
      {kHead + " folded\r\nContent-Length: 0\r\n\r\n", 400, "Bad request: a folded header line (obs-fold, RFC 9112 5.2)"},
      {"PUT /echo HTTP/1.1\r\nHost: h\r\n\r\n", 501, "Not implemented: the method 'PUT' (only GET and POST)"},
      {"POST /echo HTTP/2.0\r\nHost: h\r\n\r\n", 505, "HTTP version not supported: only HTTP/1.0 and HTTP/1.1 are served"},
      {"POST echo HTTP/1.1\r\nHost: h\r\n\r\n", 400, "Bad request: the request target is neither a path nor an absolute http URI"},
      {kHead + "Expect: magic\r\nContent-Length: 0\r\n\r\n", 417, "Expectation failed: only 100-continue is understood"},
      {kHead + "Content-Encoding: br\r\nContent-Length: 0\r\n\r\n", 415, "Unsupported media type: Content-Encoding 'br' (only gzip)"},
      {"POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
       "Bad request: Transfer-Encoding in an HTTP/1.0 request (RFC 9112, 6.1)"},
  };
  for (const Case& c : cases) {
    for (size_t step : {c.request.size(), size_t{1}}) {
      const Verdict v = frame(c.request, step, 2048);
      ASSERT_EQ(v.state, RequestFramer::State::error) << c.request << " (step " << step << ")";
      EXPECT_EQ(v.status, c.status) << c.request;
      EXPECT_EQ(v.message, c.message) << c.request;
    }
  }
}

TEST(HttpFraming, AbsoluteFormTargetBecomesAPath) {
  RequestFramer f(1024);
  const std::string request = "GET http://example.com:8080/echo?wsdl HTTP/1.1\r\nHost: example.com\r\n\r\n";
  ASSERT_EQ(f.feed(request), RequestFramer::State::done);
  EXPECT_EQ(f.head().path, "/echo?wsdl");
  EXPECT_EQ(f.head().passed_fields, "Host: example.com\r\n");
}

}  // namespace
}  // namespace soapbench::server
