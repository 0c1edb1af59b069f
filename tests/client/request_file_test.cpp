// Request files and expectations without a network: what a file must be, what
// each --expect accepts and refuses, and its verdict on handcrafted responses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

#include "echo_values.h"
#include "expectations.h"
#include "mix_file.h"
#include "request_template.h"
#include "request_file.h"

namespace soapbench {
namespace {

const std::string kSoap11 = "http://schemas.xmlsoap.org/soap/envelope/";
const std::string kSoap12 = "http://www.w3.org/2003/05/soap-envelope";

std::string envelope(const std::string& ns, const std::string& payload) {
  return "<?xml version=\"1.0\"?>\n<s:Envelope xmlns:s=\"" + ns + "\">\n<s:Body>" + payload + "</s:Body></s:Envelope>";
}

class TempFile {
 public:
  explicit TempFile(const std::string& text)
      : path_(std::filesystem::temp_directory_path() / ("soapbench-request-" + std::to_string(getpid()) + "-" +
                                                        std::to_string(counter_++) + ".xml")) {
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

std::string error_of(const std::string& text, const std::string& soap = "") {
  const TempFile f(text);
  try {
    load_request_file(f.path(), soap);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(RequestFile, NamesTheCallByItsPayloadAndDetectsTheSoapVersion) {
  const TempFile f11(envelope(kSoap11, "<m:getQuote xmlns:m=\"urn:q\"><m:symbol>X</m:symbol></m:getQuote>"));
  const CustomCall c = load_request_file(f11.path());
  EXPECT_EQ(c.name, "getQuote");
  EXPECT_EQ(c.soap_version, "1.1");
  EXPECT_EQ(c.file, f11.path());
  const TempFile f12(envelope(kSoap12, "<order xmlns=\"urn:o\"/>"));
  EXPECT_EQ(load_request_file(f12.path()).soap_version, "1.2");
  EXPECT_EQ(load_request_file(f12.path(), "1.2").name, "order");
}

TEST(RequestFile, RefusesWhatIsNotAnEnvelopeWithTheFileAndLine) {
  EXPECT_NE(error_of("<a>\n<b>\n</a>").find(": line 3: not well-formed XML"), std::string::npos)
      << error_of("<a>\n<b>\n</a>");
  EXPECT_NE(error_of("<?xml version=\"1.0\"?>\n<html/>").find("line 2: the root element <html> is not a SOAP"),
            std::string::npos);
  EXPECT_NE(error_of("<s:Envelope xmlns:s=\"" + kSoap11 + "\"/>").find("no Body"), std::string::npos);
  EXPECT_NE(error_of(envelope(kSoap11, "")).find("the Body holds no element"), std::string::npos);
  EXPECT_NE(error_of("").find("is empty"), std::string::npos);
  EXPECT_NE(error_of(envelope(kSoap11, "<x/>"), "1.2").find("is SOAP 1.1, not the 1.2 of --soap"), std::string::npos);
  try {
    load_request_file("/nonexistent/request.xml");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/request.xml: cannot be read");
  }
}

TEST(RequestFile, HeadersFollowTheSoapVersion) {
  CustomCall c;
  c.soap_action = "urn:q#get";
  c.headers = {"X-Trace: 1"};
  EXPECT_EQ(request_headers(c), (std::vector<std::string>{"Content-Type: text/xml; charset=utf-8",
                                                         "SOAPAction: \"urn:q#get\"", "X-Trace: 1"}));
  c.soap_version = "1.2";
  EXPECT_EQ(request_headers(c), (std::vector<std::string>{
                                    "Content-Type: application/soap+xml; charset=utf-8; action=\"urn:q#get\"",
                                    "X-Trace: 1"}));
  EXPECT_NO_THROW(validate_header("Authorization: Basic eA=="));
  EXPECT_THROW(validate_header("no colon"), std::invalid_argument);
  EXPECT_THROW(validate_header("Bad Name: v"), std::invalid_argument);
  EXPECT_THROW(validate_header("X: a\r\nInjected: b"), std::invalid_argument);
  // What the client writes itself may not come twice.
  for (const char* h : {"Host: evil", "content-length: 5", "Transfer-Encoding: chunked", "Connection: close",
                        "Content-Type: text/plain", "SOAPAction: x"})
    EXPECT_THROW(validate_header(h), std::invalid_argument) << h;
}

TEST(Expectations, EachFormParsesAndABadOneSaysWhy) {
  EXPECT_EQ(parse_expectation("echo").kind, Expectation::Kind::echo);
  EXPECT_EQ(parse_expectation("no-fault").kind, Expectation::Kind::no_fault);
  EXPECT_EQ(parse_expectation("status:500").status, 500);
  EXPECT_EQ(parse_expectation("contains:ok").text, "ok");
  EXPECT_EQ(parse_expectation("xpath:count(//a)=1").text, "count(//a)=1");
  auto why = [](const std::string& t) {
    try {
      parse_expectation(t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(why("xpath:count(").find("xpath:count(: "), std::string::npos) << why("xpath:count(");
  EXPECT_NE(why("status:20x").find("not an HTTP status code"), std::string::npos);
  EXPECT_NE(why("status:99").find("not an HTTP status code"), std::string::npos);
  EXPECT_NE(why("contains:").find("needs the text"), std::string::npos);
  EXPECT_NE(why("equal").find("'equal' is not echo, no-fault"), std::string::npos);
}

CustomCall call_with(const std::string& payload, std::vector<std::string> expect) {
  CustomCall c;
  c.envelope = envelope(kSoap11, payload);
  c.expect = std::move(expect);
  return c;
}

CallResult verdict(ExpectationCheck& check, long status, std::string body) { return check.check(status, body); }

TEST(Expectations, EchoComparesPathsAndValuesNotPrefixesOrTheWrapper) {
  ExpectationCheck check(call_with("<m:put xmlns:m=\"urn:a\"><m:item><m:id>7</m:id><m:name>x &amp; y</m:name></m:item>"
                                   "<m:note>n</m:note></m:put>",
                                   {"echo"}));
  // Other prefixes, a default namespace, another wrapper name: the same values.
  EXPECT_TRUE(verdict(check, 200,
                      envelope(kSoap11, "<putResponse xmlns=\"urn:b\"><item><id>7</id><name>x &amp; y</name></item>"
                                        "<note>n</note></putResponse>"))
                  .ok);
  const CallResult changed =
      verdict(check, 200, envelope(kSoap11, "<r><item><id>8</id><name>x &amp; y</name></item><note>n</note></r>"));
  EXPECT_FALSE(changed.ok);
  EXPECT_EQ(changed.kind, FailureKind::mismatch);
  EXPECT_EQ(changed.detail, "echo: item/id sent '7', got item/id '8'");
  const CallResult missing = verdict(check, 200, envelope(kSoap11, "<r><item><id>7</id><name>x &amp; y</name></item></r>"));
  EXPECT_EQ(missing.detail, "echo: 3 values sent, 2 echoed");
  const CallResult fault =
      verdict(check, 500, envelope(kSoap11, "<s:Fault><faultcode>s:Server</faultcode><faultstring>boom</faultstring></s:Fault>"));
  EXPECT_EQ(fault.kind, FailureKind::soap_fault);
  EXPECT_EQ(fault.detail, "boom");
}

TEST(Expectations, EchoLetsAServiceRenameItsParametersButNotTheNamesBelowThem) {
  // CXF's performance sample: echoComplexTypeDoc(in, id) answers (return, idout).
  ExpectationCheck check(call_with("<m:echoDoc xmlns:m=\"urn:a\"><m:in><m:item><m:v>1</m:v></m:item></m:in>"
                                   "<m:id>7</m:id></m:echoDoc>",
                                   {"echo"}));
  EXPECT_TRUE(verdict(check, 200,
                      envelope(kSoap11, "<r><return><item><v>1</v></item></return><idout>7</idout></r>"))
                  .ok);
  const CallResult value = verdict(check, 200, envelope(kSoap11, "<r><return><item><v>1</v></item></return><idout>8</idout></r>"));
  EXPECT_EQ(value.detail, "echo: id sent '7', got idout '8'");
  const CallResult renamed = verdict(check, 200, envelope(kSoap11, "<r><return><item><w>1</w></item></return><idout>7</idout></r>"));
  EXPECT_EQ(renamed.detail, "echo: in/item/v sent '1', got return/item/w '1'");
}

TEST(Expectations, EchoComparesQNamesByNamespaceAndLocalName) {
  ExpectationCheck check(call_with("<m:e xmlns:m=\"urn:a\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">"
                                   "<m:q>xsd:string</m:q><m:s>a:b</m:s></m:e>",
                                   {"echo"}));
  // CXF answers with its own prefix for XML Schema; "a:b" has no bound prefix: text.
  EXPECT_TRUE(verdict(check, 200,
                      envelope(kSoap11, "<r xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"><q>xs:string</q><s>a:b</s></r>"))
                  .ok);
  const CallResult other_ns = verdict(
      check, 200, envelope(kSoap11, "<r xmlns:xs=\"urn:not-schema\"><q>xs:string</q><s>a:b</s></r>"));
  EXPECT_EQ(other_ns.detail, "echo: q sent 'xsd:string', got q 'xs:string'");
  const CallResult other_name = verdict(
      check, 200, envelope(kSoap11, "<r xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"><q>xs:int</q><s>a:b</s></r>"));
  EXPECT_EQ(other_name.detail, "echo: q sent 'xsd:string', got q 'xs:int'");
  const CallResult text = verdict(
      check, 200, envelope(kSoap11, "<r xmlns:xs=\"http://www.w3.org/2001/XMLSchema\"><q>xs:string</q><s>c:b</s></r>"));
  EXPECT_EQ(text.detail, "echo: s sent 'a:b', got s 'c:b'");
}

TEST(Expectations, ASimpleContentPayloadIsComparedByItsText) {
  ExpectationCheck check(call_with("<ping xmlns=\"urn:p\">hello</ping>", {"echo"}));
  EXPECT_TRUE(verdict(check, 200, envelope(kSoap11, "<pong>hello</pong>")).ok);
  EXPECT_FALSE(verdict(check, 200, envelope(kSoap11, "<pong>hellO</pong>")).ok);
}

TEST(Expectations, XpathStatusContainsAndTheDefaultNoFault) {
  ExpectationCheck xpath(call_with("<q/>", {"xpath:count(//*[local-name()='item'])=2"}));
  EXPECT_TRUE(verdict(xpath, 200, envelope(kSoap11, "<r><item/><item/></r>")).ok);
  const CallResult one = verdict(xpath, 200, envelope(kSoap11, "<r><item/></r>"));
  EXPECT_EQ(one.kind, FailureKind::mismatch);
  EXPECT_EQ(one.detail, "xpath:count(//*[local-name()='item'])=2 is false");

  ExpectationCheck status(call_with("<q/>", {"status:500", "contains:boom"}));
  EXPECT_TRUE(verdict(status, 500, envelope(kSoap11, "<s:Fault><faultstring>boom</faultstring></s:Fault>")).ok);
  EXPECT_EQ(verdict(status, 200, envelope(kSoap11, "<r>boom</r>")).kind, FailureKind::http_status);
  EXPECT_EQ(verdict(status, 500, "no").detail, "contains:boom: not in the response");

  ExpectationCheck plain(call_with("<q/>", {}));  // no --expect: no-fault, and a 2xx
  EXPECT_TRUE(verdict(plain, 200, envelope(kSoap11, "<r/>")).ok);
  EXPECT_EQ(verdict(plain, 200, envelope(kSoap11, "<s:Fault><faultstring>f</faultstring></s:Fault>")).kind,
            FailureKind::soap_fault);
  EXPECT_EQ(verdict(plain, 503, "busy").kind, FailureKind::http_status);
  EXPECT_EQ(verdict(plain, 200, "not xml").kind, FailureKind::read);
  // SOAP 1.2: the Fault's reason is Reason/Text.
  EXPECT_EQ(verdict(plain, 400, envelope(kSoap12, "<s:Fault><s:Reason><s:Text>bad</s:Text></s:Reason></s:Fault>"))
                .detail,
            "bad");
}

TEST(RequestTemplate, EachCallFillsItsVariables) {
  const TempFile csv("name,city\nAda & co,London\n\"Bob \"\"B\"\"\",\"Paris, TX\"\n");
  const CsvData data = load_csv(csv.path());
  ASSERT_EQ(data.columns, (std::vector<std::string>{"name", "city"}));
  ASSERT_EQ(data.rows(), 2u);
  EXPECT_EQ(data.cell(1, 0), "Bob \"B\"");
  EXPECT_EQ(data.cell(1, 1), "Paris, TX");
  RequestTemplate t("<a>${seq}|${client}|${csv:city}|${csv:name}</a>", &data);
  ASSERT_TRUE(t.varies());
  t.set_connection(3);  // connection 3 starts at row 3 % 2 = 1
  std::string out;
  t.render(out);
  EXPECT_EQ(out, "<a>1|3|Paris, TX|Bob &quot;B&quot;</a>");
  t.render(out);
  EXPECT_EQ(out, "<a>2|3|London|Ada &amp; co</a>");
  t.render(out);
  EXPECT_EQ(out, "<a>3|3|Paris, TX|Bob &quot;B&quot;</a>");

  RequestTemplate r("${uuid} ${random:12} ${now}", nullptr);
  std::string a, b;
  r.render(a);
  r.render(b);
  EXPECT_NE(a, b);
  const std::regex shape(
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12} [A-Za-z0-9]{12} "
      "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
  EXPECT_TRUE(std::regex_match(a, shape)) << a;
  EXPECT_FALSE(RequestTemplate("<plain/>", nullptr).varies());
}

TEST(RequestTemplate, UnknownVariablesAndMissingColumnsAreNamed) {
  const TempFile csv("name\nx\n");
  const CsvData data = load_csv(csv.path());
  auto why = [&](const std::string& text, const CsvData* d) {
    try {
      RequestTemplate t(text, d);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(why("${sequence}", nullptr).find("unknown variable ${sequence}"), std::string::npos);
  EXPECT_NE(why("${csv:city}", &data).find("has no column 'city' (it has: name)"), std::string::npos);
  EXPECT_NE(why("${csv:name}", nullptr).find("needs --data FILE.csv"), std::string::npos);
  EXPECT_NE(why("${random:0}", nullptr).find("N must be a count"), std::string::npos);
  EXPECT_NE(why("${seq", nullptr).find("without a closing"), std::string::npos);
  auto csv_error = [](const std::string& text) {
    const TempFile f(text);
    try {
      load_csv(f.path());
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(csv_error("a,b\n1,2\n3\n").find(": line 3: 1 fields, the header has 2"), std::string::npos)
      << csv_error("a,b\n1,2\n3\n");
  EXPECT_NE(csv_error("a\n\"open\n").find("a quoted field is not closed"), std::string::npos);
  EXPECT_NE(csv_error("a\n").find("no rows after the header"), std::string::npos);
}

TEST(Expectations, EchoWithVariablesComparesWithWhatThisCallSent) {
  CustomCall c = call_with("<p><id>${seq}</id></p>", {"echo"});
  ExpectationCheck check(c);
  ASSERT_TRUE(check.varies());
  EXPECT_NE(check.render_request().find("<id>1</id>"), std::string::npos);
  EXPECT_TRUE(verdict(check, 200, envelope(kSoap11, "<r><id>1</id></r>")).ok);
  EXPECT_NE(check.render_request().find("<id>2</id>"), std::string::npos);
  EXPECT_FALSE(verdict(check, 200, envelope(kSoap11, "<r><id>1</id></r>")).ok) << "call 2 sent 2";
}

}  // namespace
}  // namespace soapbench

namespace soapbench {
namespace {

// --expect echo on any service: the forms stacks write the same value in pass,
// other values and other text do not.
TEST(EchoValues, NumbersAndDateTimesInTheirCanonicalFormsAreTheSameValue) {
  for (const auto& [sent, got] : std::vector<std::pair<std::string, std::string>>{
           {"0.0", "0"}, {"1E3", "1000.0"}, {"-0.5", "-5e-1"}, {"3.40282347E+38", "3.4028235E38"},
           {"1.7976931348623157E+308", "1.7976931348623157e308"}, {"+12", "12"}, {" 7 ", "7"}, {"INF", "INF"},
           {"NaN", "NaN"}, {"0.10", ".1"},
           {"2026-12-01T23:40:55Z", "2026-12-01T23:40:55.000Z"}, {"2026-12-01T23:40:55Z", "2026-12-01T23:40:55+00:00"},
           {"2026-12-01T23:40:55+01:00", "2026-12-01T22:40:55Z"}, {"2026-12-01T00:30:00-01:00", "2026-12-01T01:30:00Z"},
           {"2026-12-01T23:40:55.5", "2026-12-01T23:40:55.50"}, {"text", "text"}})
    EXPECT_TRUE(same_echoed_value(sent, got)) << sent << " / " << got;
  for (const auto& [sent, got] : std::vector<std::pair<std::string, std::string>>{
           {"1.5", "1.25"}, {"0.12345678901234567", "0.1234568"}, {"1", "true"}, {"1e", "1"}, {"1.2.3", "1.2.3 "},
           {"abc", "ABC"}, {"INF", "-INF"}, {"", "0"}, {"2026-12-01T23:40:55Z", "2026-12-01T23:40:56Z"},
           {"2026-12-01T23:40:55Z", "2026-12-01T23:40:55"}, {"2026-12-01T23:40:55.1Z", "2026-12-01T23:40:55.01Z"},
           {"text", "text "}})
    EXPECT_FALSE(same_echoed_value(sent, got)) << sent << " / " << got;
}

}  // namespace
}  // namespace soapbench

namespace soapbench {
namespace {

TEST(MixOrder, CallsFollowTheWeightsExactlyAndEvenlyFromEachStart) {
  MixOrder order({3, 1}, 0);
  std::string seq;
  for (int i = 0; i < 8; ++i) seq += "ab"[order.next()];
  EXPECT_EQ(seq, "aabaaaba");
  MixOrder shifted({3, 1}, 1);
  seq.clear();
  for (int i = 0; i < 4; ++i) seq += "ab"[shifted.next()];
  EXPECT_EQ(seq, "abaa") << "one call into the cycle";
  MixOrder three({2, 5, 1}, 0);
  std::vector<int> counts(3);
  for (int i = 0; i < 80; ++i) ++counts[three.next()];
  EXPECT_EQ(counts, (std::vector<int>{20, 50, 10}));
}

// A mix file beside its request files, each entry checked as --request-file is.
class MixFileTest : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("soapbench-mix-" + std::to_string(getpid()));
  void SetUp() override {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "a.xml") << envelope(kSoap11, "<m:getA xmlns:m=\"urn:m\"><m:x>1</m:x></m:getA>");
    std::ofstream(dir / "b.xml") << envelope(kSoap12, "<m:getB xmlns:m=\"urn:m\"/>");
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& text) {
    std::ofstream(dir / "mix.json") << text;
    return (dir / "mix.json").string();
  }
  std::string error_of(const std::string& text) {
    try {
      load_mix(write(text));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(loaded)";
  }
};

TEST_F(MixFileTest, EntriesGetTheirFilesWeightsActionsAndExpectations) {
  const auto mix = load_mix(write(R"({"calls": [
      {"request": "a.xml", "weight": 3, "soap_action": "urn:m#getA", "expect": ["echo"], "headers": ["X-T: 1"]},
      {"request": "b.xml", "name": "second"}]})"),
                            "", {"X-All: yes"});
  ASSERT_EQ(mix.size(), 2u);
  EXPECT_EQ(mix[0].call.name, "getA");
  EXPECT_EQ(mix[0].weight, 3u);
  EXPECT_EQ(mix[0].call.soap_action, "urn:m#getA");
  EXPECT_EQ(mix[0].call.expect, std::vector<std::string>{"echo"});
  EXPECT_EQ(mix[0].call.headers, (std::vector<std::string>{"X-All: yes", "X-T: 1"}));
  EXPECT_EQ(mix[1].call.name, "second");
  EXPECT_EQ(mix[1].weight, 1u);
  EXPECT_EQ(mix[1].call.soap_version, "1.2");
}

TEST_F(MixFileTest, BadFilesAreRefusedNamingTheFileLineOrEntry) {
  const std::string f = (dir / "mix.json").string();
  EXPECT_EQ(error_of("{\"calls\": [\n  {\"request\": \"a.xml\",}\n]}").rfind(f + ":2:", 0), 0u) << error_of("{\"calls\": [\n  {\"request\": \"a.xml\",}\n]}");
  EXPECT_EQ(error_of("{}"), f + ": no \"calls\": give an array of {\"request\": FILE, ...}");
  EXPECT_EQ(error_of(R"({"calls": [{"weight": 2}]})"), f + ": calls[0]: no \"request\" (a request file)");
  EXPECT_EQ(error_of(R"({"calls": [{"request": "a.xml", "weight": 0}]})"),
            f + ": calls[0]: \"weight\" must be a whole number from 1 to 1000000");
  EXPECT_EQ(error_of(R"({"calls": [{"request": "a.xml", "wieght": 2}]})"),
            f + ": calls[0]: unknown field \"wieght\" (request, soap_action, weight, expect, name, headers)");
  EXPECT_EQ(error_of(R"({"calls": [{"request": "a.xml"}, {"request": "a.xml"}]})"),
            f + ": calls[1]: a second entry named 'getA' (give each a \"name\")");
  EXPECT_NE(error_of(R"({"calls": [{"request": "a.xml", "expect": ["sometimes"]}]})").find(f + ": calls[0]: expect: "),
            std::string::npos);
  EXPECT_NE(error_of(R"({"calls": [{"request": "nope.xml"}]})").find(f + ": calls[0]: "), std::string::npos);
}

}  // namespace
}  // namespace soapbench

namespace soapbench {
namespace {

TEST_F(MixFileTest, ATomlFileHoldsTheSameFields) {
  std::ofstream(dir / "mix.toml") << "[[calls]]\nrequest = \"a.xml\"\nweight = 3\nsoap_action = \"urn:m#getA\"\n"
                                     "expect = [\"echo\"]\n\n[[calls]]\nrequest = \"b.xml\"\nname = \"second\"\n";
  const auto mix = load_mix((dir / "mix.toml").string());
  ASSERT_EQ(mix.size(), 2u);
  EXPECT_EQ(mix[0].call.name, "getA");
  EXPECT_EQ(mix[0].weight, 3u);
  EXPECT_EQ(mix[0].call.soap_action, "urn:m#getA");
  EXPECT_EQ(mix[0].call.expect, std::vector<std::string>{"echo"});
  EXPECT_EQ(mix[1].call.name, "second");
  std::ofstream(dir / "bad.toml") << "[[calls]]\nrequest = \"a.xml\"\nweight = = 3\n";
  try {
    load_mix((dir / "bad.toml").string());
    ADD_FAILURE() << "a malformed TOML file loaded";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "bad.toml").string() + ":3:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("not TOML"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace soapbench
