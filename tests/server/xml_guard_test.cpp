// The XML guard alone, without a server: its word-at-a-time checks of the binary
// types agree with the per-character rule for every byte at every position of a
// word, so that no character at a boundary of a range slips through.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "xml_guard.h"

namespace soapbench::server {
namespace {

std::string guard(const std::string& element, const std::string& value) {
  XmlGuard g;
  std::string rewritten;
  return g.check("<e><" + element + ">" + value + "</" + element + "></e>", XmlLimits{}, rewritten);
}

bool is_b64(unsigned char c) { return std::isalnum(c) || c == '+' || c == '/'; }
bool is_hex(unsigned char c) { return std::isxdigit(c) != 0; }

// 24 valid characters (three words), then byte b at position k.
TEST(XmlGuardBinary, EveryByteAtEveryPositionIsJudgedAsThePerCharacterRuleSays) {
  for (int b = 1; b < 256; ++b) {
    const auto c = static_cast<unsigned char>(b);
    if (c == '<' || c == '&') continue;  // markup, not a value
    for (size_t k = 0; k < 24; ++k) {
      std::string hex = "0123456789abcdefABCDEF01";
      hex[k] = static_cast<char>(c);
      // Hex: surrounding blanks are trimmed (then the length is odd), any other non-digit is refused.
      const bool hex_ok = is_hex(c);
      EXPECT_EQ(guard("varHexBinary", hex).empty(), hex_ok) << "byte " << b << " at " << k;

      std::string b64 = "QUJDRA+/QUJDRA+/QUJDRA9z";
      b64[k] = static_cast<char>(c);
      // Base64: blanks are skipped (then 23 characters: refused); '=' only as the last one or two.
      const bool b64_ok = is_b64(c) || (c == '=' && k == 23);
      EXPECT_EQ(guard("varBase64Binary", b64).empty(), b64_ok) << "byte " << b << " at " << k << ": " << guard("varBase64Binary", b64);
    }
  }
}

TEST(XmlGuardBinary, ValidValuesOfEveryLengthPass) {
  std::string hex, b64;
  for (int n = 0; n < 40; ++n) {
    EXPECT_EQ(guard("varHexBinary", hex), "") << hex;
    EXPECT_EQ(guard("data", b64 + std::string((4 - b64.size() % 4) % 4, '=')).empty(), b64.size() % 4 != 1) << b64;
    hex += "aF";
    b64 += "Zz9+"[n % 4];
  }
}

}  // namespace
}  // namespace soapbench::server
