#!/usr/bin/env bash
# Builds Kubernetes tools from the Go module proxy. Without arguments: the local control
# plane of the integration tests (real parts, not mocks; issue 6): kube-apiserver, etcd,
# helm and a kubectl of the same version (the machine's kubectl dispatcher stops at
# 1.33, outside the +-1 minor skew kubectl supports against a 1.36 server); run by
# scripts/setup-test.sh. With arguments, the tools named (scripts/setup-kind.sh asks for
# what a kind node image holds: kubelet, kubeadm, kube-controller-manager,
# kube-scheduler, kube-proxy, coredns, and kind itself). Idempotent: the binaries are
# cached per Kubernetes version under
#   ${AX_CACHE:-$HOME/.cache/ax}/kube/<version>/bin/<tool>
# and linked into $AX_CACHE/bin, where tests/integration/kubecp.py looks (env
# AX_KUBE_BIN overrides that folder at test time). A binary is rebuilt only when it
# is missing or reports another version than the one pinned here. The first build
# takes about 7 minutes on two cores with empty Go caches (kube-apiserver 4.5, etcd 1,
# helm 2); Go's own module and build caches (go env GOMODCACHE GOCACHE, default
# ~/go/pkg/mod and ~/.cache/go-build) keep a rebuild after a version bump shorter.
set -euo pipefail

# Kubernetes and etcd go together (etcd is the version kubernetes' own go.mod asks
# for); helm's chartutil/lint default cluster version is set to KUBE_VERSION's minor.
KUBE_VERSION=v1.36.3
ETCD_VERSION=v3.6.8
HELM_VERSION=v3.21.4
# What kubeadm $KUBE_VERSION deploys (cmd/kubeadm/app/constants) and the kind release
# whose node-image layout scripts/setup-kind.sh follows.
COREDNS_VERSION=v1.14.2
KIND_VERSION=v0.33.0

AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
DEST="$AX_CACHE/kube/$KUBE_VERSION/bin"
BIN="$AX_CACHE/bin"
TOOLS=(kube-apiserver kubectl etcd helm)
(($# == 0)) || TOOLS=("$@")
# Commands of the k8s.io/kubernetes module (build_kube_cmd builds any of them).
KUBE_CMDS=" kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubeadm kubectl "

# Succeeds when DEST/$1 exists and reports the pinned version. (Output captured
# first: `| grep -q` could stop reading early and fail the pipe under pipefail.)
built() {
  local exe="$DEST/$1" out want
  [[ -x "$exe" ]] || return 1
  case "$1" in
  kubectl) out="$("$exe" version --client)" want="Client Version: $KUBE_VERSION" ;;
  kubeadm) out="$("$exe" version -o short)" want="$KUBE_VERSION" ;;
  kube-*) out="$("$exe" --version)" want="Kubernetes $KUBE_VERSION" ;;
  kubelet) out="$("$exe" --version)" want="Kubernetes $KUBE_VERSION" ;;
  etcd) out="$("$exe" --version)" want="etcd Version: ${ETCD_VERSION#v}" ;;
  helm) out="$("$exe" version --short)" want="$HELM_VERSION" ;;
  coredns) out="$("$exe" -version)" want="CoreDNS-${COREDNS_VERSION#v}" ;;
  kind) out="$("$exe" version)" want="kind $KIND_VERSION" && out="${out%% go*}" ;;
  *) echo "setup-kube: error: unknown tool $1" >&2 && exit 1 ;;
  esac 2>/dev/null || return 1
  grep -qxF "$want" <<<"$out"
}

link_bins() {
  mkdir -p "$BIN"
  for tool in "${TOOLS[@]}"; do ln -sfn "$DEST/$tool" "$BIN/$tool"; done
}

