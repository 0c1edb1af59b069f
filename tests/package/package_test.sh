#!/usr/bin/env bash
# The Debian package (issue 16): scripts/package builds it from this build tree;
# it holds the programs, the systemd unit and its flags file; extracted with
# dpkg-deb -x into a temporary folder, its server runs and serves a checked
# echo, its soapbench says where the peers are missing, and the unit passes
# systemd-analyze verify (where systemd is installed). Loopback only.
set -euo pipefail
source_dir=$1 build_dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/package-test.XXXXXX")
pid=""
cleanup() { [[ -n $pid ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

deb=$("$source_dir/scripts/package" --build "$build_dir" --out "$tmp") || fail "scripts/package failed"
[[ -f $deb && $(basename "$deb") =~ ^soapbench_[0-9.]+_[a-z0-9]+\.deb$ ]] || fail "no package: '$deb'"

dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/contents"
for f in ./usr/bin/soapbench ./usr/bin/soapbench-server ./usr/lib/systemd/system/soapbench-server.service \
         ./etc/default/soapbench-server ./usr/share/soapbench/wsdl/echo.wsdl ./usr/share/doc/soapbench/README.md; do
  grep -qx -- "$f" "$tmp/contents" || fail "$f is not in the package: $(cat "$tmp/contents")"
done
dpkg-deb -I "$deb" >"$tmp/info"
grep -q "^ Depends: .*libcurl4" "$tmp/info" || fail "no Depends from the binaries: $(cat "$tmp/info")"
dpkg-deb -e "$deb" "$tmp/control"
grep -qx /etc/default/soapbench-server "$tmp/control/conffiles" || fail "the flags file is no conffile"

dpkg-deb -x "$deb" "$tmp/root"
unit=$tmp/root/usr/lib/systemd/system/soapbench-server.service
grep -q '^ExecStart=/usr/bin/soapbench-server $SOAPBENCH_SERVER_OPTS$' "$unit" || fail "ExecStart: $(grep ExecStart "$unit")"
grep -q '^EnvironmentFile=-/etc/default/soapbench-server$' "$unit" || fail "no EnvironmentFile"
for key in DynamicUser=yes Restart=on-failure LimitNOFILE=16384; do grep -qx "$key" "$unit" || fail "no $key in the unit"; done
grep -q '^SOAPBENCH_SERVER_OPTS=".*--port 8080' "$tmp/root/etc/default/soapbench-server" || fail "flags file"

# The server and the driver from the extracted package, on a free loopback port.
"$tmp/root/usr/bin/soapbench-server" --port 0 --quiet >"$tmp/server.out" 2>"$tmp/server.err" &
pid=$!
url=""
for ((i = 0; i < 100; i++)); do
  [[ $(head -n 1 "$tmp/server.out") =~ listening\ on\ (http://[^ ]+) ]] && { url=${BASH_REMATCH[1]}; break; }
  kill -0 "$pid" 2>/dev/null || fail "the packaged server did not start: $(cat "$tmp/server.err")"
  sleep 0.05
done
[[ -n $url ]] || fail "no address from the packaged server"
"$tmp/root/usr/bin/soapbench" check --url "$url" >"$tmp/check.out" 2>&1 || fail "check: $(cat "$tmp/check.out")"
grep -q "echoString.*ok" "$tmp/check.out" || fail "check said: $(cat "$tmp/check.out")"

set +e
SOAPBENCH_PEERS_DIR=$tmp/nowhere "$tmp/root/usr/bin/soapbench" stacks >"$tmp/stacks.out" 2>&1
code=$?
set -e
[[ $code == 1 ]] || fail "stacks without peers exited $code"
grep -q "the peer stacks live in the peers/ folder of a soapbench source tree" "$tmp/stacks.out" || fail "$(cat "$tmp/stacks.out")"

if command -v systemd-analyze >/dev/null; then
  # The unit as installed would name /usr/bin/soapbench-server, which this host need not have.
  sed "s|/usr/bin/soapbench-server|$tmp/root/usr/bin/soapbench-server|" "$unit" >"$tmp/soapbench-server.service"
  systemd-analyze verify "$tmp/soapbench-server.service" >"$tmp/verify.out" 2>&1 || fail "verify: $(cat "$tmp/verify.out")"
  [[ ! -s $tmp/verify.out ]] || fail "systemd-analyze verify warned: $(cat "$tmp/verify.out")"
  echo "unit verified"
fi
echo "package ok: $(basename "$deb")"
