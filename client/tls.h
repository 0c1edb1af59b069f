#pragma once
// TLS for the socket clients: the context every connection of one client is made
// from (ClientOptions::tls: trust, client certificate, versions, ciphers), and one
// TLS connection on a non-blocking socket whose every wait is wait_ready() — a
// thread's ppoll(), or the fiber loop when one runs several connections, so a
// handshake never blocks the other connections of its loop.
#include <openssl/ssl.h>

#include <cstdint>
#include <memory>
#include <string>

#include "client.h"
#include "deadline.h"

namespace soapbench {

// Why `tls` cannot make a context, naming the flag ("--cacert: cannot read ...");
// empty when it can. Reads the files, as a client would.
std::string tls_options_error(const TlsOptions& tls);

// The SSL_CTX of one client's connections, and the session the next connection resumes.
class TlsContext {
 public:
  // Throws std::invalid_argument with tls_options_error()'s text.
  explicit TlsContext(const TlsOptions& tls);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* ctx() const { return ctx_; }
  bool resume() const { return resume_; }
  // The newest session a server gave (TLS 1.3 sends it after the handshake), or null.
  SSL_SESSION* session() const { return session_; }
  void keep_session(SSL_SESSION* s);  // takes ownership

 private:
  SSL_CTX* ctx_ = nullptr;
  bool resume_ = true;
  SSL_SESSION* session_ = nullptr;
};

// What `ssl` negotiated, for TlsState.
void note_handshake(SSL* ssl, TlsState& state);

// One TLS connection over a connected non-blocking socket (not owned).
class TlsConnection {
 public:
  TlsConnection(TlsContext& context, int fd);
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  // The handshake, with `host` checked against the server's certificate (unless
  // --insecure) and sent as SNI when it is a name. Empty on success; else the
  // reason ("timeout: ..." when the deadline passed first).
  std::string handshake(const std::string& host, DeadlineClock::time_point deadline, bool& timed_out);
  // SSL_write of all of `data`: bytes written, or -1 (error_text() says why; timed_out()).
  ssize_t write(const char* data, size_t size, DeadlineClock::time_point deadline);
  // SSL_read of what is there (waiting up to the deadline when nothing is):
  // bytes read, 0 at the end of the stream, -1 on error or timeout.
  ssize_t read(char* data, size_t size, DeadlineClock::time_point deadline, bool wait_first);
  // Sends close_notify without waiting for the peer's (what a client does before it closes).
  void close_notify();
  // Whether reads may wait in recv() (a blocking socket under SO_RCVTIMEO, off an
  // event loop), or never block (the default: every wait is then wait_ready()).
  void block_reads(bool on);
  SSL* ssl() const { return ssl_; }
  const std::string& error_text() const { return error_; }
  bool timed_out() const { return timed_out_; }
  // The last failure was TLS's own (an alert, a bad record), not the socket's.
  bool protocol_error() const { return protocol_error_; }

 private:
  // Waits as SSL_get_error(ret) asks; false when the deadline passed or it was no wait.
  bool wait_for(int ret, DeadlineClock::time_point deadline);

  SSL* ssl_;
  int fd_;
  bool* reads_block_;  // the socket BIO's own flag
  std::string error_;
  bool timed_out_ = false;
  bool protocol_error_ = false;
};

// OpenSSL's reason for the last failure of `ssl` (the certificate check that
// failed, or the alert/error), for a `tls` failure's detail.
std::string tls_failure_text(SSL* ssl, int ret);

}  // namespace soapbench
