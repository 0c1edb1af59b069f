#pragma once
// A call to any SOAP service: a whole envelope from a file, sent as it is on
// every call, with its SOAPAction and extra headers, and the expectations every
// response must meet (client/expectations.h). The raw and curl clients send it;
// the gsoap proxy, generated from wsdl/echo.wsdl, cannot.
#include <string>
#include <vector>

#include "request_template.h"

namespace soapbench {

struct CustomCall {
  std::string file;         // where the envelope came from (for messages and results)
  std::string name;         // in tables and results: the payload element's local name
  std::string envelope;     // the body of every call, byte for byte
  std::string soap_version = "1.1";  // 1.1: text/xml + SOAPAction; 1.2: application/soap+xml; action=
  std::string soap_action;  // "" = none (1.1 still sends SOAPAction: "")
  std::vector<std::string> headers;  // "Name: value", added to every request
  std::vector<std::string> expect;   // checked on every response; empty = no-fault
  CsvData data;             // --data FILE.csv for ${csv:COLUMN}; file "" = none (request_template.h)
  uint64_t connection = 0;  // ${client}: this connection's index in the step (set per worker)
};

// One entry of a --mix file (mix_file.h): its call, and its share of the calls.
struct MixEntry {
  CustomCall call;
  unsigned weight = 1;  // calls of this entry per cycle of the sum of all weights
};

// The envelope of `path`, checked: well-formed XML, a SOAP 1.1 or 1.2 Envelope
// with a Body holding an element. Sets file, name, envelope and, unless
// `soap_version` is given ("1.1", "1.2" or "" to detect it from the
// envelope's namespace), soap_version. Throws std::invalid_argument with the
// file name and, for XML errors, the line.
CustomCall load_request_file(const std::string& path, const std::string& soap_version = "");

// The HTTP headers of a call: Content-Type and SOAPAction (1.1) or the action
// in the Content-Type (1.2), then the extra headers. Without CRLFs.
std::vector<std::string> request_headers(const CustomCall& call);

// "Name: value" with a token name and no CR or LF; throws std::invalid_argument.
void validate_header(const std::string& header);

// A SOAPAction as given (--soap-action, a mix entry's "soap_action"): the header
// quotes the URI itself, so one given already quoted is taken as meant. Throws
// std::invalid_argument when it holds a quote or a line break.
std::string soap_action_value(std::string action);

}  // namespace soapbench
