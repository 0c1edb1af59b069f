#pragma once
// The echo the curl and raw clients expect and their verdict on each reply:
// both send the same hand-rendered request and read the response body with
// xml::ResponseReader, so they judge it in one place and report alike.
#include <string>
#include <vector>

#include "client.h"
#include "payload.h"
#include "xml_reader.h"

namespace soapbench {

// Reuses its buffers from call to call; one per client, not thread-safe.
class EchoCheck {
 public:
  EchoCheck(Operation operation, const PayloadSize& payload);
  std::string render_request() const;  // the envelope to POST, XML declaration included
  // `status` is the HTTP status of the reply; `body` is parsed in place.
  CallResult check(long status, std::string& body);

 private:
  Operation operation_;
  std::string expected_text_;
  std::vector<ItemValue> sent_items_;
  xml::ResponseReader reader_;
  std::string got_text_;
  std::vector<ItemValue> got_items_;
  std::vector<uint8_t> sent_data_;  // echoBinary
  std::vector<uint8_t> got_data_;
};

// Where an echoed string first departs from the one sent, for a mismatch detail.
std::string first_difference(const std::string& sent, const std::string& got);

}  // namespace soapbench
