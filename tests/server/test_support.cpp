#include "test_support.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "gsoap_values.h"
#include "soapbench/contract.h"

namespace soapbench::test {

const std::string& test_certs_dir() {
  static const std::string dir = [] {
    std::string tmpl = ::testing::TempDir() + "soapbench-certs-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("test_certs_dir: mkdtemp failed");
    const std::string cmd = std::string(SOAPBENCH_SOURCE_DIR) + "/tests/tls/make-certs '" + tmpl + "'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("test_certs_dir: " + cmd + " failed");
    // Removed when the test program exits, as a temporary folder should be.
    static const struct Remove {
      std::string path;
      ~Remove() { std::error_code ignored; std::filesystem::remove_all(path, ignored); }
    } remove{tmpl};
    return tmpl + "/";
  }();
  return dir;
}

std::vector<ServerMode> all_modes() {
  return {{"iterative", {"--mode", "iterative"}},
          {"pool", {"--mode", "pool", "--threads", "4"}},
          {"per-connection", {"--mode", "per-connection"}},
          {"loops", {"--mode", "loops", "--threads", "2"}}};
}

std::string mode_param_name(const ::testing::TestParamInfo<ServerMode>& info) {
  std::string name = info.param.name;
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

std::vector<std::string> flags_for(const ServerMode& mode, std::vector<std::string> extra) {
  std::vector<std::string> flags = mode.flags;
  flags.insert(flags.end(), extra.begin(), extra.end());
  return flags;
}

// ---- SOAP messages as bytes ------------------------------------------------

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string soap_envelope(std::string_view body_xml) {
  return std::string(
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<SOAP-ENV:Envelope xmlns:SOAP-ENV=\"http://schemas.xmlsoap.org/soap/envelope/\" "
             "xmlns:echo=\"") +
         kNamespace + "\"><SOAP-ENV:Body>" + std::string(body_xml) + "</SOAP-ENV:Body></SOAP-ENV:Envelope>\n";
}

std::string echo_string_body(std::string_view text) {
  return "<echo:echoString><echo:text>" + xml_escape(text) + "</echo:text></echo:echoString>";
}

std::string http_post(std::string_view body, std::string_view path, std::string_view soap_action) {
  return "POST " + std::string(path) +
         " HTTP/1.1\r\n"
         "Host: 127.0.0.1\r\n"
         "Content-Type: text/xml; charset=utf-8\r\n"
         "Content-Length: " +
         std::to_string(body.size()) +
         "\r\n"
         "SOAPAction: \"" +
         std::string(soap_action) + "\"\r\n\r\n" + std::string(body);
}

std::string http_get(std::string_view path, bool keep_alive) {
  return "GET " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
         (keep_alive ? "" : "Connection: close\r\n") + "\r\n";
}

namespace {

std::string xml_unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    const size_t end = text.find(';', i);
    if (end == std::string_view::npos) {  // not an entity reference: keep the rest as it is
      out.append(text.substr(i));
      break;
    }
    const std::string_view entity = text.substr(i + 1, end - i - 1);
    if (entity == "amp") out += '&';
    else if (entity == "lt") out += '<';
    else if (entity == "gt") out += '>';
    else if (entity == "quot") out += '"';
    else if (entity == "apos") out += '\'';
    else if (entity.starts_with("#x")) out += static_cast<char>(std::stoi(std::string(entity.substr(2)), nullptr, 16));
    else if (entity.starts_with("#")) out += static_cast<char>(std::stoi(std::string(entity.substr(1))));
    else out.append(text.substr(i, end - i + 1));  // unknown entity: left as written
    i = end;
  }
  return out;
}

}  // namespace

std::optional<std::string> echoed_text(std::string_view body) {
  const size_t open = body.find(":text>");
  if (open == std::string_view::npos) return std::nullopt;
  const size_t start = open + 6;
  const size_t close = body.find("</", start);
  if (close == std::string_view::npos) return std::nullopt;
  return xml_unescape(body.substr(start, close - start));
}

// ---- GET /stats ------------------------------------------------------------

namespace {

nlohmann::json stats_from(const ReadResult& r) {
  if (r.outcome != ReadResult::Outcome::response || r.response.status != 200)
    throw std::runtime_error("GET /stats failed: " + r.describe());
  return nlohmann::json::parse(r.response.body);
}

}  // namespace

nlohmann::json fetch_stats(uint16_t port) { return stats_from(exchange_once(port, http_get("/stats", false))); }

nlohmann::json fetch_stats(RawConnection& connection) {
  if (!connection.send(http_get("/stats", true))) throw std::runtime_error("GET /stats: connection closed");
  return stats_from(connection.read_response(milliseconds(10000)));
}

// ---- the generated gSOAP client --------------------------------------------

EchoClient::EchoClient(const std::string& endpoint)
    : proxy_(SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING, SOAP_IO_KEEPALIVE | SOAP_C_UTFSTRING), endpoint_(endpoint) {
  struct soap* s = proxy_.soap;
  proxy_.soap_endpoint = endpoint_.c_str();
  // Bounded waits: a hung server fails the test instead of hanging it.
  s->connect_timeout = 10;
  s->recv_timeout = 10;
  s->send_timeout = 10;
  s->user = this;
  default_send_ = s->fsend;
  default_recv_ = s->frecv;
  s->fsend = counting_send;
  s->frecv = counting_recv;
}

EchoClient::~EchoClient() {
  proxy_.destroy();
  proxy_.soap_close_socket();
}

int EchoClient::counting_send(struct soap* soap, const char* data, size_t n) {
  auto* self = static_cast<EchoClient*>(soap->user);
  self->sent_ += n;
  self->last_request_.append(data, n);
  return self->default_send_(soap, data, n);
}

size_t EchoClient::counting_recv(struct soap* soap, char* data, size_t n) {
  auto* self = static_cast<EchoClient*>(soap->user);
  const size_t got = self->default_recv_(soap, data, n);
  self->received_ += got;
  return got;
}

std::string EchoClient::error_text() {
  char buf[1024] = "";
  proxy_.soap_sprint_fault(buf, sizeof buf);
  return std::string("gSOAP error ") + std::to_string(proxy_.soap->error) + ": " + buf;
}

std::string EchoClient::echo_string(const std::string& text, std::string& echoed) {
  last_request_.clear();
  _echo__echoString request;
  request.text = text;
  _echo__echoStringResponse response;
  std::string error;
  if (proxy_.echoString(&request, response) == SOAP_OK) echoed = response.text;
  else error = error_text();
  proxy_.destroy();
  return error;
}

std::string EchoClient::echo_struct(const std::vector<ItemValue>& items, std::vector<ItemValue>& echoed) {
  last_request_.clear();
  _echo__echoStruct request;
  request.item = to_gsoap(proxy_.soap, items);
  _echo__echoStructResponse response;
  std::string error;
  if (proxy_.echoStruct(&request, response) == SOAP_OK) echoed = from_gsoap(proxy_.soap, response.item);
  else error = error_text();
  proxy_.destroy();
  return error;
}

std::string check_echo_on_new_connection(uint16_t port) {
  EchoClient client("http://127.0.0.1:" + std::to_string(port) + "/echo");
  const std::string sent = make_string(PayloadSize{}.string_length);
  std::string echoed;
  if (std::string error = client.echo_string(sent, echoed); !error.empty()) return error;
  if (echoed != sent) return "echoed text differs: " + std::to_string(echoed.size()) + " characters back";
  return {};
}

}  // namespace soapbench::test
