#include "request_file.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <pugixml.hpp>

#include "xml_reader.h"

namespace soapbench {

namespace {

constexpr std::string_view kSoap11 = "http://schemas.xmlsoap.org/soap/envelope/";
constexpr std::string_view kSoap12 = "http://www.w3.org/2003/05/soap-envelope";

// 1-based line of byte `offset`.
size_t line_of(const std::string& text, ptrdiff_t offset) {
  size_t line = 1;
  for (ptrdiff_t i = 0; i < offset && i < static_cast<ptrdiff_t>(text.size()); ++i)
    if (text[static_cast<size_t>(i)] == '\n') ++line;
  return line;
}

}  // namespace

CustomCall load_request_file(const std::string& path, const std::string& soap_version) {
  auto bad = [&](const std::string& why) { return std::invalid_argument(path + ": " + why); };
  std::ifstream in(path, std::ios::binary);
  if (!in) throw bad("cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  CustomCall call;
  call.file = path;
  call.envelope = text.str();
  if (call.envelope.empty()) throw bad("is empty");

  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(call.envelope.data(), call.envelope.size(),
                                                        pugi::parse_default | pugi::parse_declaration);
  if (!parsed)
    throw bad("line " + std::to_string(line_of(call.envelope, parsed.offset)) + ": not well-formed XML: " +
              parsed.description());
  const pugi::xml_node root = doc.document_element();
  bool ok = true;
  const std::string_view ns = xml::namespace_of(root, ok);
  if (!ok || xml::local_name(root) != "Envelope" || (ns != kSoap11 && ns != kSoap12))
    throw bad("line " + std::to_string(line_of(call.envelope, root.offset_debug())) + ": the root element <" +
              root.name() + "> is not a SOAP 1.1 or 1.2 Envelope");
  pugi::xml_node body;
  for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element && xml::local_name(c) == "Body") body = c;
  if (!body) throw bad("the Envelope has no Body");
  pugi::xml_node payload;
  for (pugi::xml_node c = body.first_child(); c && !payload; c = c.next_sibling())
    if (c.type() == pugi::node_element) payload = c;
  if (!payload) throw bad("the Body holds no element");
  call.name = std::string(xml::local_name(payload));
  const std::string detected = ns == kSoap12 ? "1.2" : "1.1";
  if (!soap_version.empty() && soap_version != detected)
    throw bad("the envelope is SOAP " + detected + ", not the " + soap_version + " of --soap");
  call.soap_version = detected;
  return call;
}

std::vector<std::string> request_headers(const CustomCall& call) {
  std::vector<std::string> h;
  if (call.soap_version == "1.2") {
    h.push_back("Content-Type: application/soap+xml; charset=utf-8" +
                (call.soap_action.empty() ? std::string() : "; action=\"" + call.soap_action + "\""));
  } else {
    h.push_back("Content-Type: text/xml; charset=utf-8");
    h.push_back("SOAPAction: \"" + call.soap_action + "\"");
  }
  h.insert(h.end(), call.headers.begin(), call.headers.end());
  return h;
}

void validate_header(const std::string& header) {
  const size_t colon = header.find(':');
  if (colon == std::string::npos || colon == 0)
    throw std::invalid_argument("'" + header + "' is not 'Name: value'");
  for (size_t i = 0; i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(header[i]);
    if (c <= ' ' || c >= 127 || std::string_view("()<>@,;:\\\"/[]?={}").find(static_cast<char>(c)) != std::string_view::npos)
      throw std::invalid_argument("'" + header.substr(0, colon) + "' is not a header name");
  }
  if (header.find_first_of("\r\n") != std::string::npos)
    throw std::invalid_argument("a header value must not hold a line break");
  // What the client writes itself: a second copy would make the request ambiguous.
  std::string name = header.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "host" || name == "content-length" || name == "transfer-encoding" || name == "connection")
    throw std::invalid_argument(header.substr(0, colon) + " is set by the client itself");
  if (name == "content-type") throw std::invalid_argument("Content-Type follows --soap 1.1|1.2");
  if (name == "soapaction") throw std::invalid_argument("SOAPAction is set by --soap-action");
}

std::string soap_action_value(std::string action) {
  if (action.size() >= 2 && action.front() == '"' && action.back() == '"') action = action.substr(1, action.size() - 2);
  if (action.find_first_of("\"\r\n") != std::string::npos)
    throw std::invalid_argument("must not hold a quote or a line break");
  return action;
}

}  // namespace soapbench
