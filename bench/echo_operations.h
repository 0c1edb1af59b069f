#pragma once
// The three echo operations as the in-process services of bench/ answer them:
// the request's data handed to the response, no copy (as soapbench-server does).
#include <utility>

#include "soapEchoBindingService.h"

namespace soapbench::bench {

class EchoOperations : public EchoBindingService {
 public:
  using EchoBindingService::EchoBindingService;
  int echoString(_echo__echoString* request, _echo__echoStringResponse& response) override {
    response.text = std::move(request->text);
    return SOAP_OK;
  }
  int echoStruct(_echo__echoStruct* request, _echo__echoStructResponse& response) override {
    response.item = std::move(request->item);
    return SOAP_OK;
  }
  int echoBinary(_echo__echoBinary* request, _echo__echoBinaryResponse& response) override {
    response.data = request->data;
    return SOAP_OK;
  }
};

}  // namespace soapbench::bench
