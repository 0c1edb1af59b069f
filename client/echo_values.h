#pragma once
// Whether an echoed leaf value is the value that was sent, for --expect echo on
// any service. Text is compared as text, except what every stack writes in its
// own canonical form: numbers ("0.0" and "0", "1E3" and "1000.0", "INF") are the
// same when equal as numbers, or as floats when both texts carry at most nine
// significant digits (an xsd:float written with nine digits or with the fewest:
// "3.40282347E+38" and "3.4028235E38"); dateTimes with a time zone are the same
// when they name the same instant ("Z" and "+00:00", ".000" and none), and
// without one when equal but for trailing zeros of the fraction. A string field
// that holds "0.0" and comes back "0" passes too: no schema says it is a string.
#include <string_view>

namespace soapbench {

bool same_echoed_value(std::string_view sent, std::string_view got);

}  // namespace soapbench
