#!/usr/bin/env bash
# soapbench-mpi run --stack: rank 0 starts the peer stack, every rank drives it
# through the one step loop that `soapbench run` uses, and the peer is stopped
# at the end. With STACK=fake (the default) the "peer" is soapbench-server
# behind the peer scripts; with a real stack (ctest label peers) its server
# CPU must come from /proc, since a peer has no /stats.
# Usage: mpi_stack_test.sh BIN_DIR SOURCE_DIR [STACK]
set -uo pipefail
BIN=${1:?usage: mpi_stack_test.sh BIN_DIR SOURCE_DIR [STACK]}
SRC=${2:?usage: mpi_stack_test.sh BIN_DIR SOURCE_DIR [STACK]}
STACK=${3:-fake}
command -v mpirun >/dev/null || { echo "FAIL: mpirun is missing (openmpi-bin)" >&2; exit 1; }
command -v jq >/dev/null || { echo "FAIL: jq is missing" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

peers=$SRC/peers
if [ "$STACK" = fake ]; then
  peers=$WORK/peers
  mkdir -p "$peers/fake"
  ln -s "$SRC/peers/lib" "$peers/lib"
  echo fake >"$peers/stacks.txt"
  ln -s ../lib/start "$peers/fake/start"
  ln -s ../lib/stop "$peers/fake/stop"
  printf '#!/bin/sh\necho "Fake SOAP 1.0"\n' >"$peers/fake/version"
  printf '#!/bin/sh\nexec "%s" --port "$1" --bind "$2" --report-interval 0\n' "$BIN/soapbench-server" >"$peers/fake/serve"
  chmod +x "$peers/fake/version" "$peers/fake/serve"
fi
export SOAPBENCH_PEERS_DIR=$peers SOAPBENCH_PEER_RUN_DIR=$WORK/run
if ! "$peers/$STACK/version" >/dev/null 2>&1; then
  echo "FAIL: stack $STACK is not installed (run peers/$STACK/install)" >&2
  exit 1
fi

mkdir "$WORK/results" "$WORK/tmp"
# Enough calls that the measured phase outlasts the moment rank 0, scheduled
# late on a busy machine, reads the server's CPU (40 calls took 1 ms and missed
# it there); a step that does end first is reported without server CPU.
CALLS=2000
TMPDIR=$WORK/tmp timeout 240 mpirun --allow-run-as-root --oversubscribe -np 2 --mca orte_tmpdir_base "$WORK/tmp" \
  "$BIN/soapbench-mpi" run --stack "$STACK" --op echoString --clients 1,2 --requests "$CALLS" --warmup 0.2s \
  --interval 0 --out "$WORK/results" >"$WORK/out" 2>"$WORK/err"
rc=$?
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
[ "$rc" = 0 ] || fail "soapbench-mpi exited $rc"
json=$(ls "$WORK"/results/*.json 2>/dev/null | head -n 1)
if [ -z "$json" ]; then
  fail "no results file"
else
  version=$("$peers/$STACK/version" 2>/dev/null | head -n 1)
  [ "$(jq -r .context.stack_label "$json")" = "$version" ] || fail "stack_label is not '$version': $(jq -r .context.stack_label "$json")"
  [ "$(jq '.operations[0].steps | length' "$json")" = 2 ] || fail "not two steps"
  for i in 0 1; do
    clients=$(jq ".operations[0].steps[$i].clients" "$json")
    requests=$(jq ".operations[0].steps[$i].requests" "$json")
    [ "$requests" = $((clients * CALLS)) ] || fail "step $i: $requests requests, want $((clients * CALLS))"
    [ "$(jq ".operations[0].steps[$i].server_cpu_pct" "$json")" != null ] || fail "step $i has no server CPU"
    [ "$(jq ".operations[0].steps[$i].failures | add" "$json")" = 0 ] || fail "step $i has failures"
  done
fi
grep -q "starting $STACK" "$WORK/out" || fail "rank 0 did not say it started $STACK"
if [ -n "$("$peers/lib/peerctl" status "$STACK" 2>/dev/null)" ]; then
  fail "$STACK is still running after the run"
  "$peers/lib/peerctl" stop "$STACK"
fi
# Several connections per rank on one event loop: every rank's connections are counted.
if [ "$STACK" = fake ]; then
  mkdir "$WORK/results2"
  TMPDIR=$WORK/tmp timeout 240 mpirun --allow-run-as-root --oversubscribe -np 2 --mca orte_tmpdir_base "$WORK/tmp" \
    "$BIN/soapbench-mpi" run --stack fake --op echoString --clients 2 --connections-per-client 3 --requests 300 \
    --warmup 0.2s --interval 0 --out "$WORK/results2" >"$WORK/out2" 2>"$WORK/err2" || fail "soapbench-mpi with 3 connections per rank exited $?"
  json2=$(ls "$WORK"/results2/*.json 2>/dev/null | head -n 1)
  if [ -z "$json2" ]; then
    fail "no results file with 3 connections per rank"
  else
    [ "$(jq '.operations[0].steps[0].requests' "$json2")" = 1800 ] || fail "not 2 ranks x 3 connections x 300 calls: $(jq '.operations[0].steps[0].requests' "$json2")"
    [ "$(jq '.operations[0].steps[0].connections_per_client' "$json2")" = 3 ] || fail "connections_per_client is not 3"
    [ "$(jq '.operations[0].steps[0].failures | add' "$json2")" = 0 ] || fail "failures with 3 connections per rank"
  fi
  grep -q "server counted 1800\|measured 1800)" "$WORK/out2" || fail "no request count line agreeing with 1800 calls: $(cat "$WORK/out2")"
fi
if [ "$failures" != 0 ]; then
  echo "--- stdout" >&2; cat "$WORK/out" >&2; echo "--- stderr" >&2; cat "$WORK/err" >&2
  exit 1
fi
echo "PASS: soapbench-mpi --stack $STACK: 2 steps, every call counted, server CPU known, the stack stopped"
