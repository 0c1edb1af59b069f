#pragma once
// One linear pass over a request body before gSOAP parses it: what gSOAP would
// change silently (or parse in quadratic time) is refused here with a fault that
// names the element, so that every value is either echoed exactly or refused.
//
// Refused: characters XML 1.0 forbids (NUL, other C0 controls, U+FFFE/FFFF, raw or
// as references), invalid UTF-8 (overlong forms, surrogates, 5- and 6-byte forms),
// UTF-16, a DTD in any case, undefined entities, undeclared namespace prefixes
// (in names, in xsi:type values and in the contract's QName element), invalid
// lexical values of the contract's xsd:decimal, xsd:dateTime, xsd:base64Binary and
// xsd:hexBinary elements, and more attributes per element or namespace
// declarations in scope than the limits allow (gSOAP looks both up linearly).
// Rewritten: character references longer than six characters (gSOAP mis-reads
// those, e.g. &#x1F600; as the emoji followed by ';'), to the character itself.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace soapbench::server {

struct XmlLimits {
  size_t max_attributes = 64;  // per element, namespace declarations included (--max-attributes)
  size_t max_namespaces = 64;  // namespace declarations in scope at once (--max-namespaces)
};

class XmlGuard {
 public:
  // "" when the body may go to gSOAP, else the fault text. When long character
  // references had to be rewritten, `rewritten` holds the body to parse instead
  // (it is left empty otherwise).
  std::string check(std::string_view body, const XmlLimits& limits, std::string& rewritten);

  struct Element {
    std::string_view name;
    int type;
    size_t text_start;
    bool simple = true;  // only plain text so far
  };
  struct Buffers {  // kept from one request to the next: no allocation per request
    std::vector<Element> stack;
    std::vector<std::pair<size_t, std::string_view>> decls;
    std::vector<std::string_view> prefixes;
  };

 private:
  Buffers buffers_;
};

}  // namespace soapbench::server
