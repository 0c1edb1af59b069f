#pragma once
// Conversion between the plain payload values and the classes gSOAP generated
// from wsdl/echo.wsdl. Objects made here live in the given context's arena.
#include <vector>

#include "payload.h"
#include "soapH.h"

namespace soapbench {

std::vector<echo__EchoItem*> to_gsoap(struct soap* soap, const std::vector<ItemValue>& items);
std::vector<ItemValue> from_gsoap(struct soap* soap, const std::vector<echo__EchoItem*>& items);

}  // namespace soapbench
