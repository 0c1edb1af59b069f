#include "commands/cli_values.h"
#include "commands/command_table.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <ostream>

#include <fmt/core.h>

#include "core/parse.h"

namespace soapbench {

CLI::Validator duration_value(bool positive) {
  return CLI::Validator(
      [positive](std::string& s) -> std::string {
        try {
          const double v = parse_duration(s);
          if (positive && v <= 0) return "must be more than 0, got '" + s + "'";
          s = fmt::format("{:.17g}", v);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "DURATION");
}

CLI::Validator count_value(uint64_t min) {
  return CLI::Validator(
      [min](std::string& s) -> std::string {
        try {
          const uint64_t v = parse_count(s);
          if (v < min) return fmt::format("must be at least {}, got '{}'", min, s);
          s = std::to_string(v);
          return {};
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
      },
      "COUNT");
}

CLI::Validator client_list_value() {
  return checked_by([](const std::string& s) { parse_client_list(s); }, "LIST");
}

CLI::Validator count_list_value() {
  return checked_by([](const std::string& s) { parse_count_list(s); }, "LIST");
}

std::string join_args(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.find_first_of(" \t'\"") != std::string::npos) arg = "'" + arg + "'";
    line += (i ? " " : "") + arg;
  }
  return line;
}

int parse_app(CLI::App& app, int argc, const char* const* argv, const char* name, std::ostream& out,
              std::ostream& err) {
  app.footer("\n" + std::string(exit_status_text()));
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "soapbench " << name << ": " << e.what() << "\nRun 'soapbench " << name << " --help'.\n";
    return 2;
  }
}

std::string server_pid_problem(int pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return "no process " + std::to_string(pid);
  if (getpgid(pid) != pid)
    return "process " + std::to_string(pid) +
           " does not lead its own process group (start it with setsid, as peers' start scripts do)";
  return {};
}

}  // namespace soapbench
