#pragma once
// The lean client: one blocking TCP socket, the whole HTTP request rendered once
// and sent with one send(), the response read in large chunks and its status
// line and headers parsed by hand, then validated by xml::ResponseReader like
// the curl client. Meant to keep the driver's CPU per call close to wrk's.
#include <memory>

#include "client.h"

namespace soapbench {

// Expects options already checked by make_client(). Resolves the host once here;
// a host that does not resolve fails each call() as "connect".
std::unique_ptr<EchoClient> make_raw_client(const ClientOptions& options);

}  // namespace soapbench
