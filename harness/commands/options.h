#pragma once
// The flags of the two specs (engine/specs.h), each registered in one place
// with its help text and with the spec's own default shown: a command takes
// the ones it accepts. Adding a field is a change here and where it is used.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/specs.h"

namespace soapbench {

// ---- the call
// --client RAW|GSOAP|CURL
CLI::Option* add_client_kind_option(CLI::App& app, std::string& kind);
// --timeout DURATION
CLI::Option* add_timeout_option(CLI::App& app, double& timeout_s);
// --new-connection
CLI::Option* add_new_connection_flag(CLI::App& app, bool& new_connection);
// --gzip: gzip-encoded requests, gzip asked for in responses
CLI::Option* add_gzip_flag(CLI::App& app, bool& gzip);
// --cacert, --insecure, --cert, --key, --tls-min, --ciphers, --no-resume: TLS of https:// URLs
void add_tls_options(CLI::App& app, TlsOptions& tls);
// --user NAME:PASSWORD, --wsse NAME:PASSWORD, --wsse-digest (checked by validate_call)
void add_credential_options(CLI::App& app, ClientOptions& client);
// --string-length, --items, --payload-size LENGTH[,ITEMS], --binary-bytes
void add_payload_options(CLI::App& app, PayloadSize& payload);
// --op OPS: operations, comma-separated, each once
CLI::Option* add_operations_option(CLI::App& app, std::vector<Operation>& operations);

// ---- the load
// --clients LIST: one step per count
CLI::Option* add_clients_option(CLI::App& app, std::vector<unsigned>& clients);
// --duration and --requests (either, not both)
void add_length_options(CLI::App& app, LoadSpec& load);
// --warmup (and --first-warmup when `first`)
void add_warmup_options(CLI::App& app, LoadSpec& load, bool first);
// --rate CALLS/S over all clients of a step: a rate, or a list or range of them (a step each)
CLI::Option* add_rate_option(CLI::App& app, std::vector<double>& rates);
// --wait DURATION or exp:DURATION: each client's pause after each call (closed loop),
// fixed or drawn from an exponential distribution of that mean
CLI::Option* add_wait_option(CLI::App& app, LoadSpec& load);
// --interval DURATION: seconds per live line; 0 for none
CLI::Option* add_interval_option(CLI::App& app, double& interval_s);

// --connections-per-client N (LoadSpec::connections_per_client)
CLI::Option* add_connections_option(CLI::App& app, unsigned& connections_per_client);

// ---- the verdict
// --assert EXPR (repeatable) and --allow-errors
void add_criteria_options(CLI::App& app, std::vector<std::string>& asserts, bool& allow_errors);

// ---- the run's files
// --label and --out
void add_output_options(CLI::App& app, std::string& label, std::string& out_dir);

// 10 -> "10s", 0.5 -> "500ms", 0 -> "0": a duration as the flags take it.
std::string duration_text(double seconds);

// --timeout not below what the --client kind honours (client/client.h
// min_timeout_s); TLS files that OpenSSL can read, and TLS flags only with an
// https:// URL; --wsse-digest only with --wsse, --wsse not with the gsoap
// client. Throws UsageError naming the flag.
void validate_call(const CallSpec& call);

// The rules between the load's flags: --duration > 0 unless --requests,
// --interval 0 or >= 100ms, no --rate below 0.01 calls/s per client, and a
// list of rates only with one --clients count.
// Throws UsageError (commands/cli.h) naming the flag.
void validate_load(const LoadSpec& load);

}  // namespace soapbench
