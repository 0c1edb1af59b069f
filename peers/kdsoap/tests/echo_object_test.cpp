// EchoObject without a network: a request built as KDSoap's reader builds one
// (every leaf a QString of its lexical form) goes through the generated
// dispatch, and the response is written with KDSoap's own writer (toXml).
// Asserts what comes back with and without restore_lossy_fields, so that the
// README's list of what KDSoap 1.9.1 loses stays true.
#include <gtest/gtest.h>

#include <QXmlStreamReader>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "echo_server.h"

namespace {

const QString kNs = QStringLiteral("urn:soapbench:echo:1");

KDSoapValue leaf(const char* name, const char* text) {
  KDSoapValue v(QString::fromLatin1(name), QString::fromLatin1(text));
  v.setNamespaceUri(kNs);
  return v;
}

// Item 0 of the default payload in the lexical forms the gSOAP client sends,
// or for i > 0 with item 1's values where they differ (varUByte, varFloat,
// varDateTime, the latter with a +05:30 zone); varQName is PREFIX:sample0 with PREFIX bound to QNAME_NS (empty: unprefixed,
// in that default namespace).
KDSoapValue item(int i, const QString& prefix = QStringLiteral("echo"), const QString& qname_ns = kNs) {
  KDSoapValueList nested;
  nested << leaf("varFloat", "-3.40282347E+38") << leaf("varShort", "-32768")
         << leaf("varString", "nested <0> & more") << leaf("varByte", "-128")
         << leaf("varDecimal", "-12345678901234567890.123456789")
         << leaf("varDouble", "1.7976931348623157E+308")
         << leaf("varDateTime", i == 0 ? "2006-11-29T12:34:56.789012Z" : "2006-11-29T12:34:57.789012+05:30");
  nested.attributes() << KDSoapValue(QStringLiteral("varAttrString"), QStringLiteral("attr \"0\""));
  KDSoapValue qname(QStringLiteral("varQName"),
                    prefix.isEmpty() ? QStringLiteral("sample0") : prefix + QStringLiteral(":sample0"));
  qname.setNamespaceUri(kNs);
  // As KDSoap's reader does: the declarations in scope are the environment
  // (KDQName::fromSoapValue looks there), those on the element its own.
  QXmlStreamNamespaceDeclarations in_scope;
  in_scope.append(QXmlStreamNamespaceDeclaration(prefix, qname_ns));
  qname.setEnvironmentNamespaceDeclarations(in_scope);
  qname.setNamespaceDeclarations(in_scope);
  KDSoapValueList fields;
  fields << leaf("varString", "item 0") << leaf("varUByte", i == 0 ? "255" : "254")
         << leaf("varULong", "18446744073709551615")
         << leaf("varFloat", i == 0 ? "3.40282347E+38" : "-1.17549435E-38") << qname
         << leaf("varBase64Binary", "AAEC/w==") << leaf("varHexBinary", "00FF10") << leaf("varColor", "BLUE");
  KDSoapValue s(QStringLiteral("varStruct"), nested);
  s.setNamespaceUri(kNs);
  fields << s;
  KDSoapValue v(QStringLiteral("item"), fields);
  v.setNamespaceUri(kNs);
  return v;
}

// An echoStruct of ITEMS default items and then EXTRA, through EchoObject.
KDSoapMessage echo_struct(bool restore, int items, const QList<KDSoapValue>& extra = {}) {
  KDSoapValueList children;
  for (int i = 0; i < items; ++i) children << item(i);
  for (const KDSoapValue& value : extra) children << value;
  KDSoapMessage request;
  request = KDSoapValue(QStringLiteral("echoStruct"), children);
  EchoObject object(restore);
  KDSoapMessage response;
  object.processRequest(request, response, "urn:soapbench:echo:1#echoStruct");
  EXPECT_FALSE(object.hasFault());
  EXPECT_EQ(response.name(), QStringLiteral("echoStructResponse"));
  return response;
}

// The text of every leaf element of the written response, item by item:
// "varStruct/varByte" -> "-128" for item 0 at index 0.
std::vector<std::map<std::string, std::string>> echo(bool restore, int items) {
  const KDSoapMessage response = echo_struct(restore, items);

  std::vector<std::map<std::string, std::string>> out;
  QXmlStreamReader xml(response.toXml());
  std::string path;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      const std::string name = xml.name().toString().toStdString();
      if (name == "item") out.emplace_back(), path.clear();
      else if (name == "varStruct") path = "varStruct/";
      else if (!out.empty()) out.back()[path + name] = xml.readElementText().toStdString();
    } else if (xml.isEndElement() && xml.name() == QLatin1String("varStruct")) {
      path.clear();
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  return out;
}

TEST(EchoObject, RestoredFieldsComeBackAsSent) {
  const auto items = echo(true, 2);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].at("varUByte"), "255");
  EXPECT_EQ(items[1].at("varUByte"), "254");
  EXPECT_EQ(items[0].at("varFloat"), "3.40282347E+38");
  EXPECT_EQ(items[1].at("varFloat"), "-1.17549435E-38");
  for (const auto& it : items) {
    EXPECT_EQ(it.at("varStruct/varFloat"), "-3.40282347E+38");
    EXPECT_EQ(it.at("varStruct/varByte"), "-128");
    EXPECT_EQ(it.at("varStruct/varDecimal"), "-12345678901234567890.123456789");
  }
  EXPECT_EQ(items[0].at("varStruct/varDateTime"), "2006-11-29T12:34:56.789012Z");
  EXPECT_EQ(items[1].at("varStruct/varDateTime"), "2006-11-29T12:34:57.789012+05:30");
}

