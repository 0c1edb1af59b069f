#include "tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstring>

namespace soapbench::server {
namespace {

// The reason of the first error on this thread's OpenSSL queue (the most specific:
// "No such file or directory", "key values mismatch"), and the queue emptied.
std::string openssl_reason(const char* fallback) {
  std::string reason;
  while (const unsigned long e = ERR_get_error()) {
    if (!reason.empty()) continue;
    const char* text = ERR_reason_error_string(e);
    if (ERR_SYSTEM_ERROR(e)) reason = std::strerror(ERR_GET_REASON(e));  // "No such file or directory"
    else if (text) reason = text;
    else {
      char buf[256];
      ERR_error_string_n(e, buf, sizeof buf);
      reason = buf;
    }
  }
  return reason.empty() ? fallback : reason;
}

[[noreturn]] void fail(const std::string& flag, const std::string& file) {
  throw TlsSetupError(flag + " " + file + ": " + openssl_reason("OpenSSL gave no reason"));
}

}  // namespace

std::string openssl_version() { return OpenSSL_version(OPENSSL_VERSION); }

TlsContext::TlsContext(const Config& config) {
  ERR_clear_error();
  ctx_ = SSL_CTX_new(TLS_server_method());
  if (!ctx_) throw TlsSetupError("--tls-cert: SSL_CTX_new: " + openssl_reason("out of memory"));
  try {
    SSL_CTX_set_min_proto_version(ctx_, config.tls_min == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION);
    // Renegotiation is what could make a write wait for a read: with it off, a
    // write after the handshake always completes into the output.
    SSL_CTX_set_options(ctx_, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    // The output BIO grows, so writes never come back half done; released buffers
    // keep an idle connection small.
    SSL_CTX_set_mode(ctx_, SSL_MODE_RELEASE_BUFFERS);
    if (!config.tls_ciphers.empty() && SSL_CTX_set_cipher_list(ctx_, config.tls_ciphers.c_str()) != 1)
      fail("--tls-ciphers", "'" + config.tls_ciphers + "'");
    if (SSL_CTX_use_certificate_chain_file(ctx_, config.tls_cert.c_str()) != 1) fail("--tls-cert", config.tls_cert);
    if (SSL_CTX_use_PrivateKey_file(ctx_, config.tls_key.c_str(), SSL_FILETYPE_PEM) != 1)
      fail("--tls-key", config.tls_key);
    if (SSL_CTX_check_private_key(ctx_) != 1) fail("--tls-key", config.tls_key + " (for " + config.tls_cert + ")");
    if (!config.tls_client_ca.empty()) {
      if (SSL_CTX_load_verify_locations(ctx_, config.tls_client_ca.c_str(), nullptr) != 1)
        fail("--tls-client-ca", config.tls_client_ca);
      // The CA names the server asks for, so a client with several certificates picks the right one.
      if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(config.tls_client_ca.c_str()))
        SSL_CTX_set_client_CA_list(ctx_, names);
      SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    }
    // Sessions are resumable only within this context id: without one, OpenSSL
    // refuses to resume a session whose client certificate was verified.
    static const unsigned char kSessionContext[] = "soapbench-server";
    SSL_CTX_set_session_id_context(ctx_, kSessionContext, sizeof kSessionContext - 1);
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_SERVER);
  } catch (...) {
    SSL_CTX_free(ctx_);
    throw;
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsSession::TlsSession(const TlsContext& context) : ssl_(SSL_new(context.get())) {
  in_ = BIO_new(BIO_s_mem());
  out_ = BIO_new(BIO_s_mem());
  // An empty input BIO means "more later" (WANT_READ), not end of stream.
  BIO_set_mem_eof_return(in_, -1);
  SSL_set_bio(ssl_, in_, out_);
  SSL_set_accept_state(ssl_);
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

void TlsSession::received(std::string_view ciphertext) {
  begun_ = true;
  BIO_write(in_, ciphertext.data(), static_cast<int>(ciphertext.size()));
}

TlsSession::Handshake TlsSession::handshake() {
  // The error queue is per thread and a connection moves between threads: start clean.
  ERR_clear_error();
  const int rc = SSL_do_handshake(ssl_);
  if (rc == 1) {
    established_ = true;
    return Handshake::done;
  }
  const int err = SSL_get_error(ssl_, rc);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return Handshake::more;
  failure_ = openssl_reason("the handshake failed");
  const long verify = SSL_get_verify_result(ssl_);
  if (verify != X509_V_OK) failure_ += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
  return Handshake::failed;
}

bool TlsSession::resumed() const { return SSL_session_reused(ssl_) == 1; }

long TlsSession::read(char* buf, size_t n) {
  ERR_clear_error();
  size_t got = 0;
  if (SSL_read_ex(ssl_, buf, n, &got) == 1) return static_cast<long>(got);
  const int err = SSL_get_error(ssl_, 0);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return 0;
  ERR_clear_error();
  return -1;
}

bool TlsSession::write(std::string_view plaintext) {
  if (plaintext.empty()) return true;
  ERR_clear_error();
  size_t written = 0;
  // Into a memory BIO, without renegotiation: all of it or an error, never WANT_*.
  const bool ok = SSL_write_ex(ssl_, plaintext.data(), plaintext.size(), &written) == 1;
  ERR_clear_error();
  return ok && written == plaintext.size();
}

void TlsSession::close_notify() {
  ERR_clear_error();
  SSL_shutdown(ssl_);  // writes the alert and returns: the client's reply is not awaited
  ERR_clear_error();
}

std::string_view TlsSession::output() const {
  char* data = nullptr;
  const long n = BIO_get_mem_data(out_, &data);
  return n > 0 ? std::string_view(data, static_cast<size_t>(n)) : std::string_view();
}

void TlsSession::output_taken() { (void)BIO_reset(out_); }

}  // namespace soapbench::server
