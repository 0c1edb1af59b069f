// GET /echo?wsdl and GET /stats, in every server mode.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "test_support.h"

namespace soapbench::test {
namespace {

class HttpGet : public ::testing::TestWithParam<ServerMode> {
 protected:
  ServerProcess server{flags_for(GetParam())};
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// wsdl/echo.wsdl's soap:address, which the server replaces by where it was reached.
constexpr std::string_view kCommittedAddress = "http://127.0.0.1:8080/echo";

std::string contract_at(const std::string& address) {
  std::string contract = read_file(std::string(SOAPBENCH_SOURCE_DIR) + "/wsdl/echo.wsdl");
  const size_t at = contract.find(kCommittedAddress);
  if (at != std::string::npos) contract.replace(at, kCommittedAddress.size(), address);
  return contract;
}

std::string wsdl_with_host(uint16_t port, const std::string& host) {
  const auto r = exchange_once(port, "GET /echo?wsdl HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  return r.outcome == ReadResult::Outcome::response && r.response.status == 200 ? r.response.body : r.describe();
}

TEST_P(HttpGet, WsdlIsTheContractAtTheAddressTheClientUsed) {
  const std::string contract = contract_at("http://127.0.0.1/echo");  // http_get sends Host: 127.0.0.1
  ASSERT_GT(contract.size(), 1000u) << "wsdl/echo.wsdl not found under " << SOAPBENCH_SOURCE_DIR;
  const auto r = exchange_once(server.port(), http_get("/echo?wsdl", false));
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 200);
  EXPECT_TRUE(r.response.header("Content-Type").starts_with("text/xml")) << r.response.header("Content-Type");
  EXPECT_TRUE(r.response.body == contract) << "the served WSDL differs from wsdl/echo.wsdl at its address";
  // A foreign Host and port are reflected, so a client built from the WSDL calls back there.
  EXPECT_EQ(wsdl_with_host(server.port(), "soap.example.test:18080"),
            contract_at("http://soap.example.test:18080/echo"));
  EXPECT_EQ(wsdl_with_host(server.port(), "[::1]:9"), contract_at("http://[::1]:9/echo"));
  // A Host that is no host name is not reflected into the XML: the server's own address instead.
  const std::string own = "http://127.0.0.1:" + std::to_string(server.port()) + "/echo";
  EXPECT_EQ(wsdl_with_host(server.port(), "x\"/><evil a=\""), contract_at(own));
}

TEST(HttpGetPublicUrl, WsdlAdvertisesThePublicUrlBehindAProxy) {
  ServerProcess proxied{flags_for(ServerMode{"per-connection", {"--mode", "per-connection"}},
                                  {"--public-url", "https://proxy.example/soap/echo"})};
  EXPECT_EQ(wsdl_with_host(proxied.port(), "127.0.0.1"), contract_at("https://proxy.example/soap/echo"));
}

// The counters match exactly what this test sent: 7 echoString and 3 echoStruct
// on one keep-alive connection, then this one GET /stats on a second connection.
TEST_P(HttpGet, StatsCountWhatWasSent) {
  EchoClient client(server.endpoint());
  const std::string text = make_string(PayloadSize{}.string_length);
  const std::vector<ItemValue> items = make_items({.items = 2});
  for (int i = 0; i < 7; ++i) {
    std::string echoed;
    ASSERT_EQ(client.echo_string(text, echoed), "");
  }
  for (int i = 0; i < 3; ++i) {
    std::vector<ItemValue> echoed;
    ASSERT_EQ(client.echo_struct(items, echoed), "");
  }
  const std::string get = http_get("/stats", false);
  const auto r = exchange_once(server.port(), get);
  ASSERT_EQ(r.outcome, ReadResult::Outcome::response) << r.describe();
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.header("Content-Type"), "application/json");
  const auto stats = nlohmann::json::parse(r.response.body);

