#include "xml_reader.h"

#include <cstring>

#include "soapbench/contract.h"
#include "xml_values.h"

namespace soapbench::xml {
namespace {

// Whitespace-only text is kept when it is an element's only content: an echoed
// string of spaces must not read back empty.
constexpr unsigned kParseOptions = pugi::parse_default | pugi::parse_ws_pcdata_single;
constexpr size_t kMaxProblem = 200;

bool is_text(pugi::xml_node n) { return n.type() == pugi::node_pcdata || n.type() == pugi::node_cdata; }

// The character content of a simple-typed element: almost always one text node,
// read in place; several (text around CDATA or comments) are joined in scratch.
std::string_view text_of(pugi::xml_node element, std::string& scratch) {
  const pugi::xml_node first = element.first_child();
  if (!first) return {};
  if (is_text(first) && !first.next_sibling()) return first.value();
  scratch.clear();
  for (pugi::xml_node c = first; c; c = c.next_sibling())
    if (is_text(c)) scratch += c.value();
  return scratch;
}

bool is_envelope_ns(std::string_view ns) { return ns == kSoap11EnvelopeNs || ns == kSoap12EnvelopeNs; }

// Field bits of an item and of its nested struct, to notice a missing element.
enum ItemField : unsigned {
  f_string = 1, f_ubyte = 2, f_ulong = 4, f_float = 8, f_qname = 16, f_base64 = 32, f_hex = 64,
  f_color = 128, f_struct = 256, all_item_fields = 511
};
enum NestedField : unsigned {
  n_float = 1, n_short = 2, n_string = 4, n_byte = 8, n_decimal = 16, n_double = 32, n_date_time = 64,
  all_nested_fields = 127
};

}  // namespace

std::string_view local_name(pugi::xml_node element) {
  const std::string_view name = element.name();
  const size_t colon = name.find(':');
  return colon == std::string_view::npos ? name : name.substr(colon + 1);
}

namespace {

// A declaration of `prefix` on `n` itself.
bool declared_on(pugi::xml_node n, std::string_view prefix, std::string_view& uri) {
  for (pugi::xml_attribute a = n.first_attribute(); a; a = a.next_attribute()) {
    const std::string_view name = a.name();
    const bool match = prefix.empty() ? name == "xmlns"
                                      : name.size() == 6 + prefix.size() && name.starts_with("xmlns:") &&
                                            name.substr(6) == prefix;
    if (match) {
      uri = a.value();
      return true;
    }
  }
  return false;
}

std::string_view prefix_of(pugi::xml_node element) {
  const std::string_view name = element.name();
  const size_t colon = name.find(':');
  return colon == std::string_view::npos ? std::string_view() : name.substr(0, colon);
}

}  // namespace

bool lookup_namespace(pugi::xml_node element, std::string_view prefix, std::string_view& uri) {
  for (pugi::xml_node n = element; n && n.type() == pugi::node_element; n = n.parent())
    if (declared_on(n, prefix, uri)) return true;
  if (prefix == "xml") {
    uri = "http://www.w3.org/XML/1998/namespace";
    return true;
  }
  uri = {};
  return prefix.empty();  // no default namespace declared: no namespace
}

bool ResponseReader::resolve(pugi::xml_node element, std::string_view prefix, std::string_view& uri) {
  if (declared_on(element, prefix, uri)) return true;  // a redeclaration here wins over the cache
  const pugi::xml_node parent = element.parent();
  for (const Scope& s : scopes_) {
    if (s.parent == parent && s.prefix == prefix) {
      uri = s.uri;
      return s.ok;
    }
  }
  Scope& s = scopes_[next_scope_++ % 2];
  s.parent = parent;
  s.prefix = prefix;
  s.ok = lookup_namespace(parent, prefix, s.uri);
  uri = s.uri;
  return s.ok;
}

bool ResponseReader::in_service_ns(pugi::xml_node element) {
  std::string_view uri;
  constexpr std::string_view kServiceNs = kNamespace;  // its length computed once, not per element
  return resolve(element, prefix_of(element), uri) && uri == kServiceNs;
}

std::string_view namespace_of(pugi::xml_node element, bool& ok) {
  const std::string_view name = element.name();
  const size_t colon = name.find(':');
  std::string_view uri;
  ok = lookup_namespace(element, colon == std::string_view::npos ? "" : name.substr(0, colon), uri);
  return uri;
}

bool is_element(pugi::xml_node node, std::string_view ns, std::string_view local) {
  if (node.type() != pugi::node_element || local_name(node) != local) return false;
  bool ok = false;
  return namespace_of(node, ok) == ns && ok;
}

ReadStatus ResponseReader::fail(ReadStatus status, std::string_view what, std::string_view where) {
  problem_.assign(what.substr(0, kMaxProblem));
  if (!where.empty()) {
    problem_ += ": ";
    problem_.append(where.substr(0, kMaxProblem));
  }
  return status;
}

bool ResponseReader::reject(std::string_view what, std::string_view where) {
  fail(ReadStatus::not_echo, what, where);
  return false;
}

pugi::xml_node ResponseReader::body_child(std::string& body, ReadStatus& status) {
  status = ReadStatus::not_soap;
  for (Scope& s : scopes_) s = {};  // nodes of the last document may be reused by this one
  const pugi::xml_parse_result parsed =
      doc_.load_buffer_inplace(body.data(), body.size(), kParseOptions, pugi::encoding_auto);
  if (!parsed) {
    fail(status, "response is not XML", parsed.description());
    return {};
  }
  const pugi::xml_node envelope = doc_.document_element();
  bool ok = false;
  const std::string_view env_ns = namespace_of(envelope, ok);
  if (!ok || local_name(envelope) != "Envelope" || !is_envelope_ns(env_ns)) {
    fail(status, "response is not a SOAP envelope", envelope.name());
    return {};
  }
  pugi::xml_node soap_body;
  for (pugi::xml_node c = envelope.first_child(); c && !soap_body; c = c.next_sibling())
    if (is_element(c, env_ns, "Body")) soap_body = c;
  if (!soap_body) {
    fail(status, "SOAP envelope without Body");
    return {};
  }
  pugi::xml_node first;
  for (pugi::xml_node c = soap_body.first_child(); c && !first; c = c.next_sibling())
    if (c.type() == pugi::node_element) first = c;
  status = ReadStatus::not_echo;
  if (!first) {
    fail(status, "empty SOAP Body");
    return {};
  }
  if (is_element(first, env_ns, "Fault")) {
    // SOAP 1.1 faultstring (unqualified); SOAP 1.2 Reason/Text.
    status = ReadStatus::fault;
    pugi::xml_node text;
    for (pugi::xml_node c = first.first_child(); c && !text; c = c.next_sibling()) {
      if (local_name(c) == "faultstring") text = c;
      else if (local_name(c) == "Reason") text = c.find_child([](pugi::xml_node t) { return local_name(t) == "Text"; });
    }
    fail(status, text ? text_of(text, scratch_) : std::string_view("SOAP Fault without faultstring"));
    return {};
  }
  status = ReadStatus::echo;
  return first;
}

pugi::xml_node ResponseReader::response_element(std::string& body, const char* local, ReadStatus& status) {
  const pugi::xml_node first = body_child(body, status);
  if (!first) return {};
  if (!is_element(first, kNamespace, local)) {
    bool ok = false;
    const std::string_view ns = namespace_of(first, ok);
    problem_.assign("expected {").append(kNamespace).append("}").append(local).append(", got {");
    problem_.append(ns.substr(0, kMaxProblem)).append("}").append(local_name(first).substr(0, kMaxProblem));
    status = ReadStatus::not_echo;
    return {};
  }
  return first;
}

ReadStatus ResponseReader::read_echo_string(std::string& body, std::string& text) {
  ReadStatus status;
  const pugi::xml_node response = response_element(body, "echoStringResponse", status);
  if (!response) return status;
  for (pugi::xml_node c = response.first_child(); c; c = c.next_sibling()) {
    if (is_element(c, kNamespace, "text")) {
      text.assign(text_of(c, scratch_));
      return ReadStatus::echo;
    }
  }
  return fail(ReadStatus::not_echo, "echoStringResponse without text element");
}

ReadStatus ResponseReader::read_echo_struct(std::string& body, std::vector<ItemValue>& items) {
  ReadStatus status;
  const pugi::xml_node response = response_element(body, "echoStructResponse", status);
  if (!response) return status;
  size_t count = 0;
  for (pugi::xml_node c = response.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (local_name(c) != "item" || !in_service_ns(c)) return fail(ReadStatus::not_echo, "unexpected element", c.name());
    if (count == items.size()) items.emplace_back();  // values already there keep their buffers
    if (!read_item(c, items[count])) return ReadStatus::not_echo;
    ++count;
  }
  items.resize(count);
  return ReadStatus::echo;
}

ReadStatus ResponseReader::read_echo_binary(std::string& body, std::vector<uint8_t>& data) {
  ReadStatus status;
  const pugi::xml_node response = response_element(body, "echoBinaryResponse", status);
  if (!response) return status;
  for (pugi::xml_node c = response.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (local_name(c) != "data" || !in_service_ns(c)) return fail(ReadStatus::not_echo, "unexpected element", c.name());
    const std::string_view text = text_of(c, scratch_);
    if (!decode_base64(text, data)) return fail(ReadStatus::not_echo, "data is not xsd:base64Binary", text.substr(0, 40));
    return ReadStatus::echo;
  }
  return fail(ReadStatus::not_echo, "echoBinaryResponse without data element");
}

namespace {

// Sets problem text for a value that does not parse as its schema type.
bool bad_value(std::string& problem, std::string_view field, std::string_view text, const char* type) {
  problem.assign(field).append(": '").append(text.substr(0, 40)).append("' is not ").append(type);
  return false;
}

}  // namespace

bool ResponseReader::read_item(pugi::xml_node item, ItemValue& out) {
  unsigned seen = 0;
  for (pugi::xml_node c = item.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (!in_service_ns(c)) return reject("item has unexpected element", c.name());
    const std::string_view name = local_name(c);
    if (name == "varStruct") {
      if (!read_nested(c, out.var_struct)) return false;
      seen |= f_struct;
      continue;
    }
    const std::string_view text = text_of(c, scratch_);
    if (name == "varString") {
      out.var_string.assign(text);
      seen |= f_string;
    } else if (name == "varUByte") {
      const auto v = parse_integer<uint8_t>(text);
      if (!v) return bad_value(problem_, name, text, "an xsd:unsignedByte");
      out.var_ubyte = *v;
      seen |= f_ubyte;
    } else if (name == "varULong") {
      const auto v = parse_integer<uint64_t>(text);
      if (!v) return bad_value(problem_, name, text, "an xsd:unsignedLong");
      out.var_ulong = *v;
      seen |= f_ulong;
    } else if (name == "varFloat") {
      const auto v = parse_float(text);
      if (!v) return bad_value(problem_, name, text, "an xsd:float");
      out.var_float = *v;
      seen |= f_float;
    } else if (name == "varQName") {
      const std::string_view q = trim(text);
      const size_t colon = q.find(':');
      const std::string_view prefix = colon == std::string_view::npos ? "" : q.substr(0, colon);
      std::string_view uri;
      if (!resolve(c, prefix, uri)) return bad_value(problem_, name, text, "a QName with a declared prefix");
      out.var_qname.ns.assign(uri);
      out.var_qname.local.assign(colon == std::string_view::npos ? q : q.substr(colon + 1));
      seen |= f_qname;
    } else if (name == "varBase64Binary") {
      if (!decode_base64(text, out.var_base64)) return bad_value(problem_, name, text, "xsd:base64Binary");
      seen |= f_base64;
    } else if (name == "varHexBinary") {
      if (!decode_hex(text, out.var_hex)) return bad_value(problem_, name, text, "xsd:hexBinary");
      seen |= f_hex;
    } else if (name == "varColor") {
      lexical_.assign(trim(text));
      const auto v = parse_color(lexical_);
      if (!v) return bad_value(problem_, name, text, "a Color");
      out.var_color = *v;
      seen |= f_color;
    } else {
      return reject("item has unexpected element", c.name());
    }
  }
  if (seen != all_item_fields) return reject("item lacks an element");
  return true;
}

bool ResponseReader::read_nested(pugi::xml_node nested, NestedValue& out) {
  if (const pugi::xml_attribute a = nested.attribute("varAttrString")) {
    if (out.var_attr_string) out.var_attr_string->assign(a.value());
    else out.var_attr_string.emplace(a.value());
  } else {
    out.var_attr_string.reset();
  }
  unsigned seen = 0;
  for (pugi::xml_node c = nested.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    if (!in_service_ns(c)) return reject("varStruct has unexpected element", c.name());
    const std::string_view name = local_name(c);
    const std::string_view text = text_of(c, scratch_);
    if (name == "varFloat") {
      const auto v = parse_float(text);
      if (!v) return bad_value(problem_, "varStruct.varFloat", text, "an xsd:float");
      out.var_float = *v;
      seen |= n_float;
    } else if (name == "varShort") {
      const auto v = parse_integer<int16_t>(text);
      if (!v) return bad_value(problem_, "varStruct.varShort", text, "an xsd:short");
      out.var_short = *v;
      seen |= n_short;
    } else if (name == "varString") {
      out.var_string.assign(text);
      seen |= n_string;
    } else if (name == "varByte") {
      const auto v = parse_integer<int8_t>(text);
      if (!v) return bad_value(problem_, "varStruct.varByte", text, "an xsd:byte");
      out.var_byte = *v;
      seen |= n_byte;
    } else if (name == "varDecimal") {
      out.var_decimal.assign(trim(text));  // compared by value, not lexically
      seen |= n_decimal;
    } else if (name == "varDouble") {
      const auto v = parse_double(text);
      if (!v) return bad_value(problem_, "varStruct.varDouble", text, "an xsd:double");
      out.var_double = *v;
      seen |= n_double;
    } else if (name == "varDateTime") {
      lexical_.assign(trim(text));
      const auto v = parse_date_time(lexical_);
      if (!v) return bad_value(problem_, "varStruct.varDateTime", text, "an xsd:dateTime");
      out.var_date_time = *v;
      seen |= n_date_time;
    } else {
      return reject("varStruct has unexpected element", c.name());
    }
  }
  if (seen != all_nested_fields) return reject("varStruct lacks an element");
  return true;
}

}  // namespace soapbench::xml
