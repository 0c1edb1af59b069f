#include "credentials.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <strings.h>
#include <time.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <map>
#include <stdexcept>

namespace soapbench {
namespace {

constexpr std::string_view kWsseNs = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
constexpr std::string_view kWsuNs = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
constexpr std::string_view kProfile = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0";
constexpr std::string_view kBase64Binary =
    "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary";

std::string xml_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '&') out += "&amp;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

// ---- HTTP Basic and Digest ----

HttpCredentials::HttpCredentials(std::string_view user_password) {
  if (!split_credentials(user_password, user_, password_))
    throw std::invalid_argument("--user: expected NAME:PASSWORD");
}

bool HttpCredentials::learn(const std::vector<std::string>& challenges) {
  // The strongest offered: Digest SHA-256, Digest MD5, Basic. One challenge
  // per WWW-Authenticate field, as soapbench-server and most servers send them.
  int best_rank = 0;
  std::map<std::string, std::string> best;
  for (const std::string& c : challenges) {
    const size_t space = c.find(' ');
    const std::string_view scheme = std::string_view(c).substr(0, space);
    auto params = parse_auth_params(space == std::string::npos ? "" : std::string_view(c).substr(space + 1));
    int rank = 0;
    if (iequals(scheme, "Basic")) rank = 1;
    if (iequals(scheme, "Digest")) {
      const std::string algorithm = params.contains("algorithm") ? params["algorithm"] : "MD5";
      const bool qop_auth = params["qop"].find("auth") != std::string::npos;
      if (qop_auth && iequals(algorithm, "MD5")) rank = 2;
      if (qop_auth && iequals(algorithm, "SHA-256")) rank = 3;
      params["algorithm"] = algorithm;
    }
    if (rank > best_rank) {
      best_rank = rank;
      best = std::move(params);
    }
  }
  if (best_rank == 0) return false;
  const bool stale = iequals(best["stale"], "true");
  // Refused though the answer went: wrong credentials (not to be tried again),
  // unless the nonce merely went stale.
  if (scheme_ != Scheme::none && sent_since_challenge_ && !stale) return false;
  scheme_ = best_rank == 1 ? Scheme::basic : Scheme::digest;
  sent_since_challenge_ = false;
  field_.clear();
  if (scheme_ == Scheme::digest) {
    realm_ = best["realm"];
    nonce_ = best["nonce"];
    opaque_ = best["opaque"];
    algorithm_ = best["algorithm"];
    const EVP_MD* md = best_rank == 3 ? EVP_sha256() : EVP_md5();
    ha1_ = hex_digest(md, user_ + ":" + realm_ + ":" + password_);
    ha2_of_.clear();
    unsigned char c[12];
    RAND_bytes(c, sizeof c);
    cnonce_ = base64(std::string_view(reinterpret_cast<const char*>(c), sizeof c));  // one per nonce: nc tells the requests apart
    nc_ = 0;
  }
  return true;
}

const std::string& HttpCredentials::field(std::string_view method, std::string_view uri) {
  sent_since_challenge_ = true;
  if (scheme_ == Scheme::basic) {
    if (field_.empty()) {
      const std::string pair = user_ + ":" + password_;
      field_ = "Authorization: Basic " + base64(pair) + "\r\n";
    }
    return field_;
  }
  const EVP_MD* md = iequals(algorithm_, "SHA-256") ? EVP_sha256() : EVP_md5();
  const std::string a2 = std::string(method) + ":" + std::string(uri);
  if (a2 != ha2_of_) {  // the same for every call of a run: hashed once
    ha2_ = hex_digest(md, a2);
    ha2_of_ = a2;
  }
  char nc[9];
  std::snprintf(nc, sizeof nc, "%08x", ++nc_);
  const std::string response = hex_digest(md, ha1_ + ":" + nonce_ + ":" + nc + ":" + cnonce_ + ":auth:" + ha2_);
  field_.assign("Authorization: Digest username=\"").append(user_).append("\", realm=\"").append(realm_);
  field_.append("\", nonce=\"").append(nonce_).append("\", uri=\"").append(uri).append("\", algorithm=");
  field_.append(algorithm_).append(", qop=auth, nc=").append(nc).append(", cnonce=\"").append(cnonce_);
  field_.append("\", response=\"").append(response).append("\"");
  if (!opaque_.empty()) field_.append(", opaque=\"").append(opaque_).append("\"");
  field_.append("\r\n");
  return field_;
}

// ---- WS-Security UsernameToken ----

namespace {

struct InsertPoint {
  size_t at = std::string::npos;  // where the token goes
  std::string before, after;      // a Header element to open and close around it, when there is none
};

// Before the soap:Body start tag: inside an existing Header, else in a new one
// of the Body's prefix (the Envelope's namespace).
InsertPoint insert_point(std::string_view xml) {
  InsertPoint p;
  for (size_t i = xml.find('<'); i != std::string_view::npos; i = xml.find('<', i + 1)) {
    if (i + 1 < xml.size() && (xml[i + 1] == '?' || xml[i + 1] == '!' || xml[i + 1] == '/')) continue;
    const size_t end = xml.find_first_of(" \t\r\n/>", i + 1);
    if (end == std::string_view::npos) break;
    const std::string_view name = xml.substr(i + 1, end - i - 1);
    const size_t colon = name.find(':');
    const std::string_view local = colon == std::string_view::npos ? name : name.substr(colon + 1);
    const size_t close = xml.find('>', end);
    if (close == std::string_view::npos) break;
    if (local == "Header" && xml[close - 1] != '/') {
      p.at = close + 1;
      return p;
    }
    if (local == "Body") {
      const std::string qname(name.substr(0, colon == std::string_view::npos ? 0 : colon + 1));
      p.at = i;
      p.before = "<" + qname + "Header>";
      p.after = "</" + qname + "Header>";
      return p;
    }
  }
  throw std::invalid_argument("--wsse: the request has no soap:Body to put a WS-Security header before");
}

class WsseCheck final : public ResponseCheck {
 public:
  WsseCheck(std::unique_ptr<ResponseCheck> inner, std::string_view user_password, bool digest)
      : inner_(std::move(inner)), digest_(digest) {
    std::string user;
    if (!split_credentials(user_password, user, password_)) throw std::invalid_argument("--wsse: expected NAME:PASSWORD");
    std::string token = "<wsse:Security xmlns:wsse=\"" + std::string(kWsseNs) + "\" xmlns:wsu=\"" +
                        std::string(kWsuNs) + "\"><wsse:UsernameToken><wsse:Username>" + xml_text(user) +
                        "</wsse:Username><wsse:Password Type=\"" + std::string(kProfile);
    if (!digest) {
      token_ = token + "#PasswordText\">" + xml_text(password_) + "</wsse:Password></wsse:UsernameToken></wsse:Security>";
      return;
    }
    // Place holders of the values' fixed lengths: base64 of 20 and 16 bytes, a dateTime to the second.
    token += "#PasswordDigest\">";
    digest_at_ = token.size();
    token += std::string(28, 'D') + "</wsse:Password><wsse:Nonce EncodingType=\"" + std::string(kBase64Binary) + "\">";
    nonce_at_ = token.size();
    token += std::string(24, 'N') + "</wsse:Nonce><wsu:Created>";
    created_at_ = token.size();
    token_ = token + "YYYY-MM-DDTHH:MM:SSZ</wsu:Created></wsse:UsernameToken></wsse:Security>";
  }

