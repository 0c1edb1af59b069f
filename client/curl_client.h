#pragma once
// The stack-neutral client: libcurl for HTTP, a hand-rendered request, pugixml
// for the response. It shares no code with gSOAP, so it can judge other stacks.
#include <memory>

#include "client.h"

namespace soapbench {

// Expects options already checked by make_client().
std::unique_ptr<EchoClient> make_curl_client(const ClientOptions& options);

}  // namespace soapbench
