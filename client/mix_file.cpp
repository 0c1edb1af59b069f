#include "mix_file.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "expectations.h"

namespace soapbench {

namespace {

// "LINE:COLUMN" of byte `at` of `text` (1-based, as editors count).
std::string line_and_column(const std::string& text, size_t at) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

std::vector<MixEntry> load_mix(const std::string& path, const std::string& soap_version,
                               const std::vector<std::string>& headers) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read '" + path + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  if (path.ends_with(".toml")) {  // the same fields as TOML: [[calls]] tables, read as the JSON form
    try {
      const toml::table table = toml::parse(text, path);
      std::ostringstream as_json;
      as_json << toml::json_formatter{table};
      j = nlohmann::json::parse(as_json.str());
    } catch (const toml::parse_error& e) {
      throw std::invalid_argument(path + ":" + std::to_string(e.source().begin.line) + ":" +
                                  std::to_string(e.source().begin.column) + ": not TOML (" +
                                  std::string(e.description()) + ")");
    }
  } else {
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
      throw std::invalid_argument(path + ":" + line_and_column(text, e.byte > 0 ? e.byte - 1 : 0) +
                                  ": not JSON (" + e.what() + ")");
    }
  }
  const auto calls = j.is_object() ? j.find("calls") : j.end();
  if (calls == j.end() || !calls->is_array() || calls->empty())
    throw std::invalid_argument(path + ": no \"calls\": give an array of {\"request\": FILE, ...}");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<MixEntry> entries;
  std::set<std::string> names;
  for (size_t i = 0; i < calls->size(); ++i) {
    const nlohmann::json& c = (*calls)[i];
    const std::string where = path + ": calls[" + std::to_string(i) + "]: ";
    auto text_of = [&](const char* key, std::string fallback) {
      const auto it = c.find(key);
      if (it == c.end()) return fallback;
      if (!it->is_string()) throw std::invalid_argument(where + "\"" + key + "\" must be a string");
      return it->get<std::string>();
    };
    auto list_of = [&](const char* key) {
      std::vector<std::string> out;
      const auto it = c.find(key);
      if (it == c.end()) return out;
      if (!it->is_array()) throw std::invalid_argument(where + "\"" + key + "\" must be an array of strings");
      for (const auto& x : *it) {
        if (!x.is_string()) throw std::invalid_argument(where + "\"" + key + "\" must be an array of strings");
        out.push_back(x.get<std::string>());
      }
      return out;
    };
    if (!c.is_object()) throw std::invalid_argument(where + "must be an object");
    for (const auto& [key, value] : c.items())
      if (key != "request" && key != "soap_action" && key != "weight" && key != "expect" && key != "name" &&
          key != "headers")
        throw std::invalid_argument(where + "unknown field \"" + key +
                                    "\" (request, soap_action, weight, expect, name, headers)");
    const std::string request = text_of("request", "");
    if (request.empty()) throw std::invalid_argument(where + "no \"request\" (a request file)");
    MixEntry e;
    try {
      const std::filesystem::path file =
          std::filesystem::path(request).is_absolute() ? std::filesystem::path(request) : dir / request;
      e.call = load_request_file(file.string(), soap_version);
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(where + error.what());
    }
    e.call.name = text_of("name", e.call.name);
    if (!names.insert(e.call.name).second)
      throw std::invalid_argument(where + "a second entry named '" + e.call.name + "' (give each a \"name\")");
    try {
      e.call.soap_action = soap_action_value(text_of("soap_action", ""));
    } catch (const std::invalid_argument& error) {
      throw std::invalid_argument(where + "\"soap_action\" " + error.what());
    }
    if (const auto w = c.find("weight"); w != c.end()) {
      if (!w->is_number_unsigned() || w->get<uint64_t>() < 1 || w->get<uint64_t>() > 1000000)
        throw std::invalid_argument(where + "\"weight\" must be a whole number from 1 to 1000000");
      e.weight = w->get<unsigned>();
    }
    e.call.headers = headers;
    for (const std::string& h : list_of("headers")) e.call.headers.push_back(h);
    for (const std::string& h : e.call.headers) {
      try {
        validate_header(h);
      } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(where + "header: " + error.what());
      }
    }
    e.call.expect = list_of("expect");
    for (const std::string& x : e.call.expect) {
      try {
        parse_expectation(x);
      } catch (const std::invalid_argument& error) {
        throw std::invalid_argument(where + "expect: " + error.what());
      }
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

MixOrder::MixOrder(const std::vector<unsigned>& weights, uint64_t start)
    : weights_(weights), current_(weights.size(), 0) {
  for (unsigned w : weights_) total_ += w;
  if (total_ > 0)
    for (uint64_t k = start % static_cast<uint64_t>(total_); k > 0; --k) next();
}

size_t MixOrder::next() {
  // Nginx's smooth weighted round robin: each entry gains its weight, the one
  // furthest ahead is chosen and pays back the total.
  size_t best = 0;
  for (size_t i = 0; i < weights_.size(); ++i) {
    current_[i] += weights_[i];
    if (current_[i] > current_[best]) best = i;
  }
  current_[best] -= total_;
  return best;
}

}  // namespace soapbench
