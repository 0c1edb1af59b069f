#pragma once
// GET /stats of soapbench-echo-server, on a port of its own so that the echo
// port carries nothing but frames. One thread answers one request at a time;
// it costs nothing while no one asks.
#include "echo_config.h"
#include "echo_server.h"

namespace soapbench::tcp {

// Serves `listen_fd` until `stop_fd` becomes readable. A request must arrive
// within a second; only "GET /stats" gets 200 and the JSON, anything else 404.
void serve_stats(int listen_fd, int stop_fd, EchoStats& stats, const EchoConfig& config);

}  // namespace soapbench::tcp
