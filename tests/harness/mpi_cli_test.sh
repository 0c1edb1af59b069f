#!/usr/bin/env bash
# soapbench-mpi's own flag rules, under mpirun on this host (no load is sent:
# each case fails before its first call): the exit code and a message naming
# the flag. The cases run side by side: mpirun takes a second or two to wind
# down a job that exits non-zero.
# Usage: mpi_cli_test.sh BIN_DIR
set -uo pipefail
BIN=${1:?usage: mpi_cli_test.sh BIN_DIR}
command -v mpirun >/dev/null || { echo "FAIL: mpirun is missing (openmpi-bin)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# case NAME CODE TEXT NP ARGS...: soapbench-mpi on NP ranks must exit CODE with TEXT on stderr.
cases=()
case_() {
  local name=$1 code=$2 text=$3 np=$4; shift 4
  cases+=("$name")
  printf '%s\n%s\n%s\n' "$code" "$text" "soapbench-mpi $* on $np ranks" >"$WORK/$name.want"
  # Each mpirun its own session directory: side by side they would race for /tmp/ompi.HOST.UID.
  mkdir "$WORK/$name.tmp"
  (TMPDIR="$WORK/$name.tmp" timeout 30 mpirun --allow-run-as-root --oversubscribe -np "$np" \
     --mca orte_tmpdir_base "$WORK/$name.tmp" "$BIN/soapbench-mpi" "$@" \
     >"$WORK/$name.out" 2>"$WORK/$name.err"
   echo $? >"$WORK/$name.rc") &
}
case_ no_url 2 "--url: required: every host drives the same endpoint" 2 run --clients 1
case_ too_many_clients 2 "--clients: a step of 3 clients needs 3 ranks, and this job has 2" 2 \
  run --url http://127.0.0.1:9/echo --clients 1,3
case_ other_command 2 "only \`run\` runs across hosts" 1 check --url http://127.0.0.1:9/echo
case_ unknown_command 2 "unknown command 'nonsense'" 1 nonsense
# A valid job whose endpoint does not answer (port 9, discard, is closed): the
# probe fails at rank 0, every rank leaves, exit 3 (the target could not be reached).
mkdir "$WORK/results"
case_ unreachable 3 "cannot reach http://127.0.0.1:9/echo" 2 \
  run --url http://127.0.0.1:9/echo --clients 1,2 --out "$WORK/results"
wait

failures=0
# Its help lists only what it accepts: run, and no other command of soapbench.
help=$(timeout 30 mpirun --allow-run-as-root -np 1 "$BIN/soapbench-mpi" --help 2>&1)
if ! grep -qE '^  run +Ramp clients' <<<"$help" || grep -qE '^  (check|compare|plot|tcp-echo|chat|sweep|merge) ' <<<"$help"; then
  echo "FAIL: soapbench-mpi --help must list run and only run:" >&2
  echo "$help" >&2
  failures=$((failures + 1))
fi
for name in "${cases[@]}"; do
  { read -r code; read -r text; read -r what; } <"$WORK/$name.want"
  rc=$(cat "$WORK/$name.rc")
  if [ "$rc" != "$code" ] || ! grep -qF -- "$text" "$WORK/$name.err"; then
    echo "FAIL: $what: exit $rc (want $code and '$text'), stderr:" >&2
    cat "$WORK/$name.err" >&2
    failures=$((failures + 1))
  fi
done
# The results file is written in every case but a usage error: one (with no steps).
if [ "$(ls "$WORK/results" | grep -c '\.json$')" != 1 ]; then
  echo "FAIL: a failed probe must leave one results file in --out" >&2
  failures=$((failures + 1))
fi
[ "$failures" = 0 ] && echo "PASS: ${#cases[@]} cases"
exit "$failures"
