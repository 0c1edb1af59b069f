#pragma once
// The gSOAP client: the EchoBindingProxy generated from wsdl/echo.wsdl.
#include <memory>

#include "client.h"

namespace soapbench {

// Expects options already checked by make_client().
std::unique_ptr<EchoClient> make_gsoap_client(const ClientOptions& options);

}  // namespace soapbench
