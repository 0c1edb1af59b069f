#pragma once
// Hand-rendered SOAP 1.1 messages of wsdl/echo.wsdl and the lexical forms of
// its schema types, independent of any SOAP stack. The curl client renders its
// request once with these; tests render canned responses of fake servers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "payload.h"

namespace soapbench::xml {

inline constexpr const char* kSoap11EnvelopeNs = "http://schemas.xmlsoap.org/soap/envelope/";
inline constexpr const char* kSoap12EnvelopeNs = "http://www.w3.org/2003/05/soap-envelope";

enum class Message { request, response };  // echoX or echoXResponse

// Complete envelopes, XML declaration included. The envelope declares the
// prefixes "soap" and "tns"; QNames outside tns get a prefix declared on their element.
std::string render_echo_string(std::string_view text, Message message = Message::request);
std::string render_echo_struct(const std::vector<ItemValue>& items, Message message = Message::request);
// echoBinary: the bytes as one base64Binary `data` element, reserved up front (linear in size).
std::string render_echo_binary(const std::vector<uint8_t>& data, Message message = Message::request);

// Escapes & < > " ' and the characters XML would otherwise normalise (CR in
// text; TAB, LF, CR in attributes) so that the value reads back unchanged.
void append_escaped(std::string& out, std::string_view text);

// xsd:float / xsd:double with enough digits to round-trip; INF, -INF, NaN.
void append_float(std::string& out, float v);
void append_double(std::string& out, double v);

void append_base64(std::string& out, const std::vector<uint8_t>& bytes);
void append_hex(std::string& out, const std::vector<uint8_t>& bytes);
// Decoders accept what the schema allows: whitespace inside base64, either case
// in hex. They return false on a lexical error; `out` is replaced, its capacity reused.
bool decode_base64(std::string_view text, std::vector<uint8_t>& out);
bool decode_hex(std::string_view text, std::vector<uint8_t>& out);

// Lexical forms of the numeric schema types, surrounding whitespace allowed
// (the schema collapses it). nullopt on a lexical or range error.
std::optional<float> parse_float(std::string_view text);
std::optional<double> parse_double(std::string_view text);
template <class Int>
std::optional<Int> parse_integer(std::string_view text);

std::string_view trim(std::string_view text);

}  // namespace soapbench::xml
