// soapbench: drives SOAP endpoints with a ramp of client processes and keeps
// the results (run), probes an endpoint (check), and reads results back
// (compare, plot). `worker` is the client process that `run` starts.
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <string_view>

#include "chat_command.h"
#include "cli.h"
#include "launch.h"

using namespace soapbench;

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed socket or pipe is an error value, not a death
  // `soapbench chat` has its own parser (chat/chat_cli.cpp).
  if (argc > 1 && std::string_view(argv[1]) == "chat") return chat::chat_main(argc - 1, argv + 1);
  const ParsedCommandLine p = parse_command_line(argc, argv, std::cout, std::cerr);
  if (p.exit_code >= 0) return p.exit_code;
  switch (p.command) {
    case Command::run: return run_command(p.run, std::cout, std::cerr);
    case Command::check: return check_command(p.check, std::cout, std::cerr);
    case Command::compare: return compare_command(p.compare, std::cout, std::cerr);
    case Command::plot: return plot_command(p.plot, std::cout, std::cerr);
    case Command::worker: return run_worker(STDIN_FILENO, STDOUT_FILENO);
    case Command::none: break;
  }
  return 2;
}
