// `soapbench chat` flags: CLI11, one check per flag, the rules between flags below.
#include <filesystem>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "commands/chat_cli.h"
#include "commands/cli_values.h"
#include "commands/options.h"  // harness/: duration_value, join_args, parse_app

namespace soapbench::chat {

namespace {

struct FlagError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The rules between flags.
void validate(const ChatConfig& c, bool host_given) {
  if (host_given && c.plan.port == 0) throw FlagError("--host: needs --port (without it the embedded server is used)");
  if (c.plan.rooms * uint64_t{c.plan.users} > 100000)
    throw FlagError(fmt::format("--rooms, --users: {} x {} connections is over the limit of 100000", c.plan.rooms, c.plan.users));
  if (c.plan.interval_s > 0 && c.plan.interval_s < 0.1) throw FlagError("--interval: must be 0 (no live lines) or at least 100ms");
  std::error_code ec;
  if (std::filesystem::exists(c.out_dir, ec) && !std::filesystem::is_directory(c.out_dir, ec))
    throw FlagError("--out: '" + c.out_dir + "' exists and is not a directory");
}

}  // namespace

ChatConfig parse_chat_args(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                           int& exit_code) {
  ChatConfig c;
  exit_code = -1;
  CLI::App app{"soapbench chat: the chat-room benchmark. Rooms of users, one connection each; the server\n"
               "relays every message to the other members of its room; the client checks every delivery.",
               "soapbench chat"};
  app.add_option("--host", c.plan.host, "Chat server address (with --port)");
  app.add_option("--port", c.plan.port, "A running soapbench-chat-server; without it one is started")
      ->check(CLI::Range(1, 65535));
  app.add_option("--rooms", c.plan.rooms, "Chat rooms")->check(CLI::Range(1u, 100000u))->capture_default_str();
  app.add_option("--users", c.plan.users, "Users per room, one connection each")
      ->check(CLI::Range(2u, 10000u))->capture_default_str();
  app.add_option("--messages", c.plan.messages, "Messages each user sends")
      ->check(CLI::Range(1u, 10000000u))->capture_default_str();
  app.add_option("--size", c.plan.size, "Content bytes per message")
      ->check(CLI::Range(size_t{0}, size_t{60000}))->capture_default_str();
  auto* window = app.add_option("--window", c.plan.window,
                                "Closed loop: a user's messages not yet delivered to every other member;\n"
                                "0 = as fast as TCP takes them")
                     ->check(CLI::Range(0u, 1000000u))->capture_default_str();
  // --rate is a total, as in every command; --user-rate says the same per user.
  double total_rate = 0;
  auto* rate = app.add_option("--rate", total_rate,
                              "Messages/s sent by all users together, on a fixed schedule, instead of the closed loop")
                   ->check(CLI::Range(0.001, 1e9))->excludes(window);
  auto* user_rate = app.add_option("--user-rate", c.plan.rate, "Messages/s per user instead (--rate divided by rooms x users)")
      ->check(CLI::Range(0.001, 1e6))->excludes(window)->excludes(rate);
  LoadSpec think;  // --wait as run and tcp-echo take it
  add_wait_option(app, think)->excludes(rate)->excludes(user_rate);
  app.add_option("--duration", c.plan.duration_s, "Bound on the run; what has not arrived by then is lost")
      ->transform(duration_value(true))->default_str(duration_text(c.plan.duration_s));
  app.add_option("--stall", c.plan.stall_s, "Stop once all is sent and nothing arrived for this long")
      ->transform(duration_value(true))->default_str(duration_text(c.plan.stall_s));
  app.add_option("--connect-timeout", c.plan.connect_timeout_s, "For every user to connect and join")
      ->transform(duration_value(true))->default_str(duration_text(c.plan.connect_timeout_s));
  app.add_option("--threads", c.plan.threads, "Client event loops; each owns whole rooms")
      ->check(CLI::Range(1u, 256u))->capture_default_str();
  auto* server_threads = app.add_option("--server-threads", c.server_threads, "Event loops of the embedded server")
                             ->check(CLI::Range(1u, 256u))->capture_default_str();
  add_interval_option(app, c.plan.interval_s);
  add_output_options(app, c.label, c.out_dir);
  // argv[0] ("chat") stands for the program name
  if ((exit_code = parse_app(app, argc, argv, "chat", out, err)) >= 0) return c;
  try {
    if (c.plan.port != 0 && server_threads->count() > 0)
      throw FlagError("--server-threads: only for the embedded server; it cannot be used with --port");
    if (rate->count() > 0) c.plan.rate = total_rate / (double(c.plan.rooms) * c.plan.users);
    c.plan.pause_s = think.pause_s;
    c.plan.pause_exponential = think.pause_exponential;
    validate(c, app.get_option("--host")->count() > 0);
    c.command_line = "soapbench " + join_args(argc, argv);
  } catch (const FlagError& e) {
    err << "soapbench chat: " << e.what() << "\n";
    exit_code = 2;
  }
  return c;
}

}  // namespace soapbench::chat
