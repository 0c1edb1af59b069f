#pragma once
// Points a gSOAP context's I/O at memory, so that the micro-benchmarks time the
// generated serializers and parsers without sockets or system calls.
#include <string>
#include <string_view>

#include "stdsoap2.h"

namespace soapbench::bench {

class MemoryIo {
 public:
  // Replaces soap's fsend/frecv callbacks; soap->user points here afterwards.
  explicit MemoryIo(struct soap* soap);
  MemoryIo(const MemoryIo&) = delete;
  MemoryIo& operator=(const MemoryIo&) = delete;

  // Everything gSOAP sent since the last clear().
  const std::string& output() const { return out_; }
  void clear_output() { out_.clear(); }
  // The bytes the next reads return; the caller keeps them alive.
  void set_input(std::string_view in) { in_ = in; }

 private:
  static int send(struct soap* soap, const char* data, size_t n);
  static size_t recv(struct soap* soap, char* buf, size_t n);
  std::string out_;
  std::string_view in_;
};

}  // namespace soapbench::bench
