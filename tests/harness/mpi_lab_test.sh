#!/usr/bin/env bash
# soapbench-mpi across a simulated lab network, as on real load hosts:
#   a namespace holding a bridge (the switch); one namespace per host with a
#   veth into it: head (runs mpirun), srv (soapbench-server), h1 and h2 (two
#   client ranks each, in their own UTS namespace so that each has its own
#   hostname). mpirun reaches the hosts through an rsh agent that does
#   `ip netns exec HOST` where a real lab would use ssh.
# A two-step ramp (1 then 3 clients) without warm-up; then the server's /stats
# must have counted exactly the results file's calls plus the probe, and the
# per-host breakdown must show the clients spread over both hosts. Then a run
# stopped early with SIGUSR1 must keep its partial step, counted as exactly.
# Traffic stays in the namespaces made here: a blackhole route for the lab
# subnet is added in the root namespace first, nothing runs there against a
# lab address, and everything is removed on exit, failed or not.
# Usage: mpi_lab_test.sh BIN_DIR
set -euo pipefail

BIN=${1:?usage: mpi_lab_test.sh BIN_DIR}
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "needs root to create network namespaces (ip netns)"
for tool in ip unshare mpirun jq curl; do
  command -v "$tool" >/dev/null || fail "'$tool' is missing (see scripts/packages.txt)"
done
for program in soapbench-mpi soapbench-server; do
  [ -x "$BIN/$program" ] || fail "$BIN/$program is missing: build it first"
done

