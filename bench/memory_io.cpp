#include "memory_io.h"

#include <algorithm>
#include <cstring>

namespace soapbench::bench {

MemoryIo::MemoryIo(struct soap* soap) {
  soap->user = this;
  soap->fsend = &MemoryIo::send;
  soap->frecv = &MemoryIo::recv;
}

int MemoryIo::send(struct soap* soap, const char* data, size_t n) {
  static_cast<MemoryIo*>(soap->user)->out_.append(data, n);
  return SOAP_OK;
}

size_t MemoryIo::recv(struct soap* soap, char* buf, size_t n) {
  std::string_view& in = static_cast<MemoryIo*>(soap->user)->in_;
  const size_t got = std::min(n, in.size());
  std::memcpy(buf, in.data(), got);
  in.remove_prefix(got);
  return got;  // 0 is end of input, as a closed socket
}

}  // namespace soapbench::bench