todo=()
for tool in "${TOOLS[@]}"; do built "$tool" || todo+=("$tool"); done
if ((${#todo[@]} == 0)); then
  link_bins
  echo "setup-kube: ok (${TOOLS[*]} in $DEST)"
  exit 0
fi

# This machine kind ships Go in /usr/local/go (not always on a non-login PATH).
GO="$(command -v go || true)"
[[ -z "$GO" && -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go
if [[ -z "$GO" ]]; then
  echo "setup-kube: error: no 'go' on PATH or in /usr/local/go/bin; kube-apiserver" \
    "$KUBE_VERSION is built from the Go module proxy and needs Go >= 1.26" >&2
  exit 1
fi

mkdir -p "$AX_CACHE" "$DEST"
tmp="$(mktemp -d "$AX_CACHE/kube-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export CGO_ENABLED=0
echo "setup-kube: building ${todo[*]} with $("$GO" version)" \
  "(several minutes the first time; caches: $("$GO" env GOMODCACHE), $("$GO" env GOCACHE))"

fail() {
  echo "setup-kube: error: $* (go says why above; GOPROXY=$("$GO" env GOPROXY))" >&2
  exit 1
}

# Moves a finished binary into place by rename (tmp is on the same file system): an
# interrupted build never leaves a half-written binary that built() takes as done.
install_bin() {
  mv "$tmp/$1" "$DEST/$1"
  built "$1" || fail "built $1 does not report the pinned version"
  echo "setup-kube: built $DEST/$1"
}

# Writes DIR/go.mod of a wrapper module that builds PKG from MODULE@VERSION, with
# the go and godebug lines (the defaults the release is built with) copied from
# that module's go.mod; prints the path of that go.mod (in the module cache).
wrapper_module() {
  local dir="$1" module="$2" version="$3" pkg="$4" mod
  mod="$("$GO" mod download -json "$module@$version" |
    sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')"
  [[ -s "$mod" ]] || fail "go mod download $module@$version failed"
  mkdir -p "$dir"
  {
    echo "module ax.local/$(basename "$dir" .mod)"
    grep -E '^(go|godebug) ' "$mod"
    echo "require $module $version"
    echo "tool $pkg"
  } >"$dir/go.mod"
  echo "$mod"
}

# k8s.io/kubernetes requires its staging modules (k8s.io/api, ...) at v0.0.0 and
# replaces them with local folders, so `go install ...@version` refuses it. The
# wrapper replaces each with its published v0.X.Y (X.Y from v1.X.Y) instead.
# Builds k8s.io/kubernetes/cmd/$1.
build_kube_cmd() {
  local dir="$tmp/$1.mod" pkg="k8s.io/kubernetes/cmd/$1"
  local mod staging="v0.${KUBE_VERSION#v1.}" minor="${KUBE_VERSION#v1.}" ldflags="-s -w"
  minor="${minor%%.*}"
  mod="$(wrapper_module "$dir" k8s.io/kubernetes "$KUBE_VERSION" "$pkg")"
  sed -n 's|^\t\(k8s.io/[a-z0-9-]*\) => ./staging/.*|replace \1 => \1 '"$staging"'|p' \
    "$mod" >>"$dir/go.mod"
  (cd "$dir" && nice "$GO" mod tidy) || fail "go mod tidy for $1 $KUBE_VERSION"
  # Without these /version says v0.0.0, which confuses kubectl's version-skew logic.
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $v.gitVersion=$KUBE_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor"
    ldflags+=" -X $v.gitTreeState=clean"
  done
  (cd "$dir" && nice "$GO" build -trimpath -ldflags "$ldflags" -o "$tmp/$1" "$pkg") ||
    fail "go build $pkg ($KUBE_VERSION)"
}

# go.etcd.io/etcd/server/v3 is itself etcd's main package; its go.mod has replace
# lines (to sibling folders) but requires real versions, so a bare wrapper works.
build_etcd() {
  local dir="$tmp/etcd.mod" pkg=go.etcd.io/etcd/server/v3
  wrapper_module "$dir" "$pkg" "$ETCD_VERSION" "$pkg" >/dev/null
  (cd "$dir" && nice "$GO" mod tidy) || fail "go mod tidy for etcd $ETCD_VERSION"
  (cd "$dir" && nice "$GO" build -trimpath -ldflags "-s -w" -o "$tmp/etcd" "$pkg") ||
    fail "go build $pkg ($ETCD_VERSION)"
}

# CoreDNS's main package is its module root; its go.mod needs no replacements.
build_coredns() {
  local dir="$tmp/coredns.mod" pkg=github.com/coredns/coredns
  wrapper_module "$dir" "$pkg" "$COREDNS_VERSION" "$pkg" >/dev/null
  (cd "$dir" && nice "$GO" mod tidy) || fail "go mod tidy for coredns $COREDNS_VERSION"
  (cd "$dir" && nice "$GO" build -trimpath -ldflags "-s -w" -o "$tmp/coredns" "$pkg") ||
    fail "go build $pkg ($COREDNS_VERSION)"
}

build_kind() {
  GOBIN="$tmp" nice "$GO" install -trimpath "sigs.k8s.io/kind@$KIND_VERSION" ||
    fail "go install sigs.k8s.io/kind@$KIND_VERSION failed"
}

# helm has no replace lines: plain `go install`. Its default cluster version (what
# `helm template` and `helm lint` assume without --kube-version) is KUBE_VERSION's.
build_helm() {
  local minor="${KUBE_VERSION#v1.}" ldflags="-s -w" h=helm.sh/helm/v3
  minor="${minor%%.*}"
  ldflags+=" -X $h/internal/version.version=$HELM_VERSION"
  ldflags+=" -X $h/internal/version.gitTreeState=clean"
  for pkg in $h/pkg/chartutil $h/pkg/lint/rules; do
    ldflags+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$minor"
  done
  GOBIN="$tmp" nice "$GO" install -trimpath -ldflags "$ldflags" "$h/cmd/helm@$HELM_VERSION" ||
    fail "go install $h/cmd/helm@$HELM_VERSION failed"
}

for tool in "${todo[@]}"; do
  start=$SECONDS
  echo "setup-kube: building $tool"
  if [[ "$KUBE_CMDS" == *" $tool "* ]]; then build_kube_cmd "$tool"; else "build_${tool//-/_}"; fi
  install_bin "$tool"
  echo "setup-kube: $tool took $((SECONDS - start)) s"
done
link_bins
echo "setup-kube: ok (${TOOLS[*]} in $DEST)"
