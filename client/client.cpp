#include "client.h"

#include <cstdio>
#include <cctype>
#include <stdexcept>
#include <string>

#include "curl_client.h"
#include "gsoap_client.h"
#include "raw_client.h"
#include "tcp_client.h"

namespace soapbench {

std::string_view to_string(Operation op) {
  switch (op) {
    case Operation::echo_string: return "echoString";
    case Operation::echo_struct: return "echoStruct";
    case Operation::echo_binary: return "echoBinary";
    case Operation::tcp_echo: return "tcpEcho";
    case Operation::request: return "request";
  }
  return "?";
}

std::optional<Operation> parse_operation(std::string_view name) {
  if (name == "echoString") return Operation::echo_string;
  if (name == "echoStruct") return Operation::echo_struct;
  if (name == "echoBinary") return Operation::echo_binary;
  if (name == "tcpEcho") return Operation::tcp_echo;
  if (name == "request") return Operation::request;  // for the worker plan; --op refuses it (options.cpp)
  return std::nullopt;
}

std::string_view to_string(FailureKind kind) {
  switch (kind) {
    case FailureKind::soap_fault: return "soap_fault";
    case FailureKind::http_status: return "http_status";
    case FailureKind::mismatch: return "mismatch";
    case FailureKind::timeout: return "timeout";
    case FailureKind::connect: return "connect";
    case FailureKind::read: return "read";
    case FailureKind::tls: return "tls";
    case FailureKind::auth: return "auth";
  }
  return "?";
}

namespace {

// http[s]://host[:port][/path]: what gSOAP, libcurl and the raw client accept.
bool is_http_url(std::string_view url) {
  if (url.starts_with("http://")) url.remove_prefix(7);
  else if (url.starts_with("https://")) url.remove_prefix(8);
  else return false;
  const std::string_view authority = url.substr(0, url.find('/'));
  std::string_view host = authority, port;
  if (!authority.empty() && authority[0] == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = authority.substr(0, close + 1);
    port = authority.substr(close + 1);
    if (!port.empty() && port[0] != ':') return false;
    if (!port.empty()) port.remove_prefix(1);
  } else if (const size_t colon = authority.find(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return false;
  }
  if (host.empty()) return false;
  for (char c : host)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '@' || c == '?' || c == '#') return false;
  if (port.size() > 5) return false;
  unsigned value = 0;
  for (char c : port) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (!port.empty() && (value == 0 || value > 65535)) return false;
  for (char c : url)
    if (std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

double min_timeout_s(std::string_view kind) { return kind == "curl" ? 1e-3 : 1e-6; }

std::unique_ptr<EchoClient> make_client(std::string_view kind, const ClientOptions& options) {
  if (!(options.timeout_s > 0)) throw std::invalid_argument("timeout must be positive");
  if (options.timeout_s < min_timeout_s(kind))
  {
    char text[160];
    std::snprintf(text, sizeof text, "a timeout of %g us is below the %g us the %.*s client can honour",
                  options.timeout_s * 1e6, min_timeout_s(kind) * 1e6, static_cast<int>(kind.size()), kind.data());
    throw std::invalid_argument(text);
  }
  if (kind == "tcp") return make_tcp_client(options);
  if (options.operation == Operation::tcp_echo)
    throw std::invalid_argument("tcpEcho is a plain-TCP message: only the tcp client sends it");
  const bool custom = options.custom.has_value() || !options.mix.empty();
  if ((options.operation == Operation::request) != custom || (options.custom && !options.mix.empty()))
    throw std::invalid_argument("a request file or a mix goes with the operation 'request', and only it");
  if (custom && kind != "raw" && kind != "curl")
    throw std::invalid_argument("the " + std::string(kind) +
                                " client is a proxy generated from wsdl/echo.wsdl: it cannot send a request file "
                                "(use --client raw or curl)");
  if (options.operation == Operation::echo_binary && kind != "raw")
    throw std::invalid_argument("echoBinary is implemented by the raw client only, not '" + std::string(kind) + "'");
  if (!is_http_url(options.url))
    throw std::invalid_argument("not an http[s]://host[:port]/path URL: '" + options.url + "'");
  if (!(options.timeout_s > 0)) throw std::invalid_argument("timeout must be positive");
  if (kind == "gsoap") return make_gsoap_client(options);
  if (kind == "curl") return make_curl_client(options);
  if (kind == "raw") return make_raw_client(options);
  throw std::invalid_argument("unknown client kind '" + std::string(kind) + "' (raw, gsoap, curl, tcp)");
}

bool is_https_url(std::string_view url) { return url.starts_with("https://"); }

CallResult failure(FailureKind kind, std::string detail) {
  constexpr size_t kMaxDetail = 200;
  if (detail.size() > kMaxDetail) detail.resize(kMaxDetail);
  return {false, kind, std::move(detail)};
}

}  // namespace soapbench
