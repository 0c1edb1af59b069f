#pragma once
// The namespace table around each served message, called from the generated
// dispatch (generated/patch_service.cmake edits it in). The table itself is the one
// soapcpp2 generates from the WSDL; these only decide when gSOAP copies it and
// what a response declares.
struct soap;

// Before a request's body is read: the context's table as the service's, rebuilt
// (soap_set_namespaces, as the generated dispatch did for every request) only when
// it differs: a wildcard matched (a SOAP 1.2 envelope, an older XML Schema
// namespace) or entries are still blanked by soapbench_output_namespaces (which
// soap_begin_recv's fresh copy normally undoes). Namespaces bound while the table
// was not whole are re-matched against the whole one.
void soapbench_input_namespaces(struct soap* soap);

// Before a response is written: only the envelope's and the service's namespaces
// are declared. Document/literal writes no SOAP-ENC attribute and no xsi:type, so
// SOAP-ENC, xsi and xsd would be five unused declarations instead of two.
void soapbench_output_namespaces(struct soap* soap);
