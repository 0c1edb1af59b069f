// soapbench: drives SOAP endpoints with a ramp of client processes and keeps
// the results. Every command is in the table of commands/command_table.cpp.
#include <csignal>
#include <iostream>

#include "commands/command_table.h"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a closed socket or pipe is an error value, not a death
  return soapbench::run_command_table("soapbench", "soapbench: performance harness for SOAP web services",
                                      soapbench::soapbench_commands(), argc, argv, std::cout, std::cerr);
}
