#pragma once
// `soapbench chat`'s flags (the benchmark itself is chat/chat_command.h).
#include <iosfwd>

#include "chat/chat_command.h"

namespace soapbench::chat {

// Parses `soapbench chat ...` (argv[0] is "chat"). exit_code -1 = run; 0
// after --help; 2 after a flag error, printed to `err` naming the flag.
ChatConfig parse_chat_args(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                           int& exit_code);

}  // namespace soapbench::chat
