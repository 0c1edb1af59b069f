#pragma once
// The namespace table around each served message, called from the generated
// dispatch (generated/patch_service.cmake edits it in). The table itself is the one
// soapcpp2 generates from the WSDL; these only decide when gSOAP copies it and
// what a response declares.
struct soap;

// Before a request's body is read, in place of the soap_set_namespaces the
// generated dispatch called for every request: soap_begin_recv has just copied the
// table afresh, so the copy is rebuilt only when it is missing, of another table,
// or still has entries blanked by soapbench_output_namespaces (then the namespaces
// bound meanwhile are matched again against the whole table).
void soapbench_input_namespaces(struct soap* soap);

// Before a response is written: only the envelope's and the service's namespaces
// are declared. Document/literal writes no SOAP-ENC attribute and no xsi:type, so
// SOAP-ENC, xsi and xsd would be five unused declarations instead of two.
void soapbench_output_namespaces(struct soap* soap);
