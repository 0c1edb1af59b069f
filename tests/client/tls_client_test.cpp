// Every client kind over https against soapbench-server --tls-cert: keep-alive,
// handshakes per connection (resumed by default, full with resume off), every
// certificate check failing as a `tls` failure that says which check, client
// certificates, and the TLS flags' errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "client.h"
#include "server_process.h"
#include "test_support.h"
#include "tls.h"

namespace soapbench {
namespace {

std::string cert(const std::string& name) { return test::test_certs_dir() + name; }

// A TLS server with the certificate `name` (server, expired, wrong-name) and `extra` flags.
std::vector<std::string> tls_flags(const std::string& name = "server", std::vector<std::string> extra = {}) {
  std::vector<std::string> flags{"--mode", "loops", "--threads", "1", "--tls-cert", cert(name + ".pem"),
                                 "--tls-key", cert(name + ".key")};
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

std::string https_url(const test::ServerProcess& server) {
  return "https://127.0.0.1:" + std::to_string(server.port()) + "/echo";
}

ClientOptions options_for(const test::ServerProcess& server) {
  ClientOptions o;
  o.url = https_url(server);
  o.tls.ca_file = cert("ca.pem");
  o.timeout_s = 10;
  return o;
}

class TlsClients : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
#ifndef WITH_OPENSSL
    // Debian's libgsoap++ (SOAPBENCH_GSOAP_RUNTIME=system) has no TLS: the gsoap
    // client refuses https with a message saying so (GsoapWithoutTls below).
    if (GetParam() == "gsoap") GTEST_SKIP() << "the system gSOAP runtime has no TLS";
#endif
  }
};

#ifndef WITH_OPENSSL
TEST(GsoapWithoutTls, HttpsIsRefusedNamingTheRuntime) {
  test::ServerProcess server(tls_flags());
  try {
    make_client("gsoap", options_for(server));
    ADD_FAILURE() << "the gsoap client of the system runtime accepted an https URL";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("SOAPBENCH_GSOAP_RUNTIME=system"), std::string::npos) << e.what();
  }
}
#endif

TEST_P(TlsClients, KeepAliveMakesOneHandshakeForManyCalls) {
  test::ServerProcess server(tls_flags());
  auto client = make_client(GetParam(), options_for(server));
  for (int i = 0; i < 30; ++i) {
    const CallResult r = client->call();
    ASSERT_TRUE(r.ok) << "call " << i << ": " << to_string(r.kind) << ": " << r.detail;
  }
  const TlsState tls = client->tls_state();
  EXPECT_EQ(tls.protocol, "TLSv1.3");
  EXPECT_FALSE(tls.cipher.empty());
  EXPECT_EQ(tls.handshakes, 1u);
  EXPECT_EQ(client->connections_opened(), 1u);
}

TEST_P(TlsClients, NewConnectionsResumeTheSessionUnlessToldNot) {
  test::ServerProcess server(tls_flags());
  for (const bool resume : {true, false}) {
    ClientOptions o = options_for(server);
    o.new_connection = true;
    o.tls.resume = resume;
    o.tls.min_version = "1.2";
    auto client = make_client(GetParam(), o);
    constexpr uint64_t kCalls = 10;
    for (uint64_t i = 0; i < kCalls; ++i) {
      const CallResult r = client->call();
      ASSERT_TRUE(r.ok) << "call " << i << ": " << to_string(r.kind) << ": " << r.detail;
    }
    const TlsState tls = client->tls_state();
    EXPECT_EQ(tls.handshakes, kCalls) << "resume " << resume;
    if (resume) EXPECT_GE(tls.resumed, kCalls - 2) << "all but the first (and a ticket that came late)";
    else EXPECT_EQ(tls.resumed, 0u);
  }
}

