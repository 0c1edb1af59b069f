// See soapbench/namespaces.h. gSOAP matches a request's namespaces, and writes a
// response's declarations, from soap->local_namespaces, a malloc'd copy of the
// table with one `out` slot per entry (the URI a wildcard matched). The generated
// dispatch rebuilt that copy for every request, and every response declared every
// entry; measured by scripts/bench-instructions, the two cost about 24,000
// instructions of a 212,000-instruction echoString.
#include "soapbench/namespaces.h"

#include <cstring>

#include "stdsoap2.h"

namespace {
// An entry whose URI is this empty string is not declared (stdsoap2.cpp's
// soap_element skips an empty URI); it is the only value this file writes, so
// soapbench_input_namespaces knows what to put back.
const char kNotDeclared[] = "";

bool envelope_only(const char* id) {
  return !std::strcmp(id, "SOAP-ENC") || !std::strcmp(id, "xsi") || !std::strcmp(id, "xsd");
}
}  // namespace

void soapbench_input_namespaces(struct soap* soap) {
  const Namespace* table = soap->namespaces;
  Namespace* local = soap->local_namespaces;
  if (!table) return;
  // soap_begin_recv has just made local a fresh copy of table; reading the envelope
  // then only filled `out` slots (a wildcard's match, soap_version's SOAP-ENC), which
  // the rebuild the generated dispatch did would match again to the same URIs. So
  // only a copy that is missing, of another table, or still blanked is rebuilt.
  bool rebuild = !local, restored = false;
  for (int i = 0; !rebuild && table[i].id; ++i) {
    if (!local[i].id || std::strcmp(local[i].id, table[i].id)) rebuild = true;
    else if (local[i].ns == kNotDeclared) local[i].ns = table[i].ns, restored = true;
  }
  // A namespace bound while entries were blanked matched none of them (index -1):
  // rebuilding re-matches every binding on the stack against the whole table.
  for (const soap_nlist* np = soap->nlist; restored && !rebuild && np; np = np->next)
    if (np->index < 0) rebuild = true;
  if (rebuild) soap_set_namespaces(soap, table);
}

void soapbench_output_namespaces(struct soap* soap) {
  Namespace* local = soap->local_namespaces;
  if (!local) return;
  for (; local->id; ++local)
    if (envelope_only(local->id)) {
      // A declaration's URI is `out` when set (soap_version sets SOAP-ENC's, a
      // wildcard match the matched URI): both go. gSOAP frees `out` with free().
      if (local->out) SOAP_FREE(soap, local->out);
      local->out = nullptr;
      local->ns = kNotDeclared;
    }
}
