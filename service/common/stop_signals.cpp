#include "stop_signals.h"

#include <pthread.h>

#include <ctime>
#include <thread>
#include <utility>

namespace soapbench::server {

StopSignals::StopSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

void StopSignals::stop_on_signal(std::function<void()> on_stop) {
  std::thread([signals = signals_, on_stop = std::move(on_stop)] {
    int sig = 0;
    sigwait(&signals, &sig);
    on_stop();
  }).detach();
}

bool StopSignals::wait(double seconds) {
  const auto whole = static_cast<time_t>(seconds);
  const timespec timeout{whole, static_cast<long>((seconds - static_cast<double>(whole)) * 1e9)};
  return sigtimedwait(&signals_, nullptr, &timeout) > 0;
}

}  // namespace soapbench::server
