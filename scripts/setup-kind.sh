#!/usr/bin/env bash
# Everything tests/e2e/kind/run.sh needs on a machine without a registry or a running
# Docker engine (issue 17), built from the Debian archive and the Go module proxy:
#   1. Debian's docker.io, debootstrap, jq (and dig, via setup.sh's packages);
#   2. the container engine: a running one is used as is; otherwise Debian's dockerd is
#      started by hand (no init system here), with the OCI runtime
#      scripts/kind/runc-without-sys-resource as its default where the capability
#      bounding set lacks CAP_SYS_RESOURCE (kind's node containers are privileged);
#   3. kind and the Kubernetes commands of a node (scripts/setup-kube.sh);
#   4. the Debian 12 base image (debootstrap --variant=minbase), used for every image
#      below and as docker/Dockerfile's BUILD_IMAGE and BASE_IMAGE;
#   5. the control-plane images kubeadm expects (scripts/kind/images.Dockerfile);
#   6. the kind node image (scripts/kind/node.Dockerfile, kind's own node files from
#      its Go module, the control-plane images imported into its containerd);
#   7. the Ax images (docker/Dockerfile, tagged ghcr.io/ax-gslb/<name>:$AX_KIND_TAG).
# Idempotent and cached: the engine's image store keeps the images (each is rebuilt
# only when its inputs changed: a hash label), Go's caches the binaries. Prints what
# it builds and how long each step took. Writes $AX_CACHE/kind/env.sh: the variables
# run.sh reads (KIND_NODE_IMAGE, AX_BASE_IMAGE, SKIP_BUILD, TAG, DOCKER_BUILDKIT).
#   scripts/setup-kind.sh              set up (starts the engine when none runs)
#   scripts/setup-kind.sh --stop-engine   stop the dockerd this script started
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=setup-lib.sh
source "$HERE/setup-lib.sh" setup-kind
start_all=$SECONDS

KIND_DIR="$AX_CACHE/kind"
ENGINE_RUN=/run/ax-docker # pid file and log of a dockerd started here
BASE_IMAGE=ax.local/debian:12
TAG="${AX_KIND_TAG:-e2e}"
# The legacy builder: BuildKit would pull the `# syntax=` frontend image.
export DOCKER_BUILDKIT=0

kube_setting() { sed -n "s/^$1=//p" "$HERE/setup-kube.sh"; }
KUBE_VERSION="$(kube_setting KUBE_VERSION)"
KIND_VERSION="$(kube_setting KIND_VERSION)"
ETCD_VERSION="$(kube_setting ETCD_VERSION)"
COREDNS_VERSION="$(kube_setting COREDNS_VERSION)"
NODE_IMAGE="ax.local/kind-node:$KUBE_VERSION"
KUBE_BIN="$AX_CACHE/kube/$KUBE_VERSION/bin"

engine_up() { docker info >/dev/null 2>&1; }

stop_engine() {
  local pid
  pid="$(cat "$ENGINE_RUN/dockerd.pid" 2>/dev/null || true)"
  if [[ -z "$pid" ]] || ! kill -0 "$pid" 2>/dev/null; then
    ax_log "engine: no dockerd started by this script is running"
    return 0
  fi
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 1; done
  ax_log "engine: stopped dockerd (pid $pid)"
}

if [[ "${1:-}" == --stop-engine ]]; then
  stop_engine
  exit 0
fi

# --- 1. packages ----------------------------------------------------------------------
ax_apt_install docker.io debootstrap jq bind9-dnsutils

# --- 2. the engine ------------------------------------------------------------------
step() {
  STEP_START=$SECONDS
  ax_log "$*"
}
done_step() { ax_log "$* ($((SECONDS - STEP_START)) s)"; }

if engine_up; then
  ax_log "engine: using the running Docker engine ($(docker version -f '{{.Server.Version}}'))"
