#pragma once
// The driver's credentials: HTTP Basic or Digest answers to a server's
// challenge (--user, the raw client; curl and gSOAP have their own), and a
// WS-Security UsernameToken in every request's soap:Header (--wsse, raw and curl).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth_fields.h"  // split_credentials, shared with the server
#include "response_check.h"

namespace soapbench {


// HTTP authentication as curl does it: the first request goes without; a 401's
// WWW-Authenticate picks the scheme (Digest SHA-256, then Digest MD5, then
// Basic); then every request carries the answer: Basic's constant one, or
// Digest's on the same nonce with the next nonce count, until the server says stale.
class HttpCredentials {
 public:
  explicit HttpCredentials(std::string_view user_password);
  // A 401's WWW-Authenticate values. True when they give a new reason to try
  // (the first challenge, or a stale nonce); false when the credentials already
  // sent were refused, or no challenge is one this client answers.
  bool learn(const std::vector<std::string>& challenges);
  bool ready() const { return scheme_ != Scheme::none; }
  bool digest() const { return scheme_ == Scheme::digest; }
  // The Authorization field line (CRLF included) of the next request.
  const std::string& field(std::string_view method, std::string_view uri);

 private:
  enum class Scheme { none, basic, digest };
  std::string user_, password_;
  Scheme scheme_ = Scheme::none;
  bool sent_since_challenge_ = false;  // a request went with the current challenge's answer
  std::string realm_, nonce_, opaque_, algorithm_, cnonce_;
  std::string ha1_, ha2_, ha2_of_;  // Digest's hashes, kept while realm and uri stay the same
  uint32_t nc_ = 0;
  std::string field_;
};

// A check that puts a UsernameToken into the envelope its inner check renders,
// before the soap:Body (in the soap:Header, made when there is none). With
// PasswordDigest each call's token gets a fresh Nonce and Created, overwritten
// in place: they have fixed lengths, so the request keeps its length.
std::unique_ptr<ResponseCheck> with_wsse(std::unique_ptr<ResponseCheck> inner, std::string_view user_password,
                                         bool digest);

}  // namespace soapbench
