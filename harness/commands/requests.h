#pragma once
// `soapbench requests WSDL --out DIR`: a sample request for every operation of
// any WSDL (a file or a URL), ready for `run --request-file`. gSOAP writes the
// samples: wsdl2h turns the WSDL into a header, and soapcpp2 writes a
// SERVICE.OPERATION.req.xml for each operation with the schema's structure and
// default values (0, the first enumerator, today's date). What it leaves empty
// (strings, base64Binary and hexBinary values, attributes) is filled here with
// a text valid as all three, so that a sample is a call a typed service accepts.
// DIR gets OPERATION.xml for each, requests.json (the operations, their files
// and SOAPActions, the endpoint the WSDL names) and mix.json: every operation
// at weight 1, for run --mix (client/mix_file.h).
#include <iosfwd>
#include <string>
#include <vector>

namespace soapbench {

struct RequestsConfig {
  std::string wsdl;      // a WSDL file or an http:// URL (wsdl2h reads both)
  std::string out_dir;   // --out
  std::string wsdl2h = "wsdl2h";      // --wsdl2h: the program (looked up in PATH)
  std::string soapcpp2 = "soapcpp2";  // --soapcpp2
  // --fill: what empty values get: digits only, so a valid string, xsd:hexBinary (no case
  // to change) and xsd:base64Binary (16 characters, no padding: it re-encodes to itself).
  std::string filler = "0123456789012345";
};

// One operation's sample as written.
struct SampleRequest {
  std::string operation;    // as the WSDL names it
  std::string file;         // DIR/OPERATION.xml
  std::string soap_action;  // the binding's soapAction; "" when it has none
  std::string style;        // "document" or "rpc"
  size_t filled = 0;        // empty values given the filler
};

// The value of every empty element and attribute under the envelope's Body
// set to `filler`; returns how many. Elements with children are left alone.
size_t fill_empty_values(std::string& envelope, const std::string& filler);

// Parses `soapbench requests ...` (argv[0] is "requests"): -1 to run, else the exit code.
int parse_requests(int argc, const char* const* argv, RequestsConfig& config, std::ostream& out, std::ostream& err);
// Exit 0; 1 when wsdl2h or soapcpp2 fail (with their message) or DIR cannot be written.
int requests_command(const RequestsConfig& config, std::ostream& out, std::ostream& err);

}  // namespace soapbench
