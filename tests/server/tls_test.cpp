// HTTPS (--tls-cert/--tls-key) in every server mode: calls and ?wsdl over TLS
// with keep-alive, TLS 1.2 and 1.3, --tls-min, session resumption, client
// certificates, hostile clients (a stalled handshake, garbage, plain HTTP) that
// must not hold up anyone else, and the flags' errors. The client is a small
// blocking OpenSSL client that verifies the server against the test CA.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "test_support.h"

namespace soapbench::test {
namespace {

using Clock = std::chrono::steady_clock;
// A call over an established connection: generous for sanitizer builds, far
// below the receive timeout a stalled handshake would make it wait for.
constexpr milliseconds kCallBound{1000};

std::string certs(const std::string& name) { return test_certs_dir() + name; }

struct SessionFree {
  void operator()(SSL_SESSION* s) const { SSL_SESSION_free(s); }
};
using Session = std::unique_ptr<SSL_SESSION, SessionFree>;

struct ClientOptions {
  std::string cert, key;        // a client certificate, when the server asks for one
  int max_version = 0;          // e.g. TLS1_2_VERSION; 0 = the newest
  SSL_SESSION* offer = nullptr;  // a session to resume
  bool no_tickets = false;       // resume by session id: the server's session cache, not a ticket
};
ClientOptions up_to(int max_version, SSL_SESSION* offer = nullptr) {
  ClientOptions o;
  o.max_version = max_version;
  o.offer = offer;
  return o;
}
// The certificate NAME.pem with its key NAME.key, from the test folder.
ClientOptions presenting(const std::string& name) {
  ClientOptions o;
  o.cert = certs(name + ".pem");
  o.key = certs(name + ".key");
  return o;
}

// One blocking TLS connection to 127.0.0.1:port, verified against ca.pem for
// the IP 127.0.0.1. Every wait is bounded (socket timeouts of 5 s).
class TlsClient {
 public:
  explicit TlsClient(uint16_t port, const ClientOptions& o = {}) {
    ctx_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(ctx_, certs("ca.pem").c_str(), nullptr);
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    if (o.max_version) SSL_CTX_set_max_proto_version(ctx_, o.max_version);
    if (o.no_tickets) SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
    if (!o.cert.empty()) {
      SSL_CTX_use_certificate_chain_file(ctx_, o.cert.c_str());
      SSL_CTX_use_PrivateKey_file(ctx_, o.key.c_str(), SSL_FILETYPE_PEM);
    }
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      error_ = "connect failed";
      return;
    }
    ssl_ = SSL_new(ctx_);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), "127.0.0.1");
    if (o.offer) SSL_set_session(ssl_, o.offer);
    SSL_set_fd(ssl_, fd_);
    ERR_clear_error();
    if (SSL_connect(ssl_) == 1) connected_ = true;
    else error_ = "handshake failed: " + ssl_error();
  }
  ~TlsClient() {
    // close_notify, as a real client ends: OpenSSL makes a session that ended
    // without one unresumable.
    if (connected_) SSL_shutdown(ssl_);
    if (ssl_) SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    if (fd_ >= 0) ::close(fd_);
  }
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  bool connected() const { return connected_; }
  const std::string& error() const { return error_; }
  bool reused() const { return ssl_ && SSL_session_reused(ssl_) == 1; }
  int version() const { return ssl_ ? SSL_version(ssl_) : 0; }
  Session session() const { return Session(SSL_get1_session(ssl_)); }

  // Sends `request` and reads one response framed by Content-Length (the
  // server's are). closed, with error(), when TLS or the connection ended first.
  ReadResult exchange(std::string_view request) {
    if (!send(request)) {
      ReadResult r;
      r.outcome = ReadResult::Outcome::closed;
      return r;
    }
    return read_response();
  }
  bool send(std::string_view bytes) {
    ERR_clear_error();
    if (connected_ && SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size())) > 0) return true;
    error_ = "write failed: " + ssl_error();
    return false;
  }
  // One response; what arrived past it stays for the next call (pipelining).
  ReadResult read_response() {
    ReadResult r;
    r.outcome = ReadResult::Outcome::closed;
    size_t body_at = std::string::npos, length = 0;
    for (;;) {
      if (body_at == std::string::npos && (body_at = buffer_.find("\r\n\r\n")) != std::string::npos) {
        body_at += 4;
        length = parse_head(buffer_.substr(0, body_at), r.response);
      }
      if (body_at != std::string::npos && buffer_.size() >= body_at + length) {
        r.response.body = buffer_.substr(body_at, length);
        r.received = buffer_.substr(0, body_at + length);
        buffer_.erase(0, body_at + length);
        r.outcome = ReadResult::Outcome::response;
        return r;
      }
      char buf[16384];
      const int n = connected_ ? SSL_read(ssl_, buf, sizeof buf) : 0;
      if (n <= 0) {
        error_ = "read failed: " + ssl_error();
        r.received = buffer_;
        return r;
      }
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  static std::string ssl_error() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (!e) return "no OpenSSL error (connection closed)";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
  }
  static size_t parse_head(const std::string& head, HttpResponse& response) {
    response.status = std::stoi(head.substr(9, 3));
    size_t length = 0;
    for (size_t at = head.find("\r\n") + 2; at < head.size();) {
      const size_t end = head.find("\r\n", at);
      const std::string line = head.substr(at, end - at);
      if (const size_t colon = line.find(':'); colon != std::string::npos) {
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        response.headers.emplace_back(line.substr(0, colon), value);
        if (strcasecmp(line.substr(0, colon).c_str(), "Content-Length") == 0) length = std::stoul(value);
      }
      at = end + 2;
    }
    return length;
  }

  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  int fd_ = -1;
  bool connected_ = false;
  std::string error_;
  std::string buffer_;  // received, not yet returned
};

