#include "auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <strings.h>
#include <time.h>

#include <cctype>
#include <map>
#include <pugixml.hpp>

namespace soapbench::server {
namespace {

// Beyond these many live nonces the oldest are forgotten: a flood of requests
// without credentials (each gets a fresh nonce) or of PasswordDigest requests
// must not grow memory without bound. A forgotten Digest nonce only makes its
// client re-challenge (stale=true); a forgotten WSSE nonce could be replayed,
// which takes more than this many requests within five minutes.
constexpr size_t kMaxNonces = 100'000;
constexpr size_t kMaxWsseNonces = 1'000'000;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

}  // namespace

// ---- HTTP Basic and Digest ----

HttpAuth::HttpAuth(std::string user, std::string password, bool digest, Clock::duration nonce_lifetime)
    : user_(std::move(user)), password_(std::move(password)), digest_(digest), lifetime_(nonce_lifetime) {}

std::string HttpAuth::new_nonce() {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  std::string nonce = hex(std::string_view(reinterpret_cast<char*>(bytes), sizeof bytes));
  const auto now = Clock::now();
  const std::lock_guard lock(mutex_);
  while (!issued_.empty() && (now - issued_.front().first > lifetime_ || issued_.size() >= kMaxNonces)) {
    nonces_.erase(issued_.front().second);
    issued_.pop_front();
  }
  nonces_[nonce] = Nonce{now, 0};
  issued_.emplace_back(now, nonce);
  return nonce;
}

// Digest offers SHA-256 first (RFC 7616 3.7: in the order of preference), then
// MD5 for the clients that know no better, with one nonce for both.
HttpAuthVerdict HttpAuth::refuse(std::string reason, bool stale) {
  HttpAuthVerdict v;
  v.reason = std::move(reason);
  const std::string realm(kRealm);
  if (!digest_) {
    v.challenge = "WWW-Authenticate: Basic realm=\"" + realm + "\", charset=\"UTF-8\"\r\n";
    return v;
  }
  const std::string nonce = new_nonce();
  for (const char* algorithm : {"SHA-256", "MD5"})
    v.challenge += "WWW-Authenticate: Digest realm=\"" + realm + "\", qop=\"auth\", algorithm=" + algorithm +
                   ", nonce=\"" + nonce + "\"" + (stale ? ", stale=true" : "") + "\r\n";
  return v;
}

HttpAuthVerdict HttpAuth::check(std::string_view method, std::string_view target, std::string_view authorization) {
  authorization = trim(authorization);
  if (authorization.empty()) {
    HttpAuthVerdict v = refuse("Authentication required: no credentials");
    v.challenged = true;
    return v;
  }
  const size_t space = authorization.find(' ');
  const std::string_view scheme = authorization.substr(0, space);
  const std::string_view rest = space == std::string_view::npos ? "" : trim(authorization.substr(space + 1));
  const std::string_view wanted = digest_ ? "Digest" : "Basic";
  if (!iequals(scheme, wanted))
    return refuse("Authentication failed: wrong scheme '" + std::string(scheme) + "', the server wants " +
                  std::string(wanted));
  return digest_ ? check_digest(method, target, rest) : check_basic(rest);
}

HttpAuthVerdict HttpAuth::check_basic(std::string_view credentials) {
  std::string decoded, name, password;
  if (!unbase64(credentials, decoded) || !split_credentials(decoded, name, password))
    return refuse("Authentication failed: malformed Basic credentials");
  // Unknown user and wrong password are told apart: this is a test server, and
  // its refusals are meant to say what a client got wrong.
  if (name != user_) return refuse("Authentication failed: unknown user '" + name + "'");
  if (!same_secret(password, password_)) return refuse("Authentication failed: wrong password for user '" + name + "'");
  return {true, false, {}, {}};
}

HttpAuthVerdict HttpAuth::check_digest(std::string_view method, std::string_view target, std::string_view params) {
  auto p = parse_auth_params(params);
  for (const char* field : {"username", "realm", "nonce", "uri", "response", "qop", "nc", "cnonce"})
    if (!p.contains(field)) return refuse(std::string("Authentication failed: Digest credentials without ") + field);
  const std::string algorithm = p.contains("algorithm") ? p["algorithm"] : "MD5";
  const EVP_MD* md = iequals(algorithm, "MD5") ? EVP_md5() : iequals(algorithm, "SHA-256") ? EVP_sha256() : nullptr;
  if (!md) return refuse("Authentication failed: unsupported Digest algorithm '" + algorithm + "'");
  if (p["qop"] != "auth") return refuse("Authentication failed: unsupported qop '" + p["qop"] + "'");
  if (p["username"] != user_) return refuse("Authentication failed: unknown user '" + p["username"] + "'");
  if (p["realm"] != kRealm) return refuse("Authentication failed: wrong realm '" + p["realm"] + "'");
  if (p["uri"] != target)
    return refuse("Authentication failed: Digest uri '" + p["uri"] + "' is not the request target");
  size_t used = 0;
  uint64_t nc = 0;
  try {
    nc = std::stoull(p["nc"], &used, 16);
  } catch (const std::exception&) {
  }
  if (used != p["nc"].size() || p["nc"].size() != 8) return refuse("Authentication failed: malformed nc '" + p["nc"] + "'");
  const auto h = [&](std::string_view s) { return hex_digest(md, s); };
  const std::string ha1 = h(user_ + ":" + std::string(kRealm) + ":" + password_);
  const std::string ha2 = h(std::string(method) + ":" + p["uri"]);
  const std::string expected = h(ha1 + ":" + p["nonce"] + ":" + p["nc"] + ":" + p["cnonce"] + ":auth:" + ha2);
  if (!same_secret(expected, p["response"]))
    return refuse("Authentication failed: wrong password for user '" + user_ + "'");
  // The credentials are right: now whether this nonce may still be used, and
  // with this count (RFC 7616 3.3 and 5.4: stale=true lets the client retry at once).
  enum class Use { ok, replay, stale } use = Use::stale;
  {  // (refuse() takes the lock again for a new nonce: decide here, answer after)
    const std::lock_guard lock(mutex_);
    const auto it = nonces_.find(p["nonce"]);
    if (it != nonces_.end() && Clock::now() - it->second.issued <= lifetime_) {
      // One count at a time, increasing: a client sends its requests on a nonce
      // in order (curl, the driver), so a count not above the last one is a replay.
      use = nc <= it->second.last_nc ? Use::replay : Use::ok;
      if (use == Use::ok) it->second.last_nc = nc;
    }
  }
  if (use == Use::ok) return {true, false, {}, {}};
  if (use == Use::replay) return refuse("Authentication failed: replayed nonce count " + p["nc"]);
  return refuse("Authentication failed: stale nonce", true);
}

// ---- WS-Security UsernameToken ----

namespace {

// Where the soap:Body start tag begins: the Envelope's header is everything
// before it, and only that is parsed (the body can be megabytes). A "Body" tag
// inside a comment in the header cuts it short, which can only lose the
// Security header (a refusal), never invent one.
size_t body_start(std::string_view xml) {
  for (size_t i = xml.find('<'); i != std::string_view::npos; i = xml.find('<', i + 1)) {
    const size_t end = xml.find_first_of(" \t\r\n/>", i + 1);
    if (end == std::string_view::npos) return std::string_view::npos;
    std::string_view name = xml.substr(i + 1, end - i - 1);
    if (const size_t colon = name.find(':'); colon != std::string_view::npos) name.remove_prefix(colon + 1);
    if (name == "Body") return i;
  }
  return std::string_view::npos;
}

std::string_view local_name(pugi::xml_node n) {
  std::string_view name = n.name();
  if (const size_t colon = name.find(':'); colon != std::string_view::npos) name.remove_prefix(colon + 1);
  return name;
}

// The namespace of an element, from the xmlns declarations in scope.
std::string_view namespace_of(pugi::xml_node n) {
  const std::string_view name = n.name();
  const size_t colon = name.find(':');
  const std::string attr = colon == std::string_view::npos ? "xmlns" : "xmlns:" + std::string(name.substr(0, colon));
  for (pugi::xml_node a = n; a; a = a.parent())
    if (pugi::xml_attribute d = a.attribute(attr.c_str())) return d.value();
  return {};
}

pugi::xml_node child(pugi::xml_node parent, std::string_view local, std::string_view ns) {
  for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element && local_name(c) == local && (ns.empty() || namespace_of(c) == ns)) return c;
  return {};
}

// xsd:dateTime as wsu:Created has it: 2026-12-02T05:44:14Z, with optional
// fractional seconds and a Z or +hh:mm offset.
bool parse_created(std::string_view s, std::chrono::system_clock::time_point& out) {
  std::tm tm{};
  int consumed = 0;
  const std::string text(s);
  if (sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
             &tm.tm_sec, &consumed) != 6)
    return false;
  std::string_view rest = std::string_view(text).substr(static_cast<size_t>(consumed));
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
  }
  long offset = 0;
  if (rest == "Z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    offset = ((rest[1] - '0') * 10 + (rest[2] - '0')) * 3600L + ((rest[4] - '0') * 10 + (rest[5] - '0')) * 60L;
    if (rest[0] == '-') offset = -offset;
  } else {
    return false;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  out = std::chrono::system_clock::from_time_t(timegm(&tm) - offset);
  return true;
}

}  // namespace

