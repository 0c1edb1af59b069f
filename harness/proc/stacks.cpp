// Finding, probing, starting and stopping the stacks of harness/stacks.h.
#include "proc/stacks.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "proc/subprocess.h"
#include "soapbench/version.h"

namespace soapbench {

std::string peers_dir() {
  if (const char* dir = std::getenv("SOAPBENCH_PEERS_DIR"); dir && *dir) return dir;
  return SOAPBENCH_SOURCE_DIR "/peers";
}

std::vector<std::string> stack_names(const std::string& dir) {
  const std::string path = dir + "/stacks.txt";
  std::ifstream in(path);
  // An installed soapbench (the Debian package) has no peers/: they are built in a source tree.
  if (!in)
    throw std::runtime_error("cannot read " + path +
                             ": the peer stacks live in the peers/ folder of a soapbench source tree, which this "
                             "soapbench (installed from a package?) does not have; set SOAPBENCH_PEERS_DIR to one");
  std::vector<std::string> names{kEmbeddedStack};
  for (std::string line; std::getline(in, line);) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    names.push_back(line.substr(first, line.find_last_not_of(" \t\r") + 1 - first));
  }
  return names;
}

ProgramOutput run_program(const std::vector<std::string>& argv, double timeout_s) {
  ProgramOutput result;
  try {
    RunResult run = run_to_end(argv, timeout_s);
    result.out = std::move(run.out);
    result.err = std::move(run.err);
    result.timed_out = run.timed_out;
    result.exit_code = run.exit_code();
  } catch (const SpawnError& e) {
    result.err = "cannot run " + argv[0] + ": " + std::strerror(e.code());
  } catch (const std::runtime_error&) {
    result.err = "pipe failed";  // or fork: the program never started
  }
  return result;
}

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string last_line(const std::string& text) {
  const std::string t = trimmed(text);
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

StackStatus probe_stack(const std::string& dir, const std::string& name, double timeout_s) {
  StackStatus s;
  s.name = name;
  if (name == kEmbeddedStack) {
    s.installed = true;
    s.version = std::string("gSOAP ") + SOAPBENCH_GSOAP_VERSION + " (soapbench-server " + SOAPBENCH_VERSION + ")";
    return s;
  }
  const std::string script = dir + "/" + name + "/version";
  if (access(script.c_str(), X_OK) != 0) {
    s.reason = "no executable " + script;
    return s;
  }
  const ProgramOutput p = run_program({script}, timeout_s);
  if (p.exit_code == 0 && !trimmed(p.out).empty()) {
    s.installed = true;
    s.version = last_line(p.out);
  } else if (p.timed_out) {
    s.reason = script + " did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s";
  } else {
    s.reason = trimmed(p.err).empty() ? script + " exited " + std::to_string(p.exit_code) : last_line(p.err);
  }
  return s;
}

std::string url_port(const std::string& url) {
  const auto scheme = url.find("://");
  const auto host_start = scheme == std::string::npos ? 0 : scheme + 3;
  const auto path = url.find('/', host_start);
  const std::string authority = url.substr(host_start, path == std::string::npos ? path : path - host_start);
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos || authority.find(']', colon) != std::string::npos) return "";
  return authority.substr(colon + 1);
}

PeerProcess::PeerProcess(const std::string& dir, const std::string& name, double timeout_s)
    : dir_(dir), name_(name) {
  const std::string script = dir + "/" + name + "/start";
  const int seconds = static_cast<int>(timeout_s);
  const ProgramOutput p =
      run_program({script, "--port", "0", "--timeout", std::to_string(seconds)}, timeout_s + 10);
  url_ = last_line(p.out);
  port_ = url_port(url_);
  if (p.exit_code != 0 || url_.rfind("http://", 0) != 0 || port_.empty()) {
    std::string why = trimmed(p.err);
    if (why.empty()) why = p.timed_out ? "timed out" : "exit " + std::to_string(p.exit_code);
    throw std::runtime_error("cannot start peer " + name + " (" + script + "): " + why);
  }
  // "PORT PGID URL" lines, one per running instance of this peer.
  const ProgramOutput status = run_program({dir + "/lib/peerctl", "status", name}, 10);
  std::istringstream lines(status.out);
  for (std::string port, pgid, rest; lines >> port >> pgid && std::getline(lines, rest);)
    if (port == port_) pgid_ = static_cast<pid_t>(std::atol(pgid.c_str()));
}

PeerProcess::~PeerProcess() { stop(); }

std::string PeerProcess::stop() {
  if (stopped_) return "";
  stopped_ = true;
  const ProgramOutput p = run_program({dir_ + "/" + name_ + "/stop", "--port", port_}, 30);
  if (p.exit_code == 0) return "";
  return "stopping " + name_ + ": " + (trimmed(p.err).empty() ? "exit " + std::to_string(p.exit_code) : trimmed(p.err));
}

}  // namespace soapbench
