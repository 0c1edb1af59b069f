#!/usr/bin/env bash
# `soapbench run --junit` read back by junitparser (pinned in requirements.txt,
# in a venv made here), the parser CI report actions use: a run whose criterion
# fails on every step, one that passes, and one whose target is unreachable.
# Usage: junit_consumer_test.sh BIN_DIR WORK_DIR
set -euo pipefail
bin=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
tmp=$(mktemp -d /tmp/soapbench-junit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../lib/python_venv.sh
source "$here/../lib/python_venv.sh"
venv=$work/junit-venv
python_venv "$venv" "$here/requirements.txt"

sb=$bin/soapbench
quick=(--requests 20 --warmup 0 --interval 0 --out "$tmp/results")
status=0
"$sb" run --op echoString,echoStruct --clients 1,2 "${quick[@]}" --assert 'p99<1us' --junit "$tmp/failed.xml" \
  > "$tmp/failed.log" 2>&1 || status=$?
[[ $status == 1 ]] || { echo "FAIL: the failing run exited $status, not 1"; cat "$tmp/failed.log"; exit 1; }
"$sb" run --op echoString --clients 1 "${quick[@]}" --junit "$tmp/passed.xml" > "$tmp/passed.log" 2>&1 ||
  { echo "FAIL: the passing run failed"; cat "$tmp/passed.log"; exit 1; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
status=0
"$sb" run --url "http://127.0.0.1:$port/echo" --clients 1 "${quick[@]}" --junit "$tmp/unreachable.xml" \
  > "$tmp/unreachable.log" 2>&1 || status=$?
[[ $status == 3 ]] || { echo "FAIL: the unreachable run exited $status, not 3"; cat "$tmp/unreachable.log"; exit 1; }
"$venv/bin/python" "$here/check_junit.py" "$tmp/failed.xml" "$tmp/passed.xml" "$tmp/unreachable.xml"
