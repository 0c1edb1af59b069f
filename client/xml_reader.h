#pragma once
// Reads echo responses with pugixml, resolving namespace prefixes the way XML
// Namespaces define them: other stacks pick other prefixes or default
// namespaces, so elements are matched by namespace URI and local name.
#include <string>
#include <string_view>
#include <vector>

#include <pugixml.hpp>

#include "payload.h"

namespace soapbench::xml {

enum class ReadStatus {
  echo,       // the expected response element was read into the output values
  fault,      // the body is a SOAP Fault; problem() is its faultstring
  not_soap,   // not well-formed XML, or no SOAP Envelope/Body
  not_echo,   // a SOAP body, but not the expected response or a value is not lexically valid
};

// Reuses its document and buffers from call to call; not thread-safe.
class ResponseReader {
 public:
  // `body` is parsed in place and left modified.
  ReadStatus read_echo_string(std::string& body, std::string& text);
  ReadStatus read_echo_struct(std::string& body, std::vector<ItemValue>& items);
  ReadStatus read_echo_binary(std::string& body, std::vector<uint8_t>& data);
  // After a status other than echo: the faultstring or what was wrong (short).
  const std::string& problem() const { return problem_; }

 private:
  // Parses and returns the first element in the Body, or an empty node with problem_ set.
  pugi::xml_node body_child(std::string& body, ReadStatus& status);
  pugi::xml_node response_element(std::string& body, const char* local, ReadStatus& status);
  bool read_item(pugi::xml_node item, ItemValue& out);
  bool read_nested(pugi::xml_node nested, NestedValue& out);
  // lookup_namespace() with the parent's part cached: siblings share their parent's
  // scope, so a response costs an ancestor walk per parent, not per element.
  bool resolve(pugi::xml_node element, std::string_view prefix, std::string_view& uri);
  bool in_service_ns(pugi::xml_node element);  // namespace URI is kNamespace, prefix declared
  ReadStatus fail(ReadStatus status, std::string_view what, std::string_view where = {});
  bool reject(std::string_view what, std::string_view where = {});  // not_echo, as a bool

  struct Scope {  // what `prefix` means at (and below) `parent`, views into doc_
    pugi::xml_node parent;
    std::string_view prefix, uri;
    bool ok = false;
  };
  Scope scopes_[2];  // two: element names and QName values may use different prefixes
  unsigned next_scope_ = 0;

  pugi::xml_document doc_;
  std::string problem_;
  std::string scratch_;  // joins values that span several text nodes
  std::string lexical_;  // a value copied for the std::string parsers of payload.h
};

// The namespace URI of an element, resolved through the xmlns declarations in
// scope; empty for no namespace. `ok` is false for an undeclared prefix.
std::string_view namespace_of(pugi::xml_node element, bool& ok);
// The namespace bound to `prefix` ("" is the default namespace) at `element`.
bool lookup_namespace(pugi::xml_node element, std::string_view prefix, std::string_view& uri);
std::string_view local_name(pugi::xml_node element);
bool is_element(pugi::xml_node node, std::string_view ns, std::string_view local);

}  // namespace soapbench::xml
