#include "response_check.h"

#include <algorithm>

#include "credentials.h"
#include "expectations.h"
#include "xml_values.h"

namespace soapbench {

namespace {
std::unique_ptr<ResponseCheck> with_repeats(std::unique_ptr<ResponseCheck> check) {
  if (!check->judges_response_alone()) return check;
  return std::make_unique<RepeatAwareCheck>(std::move(check));
}
std::vector<unsigned> weights_of(const std::vector<MixEntry>& entries) {
  std::vector<unsigned> w;
  for (const MixEntry& e : entries) w.push_back(e.weight);
  return w;
}
}  // namespace

MixCheck::MixCheck(const std::vector<MixEntry>& entries, uint64_t start) : order_(weights_of(entries), start) {
  for (const MixEntry& e : entries) checks_.push_back(with_repeats(std::make_unique<ExpectationCheck>(e.call)));
}

CallResult MixCheck::check(long status, std::string& body) {
  CallResult r = checks_[entry_]->check(status, body);
  r.entry = static_cast<uint32_t>(entry_);
  return r;
}

std::unique_ptr<ResponseCheck> make_response_check(const ClientOptions& options) {
  if (!options.mix.empty()) {
    std::unique_ptr<ResponseCheck> mix = std::make_unique<MixCheck>(options.mix, options.mix.front().call.connection);
    return options.wsse.empty() ? std::move(mix) : with_wsse(std::move(mix), options.wsse, options.wsse_digest);
  }
  std::unique_ptr<ResponseCheck> check;
  if (options.custom) check = std::make_unique<ExpectationCheck>(*options.custom);
  else check = std::make_unique<EchoCheck>(options.operation, options.payload);
  check = with_repeats(std::move(check));
  if (!options.wsse.empty()) check = with_wsse(std::move(check), options.wsse, options.wsse_digest);
  return check;
}

CallResult RepeatAwareCheck::check(long status, std::string& body) {
  if (status == accepted_status_ && body == accepted_) return {true, {}, {}};
  candidate_.assign(body);  // capacity kept: no allocation once warm
  ++full_checks_;
  CallResult result = inner_->check(status, body);
  if (result.ok) {
    accepted_.swap(candidate_);
    accepted_status_ = status;
  }
  return result;
}

EchoCheck::EchoCheck(Operation operation, const PayloadSize& payload) : operation_(operation) {
  if (operation == Operation::echo_string) expected_text_ = make_string(payload.string_length);
  else if (operation == Operation::echo_binary) sent_data_ = make_bytes(payload.data_bytes);
  else sent_items_ = make_items(payload);
}

const std::string& EchoCheck::render_request() {
  if (operation_ == Operation::echo_binary) rendered_ = xml::render_echo_binary(sent_data_);
  else rendered_ = operation_ == Operation::echo_string ? xml::render_echo_string(expected_text_)
                                                        : xml::render_echo_struct(sent_items_);
  return rendered_;
}

CallResult EchoCheck::check(long status, std::string& body) {
  const bool success = status >= 200 && status < 300;
  const xml::ReadStatus read = operation_ == Operation::echo_string   ? reader_.read_echo_string(body, got_text_)
                               : operation_ == Operation::echo_binary ? reader_.read_echo_binary(body, got_data_)
                                                                      : reader_.read_echo_struct(body, got_items_);
  // SOAP 1.1 sends a Fault with status 500. A Fault with another error status (the
  // gSOAP server answers a wrong path with 404 and a Fault) is that status, as the
  // gSOAP client reports it too.
  if (read == xml::ReadStatus::fault && (success || status == 500))
    return failure(auth_fault(body) ? FailureKind::auth : FailureKind::soap_fault, reader_.problem());
  if (!success) {
    std::string detail = "HTTP " + std::to_string(status);
    if (read == xml::ReadStatus::fault) detail += ": " + reader_.problem();
    return failure(refused_credentials(status) ? FailureKind::auth : FailureKind::http_status, std::move(detail));
  }
  if (read == xml::ReadStatus::not_soap) return failure(FailureKind::read, reader_.problem());
  if (read == xml::ReadStatus::not_echo) return failure(FailureKind::mismatch, reader_.problem());
  if (operation_ == Operation::echo_binary) {
    if (got_data_ != sent_data_) {
      const size_t at = static_cast<size_t>(
          std::mismatch(sent_data_.begin(), sent_data_.end(), got_data_.begin(), got_data_.end()).first -
          sent_data_.begin());
      return failure(FailureKind::mismatch, "data differs at byte " + std::to_string(at) + " (sent " +
                                                std::to_string(sent_data_.size()) + " bytes, echoed " +
                                                std::to_string(got_data_.size()) + ")");
    }
  } else if (operation_ == Operation::echo_string) {
    if (got_text_ != expected_text_) return failure(FailureKind::mismatch, first_difference(expected_text_, got_text_));
  } else if (auto difference = compare_items(sent_items_, got_items_)) {
    return failure(FailureKind::mismatch, std::move(*difference));
  }
  return {true, {}, {}};
}

bool auth_fault(std::string_view body) {
  // Looked for on faults only. The faultcode's text survives an in-place parse
  // (only the '<' after it is overwritten), so this works after the check's parse too.
  return body.find("wsse:FailedAuthentication") != std::string_view::npos ||
         body.find(":FailedAuthentication") != std::string_view::npos;
}

std::string first_difference(const std::string& sent, const std::string& got) {
  size_t i = 0;
  while (i < sent.size() && i < got.size() && sent[i] == got[i]) ++i;
  return "text differs at character " + std::to_string(i) + " (sent " + std::to_string(sent.size()) +
         " characters, echoed " + std::to_string(got.size()) + ")";
}

}  // namespace soapbench
