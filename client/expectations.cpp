#include "expectations.h"

#include <cctype>
#include <stdexcept>

#include "echo_values.h"
#include "xml_reader.h"

namespace soapbench {

namespace {
const char kKinds[] = "echo, no-fault, xpath:EXPR, status:CODE or contains:TEXT";

std::string text_of(pugi::xml_node e) {
  std::string t;
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) t += c.value();
  return t;
}

// The namespace a QName-like text's prefix is bound to where the text stands,
// or "" (not PREFIX:NAME of XML names, or the prefix unbound).
std::string qname_namespace(pugi::xml_node e, const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return {};
  auto name_char = [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c >= 0x80; };
  for (size_t i = 0; i < text.size(); ++i)
    if (i != colon && !name_char(static_cast<unsigned char>(text[i]))) return {};
  if (std::isdigit(static_cast<unsigned char>(text[0])) || std::isdigit(static_cast<unsigned char>(text[colon + 1])))
    return {};
  const std::string attribute = "xmlns:" + text.substr(0, colon);
  for (pugi::xml_node n = e; n; n = n.parent())
    if (pugi::xml_attribute a = n.attribute(attribute.c_str())) return a.value();
  return {};
}

std::string fault_text(pugi::xml_node fault) {
  // SOAP 1.1 faultstring; SOAP 1.2 Reason/Text.
  for (pugi::xml_node c = fault.first_child(); c; c = c.next_sibling()) {
    const std::string_view n = xml::local_name(c);
    if (n == "faultstring") return text_of(c);
    if (n == "Reason")
      for (pugi::xml_node t = c.first_child(); t; t = t.next_sibling())
        if (xml::local_name(t) == "Text") return text_of(t);
  }
  return "SOAP Fault";
}
}  // namespace

