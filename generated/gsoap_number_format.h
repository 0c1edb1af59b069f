// Included first into the in-tree runtime's stdsoap2.cpp (-include; see
// gsoap_number_format.cpp for why): after <cstdio>, which #undefs snprintf,
// every snprintf of gSOAP's becomes soapbench_gsoap_snprintf.
#pragma once
#include <cstddef>
#include <cstdio>

extern "C" int soapbench_gsoap_snprintf(char* buf, size_t len, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
#define snprintf soapbench_gsoap_snprintf
