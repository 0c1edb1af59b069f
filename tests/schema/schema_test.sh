#!/usr/bin/env bash
# Every command that writes a results file (run, capacity, tcp-echo, sweep, chat, merge and,
# when built, soapbench-mpi) writes one that schemas/results-v2.schema.json
# accepts, checked by a maintained validator (python3-jsonschema), and a file
# that breaks the schema is refused (so that the check can fail).
# Usage: schema_test.sh BIN_DIR SOURCE_DIR
set -euo pipefail
bin=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
schema=$src/schemas/results-v2.schema.json
tmp=$(mktemp -d /tmp/soapbench-schema.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
sb=$bin/soapbench
quick=(--duration 0.5s --warmup 0.1s --interval 0.25s)

run() {  # NAME ARGS...: a command that writes into $tmp/NAME
  local name=$1; shift
  "$@" --out "$tmp/$name" > "$tmp/$name.log" 2>&1 || { echo "FAIL: $name"; cat "$tmp/$name.log"; exit 1; }
}
run run "$sb" run --op echoString --clients 1 --rate 200 "${quick[@]}"
run run2 "$sb" run --op echoString --clients 1 "${quick[@]}"
run capacity "$sb" capacity --slo 'p99<1s' --clients 1 --rate-min 100 --rate-max 200 --duration 0.5s --warmup 0.1s
run tcp "$sb" tcp-echo --clients 1 "${quick[@]}"
run sweep "$sb" sweep --sizes 0,2k --calls 5 --warmup-calls 1 --no-chart
run chat "$sb" chat --rooms 1 --users 2 --messages 5
run run3 "$sb" run --op echoString --clients 1 --rate 200 "${quick[@]}"  # merges with the first
run merge "$sb" merge "$(ls "$tmp"/run/*.json)" "$(ls "$tmp"/run3/*.json)" --label merged
if [[ -x $bin/soapbench-mpi ]] && command -v mpirun >/dev/null; then
  # soapbench-mpi drives a --url: a soapbench-server on a free port, ended with the script.
  "$bin/soapbench-server" --port 0 > "$tmp/server.log" 2>&1 &
  server=$!
  trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 100); do grep -q 'listening on' "$tmp/server.log" && break; sleep 0.1; done
  url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$tmp/server.log" | head -1)
  [[ -n $url ]] || { echo "FAIL: soapbench-server did not start"; cat "$tmp/server.log"; exit 1; }
  (cd "$tmp" && TMPDIR=$tmp timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$bin/soapbench-mpi" run \
    --url "$url" --op echoString --clients 1 "${quick[@]}" --out "$tmp/mpi" > "$tmp/mpi.log" 2>&1) ||
    { echo "FAIL: soapbench-mpi"; cat "$tmp/mpi.log"; exit 1; }
fi
mapfile -t files < <(ls "$tmp"/*/*.json)
echo "validating ${#files[@]} files: ${files[*]##*/}"
/usr/bin/python3 "$src/tests/schema/validate.py" "$schema" "${files[@]}"

# A file the schema must refuse: the check is not vacuous.
/usr/bin/python3 - "${files[0]}" "$tmp/broken.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["operations"][0]["steps"][0]["sent"]
d["operations"][0]["steps"][0]["requests"] = -1
json.dump(d, open(sys.argv[2], "w"))
PY
if /usr/bin/python3 "$src/tests/schema/validate.py" "$schema" "$tmp/broken.json" > "$tmp/broken.log"; then
  echo "FAIL: a file without 'sent' and with requests -1 was accepted"; exit 1
fi
grep -q "'sent' is a required property" "$tmp/broken.log" || { echo "FAIL: unexpected errors:"; cat "$tmp/broken.log"; exit 1; }
echo "ok"