Expectation parse_expectation(const std::string& text) {
  Expectation e;
  auto after = [&](std::string_view prefix) { return text.substr(prefix.size()); };
  if (text == "echo") {
    e.kind = Expectation::Kind::echo;
  } else if (text == "no-fault") {
    e.kind = Expectation::Kind::no_fault;
  } else if (text.rfind("xpath:", 0) == 0) {
    e.kind = Expectation::Kind::xpath;
    e.text = after("xpath:");
    try {
      pugi::xpath_query q(e.text.c_str());
    } catch (const pugi::xpath_exception& x) {
      throw std::invalid_argument("xpath:" + e.text + ": " + x.result().description() + " at character " +
                                  std::to_string(x.result().offset + 1));
    }
    if (e.text.empty()) throw std::invalid_argument("xpath: needs an expression");
  } else if (text.rfind("status:", 0) == 0) {
    e.kind = Expectation::Kind::status;
    e.text = after("status:");
    size_t used = 0;
    try {
      e.status = std::stol(e.text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != e.text.size() || e.text.empty() || e.status < 100 || e.status > 599)
      throw std::invalid_argument("status:" + e.text + ": not an HTTP status code (100-599)");
  } else if (text.rfind("contains:", 0) == 0) {
    e.kind = Expectation::Kind::contains;
    e.text = after("contains:");
    if (e.text.empty()) throw std::invalid_argument("contains: needs the text to look for");
  } else {
    throw std::invalid_argument("'" + text + "' is not " + kKinds);
  }
  return e;
}

ExpectationCheck::ExpectationCheck(const CustomCall& call)
    : envelope_(call.envelope), template_(call.envelope, call.data.file.empty() ? nullptr : &call.data) {
  template_.set_connection(call.connection);
  for (const std::string& t : call.expect.empty() ? std::vector<std::string>{"no-fault"} : call.expect)
    expect_.push_back(parse_expectation(t));
  for (const Expectation& e : expect_) {
    switch (e.kind) {
      case Expectation::Kind::echo: need_xml_ = no_fault_ = echo_ = true; break;  // an echo is no Fault
      case Expectation::Kind::no_fault: need_xml_ = no_fault_ = true; break;
      case Expectation::Kind::xpath:
        need_xml_ = true;
        queries_.emplace_back(e.text.c_str());
        break;
      case Expectation::Kind::status: status_ = &e; break;
      case Expectation::Kind::contains: break;
    }
  }
  pugi::xml_document request;
  request.load_buffer(envelope_.data(), envelope_.size());
  request_leaves(payload_of(request, nullptr), sent_);
}

const std::string& ExpectationCheck::render_request() {
  if (!template_.varies()) return envelope_;
  template_.render(rendered_);
  if (echo_) {  // this call's values are what must come back: it costs a parse of the request
    request_doc_.load_buffer(rendered_.data(), rendered_.size());
    request_leaves(payload_of(request_doc_, nullptr), sent_);
  }
  return rendered_;
}

pugi::xml_node ExpectationCheck::payload_of(const pugi::xml_document& doc, pugi::xml_node* body_out) {
  const pugi::xml_node root = doc.document_element();
  if (xml::local_name(root) != "Envelope") return {};
  for (pugi::xml_node c = root.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element && xml::local_name(c) == "Body") {
      if (body_out) *body_out = c;
      for (pugi::xml_node p = c.first_child(); p; p = p.next_sibling())
        if (p.type() == pugi::node_element) return p;
      return {};
    }
  return {};
}

void ExpectationCheck::leaves(pugi::xml_node payload, std::vector<Leaf>& out) {
  out.clear();
  if (!payload) return;
  pugi::xml_node first = payload.first_child();
  while (first && first.type() != pugi::node_element) first = first.next_sibling();
  if (!first) {  // a payload of simple content: its text is the value
    out.push_back({"", text_of(payload), payload, {}});
    return;
  }
  // Depth first in document order; a leaf is an element with no element child.
  std::string path;
  std::vector<size_t> lengths;
  pugi::xml_node n = payload.first_child();
  while (n) {
    if (n.type() == pugi::node_element) {
      lengths.push_back(path.size());
      if (!path.empty()) path += '/';
      path += xml::local_name(n);
      pugi::xml_node child = n.first_child();
      while (child && child.type() != pugi::node_element) child = child.next_sibling();
      if (child) {
        n = child;
        continue;
      }
      out.push_back({path, text_of(n), n, {}});
      path.resize(lengths.back());
      lengths.pop_back();
    }
    // The next element: a sibling, or a sibling of an ancestor below the payload.
    for (;;) {
      pugi::xml_node next = n.next_sibling();
      while (next && next.type() != pugi::node_element) next = next.next_sibling();
      if (next) {
        n = next;
        break;
      }
      n = n.parent();
      if (n == payload) return;
      path.resize(lengths.back());
      lengths.pop_back();
    }
  }
}

// A leaf's path without its first name, the parameter's (the payload's child):
// services rename their parameters between request and response (CXF's
// samples answer `in` with `out` or `return`, `id` with `idout`), while the
// names below them are the types' and must come back as sent.
static std::string_view below_parameter(std::string_view path) {
  const size_t slash = path.find('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
}

void ExpectationCheck::request_leaves(pugi::xml_node payload, std::vector<Leaf>& out) {
  leaves(payload, out);
  for (Leaf& leaf : out) {
    leaf.qname_ns = qname_namespace(leaf.node, leaf.text);
    leaf.node = {};
  }
}

bool ExpectationCheck::same_leaf_value(const Leaf& sent, const Leaf& got) {
  if (!sent.qname_ns.empty())
    if (const std::string ns = qname_namespace(got.node, got.text); !ns.empty())
      return ns == sent.qname_ns &&
             std::string_view(sent.text).substr(sent.text.find(':')) == std::string_view(got.text).substr(got.text.find(':'));
  return same_echoed_value(sent.text, got.text);
}

CallResult ExpectationCheck::check(long status, std::string& body) {
  for (const Expectation& e : expect_)
    if (e.kind == Expectation::Kind::contains && body.find(e.text) == std::string::npos)
      return failure(FailureKind::mismatch, "contains:" + e.text + ": not in the response");
  const bool success = status >= 200 && status < 300;
  pugi::xml_node payload, soap_body;
  bool parsed = false;
  if (need_xml_ || !status_) {
    parsed = static_cast<bool>(doc_.load_buffer_inplace(body.data(), body.size()));
    if (parsed) payload = payload_of(doc_, &soap_body);
  }
  const bool fault = payload && xml::local_name(payload) == "Fault";
  if (status_) {
    if (status != status_->status)
      return failure(refused_credentials(status) || (fault && auth_fault(body)) ? FailureKind::auth
                                                                                : FailureKind::http_status,
                     "HTTP " + std::to_string(status) + ", expected status:" + status_->text +
                         (fault ? ": " + fault_text(payload) : std::string()));
  } else if (!success) {
    // SOAP 1.1 answers a Fault with 500 (and 1.2 with 400 or 500): that is a fault.
    if (fault && (status == 500 || status == 400))
      return failure(auth_fault(body) ? FailureKind::auth : FailureKind::soap_fault, fault_text(payload));
    return failure(refused_credentials(status) ? FailureKind::auth : FailureKind::http_status,
                   "HTTP " + std::to_string(status) + (fault ? ": " + fault_text(payload) : std::string()));
  }
  if (!need_xml_) return {true, {}, {}};
  if (!parsed || !soap_body) return failure(FailureKind::read, "the response is not a SOAP envelope");
  if (fault && no_fault_)
    return failure(auth_fault(body) ? FailureKind::auth : FailureKind::soap_fault, fault_text(payload));
  size_t q = 0;
  for (const Expectation& e : expect_) {
    if (e.kind == Expectation::Kind::xpath) {
      if (!queries_[q++].evaluate_boolean(doc_)) return failure(FailureKind::mismatch, "xpath:" + e.text + " is false");
    } else if (e.kind == Expectation::Kind::echo) {
      leaves(payload, got_);
      size_t i = 0;
      while (i < sent_.size() && i < got_.size() && below_parameter(sent_[i].path) == below_parameter(got_[i].path) &&
             same_leaf_value(sent_[i], got_[i]))
        ++i;
      if (i < sent_.size() || i < got_.size()) {
        if (i < sent_.size() && i < got_.size())
          return failure(FailureKind::mismatch, "echo: " + sent_[i].path + " sent '" + sent_[i].text.substr(0, 40) +
                                                    "', got " + got_[i].path + " '" + got_[i].text.substr(0, 40) + "'");
        return failure(FailureKind::mismatch, "echo: " + std::to_string(sent_.size()) + " values sent, " +
                                                  std::to_string(got_.size()) + " echoed");
      }
    }
  }
  return {true, {}, {}};
}

}  // namespace soapbench
