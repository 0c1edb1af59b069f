#!/usr/bin/env bash
# scripts/bench-server end to end, briefly: one-second wrk runs of echoString at
# one connection against two soapbench-server modes, the textbook gSOAP server
# and nginx; then the CSV's rows and the printed lines, and flag errors (exit 2,
# the flag named). It checks what the script reports, not how fast anything is.
# Usage: bench_server_test.sh SOURCE_DIR BIN_DIR
set -uo pipefail
SRC=${1:?usage: bench_server_test.sh SOURCE_DIR BIN_DIR}
BIN=${2:?usage: bench_server_test.sh SOURCE_DIR BIN_DIR}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# ---- flag errors: exit 2 and the flag named, before anything starts --------
expect_flag_error() {  # text args...
  local text=$1 rc; shift
  "$SRC/scripts/bench-server" --bin "$BIN" "$@" >"$WORK/flag.out" 2>"$WORK/flag.err"
  rc=$?
  [[ $rc == 2 ]] || fail "bench-server $* exited $rc, not 2"
  grep -qF -- "$text" "$WORK/flag.err" || fail "bench-server $*: no '$text' in: $(cat "$WORK/flag.err")"
}
expect_flag_error "--modes: 'threaded' is not one of" --modes loops,threaded
expect_flag_error "--connections: 'ten'" --connections ten
expect_flag_error "unknown flag '--rounds'" --rounds 3
expect_flag_error "--bin: no executable soapbench-server" --bin "$WORK"

# ---- a short run -------------------------------------------------------------
csv=$WORK/bench.csv
"$SRC/scripts/bench-server" --bin "$BIN" --duration 1s --ops echoString --connections 1 \
  --modes loops,per-connection,textbook --out "$csv" >"$WORK/run.out" 2>"$WORK/run.err"
rc=$?
[[ $rc == 0 ]] || fail "bench-server exited $rc: $(cat "$WORK/run.err" "$WORK/run.out")"

# Three rows, one per server, each against the same nginx figure, no errors.
header=$(head -1 "$csv" 2>/dev/null)
[[ $header == op,connections,wrk_threads,mode,* ]] || fail "CSV header: '$header'"
mapfile -t rows < <(tail -n +2 "$csv" 2>/dev/null)
[[ ${#rows[@]} == 3 ]] || fail "CSV has ${#rows[@]} rows, not 3: ${rows[*]}"
nginx_rps=""
for i in "${!rows[@]}"; do
  IFS=, read -r op conns _ mode _ _ bytes server_rps n_rps ratio _ _ _ _ s_errs n_errs _ <<<"${rows[$i]}"
  want_mode=$(echo loops per-connection textbook | cut -d' ' -f$((i + 1)))
  [[ $op == echoString && $conns == 1 && $mode == "$want_mode" ]] || fail "row $i: '${rows[$i]}'"
  ((bytes > 1000)) || fail "row $i: response of $bytes bytes; echoString's is over 1 KB"
  ((server_rps > 0 && n_rps > 0)) || fail "row $i: req/s server '$server_rps' nginx '$n_rps'"
  [[ -z $nginx_rps || $nginx_rps == "$n_rps" ]] || fail "row $i: nginx $n_rps, the first row had $nginx_rps"
  nginx_rps=$n_rps
  want_ratio=$(awk -v s="$server_rps" -v n="$n_rps" 'BEGIN { printf "%.3f", s / n }')
  [[ $ratio == "$want_ratio" ]] || fail "row $i: ratio $ratio, $server_rps / $n_rps is $want_ratio"
  [[ -z $s_errs && -z $n_errs ]] || fail "row $i: wrk errors '$s_errs' / '$n_errs'"
done

out=$(cat "$WORK/run.out")
for mode in loops per-connection textbook; do
  grep -qE "^echoString +1 $mode +[0-9]+ +$nginx_rps " <<<"$out" || fail "no table line for $mode in: $out"
done
# Only soapbench-server's modes are checked against the target, and only at 10 connections.
grep -qF "echoString: no run at 10 connections, no target check" <<<"$out" || fail "target line: $out"
grep -qE "^gSOAP's own CPU per echoString exchange, in memory .*: [0-9]+\.[0-9] us$" <<<"$out" ||
  fail "no in-memory gSOAP line in: $out"
# The HTTP layer apart: server CPU per request less the XML work the server timed
# in itself under the load (--time-layers, column 23), over nginx's. The textbook
# server times nothing: its three columns stay empty.
for i in "${!rows[@]}"; do
  IFS=, read -r -a f <<<"${rows[$i]}"
  if [[ ${f[3]} == textbook ]]; then
    [[ -z ${f[20]:-} && -z ${f[21]:-} && -z ${f[22]:-} ]] || fail "row $i: the textbook server has no timed layers: '${rows[$i]}'"
    continue
  fi
  awk -v x="${f[22]}" -v s="${f[10]}" 'BEGIN { exit !(x > 0 && x < s) }' ||
    fail "row $i: XML work in the server '${f[22]}' us, not between 0 and its CPU ${f[10]} us"
  want=$(awk -v s="${f[10]}" -v m="${f[22]}" 'BEGIN { printf "%.1f", s - m }')
  [[ ${f[20]} == "$want" ]] || fail "row $i: HTTP layer '${f[20]}', ${f[10]} - ${f[22]} is $want"
  want=$(awk -v h="${f[20]}" -v n="${f[11]}" 'BEGIN { printf "%.2f", (n > 0 ? h / n : 0) }')
  [[ ${f[21]} == "$want" ]] || fail "row $i: HTTP layer over nginx '${f[21]}', not $want"
done
grep -qE "^gSOAP runtime: (source|system) " <<<"$out" || fail "no gSOAP runtime line in: $out"
grep -qF "wrk errors: none" <<<"$out" || fail "wrk errors line: $out"
# Every server it started is gone (only this test starts the textbook server).
left=$(pgrep -f "^$BIN/soapbench-textbook-server" || true)
[[ -z $left ]] || fail "soapbench-textbook-server still running: pid $left"

((failures == 0)) && echo "bench-server: all checks passed"
exit $((failures > 0))