  EXPECT_EQ(stats["requests"]["echoString"], 7);
  EXPECT_EQ(stats["requests"]["echoStruct"], 3);
  EXPECT_EQ(stats["requests"]["total"], 10);
  EXPECT_EQ(stats["requests"]["http_get"], 1);
  EXPECT_EQ(stats["faults"], 0);
  EXPECT_EQ(stats["connections"]["accepted"], 2);
  EXPECT_EQ(stats["connections"]["refused"], 0);
  // Every byte the client sent has been read, and so has this GET; the bytes
  // out are the ten responses (this one is counted after it is rendered).
  EXPECT_EQ(stats["bytes_in"].get<uint64_t>(), client.bytes_sent() + get.size());
  EXPECT_EQ(stats["bytes_out"].get<uint64_t>(), client.bytes_received());
  EXPECT_GT(client.bytes_sent(), 0u);
  EXPECT_EQ(stats["mode"], GetParam().name);
  EXPECT_EQ(stats["gsoap_version"], "2.8.124");
  const std::string runtime = stats.value("gsoap_runtime", std::string());
  EXPECT_TRUE(runtime.starts_with("source stdsoap2.cpp 2.8.124") || runtime.starts_with("system libgsoap++ 2.8.124"))
      << runtime;
  EXPECT_GT(stats["rss_bytes"].get<uint64_t>(), 0u);
  EXPECT_GE(stats["uptime_s"].get<double>(), 0.0);
  EXPECT_TRUE(stats["cpu"]["user_s"].is_number()) << stats.dump();
  EXPECT_TRUE(stats["cpu"]["system_s"].is_number()) << stats.dump();
}

// The first line and /stats agree on the mode and its number of threads.
TEST_P(HttpGet, StatsAgreeWithTheFirstLine) {
  const auto stats = fetch_stats(server.port());
  const std::string line = server.first_line();
  EXPECT_NE(line.find(" mode=" + GetParam().name + " "), std::string::npos) << line;
  const std::string threads = line.substr(line.rfind("threads=") + 8);
  EXPECT_EQ(stats["threads"].get<uint64_t>(), std::stoull(threads)) << line;
  if (GetParam().name == "pool") {
    EXPECT_EQ(stats["threads"], 4);
  } else if (GetParam().name == "loops") {
    EXPECT_EQ(stats["threads"], 2);
  } else if (GetParam().name == "iterative") {
    EXPECT_EQ(stats["threads"], 1);
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, HttpGet, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test

namespace soapbench::test {
namespace {

// --access-log: a Common Log Format line per request, in every mode, written
// out by the time the server has stopped: answered requests with their status
// and response bytes, refused ones too.
// --time-layers: the POSTs timed add their XML check's and gSOAP's thread CPU
// time to /stats; without the flag there is no "layers" object at all.
class TimeLayers : public ::testing::TestWithParam<ServerMode> {};

TEST_P(TimeLayers, EveryPostAddsItsXmlAndGsoapCpuToStats) {
  ServerProcess plain{flags_for(GetParam())};
  EXPECT_FALSE(fetch_stats(plain.port()).contains("layers"));
  ServerProcess server{flags_for(GetParam(), {"--time-layers", "--time-layers-every", "1"})};
  const nlohmann::json before = fetch_stats(server.port()).at("layers");
  EXPECT_EQ(before.at("timed_requests").get<uint64_t>(), 0u);
  const std::string request = http_post(soap_envelope(echo_string_body(std::string(2000, 'x'))));
  for (int i = 0; i < 200; ++i)
    ASSERT_EQ(exchange_once(server.port(), request).outcome, ReadResult::Outcome::response);
  exchange_once(server.port(), http_get("/echo?wsdl", false));  // a GET is not timed
  const nlohmann::json layers = fetch_stats(server.port()).at("layers");
  EXPECT_EQ(layers.at("timed_requests").get<uint64_t>(), 200u) << layers;
  // 200 parses of a 2 KB echoString take some microseconds each, and less than the whole process's CPU.
  const double guard = layers.at("xml_guard_cpu_s").get<double>(), soap = layers.at("soap_cpu_s").get<double>();
  EXPECT_GT(soap, 200 * 1e-6) << layers;
  EXPECT_GT(guard, 0.0) << layers;
  const nlohmann::json cpu = fetch_stats(server.port()).at("cpu");
  EXPECT_LT(guard + soap, cpu.at("user_s").get<double>() + cpu.at("system_s").get<double>() + 0.02) << layers << cpu;
  // The clock's own cost, taken out of each interval: a system call, well under 50 us even under sanitizers.
  EXPECT_GT(layers.at("clock_read_us").get<double>(), 0.0) << layers;
  EXPECT_LT(layers.at("clock_read_us").get<double>(), 50.0) << layers;
  EXPECT_EQ(layers.at("every").get<unsigned>(), 1u) << layers;
}

// By default one POST in 16 per serving thread is timed: on one keep-alive
// connection (one serving thread in every mode but pool) 40 POSTs time the 1st, 17th and 33rd.
TEST_P(TimeLayers, ByDefaultOnePostInSixteenIsTimed) {
  ServerProcess server{flags_for(GetParam(), {"--time-layers"})};
  RawConnection c(server.port());
  const std::string request = http_post(soap_envelope(echo_string_body("sampled")));
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(c.send(request));
    ASSERT_EQ(c.read_response(milliseconds(10000)).outcome, ReadResult::Outcome::response);
  }
  const nlohmann::json layers = fetch_stats(server.port()).at("layers");
  EXPECT_EQ(layers.at("every").get<unsigned>(), 16u) << layers;
  const uint64_t timed = layers.at("timed_requests").get<uint64_t>();
  if (GetParam().name == "pool") {  // each worker counts its own: at least 3, at most one per worker more
    EXPECT_GE(timed, 3u) << layers;
    EXPECT_LE(timed, 40u) << layers;
  } else {
    EXPECT_EQ(timed, 3u) << layers;
  }
}

TEST(TimeLayersFlags, EveryNeedsTimeLayersAndAPositiveCount) {
  const ServerRun without = run_server_to_exit("--time-layers-every 4");
  EXPECT_EQ(without.code, 2) << without.output;
  EXPECT_NE(without.output.find("--time-layers-every requires --time-layers"), std::string::npos) << without.output;
  const ServerRun zero = run_server_to_exit("--time-layers --time-layers-every 0");
  EXPECT_EQ(zero.code, 2) << zero.output;
  EXPECT_NE(zero.output.find("--time-layers-every"), std::string::npos) << zero.output;
}

INSTANTIATE_TEST_SUITE_P(AllModes, TimeLayers, ::testing::ValuesIn(all_modes()), mode_param_name);

class AccessLogFile : public ::testing::TestWithParam<ServerMode> {};

TEST_P(AccessLogFile, EveryRequestGetsALineWithItsStatusAndBytes) {
  const std::string log = ::testing::TempDir() + "access-" + GetParam().name + ".log";
  std::remove(log.c_str());
  ServerProcess server{flags_for(GetParam(), {"--access-log", log})};
  const auto echo = exchange_once(server.port(), http_post(soap_envelope(echo_string_body("logged"))));
  ASSERT_EQ(echo.outcome, ReadResult::Outcome::response) << echo.describe();
  const auto wsdl = exchange_once(server.port(), http_get("/echo?wsdl", false));
  const auto missing = exchange_once(server.port(), http_get("/nowhere\"x", false));
  const auto smuggled = exchange_once(server.port(), "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                                                     "Transfer-Encoding: chunked\r\n\r\nhello");
  ASSERT_EQ(smuggled.outcome, ReadResult::Outcome::response) << smuggled.describe();
  server.send_signal(SIGTERM);
  ASSERT_TRUE(server.wait_exit(milliseconds(10000)).has_value()) << "the server did not stop";

  std::vector<std::string> lines;
  std::istringstream text(read_file(log));
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << read_file(log);
  const std::regex line(R"(^127\.0\.0\.1 - - \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d \+0000\] "(\S+) (\S+) HTTP/1\.1" (\d{3}) (\d+) (\d+)$)");
  const std::vector<std::tuple<std::string, std::string, int, size_t>> want = {
      {"POST", "/echo", 200, echo.received.size()}, {"GET", "/echo?wsdl", 200, wsdl.received.size()},
      {"GET", "/nowhere?x", 404, missing.received.size()}, {"POST", "/echo", 400, smuggled.received.size()}};
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, line)) << lines[i];
    EXPECT_EQ(m[1].str(), std::get<0>(want[i])) << lines[i];
    EXPECT_EQ(m[2].str(), std::get<1>(want[i])) << lines[i] << ": a quote in the target is not written as one";
    EXPECT_EQ(std::stoi(m[3].str()), std::get<2>(want[i])) << lines[i];
    EXPECT_EQ(std::stoull(m[4].str()), std::get<3>(want[i])) << lines[i] << ": the bytes of the whole response";
  }
}

INSTANTIATE_TEST_SUITE_P(AllModes, AccessLogFile, ::testing::ValuesIn(all_modes()), mode_param_name);

}  // namespace
}  // namespace soapbench::test
