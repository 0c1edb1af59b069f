#pragma once
// What every response to a request file must satisfy (--expect), checked on
// every call: a response that fails one is a failed call of the kind that says
// why (http_status, soap_fault, mismatch, read), never a silent success.
//   echo           the response payload's elements and values equal the request's,
//                  by element path (local names below the parameters, the payload's
//                  children, which services rename: `in` comes back as `out`) and value
//                  (echo_values.h: text, but numbers and dateTimes as values, which
//                  stacks write in their own canonical forms, and QNames by namespace
//                  and local name): prefixes, namespaces
//                  and the payload element's own name are ignored, which is what any
//                  echo service returns; not a Fault
//   xpath:EXPR     pugixml's XPath 1.0 over the response; true passes (no namespace
//                  axes: match names with local-name())
//   status:CODE    the HTTP status is CODE (without it: any 2xx)
//   no-fault       the Body is no SOAP Fault (the default when no --expect is given)
//   contains:TEXT  the response body holds TEXT, byte for byte
#include <memory>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "request_file.h"
#include "response_check.h"

namespace soapbench {

struct Expectation {
  enum class Kind { echo, xpath, status, no_fault, contains };
  Kind kind = Kind::no_fault;
  std::string text;  // the XPath or the TEXT as given; for status, the code
  long status = 0;
};

// Throws std::invalid_argument saying what is wrong (a bad XPath: where).
Expectation parse_expectation(const std::string& text);

// One per client; reuses its document and buffers. Throws std::invalid_argument
// for a bad expectation.
class ExpectationCheck final : public ResponseCheck {
 public:
  explicit ExpectationCheck(const CustomCall& call);
  // With variables, each call's envelope (and, for echo, the values it sends).
  const std::string& render_request() override;
  bool varies() const override { return template_.varies(); }
  // Pieces, unless echo must read this call's request (then render_request()).
  bool render_pieces(std::vector<std::string_view>& pieces) override {
    if (!template_.varies() || echo_) return false;
    template_.render_pieces(pieces);
    return true;
  }
  CallResult check(long status, std::string& body) override;
  // echo compares with this call's own request when variables make one.
  bool judges_response_alone() const override { return !(echo_ && template_.varies()); }

 private:
  struct Leaf {
    std::string path;  // "item/varString": local names below the payload element
    std::string text;
    // The element, while its document lives: a response leaf's prefix is looked
    // up only when the request's leaf at its place was a QName.
    pugi::xml_node node;
    // A request leaf that reads PREFIX:NAME with PREFIX bound in scope: that
    // namespace, for comparing QNames (xsd:string and xs:string are one value
    // when both prefixes name XML Schema); empty for any other text.
    std::string qname_ns;
  };
  // The payload element of a parsed envelope, or an empty node.
  static pugi::xml_node payload_of(const pugi::xml_document& doc, pugi::xml_node* body);
  static void leaves(pugi::xml_node payload, std::vector<Leaf>& out);
  // leaves() of the request, with each QName's namespace resolved (its document may go).
  static void request_leaves(pugi::xml_node payload, std::vector<Leaf>& out);
  static bool same_leaf_value(const Leaf& sent, const Leaf& got);

  std::string envelope_;
  RequestTemplate template_;
  bool echo_ = false;
  std::string rendered_;          // this call's envelope, with variables
  pugi::xml_document request_doc_;  // echo with variables: this call's request, parsed
  std::vector<Expectation> expect_;
  std::vector<pugi::xpath_query> queries_;  // one per xpath expectation, in order
  std::vector<Leaf> sent_;                  // the request's leaves, for echo
  bool need_xml_ = false;
  bool no_fault_ = false;
  const Expectation* status_ = nullptr;     // into expect_
  pugi::xml_document doc_;
  std::vector<Leaf> got_;
};

}  // namespace soapbench
