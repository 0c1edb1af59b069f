#!/usr/bin/env bash
# tls_peers_test.sh SOAPBENCH: the peers that serve https (cxf, node-soap) under
# peerctl start --tls-cert/--tls-key, with tests/tls/make-certs' certificates:
#   - soapbench check --cacert ca.pem: ok for both operations;
#   - a short soapbench run: 0 errors, and each step's results say "tls" with a protocol;
#   - check without --cacert: a 'tls' failure (the test CA is not the system's);
# then a peer without a peers/NAME/tls file refuses --tls-cert. Stops every peer
# it started, whatever happened (its own run dir: nothing of another test's).
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: tls_peers_test.sh SOAPBENCH" >&2; exit 2; }
soapbench=$1
here=$(cd "$(dirname "$0")" && pwd)
peers=$(cd "$here/../../peers" && pwd)
tmp=$(mktemp -d)
export SOAPBENCH_PEER_RUN_DIR=$tmp/run
tls_peers=(cxf node-soap)
cleanup() {
  for name in "${tls_peers[@]}"; do "$peers/lib/peerctl" stop "$name" || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "tls_peers_test: $*" >&2; exit 1; }

"$here/../tls/make-certs" "$tmp/certs"
certs=$tmp/certs

for name in "${tls_peers[@]}"; do
  [[ -f $peers/$name/tls ]] || fail "$name has no tls file"
  # The JVM starts slowly on 2 shared cores: the same 120 s as the other peer tests.
  url=$("$peers/lib/peerctl" start "$name" --timeout 120 \
          --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" | tail -n 1)
  [[ $url == https://127.0.0.1:*/echo ]] || fail "$name: start printed '$url', expected an https URL"

  out=$("$soapbench" check --url "$url" --cacert "$certs/ca.pem" 2>&1) || { echo "$out" >&2; fail "$name: check failed"; }
  for op in echoString echoStruct; do
    grep -Eq "^  $op +ok" <<<"$out" || { echo "$out" >&2; fail "$name: $op is not ok"; }
  done

  mkdir -p "$tmp/out-$name"
  "$soapbench" run --url "$url" --cacert "$certs/ca.pem" --clients 1 --duration 1s --warmup 0.5s \
    --interval 0 --out "$tmp/out-$name" >"$tmp/run-$name.txt" 2>&1 ||
    { cat "$tmp/run-$name.txt" >&2; fail "$name: run failed"; }
  json=$(ls "$tmp/out-$name"/*.json)
  # Per step: calls made, failures of every kind, and the TLS protocol recorded.
  steps=$(jq -c '[.operations[].steps[] | [(.requests > 0), ([.failures[]] | add), (.tls.protocol // "none")]]' "$json")
  jq -e 'length == 2 and all(.[]; .[0] and .[1] == 0 and (.[2] | test("^TLSv1\\.[23]$")))' <<<"$steps" >/dev/null ||
    fail "$name: steps [calls > 0, failures, TLS protocol] = $steps, expected 2 steps [true,0,\"TLSv1.x\"]"

  # Without --cacert the client trusts only the system's CAs: a tls failure, not ok.
  if out=$("$soapbench" check --url "$url" 2>&1); then echo "$out" >&2; fail "$name: check without --cacert passed"; fi
  grep -Eq '^  echoString +tls ' <<<"$out" || { echo "$out" >&2; fail "$name: check without --cacert did not fail with 'tls'"; }

  "$peers/lib/peerctl" stop "$name"
  echo "$name: https ok ($(jq -r '.operations[0].steps[0].tls | "\(.protocol) \(.cipher)"' "$json"))"
done

# A peer without TLS support: refused before anything starts, saying so.
[[ ! -f $peers/spyne/tls ]] || fail "spyne now has a tls file: pick another peer without one"
if out=$("$peers/lib/peerctl" start spyne --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" 2>&1); then
  "$peers/lib/peerctl" stop spyne || true
  fail "spyne started with --tls-cert"
fi
grep -q 'spyne does not serve https' <<<"$out" || fail "spyne's refusal did not say why: $out"
[[ -z $(ls "$SOAPBENCH_PEER_RUN_DIR"/spyne-* 2>/dev/null) ]] || fail "the refusal left files for spyne"
echo "spyne: refuses --tls-cert"
