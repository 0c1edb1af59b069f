#include "config.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <thread>

#include "soapbench/version.h"
#include "tls.h"

namespace soapbench::server {

const char* to_string(Mode m) {
  switch (m) {
    case Mode::iterative: return "iterative";
    case Mode::pool: return "pool";
    case Mode::per_connection: return "per-connection";
    case Mode::loops: return "loops";
  }
  return "?";
}

namespace {

// "10ms", "0.5s", "250us" or plain seconds ("0.01") into seconds: at most an hour.
CLI::Validator seconds_value() {
  return CLI::Validator(
      [](std::string& text) {
        const std::pair<const char*, double> units[] = {{"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
        double scale = 1;
        std::string number = text;
        for (const auto& [suffix, factor] : units) {
          const std::string_view u(suffix);
          if (number.size() > u.size() && number.compare(number.size() - u.size(), u.size(), u) == 0) {
            number.resize(number.size() - u.size());
            scale = factor;
            break;
          }
        }
        size_t used = 0;
        double v = -1;
        try {
          v = std::stod(number, &used);
        } catch (const std::exception&) {
        }
        if (used != number.size() || !(v >= 0) || v * scale > 3600)
          return "expected a duration from 0 to 1 hour such as 10ms, 0.5s or 250us, got '" + text + "'";
        text = std::to_string(v * scale);
        return std::string();
      },
      "DURATION");
}

}  // namespace

Config parse_args(int argc, char** argv, int& exit_code) {
  Config c;
  exit_code = -1;
  CLI::App app{"soapbench-server: the gSOAP echo service of wsdl/echo.wsdl"};
  app.set_version_flag("--version", std::string("soapbench-server ") + SOAPBENCH_VERSION +
                                        " (gSOAP " + SOAPBENCH_GSOAP_VERSION + ")\ngSOAP runtime: " +
                                        SOAPBENCH_GSOAP_RUNTIME_INFO + "\nTLS: " + openssl_version());
  const std::map<std::string, Mode> modes{
      {"iterative", Mode::iterative}, {"pool", Mode::pool}, {"per-connection", Mode::per_connection},
      {"loops", Mode::loops}};
  std::string mode_name = "per-connection";
  std::string keepalive = "on";

  app.add_option("--bind", c.bind, "Address to listen on (127.0.0.1; 0.0.0.0 or :: for a test network)")
      ->capture_default_str();
  app.add_option("--port", c.port, "TCP port; 0 picks a free one and prints it")->capture_default_str();
  app.add_option("--mode", mode_name, "iterative | pool | per-connection | loops")
      ->check(CLI::IsMember({"iterative", "pool", "per-connection", "loops"}))
      ->capture_default_str();
  CLI::Option* threads = app.add_option("--threads", c.threads,
                                        "Worker threads in pool mode; event loops in loops mode (default: one per core)")
      ->check(CLI::Range(1u, 1024u))->capture_default_str();
  app.add_flag("--gzip", c.gzip,
               "Gzip the SOAP response when the request's Accept-Encoding accepts gzip (requests are\n"
               "decoded whenever they say Content-Encoding: gzip, with or without it)");
  app.add_option("--keepalive", keepalive, "HTTP keep-alive: on | off")
      ->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  app.add_option("--recv-timeout", c.recv_timeout_s, "Seconds a request may take to arrive")
      ->check(CLI::Range(0.001, 3600.0))->capture_default_str();
  app.add_option("--send-timeout", c.send_timeout_s, "Seconds a response may take to be sent")
      ->check(CLI::Range(0.001, 3600.0))->capture_default_str();
  app.add_option("--idle-timeout", c.idle_timeout_s, "Seconds an idle keep-alive connection stays open")
      ->check(CLI::Range(0.001, 86400.0))->capture_default_str();
  app.add_option("--max-request-size", c.max_request_bytes,
                 "Largest request body accepted (after chunked and gzip decoding), in bytes (suffixes k, M); larger gets HTTP 413")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(uint64_t{1024}, uint64_t{1} << 32))
      ->default_str("16M");
  app.add_option("--max-buffered", c.max_buffered_bytes,
                 "Request bytes held in memory across all connections (suffixes k, M, G); a request "
                 "that would pass it gets HTTP 503 and its connection closes")
      ->transform(CLI::AsSizeValue(false))->check(CLI::Range(uint64_t{1024}, uint64_t{1} << 40))
      ->default_str("1G");
  app.add_option("--max-attributes", c.max_attributes,
                 "Attributes per element, namespace declarations included; more is refused with a fault "
                 "(gSOAP's parse time grows with their square)")
      ->check(CLI::Range(size_t{1}, size_t{100000}))->capture_default_str();
  app.add_option("--max-namespaces", c.max_namespaces,
                 "Namespace declarations in scope at once; more is refused with a fault")
      ->check(CLI::Range(size_t{1}, size_t{100000}))->capture_default_str();
  app.add_option("--report-interval", c.report_interval_s, "Seconds between progress lines; 0 for none")
      ->check(CLI::Range(0.0, 86400.0))->capture_default_str();
  app.add_option("--grace", c.grace_s, "Seconds to finish requests in flight on SIGINT/SIGTERM")
      ->check(CLI::Range(0.0, 3600.0))->capture_default_str();
  app.add_option("--max-connections", c.max_connections, "Open connections beyond this are refused")
      ->check(CLI::Range(1u, 1000000u))->capture_default_str();
  app.add_option("--public-url", c.public_url,
                 "The endpoint ?wsdl advertises (behind a proxy: https://proxy.example/soap/echo); default: the\n"
                 "Host header and path the client used")
      ->check([](const std::string& u) -> std::string {
        const bool scheme = u.rfind("http://", 0) == 0 || u.rfind("https://", 0) == 0;
        if (!scheme || u.size() <= 8) return "'" + u + "' is not an http:// or https:// URL";
        if (u.find_first_of(" \t\r\n\"'<>&") != std::string::npos)
          return "'" + u + "' holds a space, quote, <, > or &";
        return "";
      });
  CLI::Option* time_layers = app.add_flag(
      "--time-layers", c.time_layers,
      "Time requests' XML check and gSOAP work on the thread's CPU clock and add them up\n"
      "in GET /stats (\"layers\"), for scripts/bench-server; one POST in --time-layers-every is timed");
  app.add_option("--time-layers-every", c.time_layers_every,
                 "With --time-layers: time one POST in N per serving thread (three clock reads each, their\n"
                 "own cost taken out); 1 times every POST")
      ->check(CLI::Range(1u, 1000000u))->needs(time_layers)->capture_default_str();
  app.add_option("--access-log", c.access_log,
                 "Append a line per request to FILE: Common Log Format and the server's microseconds for it\n"
                 "(off by default, and free when off)");
  app.add_option("--delay", c.delay_s,
                 "Answer each request this much later (e.g. 10ms; the serving thread waits): a server of "
                 "known capacity for tests (pool mode, 4 threads, 10ms: at most 400 requests/s)")
      ->transform(seconds_value())
      ->default_str("0");
  const auto name_password = [](const std::string& v) -> std::string {
    const size_t colon = v.find(':');
    return colon == std::string::npos || colon == 0 ? "expected NAME:PASSWORD, got '" + v + "'" : "";
  };
  std::string auth_scheme = "basic";
  app.add_option("--require-user", c.require_user,
                 "Require HTTP authentication as NAME:PASSWORD on every request, GET ?wsdl and /stats\n"
                 "included; without it: 401 with a WWW-Authenticate challenge (the connection stays open)")
      ->check(name_password);
  app.add_option("--auth", auth_scheme,
                 "The scheme --require-user asks for: basic (RFC 7617) or digest (RFC 7616, qop=auth,\n"
                 "SHA-256 and MD5; nonces live 5 minutes, a nonce count is used once)")
      ->check(CLI::IsMember({"basic", "digest"}))->capture_default_str();
  app.add_option("--nonce-lifetime", c.nonce_lifetime_s,
                 "How long a Digest nonce may be used before it is stale (a 401 with stale=true, which\n"
                 "clients answer at once with the new nonce)")
      ->transform(seconds_value())
      ->check([](const std::string& v) { return std::stod(v) > 0 ? std::string() : std::string("must be more than 0"); })
      ->default_str("300s");
  app.add_option("--require-wsse", c.require_wsse,
                 "Require a WS-Security UsernameToken NAME:PASSWORD in every SOAP request's header\n"
                 "(PasswordText, or PasswordDigest with a Created within 5 minutes and a fresh Nonce);\n"
                 "without it: HTTP 500 and a wsse:FailedAuthentication fault")
      ->check(name_password);
  app.add_flag("--quiet", c.quiet, "No progress lines and no summary");
  CLI::Option* cert = app.add_option("--tls-cert", c.tls_cert,
                                     "Serve HTTPS with this PEM certificate (chain)");
  CLI::Option* key = app.add_option("--tls-key", c.tls_key, "The PEM private key of --tls-cert");
  cert->needs(key);
  key->needs(cert);
  app.add_option("--tls-client-ca", c.tls_client_ca,
                 "Require a client certificate signed by this PEM CA, and verify it")
      ->needs(cert);
  app.add_option("--tls-min", c.tls_min, "Oldest TLS version accepted: 1.2 | 1.3")
      ->check(CLI::IsMember({"1.2", "1.3"}))->capture_default_str()->needs(cert);
  app.add_option("--tls-ciphers", c.tls_ciphers, "TLS 1.2 cipher list (OpenSSL syntax); default: OpenSSL's")
      ->needs(cert);

  try {
    app.parse(argc, argv);
    c.mode = modes.at(mode_name);
    c.keepalive = keepalive == "on";
    c.digest = auth_scheme == "digest";
    if (c.digest && c.require_user.empty()) throw CLI::ValidationError("--auth", "--auth digest needs --require-user");
    if (c.mode == Mode::loops && threads->count() == 0) c.threads = std::max(1u, std::thread::hardware_concurrency());
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    exit_code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "soapbench-server: " << e.what() << "\n"
              << "Run with --help for the options.\n";
    exit_code = 2;
  }
  return c;
}

}  // namespace soapbench::server
