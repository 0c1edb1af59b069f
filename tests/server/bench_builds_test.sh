#!/usr/bin/env bash
# scripts/bench-builds: flag errors exit 2 naming the flag; one round of 1 s
# runs of the same tree under two names prints, per operation, a row per build
# with the first build at 1.00 and the other's ratio to it. Needs wrk and nginx.
set -uo pipefail
SRC=$1 BIN=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# A tree as bench-builds wants it (TREE/scripts, TREE/build/bin) around this
# build, wherever its binary folder is (build-sanitize in CI).
mkdir -p "$WORK/tree/build"
for entry in "$SRC"/*; do [[ $(basename "$entry") == build* ]] || ln -s "$entry" "$WORK/tree/"; done
ln -s "$BIN" "$WORK/tree/build/bin"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_flag_error() {  # message args...
  local want=$1; shift
  "$SRC/scripts/bench-builds" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  [[ $rc == 2 ]] || fail "bench-builds $* exited $rc, not 2"
  grep -qF -- "$want" "$WORK/err" || fail "bench-builds $*: no '$want' in: $(cat "$WORK/err")"
}
expect_flag_error "give at least one NAME=TREE"
expect_flag_error "unknown flag '--runs'" --runs 3 a="$WORK/tree"
expect_flag_error "no scripts/bench-server and build/bin/soapbench-server in '$WORK'" a="$WORK"
expect_flag_error "--rounds: '0' is not a count" --rounds 0 a="$WORK/tree"

"$SRC/scripts/bench-builds" --rounds 1 --duration 1s --out "$WORK/run" one="$WORK/tree" two="$WORK/tree" >"$WORK/out" 2>&1 ||
  fail "bench-builds exited $?: $(cat "$WORK/out")"
for op in echoString echoStruct; do
  grep -qE "^$op +loops +one +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\.00$" "$WORK/run/summary.txt" || fail "no first row for $op: $(cat "$WORK/run/summary.txt")"
  grep -qE "^$op +loops +two +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]\.[0-9]{2}$" "$WORK/run/summary.txt" || fail "no second row for $op"
done
[[ -s $WORK/run/one-1.csv && -s $WORK/run/two-1.csv ]] || fail "the runs' CSV files are missing: $(ls "$WORK/run")"
echo "bench-builds ok"
