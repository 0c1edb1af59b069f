// The hand-rendered XML of the curl client and its namespace-aware reader,
// without any network: what is rendered reads back to equal values.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "payload.h"
#include "xml_reader.h"
#include "xml_values.h"

namespace soapbench::xml {
namespace {

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

std::vector<ItemValue> read_items(std::string body) {
  ResponseReader reader;
  std::vector<ItemValue> items;
  EXPECT_EQ(reader.read_echo_struct(body, items), ReadStatus::echo) << reader.problem();
  return items;
}

TEST(XmlValues, StringRoundTripsWithEveryEscapedCharacter) {
  for (const std::string& text :
       {make_string(1024), std::string("  leading and trailing  "), std::string("   "),
        std::string("tab\there\nline\r\nend ]]> &amp; <!-- x -->"), std::string(), std::string("caf\xC3\xA9")}) {
    std::string body = render_echo_string(text, Message::response);
    ResponseReader reader;
    std::string got = "stale";
    ASSERT_EQ(reader.read_echo_string(body, got), ReadStatus::echo) << reader.problem();
    EXPECT_EQ(got, text);
  }
}

TEST(XmlValues, PatternIsEscapedInTheRequest) {
  const std::string request = render_echo_string(kStringPattern);
  EXPECT_NE(request.find("SOAP &amp; &lt;bench&gt; &quot;echo&quot; &apos;string&apos; payload"), std::string::npos)
      << request;
  EXPECT_NE(request.find("<tns:echoString><tns:text>"), std::string::npos);
  EXPECT_EQ(request.find("echoStringResponse"), std::string::npos);
}

TEST(XmlValues, DefaultRequestsHaveTheExpectedSize) {
  // The echoStruct body of CXF's Complex_Type test is about 2 KB without HTTP headers.
  const size_t struct_body = render_echo_struct(make_items(PayloadSize{})).size();
  EXPECT_GE(struct_body, 1800u);
  EXPECT_LE(struct_body, 2400u);
  // 1024 characters; escaping adds 30 bytes per 64 (& < > once, " and ' twice each).
  const size_t string_body = render_echo_string(make_string(1024)).size();
  EXPECT_GE(string_body, 1024u + 16 * 30);
  EXPECT_LE(string_body, 1024u + 16 * 30 + 300);
}

TEST(XmlValues, DefaultItemsRoundTrip) {
  const std::vector<ItemValue> sent = make_items({1024, 3, 256});
  const std::vector<ItemValue> got = read_items(render_echo_struct(sent, Message::response));
  EXPECT_EQ(compare_items(sent, got), std::nullopt);
}

TEST(XmlValues, ExtremeAndUnusualValuesRoundTrip) {
  std::vector<ItemValue> sent = make_items({16, 2, 5});
  sent[0].var_float = FLT_MIN / 4;  // subnormal
  sent[0].var_struct.var_double = -DBL_MIN;
  sent[0].var_qname = {"urn:other & \"odd\"", "local"};
  sent[0].var_base64 = {0xff};  // two padding characters
  sent[1].var_float = INFINITY;
  sent[1].var_struct.var_double = -INFINITY;
  sent[1].var_qname = {"", "unqualified"};
  sent[1].var_base64.clear();
  sent[1].var_hex.clear();
  sent[1].var_struct.var_attr_string.reset();
  sent[1].var_struct.var_date_time = {-86400 * 365, 1};  // 1969, one microsecond
  const std::vector<ItemValue> got = read_items(render_echo_struct(sent, Message::response));
  EXPECT_EQ(compare_items(sent, got), std::nullopt);
}

TEST(XmlValues, OtherPrefixesDefaultNamespacesAndZoneFormsReadTheSame) {
  const std::vector<ItemValue> sent = make_items({64, 2, 16});
  const std::string rendered = render_echo_struct(sent, Message::response);
  // Another prefix, for element names and for the QName values alike.
  const std::string prefixed = replace_all(replace_all(rendered, "tns:", "e:"), "xmlns:tns=", "xmlns:e=");
  ASSERT_NE(prefixed.find("<e:varQName>e:sample0<"), std::string::npos);
  EXPECT_EQ(compare_items(sent, read_items(prefixed)), std::nullopt);
  // Elements in a default namespace declared on Body; QName values keep tns.
  std::string defaulted = replace_all(replace_all(rendered, "<tns:", "<"), "</tns:", "</");
  defaulted = replace_all(defaulted, "<soap:Body>", "<soap:Body xmlns=\"urn:soapbench:echo:1\">");
  EXPECT_EQ(compare_items(sent, read_items(defaulted)), std::nullopt);
  // +00:00 is the same instant as Z.
  EXPECT_EQ(compare_items(sent, read_items(replace_all(rendered, "Z</tns:varDateTime>", "+00:00</tns:varDateTime>"))),
            std::nullopt);
}

TEST(XmlValues, ChangedValuesAreReportedByComparison) {
  std::vector<ItemValue> sent = make_items({64, 1, 16});
  std::vector<ItemValue> changed = sent;
  changed[0].var_struct.var_float = -1.5f;
  auto difference = compare_items(sent, read_items(render_echo_struct(changed, Message::response)));
  ASSERT_TRUE(difference);
  EXPECT_NE(difference->find("varStruct.varFloat"), std::string::npos) << *difference;
  // The same local part with a prefix bound to another namespace is another QName.
  const std::string rendered = render_echo_struct(sent, Message::response);
  std::string rebound = replace_all(rendered, "<tns:varQName>tns:", "<tns:varQName xmlns:p=\"urn:x\">p:");
  difference = compare_items(sent, read_items(rebound));
  ASSERT_TRUE(difference);
  EXPECT_NE(difference->find("varQName"), std::string::npos) << *difference;
}

TEST(XmlReader, PrefixesRedeclaredOnInnerElementsApplyOnlyThere) {
  std::vector<ItemValue> sent = make_items({64, 3, 16});
  const std::string rendered = render_echo_struct(sent, Message::response);
  // Item 0 binds its own prefix for its children; items 1 and 2 keep tns.
  std::string own = rendered;
  const size_t first = own.find("<tns:item>");
  const size_t end = own.find("</tns:item>") + std::string_view("</tns:item>").size();
  std::string item0 = own.substr(first, end - first);
  item0 = replace_all(replace_all(item0, "<tns:var", "<p:var"), "</tns:var", "</p:var");
  item0.replace(0, std::string_view("<tns:item>").size(), "<tns:item xmlns:p=\"urn:soapbench:echo:1\">");
  own.replace(first, end - first, item0);
  ResponseReader reader;  // one reader for every document: nothing carries over
  std::vector<ItemValue> got;
  ASSERT_EQ(reader.read_echo_struct(own, got), ReadStatus::echo) << reader.problem();
  EXPECT_EQ(compare_items(sent, got), std::nullopt);

  // tns rebound on item 0's varQName changes that QName only, not its siblings'.
  std::string rebound = rendered;
  rebound.replace(rebound.find("<tns:varQName>"), std::string_view("<tns:varQName>").size(),
                  "<tns:varQName xmlns:tns=\"urn:soapbench:echo:1\" xmlns:q=\"urn:x\">");
  rebound = replace_all(rebound, ">tns:sample0<", ">q:sample0<");
  ASSERT_EQ(reader.read_echo_struct(rebound, got), ReadStatus::echo) << reader.problem();
  sent[0].var_qname.ns = "urn:x";
  EXPECT_EQ(compare_items(sent, got), std::nullopt);

  // tns rebound to another namespace on one nested element: that element is foreign.
  std::string foreign = rendered;
  const size_t last_short = foreign.rfind("<tns:varShort>");
  foreign.replace(last_short, std::string_view("<tns:varShort>").size(), "<tns:varShort xmlns:tns=\"urn:x\">");
  EXPECT_EQ(reader.read_echo_struct(foreign, got), ReadStatus::not_echo);
  EXPECT_NE(reader.problem().find("varStruct has unexpected element"), std::string::npos) << reader.problem();

  // A default namespace undeclared again on an item: its unprefixed children are in none.
  std::string defaulted = replace_all(replace_all(rendered, "<tns:", "<"), "</tns:", "</");
  defaulted = replace_all(defaulted, "<soap:Body>", "<soap:Body xmlns=\"urn:soapbench:echo:1\">");
  std::string parsed = defaulted;  // parsing works in place
  ASSERT_EQ(reader.read_echo_struct(parsed, got), ReadStatus::echo) << reader.problem();
  defaulted.replace(defaulted.rfind("<item>"), std::string_view("<item>").size(),
                    "<tns:item xmlns=\"\">");
  defaulted.replace(defaulted.rfind("</item>"), std::string_view("</item>").size(), "</tns:item>");
  EXPECT_EQ(reader.read_echo_struct(defaulted, got), ReadStatus::not_echo);
  EXPECT_NE(reader.problem().find("item has unexpected element"), std::string::npos) << reader.problem();
}

TEST(XmlValues, BytesDifferencesAreLocated) {
  const std::vector<ItemValue> sent = make_items({16, 1, 8});
  std::vector<ItemValue> got = sent;
  got[0].var_hex[3] ^= 1;
  EXPECT_EQ(compare_items(sent, got), "item 0: varHexBinary: byte 3 differs");
  got = sent;
  got[0].var_base64.pop_back();
  EXPECT_EQ(compare_items(sent, got), "item 0: varBase64Binary: 8 bytes sent, 7 echoed");
}

TEST(XmlValues, DateTimesAreInstants) {
  const auto at = [](const char* text) { return parse_date_time(text); };
  const DateTime base{1164803696, 0};  // 2006-11-29T12:34:56Z
  EXPECT_EQ(at("2006-11-29T12:34:56Z"), base);
  EXPECT_EQ(at("2006-11-29T12:34:56+00:00"), base);
  EXPECT_EQ(at("2006-11-29T12:34:56-00:00"), base);
  EXPECT_EQ(at("2006-11-29T12:34:56"), base);  // no zone: read as UTC
  EXPECT_EQ(at("2006-11-29T18:04:56+05:30"), base);
  EXPECT_EQ(at("2006-11-29T07:34:56-05:00"), base);
  EXPECT_EQ(at("2006-11-30T00:00:00Z"), at("2006-11-29T24:00:00Z"));
  // 1 to 9 fractional digits; beyond microseconds they are truncated.
  const char* fractions[] = {"5", "56", "567", "5678", "56789", "567891", "5678912", "56789123", "567891234"};
  const int32_t micros[] = {500000, 560000, 567000, 567800, 567890, 567891, 567891, 567891, 567891};
  for (size_t i = 0; i < std::size(fractions); ++i) {
    const std::string text = std::string("2006-11-29T12:34:56.") + fractions[i] + "Z";
    EXPECT_EQ(parse_date_time(text), (DateTime{base.seconds, micros[i]})) << text;
  }
  EXPECT_EQ(at("2024-02-29T00:00:00Z")->seconds, 1709164800);  // leap day
  EXPECT_EQ(at("1969-12-31T23:59:59Z")->seconds, -1);
  EXPECT_EQ(at("12006-11-29T12:34:56Z").has_value(), true);
  for (const char* bad :
       {"2006-13-29T12:34:56Z", "2006-00-29T12:34:56Z", "2006-11-00T12:34:56Z", "2006-11-31T12:34:56Z",
        "2023-02-29T12:34:56Z", "2006-11-29T25:00:00Z", "2006-11-29T24:00:01Z", "2006-11-29T12:60:56Z",
        "2006-11-29T12:34:56.Z", "2006-11-29T12:34:56+5:30", "2006-11-29T12:34:56+05:60",
        "2006-11-29T12:34:56+15:00", "2006-11-29T12:34:56ZZ", "2006-11-29 12:34:56Z", "06-11-29T12:34:56Z",
        "2006-1-29T12:34:56Z", "2006-11-29T12:34Z", "2006-11-29T12:34:56x", "", " 2006-11-29T12:34:56Z"})
    EXPECT_EQ(at(bad), std::nullopt) << bad;
}

TEST(XmlValues, DecimalsCompareByValue) {
  EXPECT_TRUE(decimal_equal("-12345678901234567890.123456789", "-12345678901234567890.123456789"));
  EXPECT_TRUE(decimal_equal("1.50", "+01.5"));
  EXPECT_TRUE(decimal_equal("-0", "0.000"));
  EXPECT_TRUE(decimal_equal(".5", "0.5"));
  EXPECT_TRUE(decimal_equal("7.", "7"));
  EXPECT_FALSE(decimal_equal("-1", "1"));
  EXPECT_FALSE(decimal_equal("1.05", "1.5"));
  EXPECT_FALSE(decimal_equal("10", "1"));
  EXPECT_FALSE(decimal_equal("abc", "abc"));  // byte-equal but not a decimal
  EXPECT_FALSE(decimal_equal("", ""));
  EXPECT_FALSE(decimal_equal(".", "."));
  EXPECT_FALSE(decimal_equal("1", "1e0"));
}

TEST(XmlReader, FaultsAndMalformedResponsesAreTold) {
  ResponseReader reader;
  std::string text;
  std::string fault =
      "<s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\"><s:Body><s:Fault>"
      "<faultcode>s:Server</faultcode><faultstring>it broke &amp; stayed broken</faultstring>"
      "</s:Fault></s:Body></s:Envelope>";
  EXPECT_EQ(reader.read_echo_string(fault, text), ReadStatus::fault);
  EXPECT_EQ(reader.problem(), "it broke & stayed broken");

  std::string html = "<html><body>503</body></html>";
  EXPECT_EQ(reader.read_echo_string(html, text), ReadStatus::not_soap);
  std::string garbage = "<unclosed";
  EXPECT_EQ(reader.read_echo_string(garbage, text), ReadStatus::not_soap);
  EXPECT_NE(reader.problem().find("not XML"), std::string::npos) << reader.problem();

  std::string other_op = render_echo_string("x", Message::response);
  std::vector<ItemValue> items;
  EXPECT_EQ(reader.read_echo_struct(other_op, items), ReadStatus::not_echo);
  EXPECT_NE(reader.problem().find("echoStructResponse"), std::string::npos) << reader.problem();

  std::string wrong_ns = replace_all(render_echo_string("x", Message::response), "urn:soapbench:echo:1", "urn:x");
  EXPECT_EQ(reader.read_echo_string(wrong_ns, text), ReadStatus::not_echo);

  std::string bad_float = replace_all(render_echo_struct(make_items({8, 1, 4}), Message::response),
                                      "<tns:varFloat>3.4028235e+38<", "<tns:varFloat>big<");
  ASSERT_NE(bad_float.find(">big<"), std::string::npos);
  EXPECT_EQ(reader.read_echo_struct(bad_float, items), ReadStatus::not_echo);
  EXPECT_NE(reader.problem().find("varFloat"), std::string::npos) << reader.problem();
}

TEST(XmlValues, BinaryEncodings) {
  const std::vector<uint8_t> bytes = {0, 1, 2, 0xfe, 0xff};
  std::string b64, hex;
  append_base64(b64, bytes);
  append_hex(hex, bytes);
  EXPECT_EQ(b64, "AAEC/v8=");
  EXPECT_EQ(hex, "000102FEFF");
  std::vector<uint8_t> out;
  EXPECT_TRUE(decode_base64(" AAEC\n/v8= ", out));
  EXPECT_EQ(out, bytes);
  EXPECT_TRUE(decode_hex("000102feFF", out));
  EXPECT_EQ(out, bytes);
  EXPECT_FALSE(decode_base64("AAE", out));     // incomplete quadruple
  EXPECT_FALSE(decode_base64("AA=A", out));    // data after padding
  EXPECT_FALSE(decode_base64("AA*A", out));
  EXPECT_FALSE(decode_hex("ABC", out));
  EXPECT_FALSE(decode_hex("GG", out));
  EXPECT_FALSE(decode_hex("0\xff", out));
  EXPECT_FALSE(decode_base64("AA\xc3\xa9", out));
  EXPECT_FALSE(decode_base64("AA-_", out));  // the URL-safe alphabet is not base64Binary's
  EXPECT_FALSE(decode_base64("A===", out));
  // The buffer is reused: a shorter value after a longer one leaves nothing stale.
  EXPECT_TRUE(decode_base64("AAECAwQFBgcICQ==", out));
  EXPECT_EQ(out.size(), 10u);
  EXPECT_TRUE(decode_base64("\tAA\r\n==", out));
  EXPECT_EQ(out, std::vector<uint8_t>{0});
  EXPECT_TRUE(decode_base64("", out));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(decode_hex(" 0a ", out));
  EXPECT_EQ(out, std::vector<uint8_t>{10});
  // Every byte value through both encodings.
  std::vector<uint8_t> all(256);
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint8_t>(i);
  b64.clear();
  hex.clear();
  append_base64(b64, all);
  append_hex(hex, all);
  ASSERT_TRUE(decode_base64(b64, out));
  EXPECT_EQ(out, all);
  ASSERT_TRUE(decode_hex(hex, out));
  EXPECT_EQ(out, all);
}

TEST(XmlValues, NumbersParseByTheirSchemaType) {
  EXPECT_EQ(parse_float(" 3.4028235E38 "), FLT_MAX);
  EXPECT_EQ(parse_float("-INF"), -INFINITY);
  EXPECT_TRUE(std::isnan(*parse_float("NaN")));
  EXPECT_EQ(parse_float("+1.5"), 1.5f);
  EXPECT_FALSE(parse_float("+-1"));
  EXPECT_FALSE(parse_float("1.5x"));
  EXPECT_FALSE(parse_float(""));
  EXPECT_EQ(parse_integer<uint8_t>("255"), 255);
  EXPECT_FALSE(parse_integer<uint8_t>("256"));
  EXPECT_FALSE(parse_integer<uint8_t>("-1"));
  EXPECT_EQ(parse_integer<int8_t>("-128"), -128);
  EXPECT_EQ(parse_integer<uint64_t>("+18446744073709551615"), UINT64_MAX);
  std::string s;
  append_float(s, FLT_MAX);
  EXPECT_EQ(parse_float(s), FLT_MAX) << s;
  s.clear();
  append_double(s, 1.0 / 3.0);
  EXPECT_EQ(parse_double(s), 1.0 / 3.0) << s;
}

}  // namespace
}  // namespace soapbench::xml