else
  step "engine: starting Debian's dockerd (log: $ENGINE_RUN/dockerd.log)"
  mkdir -p "$ENGINE_RUN"
  runtime=()
  # Bit 24 of the bounding set is CAP_SYS_RESOURCE.
  if (((0x$(awk '/^CapBnd:/ {print $2}' /proc/self/status) >> 24 & 1) == 0)); then
    ax_log "engine: no CAP_SYS_RESOURCE in the bounding set: default runtime drops it"
    # A copy in the cache: the engine outlives this checkout.
    mkdir -p "$KIND_DIR/bin"
    install -m 0755 "$HERE/kind/runc-without-sys-resource" "$KIND_DIR/bin/"
    runtime=(--add-runtime "ax-runc=$KIND_DIR/bin/runc-without-sys-resource"
      --default-runtime ax-runc)
  fi
  # setsid: the engine outlives this script, like a service would.
  setsid /usr/sbin/dockerd -p "$ENGINE_RUN/dockerd.pid" "${runtime[@]}" \
    >"$ENGINE_RUN/dockerd.log" 2>&1 </dev/null &
  for _ in $(seq 60); do
    engine_up && break
    sleep 1
  done
  engine_up || {
    tail -20 "$ENGINE_RUN/dockerd.log" >&2
    ax_log "error: dockerd did not come up (log above)" >&2
    exit 1
  }
  done_step "engine: dockerd $(docker version -f '{{.Server.Version}}') up"
fi

# --- 3. kind and the node's Kubernetes commands -------------------------------------
step "kube: kind $KIND_VERSION and the Kubernetes $KUBE_VERSION commands of a node"
"$HERE/setup-kube.sh" kube-apiserver kubectl etcd helm kind kubeadm kubelet \
  kube-controller-manager kube-scheduler kube-proxy coredns
done_step "kube: ok"

# Runs "${@:2}" with its output in $KIND_DIR/logs/$1.log; shows the log's end and
# stops when it fails.
logged() {
  local name="$1" log="$KIND_DIR/logs/$1.log"
  shift
  mkdir -p "$KIND_DIR/logs"
  "$@" >"$log" 2>&1 || {
    tail -30 "$log" >&2
    ax_log "error: $name failed (whole log: $log)" >&2
    exit 1
  }
}

# --- images: each carries the hash of its inputs and is rebuilt when that changes ---
image_hash() { docker image inspect -f '{{index .Config.Labels "ax.local.inputs"}}' "$1" 2>/dev/null || true; }
# Hash of the files and words given (files by content).
inputs_hash() {
  local item
  for item in "$@"; do
    if [[ -f "$item" ]]; then sha256sum <"$item"; else echo "$item"; fi
  done | sha256sum | cut -c1-32
}

# --- 4. the Debian base ---------------------------------------------------------------
# The Debian mirror apt uses here (deb822 or one-line sources).
mirror="$(cat /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null |
  sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) bookworm main.*/\1/p' | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"
base_hash="$(inputs_hash bookworm minbase "$mirror")"
if [[ "$(image_hash "$BASE_IMAGE")" != "$base_hash" ]]; then
  step "base: debootstrap --variant=minbase bookworm from $mirror"
  rootfs="$(mktemp -d "${TMPDIR:-/tmp}/ax-rootfs.XXXXXX")"
  trap 'rm -rf "$rootfs"' EXIT
  logged debootstrap debootstrap --variant=minbase bookworm "$rootfs" "$mirror"
  security="${mirror%/debian}/debian-security"
  cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import --change "LABEL ax.local.inputs=$base_hash" \
    --change 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  done_step "base: $BASE_IMAGE imported"
else
  ax_log "base: $BASE_IMAGE up to date"
fi

# docker build with the inputs hash as a label; $1 image, $2 hash, rest: build args.
build_image() {
  local image="$1" hash="$2"
  shift 2
  logged "build-${image//[\/:]/_}" docker build --label "ax.local.inputs=$hash" \
    --build-arg "BASE_IMAGE=$BASE_IMAGE" -t "$image" "$@"
}

