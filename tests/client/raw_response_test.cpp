// The raw client's HTTP framing without sockets: which body framing and
// connection reuse a head implies, and chunked decoding fed in any slices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "raw_response.h"

namespace soapbench::raw {
namespace {

ResponseHead parsed(std::string_view head) {
  ResponseHead h;
  const char* problem = parse_head(head, h);
  EXPECT_EQ(problem, nullptr) << problem << " in " << head;
  return h;
}

TEST(ParseHead, LengthKeepAliveAndServer) {
  const ResponseHead h = parsed("HTTP/1.1 200 OK\r\nServer:  gSOAP/2.8 \r\ncontent-LENGTH: 1772\r\n\r\n");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.framing, Framing::length);
  EXPECT_EQ(h.content_length, 1772u);
  EXPECT_TRUE(h.keep_alive);
  EXPECT_EQ(h.server, "gSOAP/2.8");
}

TEST(ParseHead, ConnectionHeaderAndVersionDecideReuse) {
  EXPECT_FALSE(parsed("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, close\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_FALSE(parsed("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_TRUE(parsed("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").keep_alive);
  const ResponseHead until_close = parsed("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n");
  EXPECT_EQ(until_close.framing, Framing::until_close);
  EXPECT_FALSE(until_close.keep_alive) << "a body that ends with the connection ends it";
}

TEST(ParseHead, TransferEncodingWinsOverLength) {
  EXPECT_EQ(parsed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: gzip, chunked\r\n\r\n").framing,
            Framing::chunked);
  EXPECT_EQ(parsed("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n").framing, Framing::until_close);
  EXPECT_EQ(parsed("HTTP/1.1 204 No Content\r\n\r\n").framing, Framing::none);
  EXPECT_EQ(parsed("HTTP/1.1 100 Continue\r\n\r\n").framing, Framing::none);
}

TEST(ParseHead, MalformedHeadsAreNamed) {
  ResponseHead h;
  for (const char* bad : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "ICY 200 OK\r\n\r\n",
                          "HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
                          "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                          "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"})
    EXPECT_NE(parse_head(bad, h), nullptr) << bad;
}

TEST(ChunkedDecoder, DecodesWhateverTheSlices) {
  const std::string wire = "5;name=value\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  const size_t end = wire.size() - 4;  // "NEXT" belongs to whatever follows the body
  for (size_t slice = 1; slice <= wire.size(); ++slice) {
    ChunkedDecoder d;
    std::string body;
    size_t used = 0;
    for (size_t at = 0; at < wire.size() && !d.done(); at += slice)
      used += d.feed(wire.data() + at, std::min(slice, wire.size() - at), body);
    EXPECT_TRUE(d.done()) << "slice " << slice;
    EXPECT_EQ(body, "hello 0123456789") << "slice " << slice;
    EXPECT_EQ(used, end) << "slice " << slice;
  }
}

TEST(ChunkedDecoder, RejectsBadFraming) {
  for (const char* bad : {"x\r\n", "\r\n", "5\r\nhelloX\r\n", "5\n", "FFFFFFFFFFFFFFFFF\r\n"}) {
    ChunkedDecoder d;
    std::string body;
    d.feed(bad, std::strlen(bad), body);
    EXPECT_TRUE(d.failed()) << bad;
  }
}

}  // namespace
}  // namespace soapbench::raw
