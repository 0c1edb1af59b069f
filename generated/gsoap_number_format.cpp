// Built into the in-tree gSOAP runtime only (cmake/GsoapRuntime.cmake), whose
// stdsoap2.cpp includes gsoap_number_format.h first, which renames snprintf: gSOAP
// turns every number into text with snprintf, and glibc's "%.17lG" (xsd:double)
// and "%.9G" (xsd:float) take its multi-precision path, 5,000 to 10,000
// instructions a value: a sixth of a served echoStruct. Those two are written by
// std::to_chars with the same precision instead (libstdc++'s Ryu), which the
// standard defines as printf's %g: the same text, byte for byte, with 'e' made
// 'E' as %G does. The text stays as it was, since an echo that a client compares
// as text (soapbench's --expect echo) must not change. Integers ("%d", "%ld",
// "%lld" and unsigned) get printf's text too. Any other format, and any format an
// application sets itself (soap->double_format), goes to vsnprintf unchanged.
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace {

// snprintf's contract: at most len - 1 characters and a NUL; the full length returned.
int put(char* buf, size_t len, const char* text, const char* end) {
  const auto n = static_cast<size_t>(end - text);
  if (len > 0) {
    const size_t copied = n < len ? n : len - 1;
    std::memcpy(buf, text, copied);
    buf[copied] = '\0';
  }
  return static_cast<int>(n);
}

template <class T>
int put_number(char* buf, size_t len, T value) {
  char text[64];
  const auto r = std::to_chars(text, text + sizeof text, value);
  return put(buf, len, text, r.ptr);
}

// printf's "%.<precision>G"; -1 (vsnprintf's to write) for NaN and infinities,
// which gSOAP writes itself anyway.
int put_general(char* buf, size_t len, double value, int precision) {
  if (!std::isfinite(value)) return -1;
  char text[64];
  const auto r = std::to_chars(text, text + sizeof text, value, std::chars_format::general, precision);
  if (r.ec != std::errc()) return -1;
  for (char* p = text; p != r.ptr; ++p)
    if (*p == 'e') *p = 'E';
  return put(buf, len, text, r.ptr);
}

}  // namespace

extern "C" int soapbench_gsoap_snprintf(char* buf, size_t len, const char* format, ...) {
  va_list ap, again;
  va_start(ap, format);
  va_copy(again, ap);
  int n = -1;
  if (format[0] == '%') {
    const char* f = format + 1;
    if (std::strcmp(f, ".17lG") == 0) n = put_general(buf, len, va_arg(ap, double), 17);
    else if (std::strcmp(f, ".9G") == 0) n = put_general(buf, len, va_arg(ap, double), 9);
    else if (std::strcmp(f, "d") == 0) n = put_number(buf, len, va_arg(ap, int));
    else if (std::strcmp(f, "u") == 0) n = put_number(buf, len, va_arg(ap, unsigned));
    else if (std::strcmp(f, "ld") == 0) n = put_number(buf, len, va_arg(ap, long));
    else if (std::strcmp(f, "lu") == 0) n = put_number(buf, len, va_arg(ap, unsigned long));
    else if (std::strcmp(f, "lld") == 0) n = put_number(buf, len, va_arg(ap, long long));
    else if (std::strcmp(f, "llu") == 0) n = put_number(buf, len, va_arg(ap, unsigned long long));
  }
  if (n < 0) n = std::vsnprintf(buf, len, format, again);
  va_end(again);
  va_end(ap);
  return n;
}