# --- 5. control-plane images ----------------------------------------------------------
ctx="$(mktemp -d "${TMPDIR:-/tmp}/ax-kind-ctx.XXXXXX")"
trap 'rm -rf "$ctx"' EXIT
# kubeadm's sources (in the Go module cache since setup-kube.sh built kubeadm) name
# the pause and etcd tags it asks for; pause.c is Kubernetes' own sandbox program.
GOMODCACHE_DIR="$(PATH="$PATH:/usr/local/go/bin" go env GOMODCACHE)"
kube_src="$GOMODCACHE_DIR/k8s.io/kubernetes@$KUBE_VERSION"
pause_c="$kube_src/build/pause/linux/pause.c"
kubeadm_constant() {
  sed -n "s/^\t$1 = \"\(.*\)\"/\1/p" "$kube_src/cmd/kubeadm/app/constants/constants.go" \
    2>/dev/null || true
}
pause_version="$(kubeadm_constant PauseVersion)"
etcd_tag="$(kubeadm_constant DefaultEtcdVersion)"
[[ -f "$pause_c" && -n "$pause_version" && -n "$etcd_tag" ]] || {
  ax_log "error: no k8s.io/kubernetes@$KUBE_VERSION sources in the Go module cache ($pause_c)" >&2
  exit 1
}
[[ "$etcd_tag" == "${ETCD_VERSION#v}"-* ]] || {
  ax_log "error: kubeadm wants etcd $etcd_tag, setup-kube.sh builds $ETCD_VERSION" >&2
  exit 1
}
# name -> image tag, as `kubeadm config images list` prints them.
declare -A CP_IMAGES=(
  [kube-apiserver]="registry.k8s.io/kube-apiserver:$KUBE_VERSION"
  [kube-controller-manager]="registry.k8s.io/kube-controller-manager:$KUBE_VERSION"
  [kube-scheduler]="registry.k8s.io/kube-scheduler:$KUBE_VERSION"
  [kube-proxy]="registry.k8s.io/kube-proxy:$KUBE_VERSION"
  [etcd]="registry.k8s.io/etcd:$etcd_tag"
  [coredns]="registry.k8s.io/coredns/coredns:$COREDNS_VERSION"
  [pause]="registry.k8s.io/pause:$pause_version"
)
listed="$("$KUBE_BIN/kubeadm" config images list --kubernetes-version "$KUBE_VERSION" 2>/dev/null | sort)"
want="$(printf '%s\n' "${CP_IMAGES[@]}" | sort)"
[[ "$listed" == "$want" ]] || {
  ax_log "error: kubeadm lists other images than built here:" >&2
  diff <(echo "$want") <(echo "$listed") >&2 || true
  exit 1
}
CP_BINARIES=()
for name in "${!CP_IMAGES[@]}"; do
  [[ "$name" == pause ]] || CP_BINARIES+=("$KUBE_BIN/$name")
done
step "control plane: images (${!CP_IMAGES[*]})"
base_id="$(docker image inspect -f '{{.Id}}' "$BASE_IMAGE")"
for name in "${!CP_IMAGES[@]}"; do
  image="${CP_IMAGES[$name]}"
  case "$name" in
  pause) source_file="$pause_c" target=pause ;;
  kube-proxy | coredns) source_file="$KUBE_BIN/$name" target="$name" ;;
  *) source_file="$KUBE_BIN/$name" target=binary ;;
  esac
  hash="$(inputs_hash "$HERE/kind/images.Dockerfile" "$source_file" "$base_id" "$image")"
  [[ "$(image_hash "$image")" == "$hash" ]] && continue
  # One context with every input: the legacy builder builds each stage before
  # the target, whatever the target needs.
  [[ -e "$ctx/pause.c" ]] || cp "$pause_c" "${CP_BINARIES[@]}" "$ctx/"
  build_image "$image" "$hash" -f "$HERE/kind/images.Dockerfile" --target "$target" \
    --build-arg "NAME=$name" --build-arg "PAUSE_VERSION=$pause_version" "$ctx"
  ax_log "control plane: built $image"
done
done_step "control plane: images ok"

