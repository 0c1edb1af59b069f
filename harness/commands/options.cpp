#include "commands/options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>
#include <utility>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "commands/cli.h"
#include "commands/cli_values.h"
#include "core/assertions.h"
#include "core/parse.h"
#include "tls.h"

namespace soapbench {

namespace {

const std::vector<std::string> kClientKinds{"raw", "gsoap", "curl"};

// --payload-size LENGTH[,ITEMS]: the echoString length and, optionally, the echoStruct
// item count, in one flag (the separate --string-length and --items say the same).
void apply_payload_size(std::string_view text, PayloadSize& into) {
  const size_t comma = text.find(',');
  into.string_length = parse_count(std::string(text.substr(0, comma)));
  if (comma != std::string_view::npos) into.items = parse_count(std::string(text.substr(comma + 1)));
}

std::vector<Operation> parse_operations(const std::string& text) {
  std::vector<Operation> ops;
  for (const auto& name : split_list(text)) {
    const auto op = parse_operation(name);
    if (!op || *op == Operation::request)  // "request" is what --request-file sends
      throw std::invalid_argument("unknown operation '" + name + "' (echoString, echoStruct)");
    if (std::find(ops.begin(), ops.end(), *op) == ops.end()) ops.push_back(*op);
  }
  return ops;
}

}  // namespace

std::string duration_text(double s) {
  if (s == 0) return "0";
  if (s >= 1 || std::fmod(s * 1000, 1) != 0) return fmt::format("{:g}s", s);
  return fmt::format("{:g}ms", s * 1000);
}

CLI::Option* add_client_kind_option(CLI::App& app, std::string& kind) {
  // raw is the default: at about wrk's CPU per call, the driver is not what a run measures.
  return app.add_option("--client", kind,
                        "Client: raw (one socket, hand-parsed HTTP; the leanest), gsoap (generated proxy)\n"
                        "or curl (libcurl); each validates every response")
      ->check(CLI::IsMember(kClientKinds))
      ->capture_default_str();
}

CLI::Option* add_timeout_option(CLI::App& app, double& timeout_s) {
  return app.add_option("--timeout", timeout_s,
                        "Deadline of each whole call (connect, send, complete response); a call that\n"
                        "misses it counts as a timeout and its connection is closed. At least 1us (curl: 1ms)")
      ->transform(duration_value(true))
      ->default_str(duration_text(timeout_s));
}

void add_tls_options(CLI::App& app, TlsOptions& tls) {
  const char* group = "TLS (https:// URLs)";
  app.add_option("--cacert", tls.ca_file, "Trust the CA certificates in this PEM file instead of the system's")
      ->group(group);
  app.add_flag("--insecure", tls.insecure, "Do not verify the server's certificate or name (measures TLS, proves nothing)")
      ->group(group);
  app.add_option("--cert", tls.cert_file, "Client certificate (PEM) for servers that require one; with --key")
      ->group(group);
  app.add_option("--key", tls.key_file, "Private key (PEM) of --cert")->group(group);
  app.add_option("--tls-min", tls.min_version, "Lowest TLS version offered: 1.2 or 1.3")
      ->check(CLI::IsMember({"1.2", "1.3"}))
      ->capture_default_str()
      ->group(group);
  app.add_option("--ciphers", tls.ciphers, "TLS 1.2 cipher list in OpenSSL's syntax (default: OpenSSL's)")->group(group);
  app.add_flag("--no-resume", [&tls](int64_t) { tls.resume = false; },
               "Full handshakes: a new connection does not resume the last session\n"
               "(with --new-connection, measures the server's full handshakes)")
      ->group(group);
}

CLI::Option* add_gzip_flag(CLI::App& app, bool& gzip) {
  return app.add_flag("--gzip", gzip,
                      "Send requests gzip-encoded and ask for gzip responses (raw and curl clients);\n"
                      "bytes/call is then the wire's, and the table says them uncompressed too");
}

CLI::Option* add_new_connection_flag(CLI::App& app, bool& new_connection) {
  return app.add_flag("--new-connection", new_connection, "A new TCP connection for each call (no keep-alive)");
}

void add_credential_options(CLI::App& app, ClientOptions& client) {
  const auto name_password = [](const std::string& v) -> std::string {
    const size_t colon = v.find(':');
    return colon == std::string::npos || colon == 0 ? "expected NAME:PASSWORD, got '" + v + "'" : "";
  };
  app.add_option("--user", client.user,
                 "HTTP authentication as NAME:PASSWORD: Basic or Digest, as the server's first 401 asks\n"
                 "(that round trip is no failure); a refusal counts as an auth failure. gsoap: Basic only")
      ->check(name_password);
  app.add_option("--wsse", client.wsse,
                 "A WS-Security UsernameToken NAME:PASSWORD (PasswordText) in every request's soap:Header\n"
                 "(raw and curl); a wsse:FailedAuthentication fault counts as an auth failure")
      ->check(name_password);
  app.add_flag("--wsse-digest", client.wsse_digest,
               "--wsse as PasswordDigest: a fresh 16-byte Nonce and Created in each call's token");
}

void add_payload_options(CLI::App& app, PayloadSize& payload) {
  auto* string_length = app.add_option("--string-length", payload.string_length, "Characters in the echoString text")
                            ->transform(count_value(0))
                            ->capture_default_str();
  auto* items = app.add_option("--items", payload.items, "Items in the echoStruct request")
                    ->transform(count_value(0))
                    ->capture_default_str();
  app.add_option_function<std::string>(
         "--payload-size", [&payload](const std::string& s) { apply_payload_size(s, payload); },
         "LENGTH[,ITEMS]: echoString length and echoStruct item count in one flag (e.g. 2048,4)")
      ->check(checked_by([](const std::string& s) {
        PayloadSize ignored;
        apply_payload_size(s, ignored);
      }, "LENGTH[,ITEMS]"))
      ->excludes(string_length)
      ->excludes(items);
  app.add_option("--binary-bytes", payload.binary_bytes, "Bytes in each binary field of an item")
      ->transform(count_value(0))
      ->capture_default_str();
}

CLI::Option* add_operations_option(CLI::App& app, std::vector<Operation>& operations) {
  std::vector<std::string> names;
  for (const auto op : operations) names.emplace_back(to_string(op));
  return app
      .add_option_function<std::string>(
          "--op", [&operations](const std::string& s) { operations = parse_operations(s); },
          "Operations, comma-separated: echoString,echoStruct")
      ->check(checked_by([](const std::string& s) { parse_operations(s); }, "OPS"))
      ->default_str(fmt::format("{}", fmt::join(names, ",")));
}

CLI::Option* add_clients_option(CLI::App& app, std::vector<unsigned>& clients) {
  return app
      .add_option_function<std::string>(
          "--clients", [&clients](const std::string& s) { clients = parse_client_list(s); },
          "Client processes (one connection each), one step per count: e.g. 1-10 or 1,2,4,8")
      ->check(client_list_value())
      ->default_str(format_client_list(clients));
}

void add_length_options(CLI::App& app, LoadSpec& load) {
  auto* duration = app.add_option("--duration", load.duration_s, "Measured time per step (e.g. 10s, 500ms)")
                       ->transform(duration_value(true))
                       ->default_str(duration_text(load.duration_s));
  app.add_option("--requests", load.requests,
                 "Measured calls per client (per connection, with --connections-per-client) per step,\n"
                 "instead of --duration")
      ->transform(count_value(1))
      ->excludes(duration);
}

void add_warmup_options(CLI::App& app, LoadSpec& load, bool first) {
  app.add_option("--warmup", load.warmup_s, "Unmeasured time before each step")
      ->transform(duration_value(false))
      ->default_str(duration_text(load.warmup_s));
  if (!first) return;
  auto* o = app.add_option("--first-warmup", load.first_warmup_s,
                           "Warm-up of the run's first step, for stacks that compile at run time (default: --warmup)")
                ->transform(duration_value(false));
  if (load.first_warmup_s >= 0) o->default_str(duration_text(load.first_warmup_s));
}

CLI::Option* add_rate_option(CLI::App& app, std::vector<double>& rates) {
  return app
      .add_option_function<std::string>(
          "--rate", [&rates](const std::string& s) { rates = parse_rate_list(s); },
          "Fixed rate in calls/s over all clients of a step; 0 = closed loop. A list or range\n"
          "makes one step per rate (with one --clients count): 500,1000,2000, 500-4000x2 (times 2)\n"
          "or 500-2000+500 (plus 500)")
      ->check(checked_by([](const std::string& s) { parse_rate_list(s); }, "CALLS/S"))
      ->default_str(format_rate_list(rates));
}

CLI::Option* add_wait_option(CLI::App& app, LoadSpec& load) {
  // "exp:100ms" -> (0.1, exponential); "100ms" -> (0.1, fixed).
  static const auto parse = [](const std::string& s) {
    const bool exponential = s.rfind("exp:", 0) == 0;
    return std::pair{parse_duration(exponential ? s.substr(4) : s), exponential};
  };
  return app
      .add_option_function<std::string>(
          "--wait", [&load](const std::string& s) { std::tie(load.pause_s, load.pause_exponential) = parse(s); },
          "Each client's think time after each call, closed loop: fixed (10ms) or drawn from an\n"
          "exponential distribution of that mean (exp:10ms, JMeter's Poisson timer)")
      ->check(checked_by([](const std::string& s) { parse(s); }, "DURATION"))
      ->default_str((load.pause_exponential ? "exp:" : "") + duration_text(load.pause_s));
}

CLI::Option* add_connections_option(CLI::App& app, unsigned& connections_per_client) {
  return app
      .add_option("--connections-per-client", connections_per_client,
                  "Connections each client process keeps on one event loop, each its own closed loop or\n"
                  "its share of the rate (raw and curl clients): 2 clients x 50 connections make 100")
      ->check(CLI::Range(1u, 10000u))
      ->capture_default_str();
}

CLI::Option* add_interval_option(CLI::App& app, double& interval_s) {
  return app.add_option("--interval", interval_s, "Seconds per live line; 0 for none")
      ->transform(duration_value(false))
      ->default_str(duration_text(interval_s));
}

void add_criteria_options(CLI::App& app, std::vector<std::string>& asserts, bool& allow_errors) {
  app.add_option("--assert", asserts,
                 "What must hold on every step of every operation, else exit 1 (repeatable): METRIC OP VALUE,\n"
                 "e.g. errors==0, error-rate<0.1%, p99<20ms, throughput>5000, send-lag-p99<1ms;\n"
                 "metrics: errors requests error-rate throughput min mean max pN send-lag-pN server-cpu\n"
                 "client-cpu; operators < <= > >= == !=. Without any, errors==0 applies")
      ->check(checked_by([](const std::string& s) { parse_assertion(s); }, "EXPR"))
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.add_flag("--allow-errors", allow_errors, "Failed calls alone do not fail the run (drops the default errors==0)");
}

void add_output_options(CLI::App& app, std::string& label, std::string& out_dir) {
  app.add_option("--label", label, "Name of the run in file names, tables and charts");
  app.add_option("--out", out_dir, "Directory of the results files")->capture_default_str();
}

void validate_call(const CallSpec& call) {
  if (call.client.wsse_digest && call.client.wsse.empty())
    throw UsageError("--wsse-digest: needs --wsse NAME:PASSWORD");
  if (!call.client.wsse.empty() && call.client_kind == "gsoap")
    throw UsageError("--wsse: the gsoap client sends no WS-Security header; use --client raw or curl");
  if (call.client.timeout_s < min_timeout_s(call.client_kind))
    throw UsageError(fmt::format("--timeout: {:g} ms is below the shortest timeout the {} client honours ({:g} ms)",
                                 call.client.timeout_s * 1e3, call.client_kind,
                                 min_timeout_s(call.client_kind) * 1e3));
  if (call.client.gzip && call.client_kind != "raw" && call.client_kind != "curl")
    throw UsageError("--gzip: the raw and curl clients send gzip, not the " + call.client_kind + " client");
  const TlsOptions& tls = call.client.tls;
  const TlsOptions plain;
  if (!is_https_url(call.client.url)) {
    // A TLS flag with a plain URL would be silently ignored: say so instead.
    const std::pair<bool, const char*> given[] = {
        {!tls.ca_file.empty(), "--cacert"},      {tls.insecure, "--insecure"},
        {!tls.cert_file.empty(), "--cert"},      {!tls.key_file.empty(), "--key"},
        {tls.min_version != plain.min_version, "--tls-min"}, {!tls.ciphers.empty(), "--ciphers"},
        {!tls.resume, "--no-resume"}};
    for (const auto& [set, flag] : given)
      if (set) throw UsageError(std::string(flag) + ": only with an https:// --url");
    return;
  }
  if (call.client_kind == "tcp") throw UsageError("--url: the tcp client speaks no TLS");
  if (const std::string why = tls_options_error(tls); !why.empty()) throw UsageError(why);
}

void validate_load(const LoadSpec& load) {
  if (load.requests == 0 && !(load.duration_s > 0)) throw UsageError("--duration: must be more than 0");
  if (load.interval_s > 0 && load.interval_s < 0.1)
    throw UsageError("--interval: must be 0 (no live lines) or at least 100ms");
  if (load.pause_s > 0 && std::any_of(load.rates.begin(), load.rates.end(), [](double r) { return r > 0; }))
    throw UsageError("--wait: a closed-loop think time; with --rate the schedule sets when calls leave");
  const unsigned most = load.clients.empty() ? 1 : *std::max_element(load.clients.begin(), load.clients.end());
  if (load.rates.size() > 1 && load.clients.size() > 1)
    throw UsageError(fmt::format("--rate: a list of rates ({}) takes one --clients count, not {}",
                                 format_rate_list(load.rates), format_client_list(load.clients)));
  for (const double rate : load.rates)
    if (rate > 0 && rate < 0.01 * most)
      throw UsageError(fmt::format("--rate: {:g} calls/s over {} clients is below 0.01 calls/s per client", rate,
                                   most));
}

}  // namespace soapbench
