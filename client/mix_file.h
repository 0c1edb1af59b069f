#pragma once
// --mix FILE: several request files driven as one load, each call one of them by
// weight, each its own operation in the tables and results. A JSON file:
//   {"calls": [
//     {"request": "reserve.xml", "soap_action": "urn:example#reserve", "weight": 3,
//      "expect": ["echo"], "name": "reserve", "headers": ["X-Tenant: a"]},
//     {"request": "lookup.xml", "soap_action": "urn:example#lookup"}]}
// "request" is a path relative to the mix file; the rest is optional: weight 1,
// no SOAPAction, the no-fault expectation, the payload element's name, no headers.
// A FILE.toml holds the same fields as TOML, an array of tables:
//   [[calls]]
//   request = "reserve.xml"
//   weight = 3
//   expect = ["echo"]
// `soapbench requests` writes one (mix.json) for every operation of a WSDL.
//
// MixOrder decides which entry each call is: smooth weighted round robin, so a
// client's calls follow the weights exactly over every cycle of their sum, and
// evenly spread within it (3:1 is a a b a, not a a a b); each connection starts
// at its own place in the cycle so that together they send the same mix.
#include <cstdint>
#include <string>
#include <vector>

#include "request_file.h"

namespace soapbench {

// Loads and checks the file: JSON or TOML (by the .toml suffix) syntax
// ("FILE:LINE:COLUMN: ..."), every entry
// ("FILE: calls[2]: ..."): its request file (load_request_file), weight, headers,
// expectations, and names that are unique. `soap_version` and `headers` are the
// command line's --soap and --header, applied to every entry. Throws std::invalid_argument.
std::vector<MixEntry> load_mix(const std::string& path, const std::string& soap_version = "",
                               const std::vector<std::string>& headers = {});

class MixOrder {
 public:
  // `start`: how many calls into the cycle this connection begins.
  MixOrder(const std::vector<unsigned>& weights, uint64_t start);
  size_t next();  // the entry of the next call

 private:
  std::vector<unsigned> weights_;
  std::vector<int64_t> current_;
  int64_t total_ = 0;
};

}  // namespace soapbench
