#pragma once
// What HTTP and WS-Security authentication share on both sides of the wire
// (service/auth.cpp checks credentials, client/credentials.cpp sends them), with
// OpenSSL's digests: so that both read and write the same text the same way.
#include <openssl/evp.h>

#include <map>
#include <string>
#include <string_view>

namespace soapbench {

// "NAME:PASSWORD" (the password may hold ':'); false without a ':' or a name.
bool split_credentials(std::string_view text, std::string& name, std::string& password);

// The auth-params of a challenge or a Digest credential (RFC 9110 11.2, RFC 7616
// 3.4): name=token or name="quoted" (backslash escapes), comma-separated; names
// are case-insensitive and kept lower-case.
std::map<std::string, std::string> parse_auth_params(std::string_view text);

// `data` digested by `md`, raw bytes, and as lower-case hex (Digest's form).
std::string digest(const EVP_MD* md, std::string_view data);
std::string hex_digest(const EVP_MD* md, std::string_view data);

// Standard base64 with padding (Basic credentials, WS-Security nonces and digests).
std::string base64(std::string_view bytes);
// Strict base64 (padding required, no white space); false when malformed.
bool unbase64(std::string_view text, std::string& out);

}  // namespace soapbench