WsseAuth::WsseAuth(std::string user, std::string password) : user_(std::move(user)), password_(std::move(password)) {}

std::string WsseAuth::check(std::string_view envelope) {
  pugi::xml_document doc;
  const size_t cut = body_start(envelope);
  const std::string_view head = envelope.substr(0, cut);
  // The cut leaves the Envelope unclosed: pugixml reports that, and keeps the tree it read.
  doc.load_buffer(head.data(), head.size(), pugi::parse_default, pugi::encoding_utf8);
  const pugi::xml_node root = doc.document_element();
  const pugi::xml_node header = local_name(root) == "Envelope" ? child(root, "Header", namespace_of(root)) : pugi::xml_node();
  const pugi::xml_node security = child(header, "Security", kWsseNs);
  if (!security) return "No wsse:Security header";
  const pugi::xml_node token = child(security, "UsernameToken", kWsseNs);
  if (!token) return "No wsse:UsernameToken in the wsse:Security header";
  const std::string name = child(token, "Username", kWsseNs).text().as_string();
  if (name != user_) return "Unknown user '" + name + "'";
  const pugi::xml_node password = child(token, "Password", kWsseNs);
  if (!password) return "No wsse:Password in the UsernameToken";
  const std::string_view type = password.attribute("Type").value();
  const std::string_view value = password.text().as_string();
  if (type.empty() || type.ends_with("#PasswordText")) {
    if (!same_secret(value, password_)) return "Wrong password for user '" + name + "'";
    return {};
  }
  if (!type.ends_with("#PasswordDigest")) return "Unsupported Password Type '" + std::string(type) + "'";
  const pugi::xml_node nonce = child(token, "Nonce", kWsseNs);
  pugi::xml_node created = child(token, "Created", kWsuNs);
  if (!created) created = child(token, "Created", kWsseNs);  // some clients put it in the wsse namespace
  if (!nonce || !created) return "PasswordDigest without a wsse:Nonce and a wsu:Created";
  std::string nonce_bytes;
  if (!unbase64(nonce.text().as_string(), nonce_bytes)) return "wsse:Nonce is not base64";
  std::chrono::system_clock::time_point when;
  const std::string created_text = created.text().as_string();
  if (!parse_created(created_text, when)) return "wsu:Created '" + created_text + "' is not an xsd:dateTime";
  const auto now = std::chrono::system_clock::now();
  if (when < now - kWindow) return "wsu:Created is more than 5 minutes old";
  if (when > now + kWindow) return "wsu:Created is more than 5 minutes in the future";
  const std::string expected = base64(digest(EVP_sha1(), nonce_bytes + created_text + password_));
  if (!same_secret(expected, value)) return "Wrong password for user '" + name + "'";
  if (!remember_nonce(nonce.text().as_string(), now)) return "wsse:Nonce already used within the last 5 minutes";
  return {};
}

// A nonce is remembered as long as a message carrying it could be accepted:
// Created is at most 5 minutes ahead of its arrival and is accepted until 5
// minutes after, so 10 minutes from arrival covers it; the set is pruned by arrival.
bool WsseAuth::remember_nonce(const std::string& nonce, std::chrono::system_clock::time_point now) {
  const std::lock_guard lock(mutex_);
  while (!seen_.empty() && (seen_.front().first < now - 2 * kWindow || seen_.size() >= kMaxWsseNonces)) {
    nonces_.erase(seen_.front().second);
    seen_.pop_front();
  }
  if (!nonces_.insert(nonce).second) return false;
  seen_.emplace_back(now, nonce);
  return true;
}

}  // namespace soapbench::server
