#pragma once
// The messages of wsdl/echo.wsdl as plain values, independent of any SOAP stack,
// the default payloads every client sends, and comparison by schema type.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace soapbench {

enum class Color { red, green, blue };

// xsd:dateTime as an instant: seconds since the epoch (UTC) plus microseconds.
struct DateTime {
  int64_t seconds = 0;
  int32_t micros = 0;  // 0..999999
  bool operator==(const DateTime&) const = default;
};

struct QName {
  std::string ns;     // namespace URI
  std::string local;  // local part
  bool operator==(const QName&) const = default;
};

struct NestedValue {
  float var_float = 0;
  int16_t var_short = 0;
  std::string var_string;
  int8_t var_byte = 0;
  std::string var_decimal = "0";  // lexical xsd:decimal; compared by value
  double var_double = 0;
  DateTime var_date_time;
  std::optional<std::string> var_attr_string;  // the attribute
};

struct ItemValue {
  std::string var_string;
  uint8_t var_ubyte = 0;
  uint64_t var_ulong = 0;
  float var_float = 0;
  QName var_qname;
  std::vector<uint8_t> var_base64;
  std::vector<uint8_t> var_hex;
  Color var_color = Color::red;
  NestedValue var_struct;
};

struct PayloadSize {
  size_t string_length = 1024;  // characters in the echoString text
  size_t items = 1;             // items in the echoStruct request
  size_t binary_bytes = 256;    // bytes in each base64Binary and hexBinary field
  size_t data_bytes = 100;      // echoBinary's data, and the tcp client's message (xSocket's 100-byte packet)
};

// The fixed 64-character pattern of the echoString payload: it contains & < > " '
// so that escaping is exercised on every call, as in CXF's Basic_Type test.
extern const char* const kStringPattern;

// `length` characters of the pattern, repeated.
std::string make_string(size_t length);
// `size.items` items, each a CXF Complex_Type item with extreme values (FLT_MAX,
// the most negative short, a dateTime with fractional seconds, ...). Items differ
// by index so that a reordered or duplicated echo is caught.
std::vector<ItemValue> make_items(const PayloadSize& size);

// `n` bytes of every value 0..255 in a fixed, non-repeating-looking order, so
// that a shifted, truncated or reordered echo is caught by a byte comparison.
std::vector<uint8_t> make_bytes(size_t n);

// Compares by schema type: numbers by value, dateTime as an instant, QName by
// namespace and local part, binary by bytes, decimal by numeric value. Returns
// a description of the first difference, or nullopt when equal.
std::optional<std::string> compare_items(const std::vector<ItemValue>& sent,
                                         const std::vector<ItemValue>& got);

// Lexical helpers shared by the XML-level client and tests.
std::optional<DateTime> parse_date_time(const std::string& text);  // any xsd:dateTime form
// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
std::string format_date_time(const DateTime& t);                   // 2006-11-29T12:34:56.789012Z
bool decimal_equal(const std::string& a, const std::string& b);
const char* to_string(Color c);
std::optional<Color> parse_color(const std::string& text);

}  // namespace soapbench
