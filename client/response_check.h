#pragma once
// The echo the curl and raw clients expect and their verdict on each reply:
// both send the same hand-rendered request and read the response body with
// xml::ResponseReader, so they judge it in one place and report alike.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "client.h"
#include "mix_file.h"
#include "payload.h"
#include "xml_reader.h"

namespace soapbench {

// What a client sends and how it judges the reply: the echo contract's typed
// check (EchoCheck), or a request file's expectations (expectations.h).
class ResponseCheck {
 public:
  virtual ~ResponseCheck() = default;
  // The envelope to POST; when varies(), a new one for each call, in a buffer
  // kept from call to call (valid until the next render_request()).
  virtual const std::string& render_request() = 0;
  virtual bool varies() const { return false; }
  // When varies(): this call's envelope as pieces to send one after the other
  // (no copy of the literal text); false when the check needs render_request().
  virtual bool render_pieces(std::vector<std::string_view>&) { return false; }
  // `status` is the HTTP status of the reply; `body` may be parsed in place.
  virtual CallResult check(long status, std::string& body) = 0;
  // True when check()'s verdict depends on the status and body alone, never on
  // which call it is (no variables feeding an echo): then equal responses get
  // equal verdicts, which RepeatAwareCheck uses.
  virtual bool judges_response_alone() const { return !varies(); }
  // --mix: moves on to the next call's entry (before render_request()), and
  // which entry that is (MixCheck); one entry otherwise.
  virtual void advance() {}
  virtual size_t entry() const { return 0; }
};

// Judges a response byte-identical (same status, same body) to the last one the
// inner check accepted as accepted again, without parsing it: the verdict is a
// function of those bytes alone, and a memcmp of every byte costs a hundredth of
// the parse. Any difference, one byte, goes to the inner check in full. This is
// what keeps validating every echo from making the driver the bottleneck: a
// server answers a fixed request with the same bytes call after call.
class RepeatAwareCheck final : public ResponseCheck {
 public:
  explicit RepeatAwareCheck(std::unique_ptr<ResponseCheck> inner) : inner_(std::move(inner)) {}
  const std::string& render_request() override { return inner_->render_request(); }
  bool varies() const override { return inner_->varies(); }
  bool render_pieces(std::vector<std::string_view>& pieces) override { return inner_->render_pieces(pieces); }
  CallResult check(long status, std::string& body) override;
  bool judges_response_alone() const override { return true; }
  uint64_t full_checks() const { return full_checks_; }  // responses the inner check parsed

 private:
  std::unique_ptr<ResponseCheck> inner_;
  long accepted_status_ = -1;  // none accepted yet
  std::string accepted_;       // the body of the last accepted response, as received
  std::string candidate_;      // this response before the inner check parses it in place
  uint64_t full_checks_ = 0;
};

// The check `options` ask for: a request file's expectations when it has one;
// in a RepeatAwareCheck when its verdicts depend on the response alone.
std::unique_ptr<ResponseCheck> make_response_check(const ClientOptions& options);

// --mix: each call one of the entries' request files (mix_file.h's MixOrder),
// judged by that entry's expectations; the result names the entry.
class MixCheck final : public ResponseCheck {
 public:
  // `start`: this connection's place in the weights' cycle.
  MixCheck(const std::vector<MixEntry>& entries, uint64_t start);
  const std::string& render_request() override { return checks_[entry_]->render_request(); }
  bool varies() const override { return true; }  // the request changes from entry to entry
  bool render_pieces(std::vector<std::string_view>& pieces) override {
    return checks_[entry_]->varies() && checks_[entry_]->render_pieces(pieces);
  }
  CallResult check(long status, std::string& body) override;
  bool judges_response_alone() const override { return false; }
  void advance() override { entry_ = order_.next(); }
  size_t entry() const override { return entry_; }

 private:
  std::vector<std::unique_ptr<ResponseCheck>> checks_;
  MixOrder order_;
  size_t entry_ = 0;
};

// Reuses its buffers from call to call; one per client, not thread-safe.
class EchoCheck final : public ResponseCheck {
 public:
  EchoCheck(Operation operation, const PayloadSize& payload);
  const std::string& render_request() override;  // the envelope to POST, XML declaration included
  CallResult check(long status, std::string& body) override;

 private:
  Operation operation_;
  std::string rendered_;
  std::string expected_text_;
  std::vector<ItemValue> sent_items_;
  xml::ResponseReader reader_;
  std::string got_text_;
  std::vector<ItemValue> got_items_;
  std::vector<uint8_t> sent_data_;  // echoBinary
  std::vector<uint8_t> got_data_;
};

// A refusal of the credentials, FailureKind::auth: HTTP 401 or 403, or (on a
// fault) a WS-Security fault whose faultcode is wsse:FailedAuthentication.
inline bool refused_credentials(long status) { return status == 401 || status == 403; }
bool auth_fault(std::string_view body);

// Where an echoed string first departs from the one sent, for a mismatch detail.
std::string first_difference(const std::string& sent, const std::string& got);

}  // namespace soapbench
