#pragma once
// Facts about wsdl/echo.wsdl that code outside the generated classes needs.

namespace soapbench {
inline constexpr const char* kNamespace = "urn:soapbench:echo:1";
inline constexpr const char* kEndpointPath = "/echo";
// The text of wsdl/echo.wsdl, embedded at build time.
extern const char* const kWsdlText;
}  // namespace soapbench
