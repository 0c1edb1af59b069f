#!/usr/bin/env bash
# `soapbench export` against the real HdrHistogram libraries: a short run at a
# fixed rate against the embedded server (latency, uncorrected latency, send
# lag), exported as .hlog and .hgrm, then read by the Python `hdrhistogram`
# package (pinned in requirements.txt, in a venv made here) and by Java's
# HistogramLogProcessor (pinned in pom.xml, resolved by Maven offline: the
# first install fetches it, see scripts/install-deps). check_hdr.py compares.
# Usage: hdr_roundtrip_test.sh BIN_DIR WORK_DIR
set -euo pipefail
bin=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$work"
tmp=$(mktemp -d /tmp/soapbench-hdr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=../lib/python_venv.sh
source "$here/../lib/python_venv.sh"
venv=$work/hdr-venv
python_venv "$venv" "$here/requirements.txt"

"$bin/soapbench" run --op echoString,echoStruct --clients 1,2 --rate 400 --duration 1s --warmup 0.2s \
  --interval 0 --out "$tmp/results" --label hdr > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; exit 1; }
results=$(ls "$tmp"/results/*.json)
"$bin/soapbench" export "$results" --hlog "$tmp/run.hlog" --hgrm "$tmp/hgrm"
grep -q '^#\[StartTime: ' "$tmp/run.hlog" || { echo "no #[StartTime] in the .hlog"; exit 1; }
[[ $(grep -c '^Tag=' "$tmp/run.hlog") == 12 ]] || { echo "expected 12 intervals (2 ops x 2 steps x 3 series)"; cat "$tmp/run.hlog"; exit 1; }

# Java: one HistogramLogProcessor per tag, its .hgrm beside soapbench's.
mvn -q -o -B -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$tmp/classpath" > "$tmp/mvn.log" 2>&1 ||
  { cat "$tmp/mvn.log"; echo "the jars of tests/hdr/pom.xml are missing: run scripts/install-deps"; exit 1; }
classpath=$(cat "$tmp/classpath")
mkdir -p "$tmp/java"
for tag in $(sed -n 's/^Tag=\([^,]*\),.*/\1/p' "$tmp/run.hlog"); do
  java -cp "$classpath" org.HdrHistogram.HistogramLogProcessor -i "$tmp/run.hlog" -tag "$tag" \
    -o "$tmp/java/$tag" > /dev/null
done

"$venv/bin/python" "$here/check_hdr.py" "$results" "$tmp/run.hlog" "$tmp/hgrm" "$tmp/java"
