#include "commands/requests.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "commands/cli_values.h"
#include "proc/subprocess.h"

#ifndef SOAPBENCH_GSOAP_SHARE
#define SOAPBENCH_GSOAP_SHARE "/usr/share/gsoap"
#endif

namespace soapbench {

namespace fs = std::filesystem;

namespace {

// A private folder for wsdl2h's and soapcpp2's output, removed when done.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "soapbench-requests.XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder in " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The last lines a tool wrote, for a message: wsdl2h and soapcpp2 print a banner first.
std::string tail_lines(const std::string& text, size_t lines) {
  size_t at = text.size();
  while (at > 0 && (text[at - 1] == '\n' || text[at - 1] == ' ')) --at;
  const size_t end = at;
  for (size_t n = 0; at > 0; --at)
    if (text[at - 1] == '\n' && ++n == lines) break;
  return text.substr(at, end - at);
}

RunResult run_tool(const std::vector<std::string>& argv, const fs::path& dir) {
  SpawnOptions options = capture_output();
  options.search_path = true;
  options.dir = dir.string();
  return run_to_end(argv, 120, options);
}

struct Binding {
  std::map<std::string, std::string> actions, styles;  // by operation
  std::string endpoint;                                 // the first service port
};

// What wsdl2h kept of the bindings. The SOAPAction is a binding operation's
// soap:operation/@soapAction, which wsdl2h writes only in the operation's
// comment ("Default SOAP action or REST location path:", then the action
// quoted); its //gsoap "method-input-action" line is the WS-Addressing action,
// made up ("NS/PortType/op") when the WSDL gives no soapAction, and a service
// that checks SOAPAction (CXF) faults on it. No soapAction: SOAPAction "".
// The styles and the endpoint come from the //gsoap lines.
Binding read_bindings(const fs::path& header) {
  std::ifstream in(header);
  static const std::regex line(R"(^//gsoap\s+\S+\s+service\s+(method-style|port):\s*(\S+)(?:\s+(\S+))?)");
  // "/** Operation "__ns1__echoString" (document) or "ns1__getQuote" (rpc) of ...": its C name,
  // with trailing underscores when a second binding has an operation of that name.
  static const std::regex operation(R"re(^/\*\* Operation "(?:(?:__)?[A-Za-z0-9]+__)?([^"]+)")re");
  static const std::regex quoted(R"re(^\s*- "(.*)"\s*$)re");
  Binding b;
  std::string text, op;
  bool action_next = false;
  std::smatch m;
  while (std::getline(in, text)) {
    if (std::regex_search(text, m, operation)) {
      op = m[1];
      action_next = false;
    } else if (!op.empty() && text.find("- Default SOAP action or REST location path:") != std::string::npos) {
      action_next = true;
    } else if (action_next && std::regex_search(text, m, quoted)) {
      if (!op.ends_with('_')) b.actions.emplace(op, m[1]);
      action_next = false;
    } else if (std::regex_search(text, m, line)) {
      if (m[1] == "port") {
        if (b.endpoint.empty()) b.endpoint = m[2];
      } else {
        b.styles[m[2]] = m[3];
      }
    }
  }
  return b;
}

// The operation a sample file is for: SERVICE.OPERATION.req.xml, the longest
// operation name that ends it (service names may hold dots).
std::string operation_of(const std::string& file, const Binding& b) {
  const std::string stem = file.substr(0, file.size() - std::string(".req.xml").size());
  std::string best;
  for (const auto& [op, style] : b.styles)
    if (stem.size() > op.size() && stem.ends_with("." + op) && op.size() > best.size()) best = op;
  if (!best.empty()) return best;
  const size_t dot = stem.find('.');
  return dot == std::string::npos ? stem : stem.substr(dot + 1);
}

size_t fill(pugi::xml_node node, const std::string& filler) {
  size_t n = 0;
  for (pugi::xml_attribute a : node.attributes()) {
    const std::string_view name = a.name();
    if (name == "xmlns" || name.starts_with("xmlns:") || a.value()[0] != '\0') continue;
    a.set_value(filler.c_str());
    ++n;
  }
  bool has_element = false;
  for (pugi::xml_node child : node.children())
    if (child.type() == pugi::node_element) {
      has_element = true;
      n += fill(child, filler);
    }
  if (!has_element && std::string_view(node.child_value()).find_first_not_of(" \t\r\n") == std::string_view::npos) {
    node.remove_children();
    node.text().set(filler.c_str());
    ++n;
  }
  return n;
}

}  // namespace

size_t fill_empty_values(std::string& envelope, const std::string& filler) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed =
      doc.load_buffer(envelope.data(), envelope.size(), pugi::parse_default | pugi::parse_declaration);
  if (!parsed) throw std::runtime_error(std::string("not well-formed XML: ") + parsed.description());
  pugi::xml_node body;
  for (pugi::xml_node n : doc.document_element().children()) {
    const std::string_view name = n.name();
    if (name == "Body" || name.ends_with(":Body")) body = n;
  }
  if (!body) throw std::runtime_error("no SOAP Body");
  size_t n = 0;
  for (pugi::xml_node payload : body.children())
    if (payload.type() == pugi::node_element && payload.first_child()) n += fill(payload, filler);
  std::ostringstream out;
  if (doc.first_child().type() != pugi::node_declaration) out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  doc.save(out, " ", pugi::format_default | pugi::format_no_declaration, pugi::encoding_utf8);
  envelope = out.str();
  return n;
}

int parse_requests(int argc, const char* const* argv, RequestsConfig& c, std::ostream& out, std::ostream& err) {
  CLI::App app{"A sample request for every operation of a WSDL, for run --request-file: gSOAP's wsdl2h and\n"
               "soapcpp2 write them with the schema's structure and default values, and empty values\n"
               "(strings, binary values, attributes) get --fill. DIR gets OPERATION.xml for each and\n"
               "requests.json (operations, files, SOAPActions, the WSDL's endpoint)",
               "soapbench requests"};
  app.add_option("wsdl", c.wsdl, "A WSDL file or an http:// URL (for example http://host:port/service?wsdl)")
      ->required();
  app.add_option("--out", c.out_dir, "Folder for the requests (created; files of the same name are replaced)")
      ->required();
  app.add_option("--fill", c.filler, "What empty values get (default: 0123456789012345, valid as a string, "
                                     "xsd:hexBinary and xsd:base64Binary)");
  app.add_option("--wsdl2h", c.wsdl2h, "gSOAP's wsdl2h (default: wsdl2h in PATH)");
  app.add_option("--soapcpp2", c.soapcpp2, "gSOAP's soapcpp2 (default: soapcpp2 in PATH)");
  const int code = parse_app(app, argc, argv, "requests", out, err);
  if (code >= 0) return code;
  if (c.filler.find_first_of("<&\"") != std::string::npos) {
    err << "soapbench requests: --fill: '" << c.filler << "' holds <, & or \": give plain text\n";
    return 2;
  }
  return -1;
}

int requests_command(const RequestsConfig& c, std::ostream& out, std::ostream& err) {
  try {
    const bool url = c.wsdl.starts_with("http://") || c.wsdl.starts_with("https://");
    const std::string wsdl = url ? c.wsdl : fs::absolute(c.wsdl).string();
    if (!url && !fs::is_regular_file(wsdl)) {
      err << "soapbench requests: no WSDL file '" << c.wsdl << "'\n";
      return 1;
    }
    ScratchDir scratch;
    const RunResult w = run_tool({c.wsdl2h, "-o", "service.h", wsdl}, scratch.path());
    if (!w.exited() || w.exit_code() != 0 || !fs::exists(scratch.path() / "service.h")) {
      err << "soapbench requests: wsdl2h could not read '" << c.wsdl << "' (" << w.describe() << "):\n"
          << tail_lines(w.err + w.out, 8) << "\n";
      return 1;
    }
    const std::string share = SOAPBENCH_GSOAP_SHARE;
    const RunResult s = run_tool({c.soapcpp2, "-C", "-L", "-w", "-I" + share + "/import", "-I" + share, "service.h"},
                                 scratch.path());
    if (!s.exited() || s.exit_code() != 0) {
      err << "soapbench requests: soapcpp2 failed on what wsdl2h made of '" << c.wsdl << "' (" << s.describe()
          << "):\n" << tail_lines(s.err + s.out, 8) << "\n";
      return 1;
    }
    const Binding binding = read_bindings(scratch.path() / "service.h");

    std::vector<fs::path> samples;
    for (const auto& entry : fs::directory_iterator(scratch.path()))
      if (entry.path().filename().string().ends_with(".req.xml")) samples.push_back(entry.path());
    std::sort(samples.begin(), samples.end());
    if (samples.empty()) {
      err << "soapbench requests: '" << c.wsdl << "' describes no SOAP operation gSOAP can write a request for\n";
      return 1;
    }
    fs::create_directories(c.out_dir);
    std::vector<SampleRequest> written;
    std::map<std::string, int> taken;
    for (const fs::path& sample : samples) {
      SampleRequest r;
      r.operation = operation_of(sample.filename().string(), binding);
      std::ifstream in(sample, std::ios::binary);
      std::string envelope((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      r.filled = fill_empty_values(envelope, c.filler);
      // Two services with an operation of one name: the second file gets the service's name too.
      const std::string stem = taken[r.operation]++ ? sample.filename().string().substr(0, sample.filename().string().size() - 8)
                                                    : r.operation;
      r.file = (fs::path(c.out_dir) / (stem + ".xml")).string();
      std::ofstream file(r.file, std::ios::binary);
      file << envelope;
      file.close();
      if (!file) throw std::runtime_error("cannot write '" + r.file + "'");
      if (auto a = binding.actions.find(r.operation); a != binding.actions.end()) r.soap_action = a->second;
      if (auto st = binding.styles.find(r.operation); st != binding.styles.end()) r.style = st->second;
      written.push_back(std::move(r));
    }

    nlohmann::json index = {{"version", 1}, {"wsdl", c.wsdl}, {"endpoint", binding.endpoint}, {"requests", nlohmann::json::array()}};
    for (const SampleRequest& r : written)
      index["requests"].push_back({{"operation", r.operation}, {"file", fs::path(r.file).filename().string()},
                                   {"soap_action", r.soap_action}, {"style", r.style}});
    const std::string index_file = (fs::path(c.out_dir) / "requests.json").string();
    std::ofstream json(index_file);
    json << index.dump(2) << "\n";
    json.close();
    if (!json) throw std::runtime_error("cannot write '" + index_file + "'");
    // A mix of every operation at equal weights, for run --mix to start from.
    nlohmann::json mix = {{"calls", nlohmann::json::array()}};
    for (const SampleRequest& r : written) {
      nlohmann::json call = {{"name", r.operation}, {"request", fs::path(r.file).filename().string()}, {"weight", 1},
                             {"expect", {"no-fault"}}};
      if (!r.soap_action.empty()) call["soap_action"] = r.soap_action;
      mix["calls"].push_back(call);
    }
    const std::string mix_file = (fs::path(c.out_dir) / "mix.json").string();
    std::ofstream mix_out(mix_file);
    mix_out << mix.dump(2) << "\n";
    mix_out.close();
    if (!mix_out) throw std::runtime_error("cannot write '" + mix_file + "'");

    out << fmt::format("{} request{} from {} in {} (endpoint {})\n", written.size(), written.size() == 1 ? "" : "s",
                       c.wsdl, c.out_dir,
                       binding.endpoint.empty() ? "not given" : binding.endpoint);
    for (const SampleRequest& r : written)
      out << fmt::format("  {:<24} {:<8} {} values filled, SOAPAction {}\n", r.operation, r.style.empty() ? "-" : r.style,
                         r.filled, r.soap_action.empty() ? "\"\" (none in the WSDL)" : r.soap_action);
    out << "Drive one (replace the URL with the service's own if it differs):\n";
    for (const SampleRequest& r : written) {
      out << "  soapbench run --url " << (binding.endpoint.empty() ? "URL" : binding.endpoint) << " --request-file "
          << r.file;
      if (!r.soap_action.empty()) out << " --soap-action '" << r.soap_action << "'";
      out << "\n";
    }
    out << "Or all of them, one call in " << written.size() << " each (edit the weights and expectations in "
        << mix_file << "):\n  soapbench run --url " << (binding.endpoint.empty() ? "URL" : binding.endpoint)
        << " --mix " << mix_file << "\n";
    return 0;
  } catch (const std::exception& e) {
    err << "soapbench requests: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace soapbench
