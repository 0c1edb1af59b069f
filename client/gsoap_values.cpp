#include "gsoap_values.h"

#include <cstring>

#include "soapbench/contract.h"

namespace soapbench {
namespace {

template <class Binary>
Binary binary(struct soap* soap, const std::vector<uint8_t>& bytes) {
  Binary b;
  b.soap_default(soap);
  b.__size = static_cast<int>(bytes.size());
  b.__ptr = static_cast<unsigned char*>(soap_malloc(soap, bytes.size() + 1));
  if (!bytes.empty()) std::memcpy(b.__ptr, bytes.data(), bytes.size());
  return b;
}

template <class Binary>
std::vector<uint8_t> bytes_of(const Binary& b) {
  if (!b.__ptr || b.__size <= 0) return {};
  return {b.__ptr, b.__ptr + b.__size};
}

// gSOAP keeps a QName as "prefix:local" with prefixes from the namespace table,
// or as "\"URI\":local" for a namespace the table does not know.
std::string qname_to_gsoap(struct soap* soap, const QName& q) {
  for (const Namespace* ns = soap->local_namespaces ? soap->local_namespaces : soap->namespaces; ns && ns->id; ++ns)
    if (ns->ns && q.ns == ns->ns) return std::string(ns->id) + ":" + q.local;
  return q.ns.empty() ? q.local : "\"" + q.ns + "\":" + q.local;
}

QName qname_from_gsoap(struct soap* soap, const std::string& text) {
  if (!text.empty() && text[0] == '"') {
    const size_t end = text.find("\":", 1);
    if (end != std::string::npos) return {text.substr(1, end - 1), text.substr(end + 2)};
  }
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {"", text};
  const std::string prefix = text.substr(0, colon);
  for (const Namespace* ns = soap->local_namespaces ? soap->local_namespaces : soap->namespaces; ns && ns->id; ++ns)
    if (prefix == ns->id && ns->ns) return {ns->ns, text.substr(colon + 1)};
  return {prefix, text.substr(colon + 1)};  // unknown prefix: keep it visible in a mismatch
}

}  // namespace

std::vector<echo__EchoItem*> to_gsoap(struct soap* soap, const std::vector<ItemValue>& items) {
  std::vector<echo__EchoItem*> out;
  out.reserve(items.size());
  for (const ItemValue& v : items) {
    echo__EchoItem* it = soap_new_echo__EchoItem(soap);
    it->varString = v.var_string;
    it->varUByte = v.var_ubyte;
    it->varULong = v.var_ulong;
    it->varFloat = v.var_float;
    it->varQName = qname_to_gsoap(soap, v.var_qname);
    it->varBase64Binary = binary<xsd__base64Binary>(soap, v.var_base64);
    it->varHexBinary = binary<xsd__hexBinary>(soap, v.var_hex);
    it->varColor = static_cast<echo__Color>(static_cast<int>(v.var_color));
    echo__NestedStruct* n = soap_new_echo__NestedStruct(soap);
    const NestedValue& nv = v.var_struct;
    n->varFloat = nv.var_float;
    n->varShort = nv.var_short;
    n->varString = nv.var_string;
    n->varByte = static_cast<char>(nv.var_byte);
    n->varDecimal = nv.var_decimal;
    n->varDouble = nv.var_double;
    n->varDateTime.tv_sec = static_cast<time_t>(nv.var_date_time.seconds);
    n->varDateTime.tv_usec = nv.var_date_time.micros;
    n->varAttrString = nv.var_attr_string ? soap_new_std__string(soap) : nullptr;
    if (n->varAttrString) *n->varAttrString = *nv.var_attr_string;
    it->varStruct = n;
    out.push_back(it);
  }
  return out;
}

std::vector<ItemValue> from_gsoap(struct soap* soap, const std::vector<echo__EchoItem*>& items) {
  std::vector<ItemValue> out;
  out.reserve(items.size());
  for (const echo__EchoItem* it : items) {
    ItemValue v;
    if (!it) { out.push_back(v); continue; }
    v.var_string = it->varString;
    v.var_ubyte = it->varUByte;
    v.var_ulong = it->varULong;
    v.var_float = it->varFloat;
    v.var_qname = qname_from_gsoap(soap, it->varQName);
    v.var_base64 = bytes_of(it->varBase64Binary);
    v.var_hex = bytes_of(it->varHexBinary);
    v.var_color = static_cast<Color>(static_cast<int>(it->varColor));
    if (const echo__NestedStruct* n = it->varStruct) {
      NestedValue& nv = v.var_struct;
      nv.var_float = n->varFloat;
      nv.var_short = n->varShort;
      nv.var_string = n->varString;
      nv.var_byte = static_cast<int8_t>(n->varByte);
      nv.var_decimal = n->varDecimal;
      nv.var_double = n->varDouble;
      nv.var_date_time = {static_cast<int64_t>(n->varDateTime.tv_sec),
                          static_cast<int32_t>(n->varDateTime.tv_usec)};
      if (n->varAttrString) nv.var_attr_string = *n->varAttrString;
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace soapbench