TEST(EchoObject, ZeroItemsStillGetAnEchoStructResponse) {
  // KDSoapServerSocket answers 204 without a body when the message isNull().
  const KDSoapMessage response = echo_struct(true, 0);
  EXPECT_FALSE(taken_for_no_response(response));
  EXPECT_TRUE(response.childValues().isEmpty());
  EXPECT_TRUE(response.toXml().contains("echoStructResponse"));
  EXPECT_TRUE(echo(true, 0).empty());
}

TEST(EchoObject, FieldsKDSoapTypesKeepAreTheirs) {
  // Not restored: the generated types hold these exactly (hexBinary comes back
  // in lower case, the same bytes).
  const auto items = echo(true, 1);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].at("varULong"), "18446744073709551615");
  EXPECT_EQ(items[0].at("varBase64Binary"), "AAEC/w==");
  EXPECT_EQ(items[0].at("varHexBinary"), "00ff10");
  EXPECT_EQ(items[0].at("varColor"), "BLUE");
  EXPECT_EQ(items[0].at("varStruct/varShort"), "-32768");
  EXPECT_EQ(items[0].at("varStruct/varDouble"), "1.7976931348623157e+308");
}

// The namespace declarations the writer will put on item N's varQName, and its text.
std::pair<QXmlStreamNamespaceDeclarations, std::string> qname_of(const KDSoapMessage& response, int n) {
  const KDSoapValue qname = response.childValues().at(n).childValues().child(QStringLiteral("varQName"));
  return {qname.namespaceDeclarations(), qname.value().toString().toStdString()};
}

TEST(EchoObject, QNamesAreWrittenUnderAPrefixOfTheirOwn) {
  const KDSoapMessage response = echo_struct(
      true, 1, {item(1, QStringLiteral("n1"), QStringLiteral("urn:other")), item(2, QString(), kNs)});
  for (int n : {0, 1, 2}) {
    const auto [declarations, text] = qname_of(response, n);
    EXPECT_EQ(text, "qn:sample0") << n;
    ASSERT_EQ(declarations.size(), 1) << n;
    EXPECT_EQ(declarations[0].prefix().toString().toStdString(), "qn") << n;
    EXPECT_EQ(declarations[0].namespaceUri().toString(), n == 1 ? QStringLiteral("urn:other") : kNs) << n;
  }
}

TEST(EchoObject, WithoutRestoringKDSoapMisplacesQNames) {
  // n1 is the prefix KDSoap's writer gives the echo namespace: redeclared on
  // <n1:varQName> it moves the element itself into urn:other. Unprefixed, the
  // name is written with no declaration and so in no namespace.
  const KDSoapMessage response = echo_struct(
      false, 0, {item(1, QStringLiteral("n1"), QStringLiteral("urn:other")), item(2, QString(), kNs)});
  const auto [prefixed_declarations, prefixed_text] = qname_of(response, 0);
  EXPECT_EQ(prefixed_text, "n1:sample0");
  ASSERT_EQ(prefixed_declarations.size(), 1);
  EXPECT_EQ(prefixed_declarations[0].prefix().toString().toStdString(), "n1");
  EXPECT_TRUE(response.toXml().contains("<n1:varQName xmlns:n1=\"urn:other\">n1:sample0</n1:varQName>"));
  const auto [unprefixed_declarations, unprefixed_text] = qname_of(response, 1);
  EXPECT_EQ(unprefixed_text, "sample0");
  EXPECT_TRUE(unprefixed_declarations.isEmpty());
}

TEST(EchoObject, WithoutRestoringKDSoapLosesTheseValues) {
  // KDSoap 1.9.1 with Qt 5.15 as they are: what README.md says is lost.
  const auto items = echo(false, 2);
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].at("varUByte"), "\u00ff");                     // a character, not 255
  EXPECT_EQ(items[0].at("varFloat"), "inf");                        // Qt reads FLT_MAX as overflow
  EXPECT_EQ(items[1].at("varFloat"), "-1.1754943508222875e-38");    // the same float: kept
  EXPECT_EQ(items[0].at("varStruct/varFloat"), "-inf");
  EXPECT_EQ(items[0].at("varStruct/varByte"), "\u0080");            // a character, not -128
  EXPECT_EQ(items[0].at("varStruct/varDecimal"), "-12345679395506094000");  // decimal as float
  EXPECT_EQ(items[0].at("varStruct/varDateTime"), "2006-11-29T12:34:56.789Z");  // milliseconds
  EXPECT_EQ(items[1].at("varStruct/varDateTime"), "2006-11-29T12:34:57.789+05:30");
}

}  // namespace
