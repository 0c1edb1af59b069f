// Micro-benchmarks of the code gSOAP generated from wsdl/echo.wsdl: each echo
// message serialized into and parsed from memory, with the modes the server uses.
// Figures are per message; "bytes" is the size of the SOAP envelope (no HTTP).
// Each benchmark runs 5 times unless --benchmark_repetitions says otherwise, and
// the console shows the aggregates, among them the min of the repetitions (_min):
// the figure least disturbed by other load on the machine.
//
// soapbench-micro --exchanges=OP:N instead serves N exchanges of OP in memory in
// one function for callgrind to count (scripts/bench-instructions) and exits.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "envelope.h"
#include "gsoap_values.h"
#include "memory_io.h"
#include "payload.h"
#include "serve_bench.h"
#include "soapbench/version.h"

namespace {

using namespace soapbench;

// soapbench-server's modes, so that these are its per-message costs. SOAP_ENC_PLAIN:
// without a socket gSOAP would otherwise write a CGI HTTP header before the envelope.
constexpr soap_mode kInMode = SOAP_XML_STRICT | SOAP_C_UTFSTRING;
constexpr soap_mode kOutMode = SOAP_IO_STORE | SOAP_ENC_PLAIN | SOAP_C_UTFSTRING;

// A gSOAP context with memory I/O, released with everything in its arena.
struct Context {
  Context() : soap(soap_new2(kInMode, kOutMode)), io(soap) { soap_set_namespaces(soap, namespaces); }
  ~Context() {
    soap_destroy(soap);
    soap_end(soap);
    soap_free(soap);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  struct soap* soap;
  bench::MemoryIo io;
};

// The default payloads of the clients (payload.h); `items` only for echoStruct.
template <class Body>
void fill(struct soap* soap, Body& body, size_t items) {
  if constexpr (requires { body.text; }) {
    body.text = make_string(PayloadSize{}.string_length);
  } else {
    PayloadSize size;
    size.items = items;
    body.item = to_gsoap(soap, make_items(size));
  }
}

template <class Body>
std::optional<std::string> difference(struct soap* soap, const Body& sent, const Body& got) {
  if constexpr (requires { sent.text; }) {
    if (sent.text == got.text) return std::nullopt;
    return "text differs";
  } else {
    return compare_items(from_gsoap(soap, sent.item), from_gsoap(soap, got.item));
  }
}

// Serializes body once and parses it back: benchmarks of a message that does not
// survive the round trip would time the wrong work. Returns the message, or
// nullopt after marking the benchmark as failed.
template <class Body>
std::optional<std::string> checked_message(benchmark::State& state, const Body& body, const char* tag) {
  Context ctx;
  if (bench::write_envelope(ctx.soap, body, tag)) {
    state.SkipWithError("serialization failed");
    return std::nullopt;
  }
  std::string message = ctx.io.output();
  if (!message.starts_with("<?xml")) {
    state.SkipWithError("the message is not a bare XML envelope");
    return std::nullopt;
  }
  ctx.io.set_input(message);
  Body got;
  if (bench::read_envelope(ctx.soap, got, tag)) {
    state.SkipWithError("parsing the serialized message failed");
    return std::nullopt;
  }
  if (const auto diff = difference(ctx.soap, body, got)) {
    state.SkipWithError(("round trip changed the message: " + *diff).c_str());
    return std::nullopt;
  }
  return message;
}

void report_size(benchmark::State& state, size_t bytes) {
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

// Per iteration as the server per response: serialize, write, release the arena.
template <class Body>
void serialize(benchmark::State& state, const char* tag, size_t items) {
  Context owner;  // holds the message's objects, as the request arena holds a response's
  Body body;
  fill(owner.soap, body, items);
  const auto message = checked_message(state, body, tag);
  if (!message) return;
  Context ctx;
  for (auto _ : state) {
    ctx.io.clear_output();
    if (bench::write_envelope(ctx.soap, body, tag)) {
      state.SkipWithError("serialization failed");
      break;
    }
    soap_destroy(ctx.soap);
    soap_end(ctx.soap);
  }
  report_size(state, message->size());
}

// Per iteration as the server per request: a fresh object, parse, release the arena.
template <class Body>
void parse(benchmark::State& state, const char* tag, size_t items) {
  Context owner;
  Body sent;
  fill(owner.soap, sent, items);
  const auto message = checked_message(state, sent, tag);
  if (!message) return;
  Context ctx;
  for (auto _ : state) {
    ctx.io.set_input(*message);
    Body body;
    if (bench::read_envelope(ctx.soap, body, tag)) {
      state.SkipWithError("parsing failed");
      break;
    }
    benchmark::DoNotOptimize(body);
    soap_destroy(ctx.soap);
    soap_end(ctx.soap);
  }
  report_size(state, message->size());
}

// The message as the clients send it, for the HTTP benchmarks.
template <class Body>
std::string envelope(const char* tag, size_t items) {
  Context owner, ctx;
  Body body;
  fill(owner.soap, body, items);
  bench::write_envelope(ctx.soap, body, tag);
  return ctx.io.output();
}

template <class Body>
void register_message(const std::string& name, const char* tag, size_t items = 0) {
  bench::with_min(benchmark::RegisterBenchmark(("serialize/" + name).c_str(),
                                               [=](benchmark::State& s) { serialize<Body>(s, tag, items); }));
  bench::with_min(benchmark::RegisterBenchmark(("parse/" + name).c_str(),
                                               [=](benchmark::State& s) { parse<Body>(s, tag, items); }));
}

// --exchanges=OP:N: serve N exchanges for callgrind and exit.
int exchanges(std::string_view arg) {
  const auto colon = arg.find(':');
  const std::string op(arg.substr(0, colon));
  const long count = colon == std::string_view::npos ? 0 : std::atol(std::string(arg.substr(colon + 1)).c_str());
  if ((op != "echoString" && op != "echoStruct") || count <= 0) {
    std::fprintf(stderr, "soapbench-micro: --exchanges=OP:N needs OP echoString or echoStruct and N > 0\n");
    return 2;
  }
  const std::string message = op == "echoString" ? envelope<_echo__echoString>("echo:echoString", 0)
                                                 : envelope<_echo__echoStruct>("echo:echoStruct", 1);
  return bench::serve_exchanges(op, message, count);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  bool repetitions_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--exchanges=")) return exchanges(arg.substr(12));
    if (arg.starts_with("--benchmark_repetitions")) repetitions_given = true;
  }
  static char default_repetitions[] = "--benchmark_repetitions=5";
  static char aggregates_only[] = "--benchmark_display_aggregates_only=true";
  if (!repetitions_given) {
    args.insert(args.begin() + 1, {default_repetitions, aggregates_only});
    argc = static_cast<int>(args.size());
    argv = args.data();
  }
  benchmark::AddCustomContext("gsoap_runtime", SOAPBENCH_GSOAP_RUNTIME_INFO);
  register_message<_echo__echoString>("echoString_request", "echo:echoString");
  register_message<_echo__echoStringResponse>("echoString_response", "echo:echoStringResponse");
  for (const size_t items : {1, 10}) {
    const std::string suffix = "/items:" + std::to_string(items);
    register_message<_echo__echoStruct>("echoStruct_request" + suffix, "echo:echoStruct", items);
    register_message<_echo__echoStructResponse>("echoStruct_response" + suffix,
                                                "echo:echoStructResponse", items);
  }
  bench::register_serve_benchmarks(envelope<_echo__echoString>("echo:echoString", 0),
                                   envelope<_echo__echoStruct>("echo:echoStruct", 1));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