ID=sbm$$                       # namespace and host names: unique to this test run
NAMESPACES=()
NET=""                         # the lab subnet's first three octets, once claimed
WORK=$(mktemp -d)
cleanup() {
  local rc=$?
  trap - EXIT INT TERM ERR
  set +e  # remove everything, whatever fails
  for ns in "${NAMESPACES[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  [ -n "$NET" ] && ip route del blackhole "$NET.0/24" 2>/dev/null
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Any other failing step (e.g. the kernel refuses a bridge or a veth) names itself.
trap 'echo "FAIL: line $LINENO: $BASH_COMMAND" >&2' ERR

# Claim a 10.250.N.0/24 that nothing here uses: adding the blackhole route
# fails when a route for it exists, so two tests never share a subnet.
start=$(( $$ % 200 + 20 ))
for n in $(seq "$start" 254) $(seq 20 "$start"); do
  ip -4 addr show | grep -q "inet 10\.250\.$n\." && continue
  if ip route add blackhole "10.250.$n.0/24" 2>/dev/null; then NET=10.250.$n; break; fi
done
[ -n "$NET" ] || fail "no free 10.250.N.0/24 subnet for the lab"

netns() { ip netns exec "$ID-$1" "${@:2}"; }
exec_ns() { exec ip netns exec "$ID-$1" "${@:2}"; }  # in a subshell: $! is then the command's pid
make_ns() { ip netns add "$ID-$1"; NAMESPACES+=("$ID-$1"); netns "$1" ip link set lo up; }

make_ns sw
netns sw ip link add br0 type bridge
netns sw ip link set br0 up
i=1
for host in head srv h1 h2; do
  make_ns "$host"
  ip link add "v$ID$i" netns "$ID-$host" type veth peer name "p$i" netns "$ID-sw"
  netns sw ip link set "p$i" master br0 up
  netns "$host" ip link set "v$ID$i" name eth0
  netns "$host" ip addr add "$NET.$i/24" dev eth0
  netns "$host" ip link set eth0 up
  i=$((i + 1))
done
SERVER=$NET.2

# The server's namespace is new, so its port is free.
netns srv "$BIN/soapbench-server" --bind "$SERVER" --port 8080 --report-interval 0 --quiet \
  >"$WORK/server.log" 2>&1 &
stats() { netns head curl -sf --max-time 2 "http://$SERVER:8080/stats"; }
for _ in $(seq 50); do stats >/dev/null 2>&1 && break; sleep 0.1; done
before=$(stats | jq .requests.total) || fail "soapbench-server did not answer /stats: $(cat "$WORK/server.log")"

cat >"$WORK/agent" <<'AGENT'
#!/bin/sh
# mpirun's rsh agent for the lab: runs the command line in HOST's namespace
# with HOST as its hostname, as ssh HOST would on a real host.
host=$1; shift
exec ip netns exec "$host" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
AGENT
chmod +x "$WORK/agent"
printf '%s slots=2\n%s slots=2\n' "$ID-h1" "$ID-h2" >"$WORK/hosts"

# mpi_run OUT ARGS...: soapbench-mpi on 4 ranks over h1 and h2, output to OUT,
# in the background (so that a signal to this script cleans up at once);
# sets RUN to its `timeout`, whose child is mpirun.
mpi_run() {
  local out=$1; shift
  # Its own session directory, so that no other mpirun on this machine races for /tmp/ompi.*.
  (exec_ns head env TMPDIR="$WORK" timeout 60 mpirun --allow-run-as-root --oversubscribe -np 4 \
    --hostfile "$WORK/hosts" --mca orte_tmpdir_base "$WORK" \
    --mca plm_rsh_agent "$WORK/agent" --mca oob_tcp_if_include "$NET.0/24" \
    --mca btl_tcp_if_include "$NET.0/24" --mca btl tcp,vader,self \
    "$BIN/soapbench-mpi" run --url "http://$SERVER:8080/echo" --op echoString "$@" >"$out" 2>&1) &
  RUN=$!
}

mpi_run "$WORK/out.txt" --clients 1,3 --duration 1s --warmup 0 --interval 500ms --label lab --out "$WORK/results"
rc=0
wait "$RUN" || rc=$?
cat "$WORK/out.txt"
[ "$rc" = 0 ] || fail "mpirun exited $rc"
after=$(stats | jq .requests.total) || fail "soapbench-server stopped answering /stats"

files=("$WORK"/results/*.json)
[ "${#files[@]}" = 1 ] && [ -f "${files[0]}" ] || fail "expected one results file in $WORK/results"
result=${files[0]}
jq -e '.partial == false' "$result" >/dev/null || fail "the run is marked partial"
jq -e '[.operations[0].steps[].clients] == [1, 3]' "$result" >/dev/null || fail "steps are not 1 then 3 clients"
failed=$(jq '[.operations[].steps[].failures[]] | add' "$result")
[ "$failed" = 0 ] || fail "$failed calls failed"

# The server counted the probe's one call plus every measured call (no warm-up).
measured=$(jq '[.operations[].steps[].requests] | add' "$result")
[ "$measured" -gt 0 ] || fail "no measured calls"
counted=$((after - before))
[ "$counted" = $((measured + 1)) ] ||
  fail "the server counted $counted requests; the results file has $measured measured calls + 1 probe"

# Per-host breakdown: 1 client on h1, then 2 on h1 and 1 on h2 (round robin).
hosts=$(jq -c '[.operations[0].steps[] | [.hosts[] | [.host, .clients]]]' "$result")
expected="[[[\"$ID-h1\",1]],[[\"$ID-h1\",2],[\"$ID-h2\",1]]]"
[ "$hosts" = "$expected" ] || fail "per-host breakdown $hosts, expected $expected"
jq -e 'all(.operations[0].steps[]; .requests == ([.hosts[].requests] | add))' "$result" >/dev/null ||
  fail "the hosts' requests do not add up to their step's"
jq -e 'all(.operations[0].steps[].hosts[]; .throughput > 0 and .client_cpu_pct > 0 and .cores > 0)' \
  "$result" >/dev/null || fail "a host has no throughput, CPU or cores"
jq -e '.context.options.mpi.ranks == 4' "$result" >/dev/null || fail "the record does not say 4 ranks"

grep -q "^per host:" "$WORK/out.txt" || fail "no per-host table in the output"
grep -q "$ID-h2" "$WORK/out.txt" || fail "the output does not name $ID-h2"
grep -q "echoString x3" "$WORK/out.txt" || fail "no live line for the 3-client step"
last=$(jq '.operations[0].steps[1].requests' "$result")
grep -qF "server counted $last requests in the step; clients made $last (warm-up 0 + measured $last)" \
  "$WORK/out.txt" || fail "no request count line agreeing with the 3-client step's $last calls"

# Stopping early: SIGUSR1 to mpirun reaches every rank; the clients stop, the
# step is kept, marked partial, and the ramp ends (exit 128 + 10).
before=$(stats | jq .requests.total)
mpi_run "$WORK/stop.txt" --clients 2,4 --duration 20s --warmup 0 --interval 300ms --out "$WORK/stopped"
for _ in $(seq 150); do grep -q "echoString x2" "$WORK/stop.txt" && break; sleep 0.1; done
grep -q "echoString x2" "$WORK/stop.txt" || fail "no live line within 15 s: $(cat "$WORK/stop.txt")"
mpirun_pid=$(pgrep -P "$RUN" -x mpirun) || fail "mpirun is not running"
kill -USR1 "$mpirun_pid"
rc=0
wait "$RUN" || rc=$?
cat "$WORK/stop.txt"
[ "$rc" = 138 ] || fail "the stopped run exited $rc, expected 138 (128 + SIGUSR1)"
stopped=("$WORK"/stopped/*.json)
[ -f "${stopped[0]}" ] || fail "the stopped run wrote no results file"
jq -e '.partial == true and [.operations[0].steps[].clients] == [2]' "${stopped[0]}" >/dev/null ||
  fail "expected one partial step of 2 clients"
jq -e '.operations[0].steps[0] | .duration_s < 15 and
       any(.warnings[]; . == "interrupted: the step'"'"'s numbers are partial")' "${stopped[0]}" >/dev/null ||
  fail "the stopped step is not marked interrupted"
stop_measured=$(jq '.operations[0].steps[0].requests' "${stopped[0]}")
stop_counted=$(( $(stats | jq .requests.total) - before ))
[ "$stop_counted" = $((stop_measured + 1)) ] ||
  fail "after the stop the server counted $stop_counted requests; the results file has $stop_measured + 1 probe"

echo "PASS: server counted $counted = $measured measured + 1 probe; hosts $hosts;" \
  "stopped run: $stop_counted = $stop_measured + 1"
