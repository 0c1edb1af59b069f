#include "tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io_wait.h"

namespace soapbench {
namespace {

// OpenSSL's queued errors as one line (emptying the queue), or `fallback`.
std::string openssl_errors(const std::string& fallback) {
  std::string text;
  while (const unsigned long e = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(e, line, sizeof line);
    // "error:0A000086:SSL routines::certificate verify failed": the reason is the last part.
    const char* reason = std::strrchr(line, ':');
    if (!text.empty()) text += "; ";
    text += reason && reason[1] ? reason + 1 : line;
  }
  return text.empty() ? fallback : text;
}

int min_version_of(const std::string& v) {
  if (v == "1.2") return TLS1_2_VERSION;
  if (v == "1.3") return TLS1_3_VERSION;
  return 0;
}

// A client's SSL_CTX from its options; "" in `why` when made, else the flag and reason.
SSL_CTX* make_ctx(const TlsOptions& tls, std::string& why) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx) {
    why = "TLS: " + openssl_errors("cannot make an OpenSSL context");
    return nullptr;
  }
  auto fail = [&](const std::string& flag, const std::string& what) {
    why = flag + ": " + what + ": " + openssl_errors("OpenSSL refused it");
    SSL_CTX_free(ctx);
    return nullptr;
  };
  const int min = min_version_of(tls.min_version);
  if (min == 0) {
    why = "--tls-min: '" + tls.min_version + "' is not 1.2 or 1.3";
    SSL_CTX_free(ctx);
    return nullptr;
  }
  SSL_CTX_set_min_proto_version(ctx, min);
  if (!tls.ciphers.empty() && SSL_CTX_set_cipher_list(ctx, tls.ciphers.c_str()) != 1)
    return fail("--ciphers", "no cipher of '" + tls.ciphers + "' is known");
  if (tls.insecure) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    if (!tls.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(ctx, tls.ca_file.c_str(), nullptr) != 1)
        return fail("--cacert", "cannot read CA certificates from '" + tls.ca_file + "'");
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
      return fail("--cacert", "the system's CA certificates cannot be read; name a file");
    }
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    why = tls.cert_file.empty() ? "--key: goes with --cert" : "--cert: goes with --key (the certificate's private key)";
    SSL_CTX_free(ctx);
    return nullptr;
  }
  if (!tls.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert_file.c_str()) != 1)
      return fail("--cert", "cannot read a certificate from '" + tls.cert_file + "'");
    if (SSL_CTX_use_PrivateKey_file(ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH)
        return fail("--key", "'" + tls.key_file + "' is not the key of --cert");
      return fail("--key", "cannot read a private key from '" + tls.key_file + "'");
    }
    if (SSL_CTX_check_private_key(ctx) != 1) return fail("--key", "'" + tls.key_file + "' is not the key of --cert");
  }
  // A client cache: OpenSSL hands each new session to the callback (TLS 1.3 sends
  // its tickets after the handshake, so SSL_get1_session() right after it may hold none).
  SSL_CTX_set_session_cache_mode(ctx, tls.resume ? SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE
                                                  : SSL_SESS_CACHE_OFF);
  if (!tls.resume) SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  // Partial writes and a moving buffer: a write the socket did not take resumes from where it stopped.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // One recv() takes what has arrived (a whole response's records) instead of
  // a record header, then its body: half the system calls per response.
  SSL_CTX_set_read_ahead(ctx, 1);
  return ctx;
}

int context_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

int on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* context = static_cast<TlsContext*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), context_index()));
  if (!context) return 0;
  context->keep_session(session);
  return 1;  // ours now
}

// The socket BIO of a client connection: OpenSSL's own uses read() and write(),
// which cannot say "never block" per call. Here writes never block (MSG_DONTWAIT,
// and MSG_NOSIGNAL: a closed peer is an error, not SIGPIPE), and reads block only
// when told to (block_reads), so that a client on its own thread waits in recv()
// under SO_RCVTIMEO, one system call per read, as it does in plain HTTP.
struct SocketBio {
  int fd = -1;
  bool reads_block = false;
};

int bio_write(BIO* b, const char* data, int size) {
  const auto* s = static_cast<SocketBio*>(BIO_get_data(b));
  BIO_clear_retry_flags(b);
  for (;;) {
    const ssize_t n = send(s->fd, data, static_cast<size_t>(size), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(b);
    return -1;
  }
}

int bio_read(BIO* b, char* data, int size) {
  const auto* s = static_cast<SocketBio*>(BIO_get_data(b));
  BIO_clear_retry_flags(b);
  for (;;) {
    const ssize_t n = recv(s->fd, data, static_cast<size_t>(size), s->reads_block ? 0 : MSG_DONTWAIT);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    // Nothing yet, or SO_RCVTIMEO ran out: the caller waits, and its deadline decides.
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(b);
    return -1;
  }
}

long bio_ctrl(BIO*, int cmd, long, void*) {
  return cmd == BIO_CTRL_FLUSH ? 1 : 0;  // writes are not buffered; nothing else is asked of a socket here
}

int bio_create(BIO* b) {
  BIO_set_init(b, 1);
  return 1;
}

int bio_destroy(BIO* b) {
  delete static_cast<SocketBio*>(BIO_get_data(b));
  BIO_set_data(b, nullptr);
  return 1;
}

const BIO_METHOD* socket_bio_method() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "soapbench socket");
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    BIO_meth_set_destroy(m, bio_destroy);
    return m;
  }();
  return method;
}

}  // namespace

std::string tls_options_error(const TlsOptions& tls) {
  std::string why;
  if (SSL_CTX* ctx = make_ctx(tls, why)) SSL_CTX_free(ctx);
  return why;
}

