#!/usr/bin/env bash
# Builds toxiproxy-server and toxiproxy-cli (Shopify/toxiproxy, pinned) from the Go
# module proxy for the probe fault-injection tests (issue 5). Run by scripts/setup-test.sh.
# Idempotent: the binaries are cached per version under
#   ${AX_CACHE:-$HOME/.cache/ax}/toxiproxy/<version>/
# and linked as $AX_CACHE/bin/toxiproxy-{server,cli}, where the tests look
# (env AX_TOXIPROXY overrides the server's path at test time).
set -euo pipefail

# The newest v2 release the module proxy serves (its version list stops at v2.5.0,
# but an exact version is served). Its go.mod asks for Go >= 1.23.
TOXIPROXY_VERSION=v2.12.0
MODULE=github.com/Shopify/toxiproxy/v2

AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
DEST="$AX_CACHE/toxiproxy/$TOXIPROXY_VERSION"
BIN="$AX_CACHE/bin"

link_bins() {
  mkdir -p "$BIN"
  for tool in toxiproxy-server toxiproxy-cli; do
    ln -sfn "$DEST/$tool" "$BIN/$tool"
  done
}

if [[ -x "$DEST/toxiproxy-server" && -x "$DEST/toxiproxy-cli" ]]; then
  link_bins
  echo "setup-toxiproxy: ok ($TOXIPROXY_VERSION, $BIN/toxiproxy-server)"
  exit 0
fi

# This machine kind ships Go in /usr/local/go (not always on a non-login PATH).
GO="$(command -v go || true)"
[[ -z "$GO" && -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go
if [[ -z "$GO" ]]; then
  echo "setup-toxiproxy: error: no 'go' on PATH or in /usr/local/go/bin;" \
    "toxiproxy $TOXIPROXY_VERSION is built from the Go module proxy and needs Go >= 1.23" >&2
  exit 1
fi

echo "setup-toxiproxy: building toxiproxy $TOXIPROXY_VERSION with $("$GO" version)"
# Built into a scratch GOBIN, then renamed into place: an interrupted build never
# leaves a half-written binary that the check above would take as done.
mkdir -p "$AX_CACHE"
tmp="$(mktemp -d "$AX_CACHE/toxiproxy-build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# `go install` names the binaries after their folders (server, cli); the -X flag
# makes /version report the release instead of "git".
for cmd in server cli; do
  if ! GOBIN="$tmp" "$GO" install -trimpath \
    -ldflags "-s -w -X $MODULE.Version=$TOXIPROXY_VERSION" \
    "$MODULE/cmd/$cmd@$TOXIPROXY_VERSION"; then
    echo "setup-toxiproxy: error: go install $MODULE/cmd/$cmd@$TOXIPROXY_VERSION failed" \
      "(go says why above; GOPROXY=$("$GO" env GOPROXY))" >&2
    exit 1
  fi
done
mv "$tmp/server" "$tmp/toxiproxy-server"
mv "$tmp/cli" "$tmp/toxiproxy-cli"
"$tmp/toxiproxy-server" -version | grep -qF "$TOXIPROXY_VERSION" || {
  echo "setup-toxiproxy: error: built toxiproxy-server does not report $TOXIPROXY_VERSION" >&2
  exit 1
}
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST"
mv "$tmp" "$DEST"
chmod 755 "$DEST"
link_bins
echo "setup-toxiproxy: ok ($TOXIPROXY_VERSION, $BIN/toxiproxy-server)"
