#!/usr/bin/env bash
# soapbench-server says at start, on stderr, which build it is and the limits in
# force; stdout keeps the ready line that scripts parse; --quiet drops the log line.
# Usage: startup_line_test.sh SERVER_BINARY
set -uo pipefail
server=${1:?usage: startup_line_test.sh SERVER_BINARY}
work=$(mktemp -d)
pid=""
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
start() {  # FLAGS...: starts the server, waits for its ready line
  "$server" --port 0 --report-interval 0 "$@" >"$work/out" 2>"$work/err" &
  pid=$!
  for ((i = 0; i < 100; i++)); do grep -q 'listening on' "$work/out" 2>/dev/null && return; sleep 0.05; done
  fail "no ready line: $(cat "$work/out" "$work/err")"
}
stop() { kill -TERM "$pid"; wait "$pid"; rc=$?; pid=""; [[ $rc == 0 ]] || fail "exit $rc after SIGTERM"; }

start --max-connections 77 --public-url http://proxy.test/echo
sleep 0.2
head -n 1 "$work/out" | grep -Eq '^soapbench-server listening on http://127\.0\.0\.1:[0-9]+/echo mode=per-connection threads=1$' ||
  fail "the ready line changed: $(head -n 1 "$work/out")"
line=$(head -n 1 "$work/err")
for want in "soapbench-server 0." "(gSOAP 2.8" "runtime " "per-connection on http://127.0.0.1:" "at most 77 connections" \
            "16 MiB per request" "64 attributes and 64 namespaces" "receive 5 s, send 5 s, idle 60 s" \
            "?wsdl advertises http://proxy.test/echo"; do
  [[ $line == *"$want"* ]] || fail "the start-up line lacks '$want': $line"
done
stop
grep -q "stopped after" "$work/out" || fail "no summary after SIGTERM: $(cat "$work/out")"

start --quiet
stop
[[ ! -s $work/err ]] || fail "--quiet still logged: $(cat "$work/err")"
echo "PASS: the start-up line names the build and the limits; the ready line is unchanged"
