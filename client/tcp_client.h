#pragma once
// The "tcp" client: xSocket's load client over soapbench-echo-server's framing
// (service/tcp_echo/frame.h). Each call sends one message of PayloadSize::data_bytes
// and reads the echo back while still sending, so that a 2 MB message cannot
// deadlock with both sides' buffers full; the echo is compared byte for byte.
#include <memory>

#include "client.h"

namespace soapbench {

// URL tcp://host:port (IPv6 as [addr]). Throws std::invalid_argument for another
// URL form, an operation other than tcpEcho, or more than 4 GiB - 1 of data.
std::unique_ptr<EchoClient> make_tcp_client(const ClientOptions& options);

}  // namespace soapbench
