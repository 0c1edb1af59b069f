#pragma once
// A call's deadline on the monotonic clock, for the socket clients (raw, tcp):
// every wait is a ppoll() bounded by the time left, so a call ends at its
// deadline however the server dribbles its bytes. SO_RCVTIMEO would not do:
// it restarts with every byte received.
#include <sys/socket.h>

#include <chrono>
#include <string>

namespace soapbench {

using DeadlineClock = std::chrono::steady_clock;

// The deadline `timeout_s` from now.
DeadlineClock::time_point deadline_after(double timeout_s);

// Waits until `fd` is ready for `events` (POLLIN, POLLOUT) or `deadline`
// passes (false). ppoll, not poll: a deadline below a millisecond away is kept,
// not rounded up. An error on the socket counts as ready: the next send or recv reports it.
bool wait_ready(int fd, short events, DeadlineClock::time_point deadline);

// Connects the non-blocking socket `fd`: 0, ETIMEDOUT when `deadline` passed
// first, or the errno of the failure.
int connect_until(int fd, const sockaddr* address, socklen_t length, DeadlineClock::time_point deadline);

// "250", "0.5": a timeout in milliseconds for failure details.
std::string milliseconds_text(double seconds);

}  // namespace soapbench
