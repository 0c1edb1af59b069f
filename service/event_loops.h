#pragma once
// The epoll modes: iterative (one loop serves every connection), loops (one loop
// per thread, each serving its own connections from start to finish, as nginx's
// workers do) and pool (one loop hands connections with a request ready to a
// pool of worker threads, as xSocket's threaded server does).
#include "config.h"
#include "stats.h"

namespace soapbench::server {

class TlsContext;

// Serves the connections accepted on listen_fd until stop_fd (an eventfd) becomes
// readable; then stops accepting (shuts listen_fd down, closes nothing it did not
// open), closes idle connections and gives requests in flight config.grace_s to finish.
// With `tls` every connection speaks HTTPS.
void run_event_loops(const Config& config, Stats& stats, int listen_fd, int stop_fd, const TlsContext* tls = nullptr);

}  // namespace soapbench::server
