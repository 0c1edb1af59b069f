#include "auth_fields.h"

#include <cctype>

namespace soapbench {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool split_credentials(std::string_view text, std::string& name, std::string& password) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  name = text.substr(0, colon);
  password = text.substr(colon + 1);
  return true;
}

std::map<std::string, std::string> parse_auth_params(std::string_view s) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    const size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string name(trim(s.substr(i, eq - i)));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    i = eq + 1;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::string value;
    if (i < s.size() && s[i] == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        value += s[i];
      }
      ++i;  // the closing quote
    } else {
      const size_t end = s.find(',', i);
      value = std::string(trim(s.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i)));
      i = end == std::string_view::npos ? s.size() : end;
    }
    out[name] = std::move(value);
  }
  return out;
}

std::string digest(const EVP_MD* md, std::string_view data) {
  unsigned char d[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(data.data(), data.size(), d, &len, md, nullptr);
  return std::string(reinterpret_cast<char*>(d), len);
}

std::string hex_digest(const EVP_MD* md, std::string_view data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : digest(md, data)) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool unbase64(std::string_view text, std::string& out) {
  if (text.size() % 4 != 0) return false;
  out.assign(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return false;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return true;
}

}  // namespace soapbench
