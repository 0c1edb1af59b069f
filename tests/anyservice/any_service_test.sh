#!/usr/bin/env bash
# Driving a service on another contract, as a user would (issue 16):
#   any_service_test.sh SOAPBENCH SERVER|URL WSDL
# soapbench-inventory-server SERVER (inventory.wsdl: its own namespace, two
# operations, each requiring its SOAPAction) is started on a free port, or the
# service at URL (a peer's, started by the caller) is driven; `soapbench requests`
# reads its ?wsdl and writes a request per operation; each is driven with
# --expect echo (0 failures), with a wrong expectation (every call a mismatch,
# exit 1) and without its SOAPAction (every call the server's fault, exit 1), then
# both as a weighted mix (--mix) from the mix.json it wrote.
# A WSDL wsdl2h cannot read gives wsdl2h's message. Loopback only.
set -euo pipefail
soapbench=$1 server=$2 wsdl=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/any-service.XXXXXX")
pid=""
cleanup() { [[ -n $pid ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if [[ $server == http://* ]]; then
  url=$server  # a service started by the caller (a peer stack: tests/peers/any-service)
else
  # setsid: the server leads its own process group, whose CPU --server-pid reads.
  setsid "$server" 0 >"$tmp/server.out" 2>"$tmp/server.err" &
  pid=$!
  for ((i = 0; i < 100; i++)); do
    [[ $(head -n 1 "$tmp/server.out") =~ listening\ on\ (http://[^ ]+) ]] && break
    kill -0 "$pid" 2>/dev/null || fail "the server did not start: $(cat "$tmp/server.err")"
    sleep 0.05
  done
  url=${BASH_REMATCH[1]}
fi
[[ -n $url ]] || fail "no address from the server"

# Requests from the served WSDL, which names this very address.
"$soapbench" requests "$url?wsdl" --out "$tmp/req" >"$tmp/requests.out" 2>&1 || fail "requests: $(cat "$tmp/requests.out")"
grep -q "2 requests from $url?wsdl" "$tmp/requests.out" || fail "requests said: $(cat "$tmp/requests.out")"
for op in reserve lookup; do
  [[ -s $tmp/req/$op.xml ]] || fail "no $op.xml: $(ls "$tmp/req")"
  grep -q "\"soap_action\": \"urn:soapbench:test:inventory:2#$op\"" "$tmp/req/requests.json" ||
    fail "requests.json lacks $op's SOAPAction: $(cat "$tmp/req/requests.json")"
done
grep -q "\"endpoint\": \"$url\"" "$tmp/req/requests.json" || fail "endpoint: $(cat "$tmp/req/requests.json")"
grep -q "soapbench run --url $url --request-file $tmp/req/reserve.xml --soap-action 'urn:soapbench:test:inventory:2#reserve'" \
  "$tmp/requests.out" || fail "no run command: $(cat "$tmp/requests.out")"

# One step of the newest results file: calls that succeeded, failed calls, mismatches, SOAP faults.
step_counts() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys, glob, os
newest = max(glob.glob(os.path.join(sys.argv[1], "*.json")), key=os.path.getmtime)
step = json.load(open(newest))["operations"][0]["steps"][0]
f = step.get("failures", {})
print(step["requests"], sum(v for v in f.values() if isinstance(v, int)), f.get("mismatch", 0), f.get("soap_fault", 0))
PY
}

for op in reserve lookup; do
  action="urn:soapbench:test:inventory:2#$op"
  common=(run --url "$url" --request-file "$tmp/req/$op.xml" --clients 2 --requests 50 --warmup 0 --interval 0)
  "$soapbench" "${common[@]}" --soap-action "$action" --expect echo --out "$tmp/good-$op" >"$tmp/good.out" 2>&1 ||
    fail "$op with --expect echo: $(cat "$tmp/good.out")"
  read -r calls failed _ _ < <(step_counts "$tmp/good-$op")
  [[ $calls == 100 && $failed == 0 ]] || fail "$op: $calls passed, $failed failed (want 100, 0)"
  if [[ -n $pid ]]; then
    # A service without /stats: --server-pid makes its process group's CPU the step's server CPU.
    "$soapbench" run --url "$url" --request-file "$tmp/req/$op.xml" --clients 2 --duration 1s --warmup 0 --interval 0 \
      --soap-action "$action" --server-pid "$pid" --out "$tmp/cpu-$op" >"$tmp/cpu.out" 2>&1 ||
      fail "$op with --server-pid: $(cat "$tmp/cpu.out")"
    /usr/bin/python3 - "$tmp/cpu-$op" <<'PY' || fail "$op: no server CPU with --server-pid $pid"
import json, sys, glob
step = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["operations"][0]["steps"][0]
sys.exit(0 if (step["server_cpu_pct"] or 0) > 0 else 1)
PY
  fi

  set +e
  "$soapbench" "${common[@]}" --soap-action "$action" --expect echo \
    --expect "xpath:count(//*[local-name()='nosuch'])=1" --out "$tmp/wrong-$op" >"$tmp/wrong.out" 2>&1
  code=$?
  set -e
  [[ $code == 1 ]] || fail "$op with a wrong expectation exited $code: $(cat "$tmp/wrong.out")"
  read -r calls failed mismatch _ < <(step_counts "$tmp/wrong-$op")
  [[ $calls == 0 && $failed == 100 && $mismatch == 100 ]] || fail "$op wrong: $calls passed, $failed failed, $mismatch mismatches"

  set +e
  "$soapbench" "${common[@]}" --out "$tmp/noaction-$op" >"$tmp/noaction.out" 2>&1
  code=$?
  set -e
  [[ $code == 1 ]] || fail "$op without its SOAPAction exited $code"
  read -r calls failed _ faults < <(step_counts "$tmp/noaction-$op")
  [[ $calls == 0 && $failed == 100 && $faults == 100 ]] || fail "$op without SOAPAction: $calls passed, $failed failed, $faults faults"
  grep -q "SOAPAction 'urn:soapbench:test:inventory:2#$op' required" "$tmp/noaction.out" ||
    fail "the fault's text is not shown: $(cat "$tmp/noaction.out")"
done

# A weighted mix of both, from the mix.json soapbench requests wrote: reserve 3, lookup 1,
# each checked as an echo. Each client's 100 calls follow the weights exactly.
grep -q "soapbench run --url $url --mix $tmp/req/mix.json" "$tmp/requests.out" || fail "no mix command"
mix_with() {  # LOOKUP_EXPECT FILE: the mix with lookup's expectation replaced
  /usr/bin/python3 - "$tmp/req/mix.json" "$1" "$2" <<'PY'
import json, sys
mix = json.load(open(sys.argv[1]))
for call in mix["calls"]:
    call["weight"] = 3 if call["name"] == "reserve" else 1
    call["expect"] = [sys.argv[2]] if call["name"] == "lookup" else ["echo"]
json.dump(mix, open(sys.argv[3], "w"))
PY
}
operation_counts() {  # each operation of the newest results file: name passed failed mismatches
  /usr/bin/python3 - "$1" <<'PY'
import json, sys, glob, os
newest = max(glob.glob(os.path.join(sys.argv[1], "*.json")), key=os.path.getmtime)
for op in json.load(open(newest))["operations"]:
    step = op["steps"][0]
    f = step["failures"]
    print(op["operation"], step["requests"], sum(v for v in f.values() if isinstance(v, int)), f["mismatch"])
PY
}
run_mix() {  # NAME EXIT COUNTS: run req/NAME.json, want exit EXIT and these operation counts
  set +e
  "$soapbench" run --url "$url" --mix "$tmp/req/$1.json" --clients 2 --requests 100 --warmup 0 --interval 0 \
    --out "$tmp/$1" >"$tmp/mix.out" 2>&1
  local code=$?
  set -e
  [[ $code == "$2" ]] || fail "mix $1 exited $code (want $2): $(cat "$tmp/mix.out")"
  [[ $(operation_counts "$tmp/$1" | tr '\n' ';') == "$3" ]] || fail "mix $1 counts: $(operation_counts "$tmp/$1")"
}
mix_with echo "$tmp/req/mix-good.json"
run_mix mix-good 0 "mix 200 0 0;lookup 50 0 0;reserve 150 0 0;"
mix_with "xpath:count(//*[local-name()='nosuch'])=1" "$tmp/req/mix-wrong.json"
run_mix mix-wrong 1 "mix 150 50 50;lookup 0 50 50;reserve 150 0 0;"
# A wrong expectation on both entries: every call of the mix a mismatch.
/usr/bin/python3 - "$tmp/req/mix-good.json" "$tmp/req/mix-none.json" <<'PY'
import json, sys
mix = json.load(open(sys.argv[1]))
for call in mix["calls"]:
    call["expect"] = ["contains:<NoSuchElement"]
json.dump(mix, open(sys.argv[2], "w"))
PY
run_mix mix-none 1 "mix 0 200 200;lookup 0 50 50;reserve 0 150 150;"
for bad in "--request-file $tmp/req/lookup.xml" "--soap-action urn:x" "--client gsoap"; do
  set +e
  # shellcheck disable=SC2086  # the flag and its value, split on purpose
  "$soapbench" run --url "$url" --mix "$tmp/req/mix-good.json" $bad --requests 1 >"$tmp/bad.out" 2>&1
  code=$?
  set -e
  [[ $code == 2 ]] || fail "--mix with $bad exited $code: $(cat "$tmp/bad.out")"
done
grep -q -- "--mix: the gsoap client is a proxy" "$tmp/bad.out" || fail "gsoap: $(cat "$tmp/bad.out")"

# rpc/encoded: the sample has the encoding and the operation's wrapper, its part filled.
"$soapbench" requests "$(dirname "$wsdl")/quote-rpc.wsdl" --out "$tmp/rpc" >"$tmp/rpc.out" 2>&1 || fail "rpc: $(cat "$tmp/rpc.out")"
grep -q "^1 request from .*quote-rpc.wsdl in $tmp/rpc (endpoint http://127.0.0.1:8082/quote)$" "$tmp/rpc.out" || fail "$(cat "$tmp/rpc.out")"
grep -q "getQuote  *rpc  *1 values filled, SOAPAction urn:soapbench:test:quote#getQuote" "$tmp/rpc.out" || fail "$(cat "$tmp/rpc.out")"
grep -q 'SOAP-ENV:Body SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"' "$tmp/rpc/getQuote.xml" &&
  grep -q '<symbol>0123456789012345</symbol>' "$tmp/rpc/getQuote.xml" || fail "rpc sample: $(cat "$tmp/rpc/getQuote.xml")"

# No soapAction in the WSDL (as in CXF's performance sample): SOAPAction "", not
# the WS-Addressing action wsdl2h makes up (NS/PortType/op), which CXF refuses.
"$soapbench" requests "$(dirname "$wsdl")/no-action.wsdl" --out "$tmp/noact" >"$tmp/noact.out" 2>&1 || fail "no-action: $(cat "$tmp/noact.out")"
grep -q '^  echoDoc  *document 1 values filled, SOAPAction "" (none in the WSDL)$' "$tmp/noact.out" || fail "$(cat "$tmp/noact.out")"
grep -q '"soap_action": ""' "$tmp/noact/requests.json" || fail "no-action: $(cat "$tmp/noact/requests.json")"
! grep -q "soap-action\|DocPortType" "$tmp/noact.out" "$tmp/noact/mix.json" || fail "a made-up action: $(cat "$tmp/noact.out" "$tmp/noact/mix.json")"

# A file that is no WSDL: wsdl2h's own words, exit 1.
echo "<definitions><oops" >"$tmp/broken.wsdl"
set +e
"$soapbench" requests "$tmp/broken.wsdl" --out "$tmp/broken" >"$tmp/broken.out" 2>&1
code=$?
set -e
[[ $code == 1 ]] || fail "a broken WSDL exited $code"
grep -q "wsdl2h could not read '$tmp/broken.wsdl'" "$tmp/broken.out" || fail "broken: $(cat "$tmp/broken.out")"
echo "any service ok: $url, reserve and lookup, alone and as a 3:1 mix"
