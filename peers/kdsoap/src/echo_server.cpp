#include "echo_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <initializer_list>

namespace {

// The fields of EchoItem and NestedStruct that do not survive KDSoap 1.9.1's
// generated types: unsignedByte and byte are written back as characters, a
// float at FLT_MAX is read as inf by Qt, decimal is mapped to float, and
// KDDateTime keeps milliseconds only.
constexpr std::initializer_list<const char*> kLossyItemFields = {"varUByte", "varFloat"};
constexpr std::initializer_list<const char*> kLossyNestedFields = {"varFloat", "varByte", "varDecimal",
                                                                   "varDateTime"};

const KDSoapValue* child_named(const KDSoapValueList& children, QLatin1String name) {
  for (const KDSoapValue& child : children)
    if (child.name() == name) return &child;
  return nullptr;
}

void copy_text(const KDSoapValueList& from, KDSoapValueList& to,
               std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const KDSoapValue* source = child_named(from, QLatin1String(name));
    if (source == nullptr) continue;
    for (KDSoapValue& target : to)
      if (target.name() == QLatin1String(name)) target.setValue(source->value());
  }
}

// KDQName::toSoapValue declares the QName's namespace only for a prefixed name,
// under the request's prefix: an unprefixed name (default namespace) loses its
// namespace, and a prefix like n1 redeclares the one KDSoap's writer gives the
// echo namespace, moving <varQName> itself out of it. Written instead under a
// prefix the writer never uses (it uses soap, soap-enc, xsd, xsi, n1, n2, ...).
void rewrite_qname(const KDSoapValueList& from, KDSoapValueList& to) {
  const QLatin1String name("varQName");
  const KDSoapValue* source = child_named(from, name);
  if (source == nullptr) return;
  const KDQName sent = KDQName::fromSoapValue(*source);
  if (sent.nameSpace().isEmpty()) return;  // no namespace, or an undeclared prefix: as KDSoap wrote it
  for (KDSoapValue& target : to) {
    if (target.name() != name) continue;
    target.setValue(QStringLiteral("qn:") + sent.localName());
    QXmlStreamNamespaceDeclarations declarations;
    declarations.append(QXmlStreamNamespaceDeclaration(QStringLiteral("qn"), sent.nameSpace()));
    target.setNamespaceDeclarations(declarations);
  }
}

// Item by item: the n-th <item> of the response is the n-th of the request,
// since the generated code serializes the items it deserialized, in order.
void restore_lossy_fields(const KDSoapValue& request, KDSoapValue& response) {
  const QLatin1String item("item");
  const QLatin1String nested("varStruct");
  const KDSoapValueList& sent = request.childValues();
  KDSoapValueList& echoed = response.childValues();
  auto next_sent = sent.cbegin();
  for (KDSoapValue& echoed_item : echoed) {
    if (echoed_item.name() != item) continue;
    while (next_sent != sent.cend() && next_sent->name() != item) ++next_sent;
    if (next_sent == sent.cend()) return;
    const KDSoapValueList& sent_fields = (next_sent++)->childValues();
    KDSoapValueList& echoed_fields = echoed_item.childValues();
    copy_text(sent_fields, echoed_fields, kLossyItemFields);
    rewrite_qname(sent_fields, echoed_fields);
    const KDSoapValue* sent_nested = child_named(sent_fields, nested);
    if (sent_nested == nullptr) continue;
    for (KDSoapValue& echoed_nested : echoed_fields)
      if (echoed_nested.name() == nested)
        copy_text(sent_nested->childValues(), echoed_nested.childValues(), kLossyNestedFields);
  }
}

}  // namespace

void EchoObject::processRequest(const KDSoapMessage& request, KDSoapMessage& response,
                                const QByteArray& soap_action) {
  EchoServiceServerBase::processRequest(request, response, soap_action);
  if (hasFault()) return;
  if (restore_lossy_fields_ && response.name() == QLatin1String("echoStructResponse"))
    restore_lossy_fields(request, response);
  // KDSoap takes a message without children, attributes or value for "no
  // response" and answers 204 No Content with no body: an echoStruct of zero
  // items would get no echoStructResponse. An empty (not null) text makes it
  // write the empty element.
  if (taken_for_no_response(response)) response.setValue(QString::fromLatin1(""));
}

bool taken_for_no_response(const KDSoapMessage& message) {
  return message.childValues().isEmpty() && message.childValues().attributes().isEmpty() &&
         message.value().isNull();
}

TNS__EchoStringResponse EchoObject::echoString(const TNS__EchoString& parameters) {
  TNS__EchoStringResponse response;
  response.setText(parameters.text());
  return response;
}

TNS__EchoStructResponse EchoObject::echoStruct(const TNS__EchoStruct& parameters) {
  TNS__EchoStructResponse response;
  response.setItem(parameters.item());
  return response;
}

TNS__EchoBinaryResponse EchoObject::echoBinary(const TNS__EchoBinary& parameters) {
  TNS__EchoBinaryResponse response;
  response.setData(parameters.data());
  return response;
}

EchoServer::EchoServer(bool no_delay, bool restore_lossy_fields, QObject* parent)
    : KDSoapServer(parent), no_delay_(no_delay), restore_lossy_fields_(restore_lossy_fields) {}

void EchoServer::incomingConnection(qintptr socket_descriptor) {
  // KDSoap hands the descriptor to a worker thread's QTcpSocket, which keeps
  // the option: the one place a KDSoapServer user can set it.
  if (no_delay_) {
    const int on = 1;
    setsockopt(static_cast<int>(socket_descriptor), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  }
  KDSoapServer::incomingConnection(socket_descriptor);
}
