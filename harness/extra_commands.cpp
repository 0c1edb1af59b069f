#include "extra_commands.h"

#include <string_view>

#include "merge.h"
#include "sweep.h"
#include "tcp_echo.h"

namespace soapbench {

std::optional<int> run_extra_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  if (argc < 2) return std::nullopt;
  const std::string_view command = argv[1];
  if (command == "tcp-echo") {
    TcpEchoConfig config;
    if (const int code = parse_tcp_echo(argc - 1, argv + 1, config, out, err); code >= 0) return code;
    return tcp_echo_command(config, out, err);
  }
  if (command == "merge") {
    MergeConfig config;
    if (const int code = parse_merge(argc - 1, argv + 1, config, out, err); code >= 0) return code;
    return merge_command(config, out, err);
  }
  if (command == "sweep") {
    SweepConfig config;
    if (const int code = parse_sweep(argc - 1, argv + 1, config, out, err); code >= 0) return code;
    return sweep_command(config, out, err);
  }
  return std::nullopt;
}

}  // namespace soapbench
