# Process and machine helpers shared by run.sh and profile.sh (sourced). Needs HERE,
# PROC, WORK, OUT, SERVER_CPU and QUIET_WAIT set, and servers.sh sourced.
# The server under test is $SPID (started by start_server, stopped by PID).
# shellcheck shell=bash

SPID=""
log() { printf '%s %s: %s\n' "$(date -u +%H:%M:%S)" "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

tree_pids() {  # PID and its descendants
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import proc
print(" ".join(map(str, proc.descendants(int(sys.argv[2])))))' "$HERE" "$1" 2>/dev/null || echo "$1"
}
stop_server() {
  [[ -n "$SPID" ]] || return 0
  local pid="$SPID" tree
  SPID=""
  tree="$(tree_pids "$pid")"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  # Whatever of its tree is left (it started those processes for us): SIGKILL by PID.
  for p in $tree; do kill -KILL "$p" 2>/dev/null || true; done
  wait "$pid" 2>/dev/null || true
}
pick_port() {
  local p
  while true; do
    p=$((20000 + RANDOM % 40000))
    if [[ -z "$(ss -Hlnu "sport = :$p")" && -z "$(ss -Hlnt "sport = :$p")" ]]; then
      echo "$p"
      return
    fi
  done
}

# Waits until the machine is idle apart from us (< 0.15 core busy over 1 s).
IDLE_NOTE="" MAX_BUSY=0
wait_quiet() {
  local waited=0 busy
  while true; do
    busy="$(python3 "$PROC" busy 1)"
    if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.15 else 1)" "$busy"; then
      LAST_BUSY="$busy"
      return 0
    fi
    if ((waited >= QUIET_WAIT)); then
      log "warning: machine still busy ($busy cores used by others); measuring anyway"
      MAX_BUSY="$(python3 -c 'import sys; print(max(map(float, sys.argv[1:])))' "$MAX_BUSY" "$busy")"
      IDLE_NOTE="some measurements started while other processes used up to $MAX_BUSY cores"
      LAST_BUSY="$busy"
      return 0
    fi
    ((waited == 0)) && log "other processes use $busy cores; waiting for quiet (up to ${QUIET_WAIT}s)"
    sleep 4
    waited=$((waited + 5))
  done
}

start_server() {
  local name="$1"
  PORT="$(pick_port)"
  server_prepare "$name"
  local dir="$WORK/$name"
  taskset -c "$SERVER_CPU" "${CMD[@]}" >"$dir/stdout.log" 2>"$dir/stderr.log" &
  SPID=$!
  local i
  for i in $(seq 200); do
    if ! kill -0 "$SPID" 2>/dev/null; then
      log "$name exited at start:"
      tail -n 20 "$dir/stderr.log" "$dir/stdout.log" >&2 || true
      SPID=""
      return 1
    fi
    if dig +short +time=1 +tries=1 -p "$PORT" @127.0.0.1 "$QNAME" A 2>/dev/null | grep -q .; then
      # Some servers pin their own threads (knotd puts its UDP worker on CPU 0, the
      # generator's): pin every thread of the tree back to the server's CPU.
      python3 "$PROC" affinity "$SPID" >"$OUT/affinity-$name.txt" || true
      local p
      for p in $(tree_pids "$SPID"); do
        taskset -a -p -c "$SERVER_CPU" "$p" >/dev/null 2>&1 || true
      done
      python3 "$PROC" affinity "$SPID" >>"$OUT/affinity-$name.txt" || true
      return 0
    fi
    sleep 0.1
  done
  log "$name did not answer $QNAME within 20 s"
  tail -n 20 "$dir/stderr.log" >&2 || true
  stop_server
  return 1
}


# guarded CMD...: runs a measurement when the machine is quiet and measures what
# other processes used meanwhile (NOISE, in cores: machine busy time less the server
# (SPID, or the comma-separated SPIDS measured together), this shell's children and
# kernel threads). Over 0.15 core it is repeated, up to
# twice more; the last attempt stands, its NOISE recorded.
guarded() {
  local me=$BASHPID attempt
  for attempt in 1 2 3; do
    wait_quiet
    python3 "$PROC" snap "${SPIDS:-${SPID:-0}}" "$me" >"$WORK/snap.json"
    "$@" || return 1
    NOISE="$(python3 "$PROC" foreign "$WORK/snap.json" "${SPIDS:-${SPID:-0}}" "$me")"
    python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.15 else 1)" "$NOISE" && return 0
    log "other processes used $NOISE cores during the measurement (attempt $attempt/3)"
  done
  MAX_BUSY="$(python3 -c 'import sys; print(max(map(float, sys.argv[1:])))' "$MAX_BUSY" "$NOISE")"
  IDLE_NOTE="some measurements ran while other processes used up to $MAX_BUSY cores"
  return 0
}

# add_fields FILE KEY=VALUE...: adds numeric fields to a JSON result.
add_fields() {
  python3 - "$@" <<'PY'
import json, sys
path = sys.argv[1]
r = json.load(open(path))
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    r[k] = float(v)
json.dump(r, open(path, "w"))
PY
}
