#pragma once
// HTTPS with OpenSSL: the one SSL_CTX of a server process (TlsContext), and the
// TLS state of one connection (TlsSession). A session never touches the socket:
// Connection feeds it the bytes recv() returned and sends the bytes it makes,
// through memory BIOs, so the handshake and the records run without blocking on
// whichever thread owns the connection (event loop, pool worker, connection thread).
#include <stdexcept>
#include <string>
#include <string_view>

#include "config.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct bio_st BIO;

namespace soapbench::server {

// A TLS flag that cannot be honoured: what() is "--flag FILE: OpenSSL's reason".
class TlsSetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server's SSL_CTX, made once at start from the --tls-* flags. Session
// resumption is on: OpenSSL's stateless tickets (their key made at random per
// process) and a server-side session cache for clients that offer a session id.
class TlsContext {
 public:
  explicit TlsContext(const Config& config);  // throws TlsSetupError
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  SSL_CTX* get() const { return ctx_; }

 private:
  SSL_CTX* ctx_ = nullptr;
};

// "OpenSSL 3.0.x 11 Oct 2023": the library the server runs with, for --version and the logs.
std::string openssl_version();

// The server side of one TLS connection, over memory BIOs.
class TlsSession {
 public:
  explicit TlsSession(const TlsContext& context);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // Bytes as they came from the socket (handshake or records).
  void received(std::string_view ciphertext);
  bool begun() const { return begun_; }  // any byte of the handshake arrived
  bool established() const { return established_; }

  enum class Handshake { more, done, failed };
  // Runs the handshake as far as the bytes received allow. After failed,
  // failure() says why (an alert for the client may wait in the output).
  Handshake handshake();
  bool resumed() const;
  const std::string& failure() const { return failure_; }

  // Decrypts into buf: > 0 bytes, 0 when no whole record is buffered, -1 when
  // the client ended the stream (close_notify) or broke the record layer.
  long read(char* buf, size_t n);
  // Encrypts plaintext into the output; false when the session cannot send.
  bool write(std::string_view plaintext);
  // The close_notify alert, into the output; never waits for the client's.
  void close_notify();

  // Bytes to send (handshake messages, records, alerts, tickets); output_taken() drops them.
  std::string_view output() const;
  void output_taken();

 private:
  SSL* ssl_ = nullptr;
  BIO* in_ = nullptr;   // what the client sent, for OpenSSL to read (owned by ssl_)
  BIO* out_ = nullptr;  // what OpenSSL wrote, for the socket (owned by ssl_)
  bool begun_ = false;
  bool established_ = false;
  std::string failure_;
};

}  // namespace soapbench::server