// The first flight of a real TLS client: its ClientHello.
std::string client_hello() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, BIO_new(BIO_s_mem()), out);
  SSL_connect(ssl);  // wants to read the answer; the hello is in `out`
  char* data = nullptr;
  const long n = BIO_get_mem_data(out, &data);
  std::string hello(data, static_cast<size_t>(n));
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  return hello;
}

std::string post_echo(std::string_view text) { return http_post(soap_envelope(echo_string_body(text))); }

class Tls : public ::testing::TestWithParam<ServerMode> {
 protected:
  std::unique_ptr<ServerProcess> server;
  ClientOptions as;  // how this test's clients (and its /stats fetches) present themselves

  void start(std::vector<std::string> extra = {}) {
    std::vector<std::string> flags = {"--tls-cert", certs("server.pem"), "--tls-key", certs("server.key")};
    flags.insert(flags.end(), extra.begin(), extra.end());
    server = std::make_unique<ServerProcess>(flags_for(GetParam(), flags));
    ASSERT_TRUE(server->tls()) << server->first_line();
  }
  uint16_t port() const { return server->port(); }

  // GET /stats over its own TLS connection (a full handshake that counts itself).
  nlohmann::json stats() {
    TlsClient c(port(), as);
    const ReadResult r = c.exchange(http_get("/stats", false));
    if (r.outcome != ReadResult::Outcome::response || r.response.status != 200)
      throw std::runtime_error("GET /stats over TLS failed: " + c.error() + " " + r.describe());
    return nlohmann::json::parse(r.response.body)["tls"];
  }
  // /stats' tls object once pred holds on it (the server counts a dropped connection when it drops it).
  template <class Pred>
  nlohmann::json stats_when(Pred pred) {
    const auto deadline = Clock::now() + milliseconds(5000);
    nlohmann::json t = stats();
    while (!pred(t) && Clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(20));
      t = stats();
    }
    return t;
  }

  // One echoString on c: "" when it came back equal, else what went wrong.
  static std::string echo(TlsClient& c, std::string_view text) {
    const ReadResult r = c.exchange(post_echo(text));
    if (r.outcome != ReadResult::Outcome::response) return c.error() + " " + r.describe();
    if (r.response.status != 200) return r.describe();
    if (echoed_text(r.response.body) != std::string(text)) return "echoed differently: " + r.describe();
    return "";
  }

  void TearDown() override {
    if (!server) return;
    ASSERT_TRUE(server->running()) << "the server died";
    TlsClient c(port(), as);
    EXPECT_EQ(echo(c, "after"), "") << "a valid call afterwards was not served";
  }
};