TEST_P(TlsClients, EveryCertificateCheckFailsAsTlsAndSaysWhich) {
  struct Case {
    std::string server_cert, ca, want;
  };
  const std::vector<Case> cases{
      {"expired", "ca.pem", "expired"},
      {"wrong-name", "ca.pem", GetParam() == "curl" ? "127.0.0.1" : "mismatch"},
      {"server", "other-ca.pem", "local issuer"},
  };
  for (const Case& c : cases) {
    test::ServerProcess server(tls_flags(c.server_cert));
    ClientOptions o = options_for(server);
    o.tls.ca_file = cert(c.ca);
    auto client = make_client(GetParam(), o);
    const CallResult r = client->call();
    ASSERT_FALSE(r.ok) << c.server_cert;
    EXPECT_EQ(r.kind, FailureKind::tls) << c.server_cert << ": " << to_string(r.kind) << ": " << r.detail;
    if (GetParam() != "gsoap") {  // gSOAP says "SSL/TLS error" and the check in its own words
      EXPECT_NE(r.detail.find(c.want), std::string::npos) << c.server_cert << ": " << r.detail;
    }
    // --insecure measures TLS against any certificate.
    o.tls.insecure = true;
    auto trusting = make_client(GetParam(), o);
    const CallResult ok = trusting->call();
    EXPECT_TRUE(ok.ok) << c.server_cert << ": " << ok.detail;
  }
}

TEST_P(TlsClients, ClientCertificatesWhenTheServerRequiresThem) {
  test::ServerProcess server(tls_flags("server", {"--tls-client-ca", cert("ca.pem")}));
  ClientOptions o = options_for(server);
  {
    auto anonymous = make_client(GetParam(), o);
    const CallResult r = anonymous->call();
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.kind, FailureKind::tls) << to_string(r.kind) << ": " << r.detail;
  }
  o.tls.cert_file = cert("untrusted-client.pem");
  o.tls.key_file = cert("untrusted-client.key");
  {
    auto untrusted = make_client(GetParam(), o);
    const CallResult r = untrusted->call();
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.kind, FailureKind::tls) << to_string(r.kind) << ": " << r.detail;
  }
  o.tls.cert_file = cert("client.pem");
  o.tls.key_file = cert("client.key");
  auto trusted = make_client(GetParam(), o);
  for (int i = 0; i < 3; ++i) {
    const CallResult r = trusted->call();
    EXPECT_TRUE(r.ok) << to_string(r.kind) << ": " << r.detail;
  }
}

TEST_P(TlsClients, HttpsToAPlainServerIsATlsFailure) {
  test::ServerProcess server({"--mode", "loops", "--threads", "1"});
  ClientOptions o = options_for(server);
  auto client = make_client(GetParam(), o);
  const CallResult r = client->call();
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.kind, FailureKind::tls) << to_string(r.kind) << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Kinds, TlsClients, ::testing::Values("raw", "curl", "gsoap"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(TlsOptions, FileAndPairingErrorsNameTheFlag) {
  struct Case {
    TlsOptions tls;
    std::string want;
  };
  TlsOptions missing_ca;
  missing_ca.ca_file = "/nonexistent/ca.pem";
  TlsOptions cert_alone;
  cert_alone.cert_file = cert("client.pem");
  TlsOptions key_alone;
  key_alone.key_file = cert("client.key");
  TlsOptions mismatch;
  mismatch.cert_file = cert("client.pem");
  mismatch.key_file = cert("server.key");
  TlsOptions bad_ciphers;
  bad_ciphers.ciphers = "NO-SUCH-CIPHER";
  TlsOptions bad_version;
  bad_version.min_version = "1.1";
  const std::vector<Case> cases{
      {missing_ca, "--cacert: cannot read CA certificates from '/nonexistent/ca.pem'"},
      {cert_alone, "--cert: goes with --key"},
      {key_alone, "--key: goes with --cert"},
      {mismatch, "--key: '" + cert("server.key") + "' is not the key of --cert"},
      {bad_ciphers, "--ciphers: no cipher of 'NO-SUCH-CIPHER' is known"},
      {bad_version, "--tls-min: '1.1' is not 1.2 or 1.3"},
  };
  for (const Case& c : cases) {
    const std::string why = tls_options_error(c.tls);
    EXPECT_EQ(why.substr(0, c.want.size()), c.want) << why;
  }
  TlsOptions good;
  good.ca_file = cert("ca.pem");
  good.cert_file = cert("client.pem");
  good.key_file = cert("client.key");
  EXPECT_EQ(tls_options_error(good), "");
}

}  // namespace
}  // namespace soapbench