# --- 6. the node image ----------------------------------------------------------------
kind_files="$GOMODCACHE_DIR/sigs.k8s.io/kind@$KIND_VERSION/images/base/files"
[[ -d "$kind_files" ]] || {
  ax_log "error: kind's node files not in the Go module cache ($kind_files)" >&2
  exit 1
}
cp_ids="$(for name in "${!CP_IMAGES[@]}"; do docker image inspect -f '{{.Id}}' "${CP_IMAGES[$name]}"; done | sort)"
node_inputs=("$HERE/kind/node.Dockerfile" "$base_id" "$cp_ids" "$KUBE_VERSION"
  "$KUBE_BIN/kubeadm" "$KUBE_BIN/kubelet" "$KUBE_BIN/kubectl")
while IFS= read -r f; do node_inputs+=("$f"); done < <(find "$kind_files" "$HERE/kind/node" -type f | sort)
node_hash="$(inputs_hash "${node_inputs[@]}")"
if [[ "$(image_hash "$NODE_IMAGE")" != "$node_hash" ]]; then
  step "node: building $NODE_IMAGE"
  rm -rf "${ctx:?}"/*
  mkdir -p "$ctx/bin"
  cp -r "$kind_files" "$ctx/kind-base"
  cp -r "$HERE/kind/node" "$ctx/node"
  cp "$KUBE_BIN/kubeadm" "$KUBE_BIN/kubelet" "$KUBE_BIN/kubectl" "$ctx/bin/"
  build_image "$NODE_IMAGE-stage" "$node_hash" -f "$HERE/kind/node.Dockerfile" \
    --build-arg "KUBE_VERSION=$KUBE_VERSION" "$ctx"
  # The control-plane images go into the node's containerd (namespace k8s.io, where
  # the kubelet looks), which needs containerd running: a privileged container.
  node="ax-kind-node-build-$$"
  docker run -d --init --name "$node" --privileged --entrypoint sleep "$NODE_IMAGE-stage" infinity >/dev/null
  trap 'docker rm -f "$node" >/dev/null 2>&1; rm -rf "$ctx"' EXIT
  docker exec "$node" bash -c 'containerd >/tmp/containerd.log 2>&1 &
    for _ in $(seq 30); do ctr version >/dev/null 2>&1 && exit 0; sleep 1; done; exit 1'
  for name in "${!CP_IMAGES[@]}"; do
    docker save "${CP_IMAGES[$name]}" |
      docker exec -i "$node" ctr -n k8s.io images import --all-platforms --no-unpack --digests - >/dev/null
  done
  docker exec "$node" bash -c 'pkill -x containerd; while pgrep -x containerd >/dev/null; do sleep 1; done; rm -f /tmp/containerd.log'
  docker commit --change 'ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]' \
    --change 'CMD []' --change "LABEL ax.local.inputs=$node_hash" \
    "$node" "$NODE_IMAGE" >/dev/null
  docker rm -f "$node" >/dev/null
  docker rmi "$NODE_IMAGE-stage" >/dev/null
  done_step "node: $NODE_IMAGE built"
else
  ax_log "node: $NODE_IMAGE up to date"
fi

# --- 7. the Ax images ------------------------------------------------------------------
step "ax: docker/Dockerfile targets ax-operator, ax-dns, ax-probe (tag $TAG)"
for image in ax-operator ax-dns ax-probe; do
  logged "build-$image" docker build -f "$REPO/docker/Dockerfile" --target "$image" \
    --build-arg "BUILD_IMAGE=$BASE_IMAGE" --build-arg "BASE_IMAGE=$BASE_IMAGE" \
    --build-arg REVISION="$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)" \
    -t "ghcr.io/ax-gslb/$image:$TAG" "$REPO"
done
done_step "ax: images built"

mkdir -p "$KIND_DIR"
cat >"$KIND_DIR/env.sh" <<EOF
# Written by scripts/setup-kind.sh: what tests/e2e/kind/run.sh needs on this machine.
export PATH="$AX_CACHE/bin:\$PATH"
export KIND_NODE_IMAGE="$NODE_IMAGE"
export AX_BASE_IMAGE="$BASE_IMAGE"
export DOCKER_BUILDKIT=0
export TAG="$TAG"
EOF
ax_log "ok in $((SECONDS - start_all)) s (environment: source $KIND_DIR/env.sh)"
