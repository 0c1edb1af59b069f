#pragma once
// Commands with parsers of their own, beside cli.cpp's: tcp-echo, merge (and
// sweep). main() asks here first, so that each lives in its own files.
#include <iosfwd>
#include <optional>

namespace soapbench {

// Runs the command argv[1] names and returns its exit code; nullopt when
// argv[1] is not one of these commands.
std::optional<int> run_extra_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace soapbench
