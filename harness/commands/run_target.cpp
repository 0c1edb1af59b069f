#include "commands/run_target.h"

#include <unistd.h>

#include <ostream>
#include <stdexcept>

namespace soapbench {

RunTarget::RunTarget(const std::string& url, const std::string& stack, const std::string& server_mode,
                     std::ostream& out)
    : url_(url) {
  if (!url_.empty()) return;
  if (!stack.empty() && stack != kEmbeddedStack) {
    const StackStatus status = probe_stack(peers_dir(), stack);
    if (!status.installed)
      throw std::runtime_error("stack " + stack + " is not installed: " + status.reason + " (run peers/" + stack +
                               "/install)");
    peer_version_ = status.version;
    out << "starting " << stack << " (" << peer_version_ << ")\n";
    out.flush();
    peer_ = std::make_unique<PeerProcess>(peers_dir(), stack);
    url_ = peer_->url();
    out << "peer " << stack << " answers at " << url_ << "\n";
    return;
  }
  const std::string program = executable_dir() + "/soapbench-server";
  if (access(program.c_str(), X_OK) != 0)
    throw std::runtime_error("no --url given and " + program + " is missing: build soapbench-server");
  server_ = std::make_unique<ServerProcess>(program, server_mode);
  url_ = server_->url();
  out << "embedded " << server_->first_line() << "\n";
}

RunTarget::~RunTarget() { stop(); }

std::string RunTarget::stop() {
  if (server_) server_->stop();
  return peer_ ? peer_->stop() : "";
}

}  // namespace soapbench
