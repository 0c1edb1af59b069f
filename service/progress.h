#pragma once
// The server's periodic progress line and its exit summary (like xSocket's echo handler).
#include <condition_variable>
#include <mutex>
#include <thread>

#include "config.h"
#include "stats.h"

namespace soapbench::server {

// Prints one line every report interval until stop() or destruction.
class ProgressReporter {
 public:
  ProgressReporter(const Stats& stats, const Config& config);
  ~ProgressReporter();
  void stop();

 private:
  void loop();
  const Stats& stats_;
  const Config& config_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::thread thread_;
};

void print_summary(const Stats& stats, const Config& config);

}  // namespace soapbench::server
