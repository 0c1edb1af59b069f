// Fuzzes soapbench-server's request path with the bytes a client could send on
// one connection: Connection::read (framing), EchoService::serve_buffered (the
// XML guard, gSOAP's parse, the echo) and the response writes, over a socketpair
// so that the code under test is the server's own, unchanged.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

#include "connection.h"
#include "echo_service.h"

using namespace soapbench::server;

namespace {

Config fuzz_config() {
  Config c;
  c.max_request_bytes = 1 << 20;
  return c;
}

void drain(int fd) {
  char buf[65536];
  while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Config config = fuzz_config();
  static Stats stats;
  static EchoService service(config, stats);  // one context for every input, as a loop keeps one
  if (size > 200000) return 0;                 // what a socketpair buffers without a reader
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return 0;
  const int big = 1 << 20;
  setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  size_t sent = 0;
  while (sent < size) {
    const ssize_t n = send(sv[1], data + sent, size - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  shutdown(sv[1], SHUT_WR);
  {
    Connection c(sv[0], config.max_request_bytes, config.max_buffered_bytes, stats);
    for (int requests = 0; requests < 1000; ++requests) {
      const Arrival a = c.read();
      if (a == Arrival::closed || a == Arrival::blank) break;
      if (a == Arrival::partial) continue;  // cannot last: the input has ended
      const bool open = service.serve_buffered(c);
      drain(sv[1]);
      c.flush();
      if (!open || c.failed()) break;
    }
  }  // closes sv[0]
  drain(sv[1]);
  close(sv[1]);
  return 0;
}
