#pragma once
// One SOAP 1.1 envelope around one body element, written and read the way the
// generated proxy and service do it, minus the HTTP framing and the socket.
#include "soapH.h"

namespace soapbench::bench {

// Writes the envelope with `body` as element `tag` through soap->fsend.
template <class Body>
int write_envelope(struct soap* soap, const Body& body, const char* tag) {
  soap_begin(soap);
  soap->encodingStyle = nullptr;  // document/literal
  soap_serializeheader(soap);
  body.soap_serialize(soap);
  if (soap_begin_send(soap) || soap_envelope_begin_out(soap) || soap_putheader(soap) ||
      soap_body_begin_out(soap) || body.soap_put(soap, tag, "") || soap_body_end_out(soap) ||
      soap_envelope_end_out(soap) || soap_end_send(soap))
    return soap->error;
  return SOAP_OK;
}

// Reads an envelope whose body is element `tag` into `body` through soap->frecv.
// What it allocates lives in soap's arena until soap_destroy()/soap_end().
template <class Body>
int read_envelope(struct soap* soap, Body& body, const char* tag) {
  body.soap_default(soap);
  if (soap_begin_recv(soap) || soap_envelope_begin_in(soap) || soap_recv_header(soap) ||
      soap_body_begin_in(soap))
    return soap->error;
  if (!body.soap_get(soap, tag, nullptr)) return soap->error ? soap->error : SOAP_TAG_MISMATCH;
  if (soap_body_end_in(soap) || soap_envelope_end_in(soap) || soap_end_recv(soap)) return soap->error;
  return SOAP_OK;
}

}  // namespace soapbench::bench