TEST_P(Tls, EchoAndWsdlOnOneKeepAliveConnection) {
  start();
  EXPECT_EQ(server->first_line().rfind("soapbench-server listening on https://127.0.0.1:", 0), 0u)
      << server->first_line();
  TlsClient c(port());
  ASSERT_TRUE(c.connected()) << c.error();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(echo(c, "call " + std::to_string(i) + " <&>"), "");
  const std::string host = "127.0.0.1:" + std::to_string(port());
  const ReadResult wsdl = c.exchange("GET /echo?wsdl HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  ASSERT_EQ(wsdl.outcome, ReadResult::Outcome::response) << c.error() << " " << wsdl.describe();
  EXPECT_EQ(wsdl.response.status, 200);
  EXPECT_NE(wsdl.response.body.find("location=\"https://" + host + "/echo\""), std::string::npos) << wsdl.response.body;
  EXPECT_EQ(echo(c, "after the wsdl"), "");  // still the same connection

  const nlohmann::json t = stats();
  EXPECT_EQ(t["handshakes"], 2) << t;  // this client's, then the /stats client's
  EXPECT_EQ(t["resumed"], 0) << t;
  EXPECT_EQ(t["failed"], 0) << t;
  EXPECT_EQ(t["min_version"], "1.2") << t;
}

// Requests sent together arrive in one run of records: the server decrypts them
// all at once and must answer each, though the socket has nothing more to wake it.
// A large answer spans many records and socket writes.
TEST_P(Tls, PipelinedRequestsAndALargeAnswer) {
  start();
  TlsClient c(port());
  ASSERT_TRUE(c.connected()) << c.error();
  ASSERT_TRUE(c.send(post_echo("one") + post_echo("two") + post_echo("three")));
  for (const char* text : {"one", "two", "three"}) {
    const ReadResult r = c.read_response();
    ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << c.error() << " " << r.describe();
    EXPECT_EQ(echoed_text(r.response.body), std::string(text)) << r.describe();
  }
  const std::string large(2 << 20, 'x');
  EXPECT_EQ(echo(c, large), "");
  EXPECT_EQ(echo(c, "small again"), "");
}

TEST_P(Tls, SpeaksTls12AndTls13) {
  start();
  TlsClient old(port(), up_to(TLS1_2_VERSION));
  ASSERT_TRUE(old.connected()) << old.error();
  EXPECT_EQ(old.version(), TLS1_2_VERSION);
  EXPECT_EQ(echo(old, "over 1.2"), "");
  TlsClient current(port());
  ASSERT_TRUE(current.connected()) << current.error();
  EXPECT_EQ(current.version(), TLS1_3_VERSION);
  EXPECT_EQ(echo(current, "over 1.3"), "");
}

TEST_P(Tls, MinTls13RefusesATls12Client) {
  start({"--tls-min", "1.3"});
  {
    TlsClient old(port(), up_to(TLS1_2_VERSION));
    EXPECT_FALSE(old.connected()) << "a TLS 1.2 client got through --tls-min 1.3";
  }
  const nlohmann::json t = stats_when([](const nlohmann::json& s) { return s["failed"] == 1; });
  EXPECT_EQ(t["failed"], 1) << t;
  EXPECT_NE(t["last_failure"].get<std::string>().find("unsupported protocol"), std::string::npos) << t;
  EXPECT_EQ(t["min_version"], "1.3") << t;
}

// By ticket (TLS 1.2 and 1.3), and by session id from the server's cache (TLS 1.2 without tickets).
TEST_P(Tls, ResumesSessionsByTicketAndFromTheCache) {
  start();
  ClientOptions by_id = up_to(TLS1_2_VERSION);
  by_id.no_tickets = true;
  for (const ClientOptions& how : {up_to(TLS1_2_VERSION), up_to(TLS1_3_VERSION), by_id}) {
    const int version = how.max_version;
    Session first_session;
    {
      TlsClient first(port(), how);
      ASSERT_TRUE(first.connected()) << first.error();
      EXPECT_EQ(echo(first, "first"), "");  // TLS 1.3 tickets arrive after the handshake, before this answer
      EXPECT_FALSE(first.reused());
      first_session = first.session();
    }
    ClientOptions again = how;
    again.offer = first_session.get();
    TlsClient second(port(), again);
    ASSERT_TRUE(second.connected()) << second.error();
    EXPECT_TRUE(second.reused()) << "TLS version " << std::hex << version << (how.no_tickets ? " without tickets" : "");
    EXPECT_EQ(echo(second, "resumed"), "");
  }
  const nlohmann::json t = stats();
  EXPECT_EQ(t["resumed"], 3) << t;
  EXPECT_EQ(t["handshakes"], 7) << t;  // six clients and the /stats one
}

// With --tls-client-ca the handshake needs a certificate that CA signed. In TLS
// 1.3 the client finishes its handshake before the server checks its
// certificate: the server's alert then ends its first call.
TEST_P(Tls, ClientCertificatesAreRequiredAndVerified) {
  as = presenting("client");
  start({"--tls-client-ca", certs("ca.pem")});
  TlsClient good(port(), as);
  ASSERT_TRUE(good.connected()) << good.error();
  EXPECT_EQ(echo(good, "with a certificate"), "");

  for (const ClientOptions& bad : {ClientOptions{}, presenting("untrusted-client")}) {
    TlsClient c(port(), bad);
    const bool served = c.connected() && echo(c, "refused") == "";
    EXPECT_FALSE(served) << "a client with " << (bad.cert.empty() ? "no certificate" : bad.cert) << " was served";
  }
  const nlohmann::json t = stats_when([](const nlohmann::json& s) { return s["failed"] == 2; });
  EXPECT_EQ(t["failed"], 2) << t;
  EXPECT_NE(t["last_failure"].get<std::string>().find("certificate verify failed"), std::string::npos) << t;
  EXPECT_EQ(t["client_certificates"], true) << t;
}

// A client stalled half way through its ClientHello, one sending garbage and one
// speaking plain HTTP: each is dropped (the stalled one after the receive timeout)
// while a good client's calls go through at once.
TEST_P(Tls, HostileClientsHoldUpNoOne) {
  start({"--recv-timeout", "0.5"});
  const std::string hello = client_hello();
  ASSERT_GT(hello.size(), 100u);
  RawConnection stalled(port());
  ASSERT_TRUE(stalled.send(hello.substr(0, hello.size() / 2)));
  const auto stalled_at = Clock::now();

  RawConnection garbage(port());
  garbage.send(std::string("\x01\x02\x03\x04\x05 not TLS at all \xff\xfe\r\n\r\n", 28));
  EXPECT_TRUE(garbage.wait_closed(milliseconds(3000))) << "the garbage connection stayed open";

  RawConnection plain(port());
  plain.send(http_get("/echo?wsdl", true));
  const ReadResult answer = plain.read_response(milliseconds(3000));
  ASSERT_EQ(answer.outcome, ReadResult::Outcome::response) << answer.describe();
  EXPECT_EQ(answer.response.status, 400) << answer.describe();
  EXPECT_EQ(answer.response.body, "Bad request: this port speaks HTTPS; use https:// URLs\n");
  EXPECT_TRUE(plain.wait_closed(milliseconds(3000))) << "the plain HTTP connection stayed open";

  TlsClient good(port());
  ASSERT_TRUE(good.connected()) << good.error();
  for (int i = 0; i < 10; ++i) {
    const auto t0 = Clock::now();
    EXPECT_EQ(echo(good, "call " + std::to_string(i)), "");
    const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
    EXPECT_LT(took.count(), kCallBound.count()) << "call " << i << " took " << took.count() << " ms";
  }

  EXPECT_TRUE(stalled.wait_closed(milliseconds(5000))) << "the stalled handshake was never dropped";
  const auto held = std::chrono::duration_cast<milliseconds>(Clock::now() - stalled_at);
  EXPECT_GE(held.count(), 400) << "dropped before the receive timeout";
  EXPECT_LT(held.count(), 3000) << "held long past the receive timeout";

  const nlohmann::json t = stats_when([](const nlohmann::json& s) { return s["failed"] == 3; });
  EXPECT_EQ(t["failed"], 3) << t;  // garbage, plain HTTP, the stalled handshake
  EXPECT_NE(t["last_failure"].get<std::string>().find("did not finish"), std::string::npos) << t;
}

INSTANTIATE_TEST_SUITE_P(AllModes, Tls, ::testing::ValuesIn(all_modes()), mode_param_name);

// The flags' mistakes stop the start with exit code 2 and a message naming the flag.
TEST(TlsFlags, MistakesExitWith2NamingTheFlag) {
  const std::string cert = certs("server.pem"), key = certs("server.key");
  struct Case {
    std::string flags, says;
  };
  const Case cases[] = {
      {"--tls-cert " + cert, "--tls-cert requires --tls-key"},
      {"--tls-key " + key, "--tls-key requires --tls-cert"},
      {"--tls-cert /nonexistent/server.pem --tls-key " + key, "--tls-cert /nonexistent/server.pem: "},
      {"--tls-cert " + cert + " --tls-key /nonexistent/server.key", "--tls-key /nonexistent/server.key: "},
      {"--tls-cert " + cert + " --tls-key " + certs("client.key"), "key values mismatch"},
      {"--tls-client-ca " + certs("ca.pem"), "--tls-client-ca requires --tls-cert"},
      {"--tls-cert " + cert + " --tls-key " + key + " --tls-ciphers NO-SUCH-CIPHER", "--tls-ciphers"},
  };
  for (const Case& c : cases) {
    const ServerRun r = run_server_to_exit(c.flags);
    EXPECT_EQ(r.code, 2) << c.flags << ": " << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.flags << ": " << r.output;
  }
}

}  // namespace
}  // namespace soapbench::test
