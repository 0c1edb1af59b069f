#!/usr/bin/env bash
# scripts/bench-tls end to end, briefly: one-second runs of each measurement,
# then the printed rows and ratios, and flag errors (exit 2, the flag named). It
# checks what the script reports, not how fast anything is.
# Usage: bench_tls_test.sh SOURCE_DIR BIN_DIR
set -uo pipefail
SRC=${1:?usage: bench_tls_test.sh SOURCE_DIR BIN_DIR}
BIN=${2:?usage: bench_tls_test.sh SOURCE_DIR BIN_DIR}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

expect_flag_error() {  # text args...
  local text=$1 rc; shift
  "$SRC/scripts/bench-tls" --bin "$BIN" "$@" >"$WORK/flag.out" 2>"$WORK/flag.err"
  rc=$?
  [[ $rc == 2 ]] || fail "bench-tls $* exited $rc, not 2"
  grep -qF -- "$text" "$WORK/flag.err" || fail "bench-tls $*: no '$text' in: $(cat "$WORK/flag.err")"
}
expect_flag_error "--mode: 'threaded' is not" --mode threaded
expect_flag_error "--duration: 'soon'" --duration soon
expect_flag_error "unknown flag '--rounds'" --rounds 3
expect_flag_error "--bin: no soapbench and soapbench-server" --bin "$WORK"

"$SRC/scripts/bench-tls" --bin "$BIN" --duration 1s --clients 2 >"$WORK/run.out" 2>"$WORK/run.err"
rc=$?
[[ $rc == 0 ]] || fail "bench-tls exited $rc: $(cat "$WORK/run.err" "$WORK/run.out")"
out=$(cat "$WORK/run.out")
row() {  # label: its two numbers
  sed -n "s/^$1 *\([0-9][0-9]*\) *\([0-9.][0-9.]*\)\$/\1 \2/p" <<<"$out"
}
read -r http_rps http_us <<<"$(row 'soapbench-server http')"
mapfile -t tls_rows < <(sed -n 's/^soapbench-server https *\([0-9][0-9]*\) *\([0-9.][0-9.]*\)$/\1 \2/p' <<<"$out")
read -r ngx_hps ngx_us <<<"$(row 'nginx https (canned answer)')"
[[ ${#tls_rows[@]} == 2 ]] || fail "not two 'soapbench-server https' rows (record layer, handshakes): $out"
read -r tls_rps _ <<<"${tls_rows[0]:-}"
read -r srv_hps _ <<<"${tls_rows[1]:-}"
for v in http_rps http_us ngx_hps ngx_us tls_rps srv_hps; do
  [[ -n ${!v:-} ]] && awk -v x="${!v}" 'BEGIN { exit !(x > 0) }' || fail "$v is '${!v:-}' in: $out"
done
if [[ -n ${tls_rps:-} && -n ${http_rps:-} ]]; then
  want=$(awk -v a="$tls_rps" -v b="$http_rps" 'BEGIN { printf "%.2f", a / b }')
  grep -q "^https / http throughput: $want (" <<<"$out" || fail "no 'https / http throughput: $want' in: $out"
fi
if [[ -n ${srv_hps:-} && -n ${ngx_hps:-} ]]; then
  want=$(awk -v a="$srv_hps" -v b="$ngx_hps" 'BEGIN { printf "%.2f", a / b }')
  grep -q "^full handshakes/s, server / nginx: $want (" <<<"$out" || fail "no 'server / nginx: $want' in: $out"
fi
((failures == 0)) && echo "bench-tls test: passed" || echo "bench-tls test: $failures failure(s)"
exit $((failures > 0))