  const std::string& render_request() override {
    if (inner_->varies() || rendered_.empty()) {
      const std::string& envelope = inner_->render_request();
      const InsertPoint p = insert_point(envelope);
      rendered_.assign(envelope, 0, p.at).append(p.before);
      token_in_rendered_ = rendered_.size();
      rendered_.append(token_).append(p.after).append(envelope, p.at);
    }
    if (digest_) refresh(rendered_.data() + token_in_rendered_);
    return rendered_;
  }
  bool varies() const override { return digest_ || inner_->varies(); }
  // A fixed inner envelope with a fresh token: the one kept buffer, refreshed in place.
  bool render_pieces(std::vector<std::string_view>& pieces) override {
    if (inner_->varies()) return false;
    pieces.assign(1, render_request());
    return true;
  }
  CallResult check(long status, std::string& body) override { return inner_->check(status, body); }
  bool judges_response_alone() const override { return inner_->judges_response_alone(); }
  void advance() override { inner_->advance(); }
  size_t entry() const override { return inner_->entry(); }

 private:
  // PasswordDigest = Base64(SHA-1(nonce + created + password)), the nonce's raw bytes.
  void refresh(char* token) {
    unsigned char nonce[16];
    RAND_bytes(nonce, sizeof nonce);
    const time_t now = time(nullptr);
    tm utc{};
    gmtime_r(&now, &utc);
    char created[21];
    std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc);
    std::string input(reinterpret_cast<char*>(nonce), sizeof nonce);
    input.append(created, 20).append(password_);
    unsigned char sha[20];
    EVP_Digest(input.data(), input.size(), sha, nullptr, EVP_sha1(), nullptr);
    std::memcpy(token + digest_at_, base64(std::string_view(reinterpret_cast<const char*>(sha), sizeof sha)).data(), 28);
    std::memcpy(token + nonce_at_, base64(std::string_view(reinterpret_cast<const char*>(nonce), sizeof nonce)).data(), 24);
    std::memcpy(token + created_at_, created, 20);
  }

  std::unique_ptr<ResponseCheck> inner_;
  bool digest_;
  std::string password_;
  std::string token_;  // the Security element
  size_t digest_at_ = 0, nonce_at_ = 0, created_at_ = 0;  // in token_
  std::string rendered_;
  size_t token_in_rendered_ = 0;
};

}  // namespace

std::unique_ptr<ResponseCheck> with_wsse(std::unique_ptr<ResponseCheck> inner, std::string_view user_password,
                                         bool digest) {
  return std::make_unique<WsseCheck>(std::move(inner), user_password, digest);
}

}  // namespace soapbench
