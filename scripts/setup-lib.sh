# Sourced by scripts/setup.sh, setup-geo.sh and setup-test.sh: the steps they share.
# Each step prints what it installs and how long that took, or that nothing was
# missing. Sourced as `source setup-lib.sh NAME`: NAME prefixes the lines printed.
# shellcheck shell=bash
AX_PROG="${1:-setup}"

AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
export AX_CACHE
# One venv for the project's Python tools and tests; each set of packages installs
# with its own stamp file (.ax-packages-<set>), so one set never reinstalls another.
AX_VENV="$AX_CACHE/venv"

ax_log() { echo "$AX_PROG: $*"; }

# Packages the last ax_apt_install call installed (empty when none was missing).
# shellcheck disable=SC2034 # read by the scripts that source this
AX_APT_INSTALLED=()

# Installs those of the Debian packages "$@" that are not installed.
ax_apt_install() {
  local start=$SECONDS pkg status missing=()
  AX_APT_INSTALLED=()
  for pkg in "$@"; do
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    ax_log "apt: all $# packages installed"
    return 0
  fi
  ax_log "apt: installing ${missing[*]}"
  local sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  # shellcheck disable=SC2034
  AX_APT_INSTALLED=("${missing[@]}")
  ax_log "apt: installed ${#missing[@]} packages in $((SECONDS - start)) s"
}

# ax_venv_install SET PKG==VERSION...: installs the pinned packages of SET into the
# project venv (made here when missing) unless SET's stamp lists exactly these.
ax_venv_install() {
  local set="$1" start=$SECONDS
  shift
  local stamp="$AX_VENV/.ax-packages-$set"
  if [[ -x "$AX_VENV/bin/python" && "$(cat "$stamp" 2>/dev/null)" == "$*" ]]; then
    ax_log "venv: $set packages installed ($AX_VENV)"
    return 0
  fi
  [[ -x "$AX_VENV/bin/python" ]] || python3 -m venv "$AX_VENV"
  rm -f "$AX_VENV/.ax-packages" # the stamp of the one-list setup.sh before the split
  ax_log "venv: installing $set packages $* into $AX_VENV"
  "$AX_VENV/bin/pip" install -q --disable-pip-version-check "$@"
  echo "$*" >"$stamp"
  ax_log "venv: $set packages installed in $((SECONDS - start)) s"
}
