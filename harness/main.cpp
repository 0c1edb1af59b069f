// soapbench: drives SOAP endpoints with a ramp of client processes and keeps
// the results (run), probes an endpoint (check), and reads results back
// (compare, plot). `worker` is the client process that `run` starts. The
// transport baselines and `merge` are in extra_commands.h.
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <string_view>

#include "chat_command.h"
#include "cli.h"
#include "extra_commands.h"
#include "launch.h"

using namespace soapbench;

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed socket or pipe is an error value, not a death
  // Commands with their own parsers (extra_commands.h): tcp-echo, merge, sweep.
  if (const auto code = run_extra_command(argc, argv, std::cout, std::cerr)) return *code;
  // `soapbench chat` has its own parser (harness/chat/chat_cli.cpp).
  if (argc > 1 && std::string_view(argv[1]) == "chat") return chat::chat_main(argc - 1, argv + 1);
  const ParsedCommandLine p = parse_command_line(argc, argv, std::cout, std::cerr);
  if (p.exit_code >= 0) return p.exit_code;
  switch (p.command) {
    case Command::run: return run_command(p.run, std::cout, std::cerr);
    case Command::check: return check_command(p.check, std::cout, std::cerr);
    case Command::compare: return compare_command(p.compare, std::cout, std::cerr);
    case Command::plot: return plot_command(p.plot, std::cout, std::cerr);
    case Command::stacks: return stacks_command(std::cout, std::cerr);
    case Command::compare_stacks: return compare_stacks_command(p.compare_stacks, std::cout, std::cerr);
    case Command::worker: return run_worker(STDIN_FILENO, STDOUT_FILENO);
    case Command::none: break;
  }
  return 2;
}