TlsContext::TlsContext(const TlsOptions& tls) : resume_(tls.resume) {
  std::string why;
  ctx_ = make_ctx(tls, why);
  if (!ctx_) throw std::invalid_argument(why);
  SSL_CTX_set_ex_data(ctx_, context_index(), this);
  if (resume_) SSL_CTX_sess_set_new_cb(ctx_, on_new_session);
}

TlsContext::~TlsContext() {
  if (session_) SSL_SESSION_free(session_);
  SSL_CTX_free(ctx_);
}

void TlsContext::keep_session(SSL_SESSION* s) {
  if (session_) SSL_SESSION_free(session_);
  session_ = s;
}

void note_handshake(SSL* ssl, TlsState& state) {
  ++state.handshakes;
  if (SSL_session_reused(ssl)) ++state.resumed;
  state.protocol = SSL_get_version(ssl);
  if (const SSL_CIPHER* c = SSL_get_current_cipher(ssl)) state.cipher = SSL_CIPHER_get_name(c);
}

std::string tls_failure_text(SSL* ssl, int ret) {
  const long verify = SSL_get_verify_result(ssl);
  const int error = SSL_get_error(ssl, ret);
  if (verify != X509_V_OK) {
    ERR_clear_error();
    return std::string("server certificate not verified: ") + X509_verify_cert_error_string(verify);
  }
  if (error == SSL_ERROR_SYSCALL || error == SSL_ERROR_ZERO_RETURN) {
    const int saved = errno;
    const std::string queued = openssl_errors("");
    if (!queued.empty()) return queued;
    return saved ? std::string("connection failed: ") + std::strerror(saved) : "the server closed the connection";
  }
  return openssl_errors("TLS error " + std::to_string(error));
}

TlsConnection::TlsConnection(TlsContext& context, int fd) : ssl_(SSL_new(context.ctx())), fd_(fd) {
  BIO* bio = BIO_new(socket_bio_method());
  auto* state = new SocketBio{fd, false};
  BIO_set_data(bio, state);
  reads_block_ = &state->reads_block;
  SSL_set_bio(ssl_, bio, bio);  // the SSL owns it, once for both directions
  if (context.resume() && context.session()) SSL_set_session(ssl_, context.session());
}

TlsConnection::~TlsConnection() { SSL_free(ssl_); }

bool TlsConnection::wait_for(int ret, DeadlineClock::time_point deadline) {
  const int e = SSL_get_error(ssl_, ret);
  if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return false;
  if (wait_ready(fd_, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) return true;
  timed_out_ = true;
  return false;
}

std::string TlsConnection::handshake(const std::string& host, DeadlineClock::time_point deadline, bool& timed_out) {
  ERR_clear_error();
  in6_addr ip{};
  const bool literal = inet_pton(AF_INET, host.c_str(), &ip) == 1 || inet_pton(AF_INET6, host.c_str(), &ip) == 1;
  if (SSL_get_verify_mode(ssl_) & SSL_VERIFY_PEER) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if (literal) X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str());
    else SSL_set1_host(ssl_, host.c_str());
  }
  if (!literal) SSL_set_tlsext_host_name(ssl_, host.c_str());  // SNI names hosts, never addresses (RFC 6066)
  for (;;) {
    const int r = SSL_connect(ssl_);
    if (r == 1) return "";
    if (wait_for(r, deadline)) continue;
    timed_out = timed_out_;
    if (timed_out_) return "the TLS handshake did not complete in time";
    return tls_failure_text(ssl_, r);
  }
}

ssize_t TlsConnection::write(const char* data, size_t size, DeadlineClock::time_point deadline) {
  size_t done = 0;
  while (done < size) {
    ERR_clear_error();
    const int n = SSL_write(ssl_, data + done, static_cast<int>(std::min<size_t>(size - done, 1 << 30)));
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (wait_for(n, deadline)) continue;
    protocol_error_ = SSL_get_error(ssl_, n) == SSL_ERROR_SSL;
    error_ = timed_out_ ? "timed out" : tls_failure_text(ssl_, n);
    return -1;
  }
  return static_cast<ssize_t>(done);
}

ssize_t TlsConnection::read(char* data, size_t size, DeadlineClock::time_point deadline, bool wait_first) {
  // Right after a request the answer is a round trip away: waiting first saves
  // an SSL_read whose recv() finds nothing (as the plain client does on a loop).
  if (wait_first && !SSL_has_pending(ssl_) && !wait_ready(fd_, POLLIN, deadline)) {
    timed_out_ = true;
    error_ = "timed out";
    return -1;
  }
  for (;;) {
    ERR_clear_error();
    const int n = SSL_read(ssl_, data, static_cast<int>(std::min<size_t>(size, 1 << 30)));
    if (n > 0) return n;
    const int e = SSL_get_error(ssl_, n);
    if (e == SSL_ERROR_ZERO_RETURN) return 0;  // close_notify
    // The peer closed without close_notify: an end of stream to HTTP, which frames its own messages.
    if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 && (n == 0 || errno == 0)) return 0;
    if (e == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      ERR_clear_error();
      return 0;
    }
    if (wait_for(n, deadline)) continue;
    if (e == SSL_ERROR_SYSCALL && errno != 0) {
      error_ = std::string("connection failed: ") + std::strerror(errno);
      ERR_clear_error();
    } else {
      protocol_error_ = e == SSL_ERROR_SSL;
      error_ = timed_out_ ? "timed out" : tls_failure_text(ssl_, n);
    }
    return -1;
  }
}

void TlsConnection::block_reads(bool on) { *reads_block_ = on; }

void TlsConnection::close_notify() {
  if (SSL_is_init_finished(ssl_)) SSL_shutdown(ssl_);  // one try: never waits for the socket
  ERR_clear_error();
}

}  // namespace soapbench
