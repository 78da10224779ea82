#!/usr/bin/env bash
# scripts/install-oracle.sh [DEST]
#
# Installs NVIDIA's disassembler nvdisasm, the "oracle" the integration tests
# compare against, into the private folder DEST (default: <repo>/.oracle):
#
#   DEST/nvdisasm-13     nvdisasm 13.x from PyPI `nvidia-cuda-nvdisasm`
#                        (raw mode: SM75 .. SM121)
#   DEST/nvdisasm-11.8   nvdisasm 11.8 from Debian bookworm non-free
#                        `nvidia-cuda-toolkit` (the last one that still
#                        disassembles SM50/SM52/SM60/SM70)
#   DEST/env.sh          `source` it: exports NVDISASM_13 and NVDISASM_11
#
# Nothing is installed system-wide, except Debian's python3-pip when pip is
# missing.  The Debian package lives in the *non-free* component; instead of
# editing /etc/apt, apt-get runs with a private configuration under DEST/.apt
# (its own sources.list with "main contrib non-free", its own lists and cache
# directories), only *downloads* the .deb and unpacks it with `dpkg -x`.
# Both binaries are self-contained (they need only libc/libm/libpthread).
#
# Idempotent: when both binaries are already there and run, it exits at once.
#
# Environment overrides:
#   CUDA13_NVDISASM_VERSION  PyPI version of nvidia-cuda-nvdisasm (13.5.37)
#   DEBIAN_MIRROR            Debian archive URI (default: the first
#                            non-security archive in the system's apt sources)
#   DEBIAN_SUITE             Debian suite (bookworm)
#   PYTHON                   python interpreter (python3)
#   ORACLE_FORCE=1           reinstall even when already installed
#
# Requirements: Debian (bookworm) x86_64 with python3, apt-get and dpkg;
# root for apt-get (the private apt state needs no root, installing pip does).
set -euo pipefail

log() { echo "[install-oracle] $*" >&2; }
die() { echo "[install-oracle] error: $*" >&2; exit 1; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${1:-$REPO/.oracle}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

NV13="$DEST/nvdisasm-13"
NV11="$DEST/nvdisasm-11.8"

write_env() {
  cat > "$DEST/env.sh" <<EOF
# source this file
export NVDISASM_13="$NV13"
export NVDISASM_11="$NV11"
EOF
}

version_of() { "$1" --version 2>/dev/null | grep -m 1 'release' || true; }

works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

installed() {
  if [ "${ORACLE_FORCE:-0}" != 1 ] && works "$NV13" && works "$NV11"; then
    write_env
    echo "[install-oracle] already installed in $DEST: nvdisasm-13 ($(version_of "$NV13")), nvdisasm-11.8 ($(version_of "$NV11"))"
    exit 0
  fi
}
installed

# Several test processes may start an installation at once: serialize them,
# and let the ones that waited find the finished installation.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$DEST/.install.lock"
  flock 9
  installed
fi

CUDA13_NVDISASM_VERSION=${CUDA13_NVDISASM_VERSION:-13.5.37}
DEBIAN_SUITE=${DEBIAN_SUITE:-bookworm}
PY=${PYTHON:-python3}

command -v "$PY" >/dev/null 2>&1 || die "$PY not found"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found (a Debian system is needed for nvdisasm 11.8)"
command -v dpkg >/dev/null 2>&1 || die "dpkg not found"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/install-oracle.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ------------------------------------------------------------ CUDA 13 (PyPI)
install_13() {
  if [ "${ORACLE_FORCE:-0}" != 1 ] && works "$NV13"; then
    log "nvdisasm-13 already present"
    return
  fi
  if ! "$PY" -m pip --version >/dev/null 2>&1; then
    log "pip is missing: installing Debian's python3-pip"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip
  fi
  log "downloading nvidia-cuda-nvdisasm==$CUDA13_NVDISASM_VERSION from PyPI"
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps \
    --only-binary=:all: --platform manylinux2014_x86_64 --python-version 3.11 \
    -d "$TMP/whl" "nvidia-cuda-nvdisasm==$CUDA13_NVDISASM_VERSION"
  local whl
  whl=$(find "$TMP/whl" -name '*.whl' | head -n 1)
  [ -n "$whl" ] || die "pip downloaded no wheel"
  # extract only bin/nvdisasm from the wheel
  "$PY" - "$whl" "$TMP/nv13" <<'EOF'
import os, shutil, sys, zipfile
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    names = [n for n in z.namelist() if n.endswith("/bin/nvdisasm")]
    if not names:
        sys.exit("no bin/nvdisasm in " + whl)
    with z.open(names[0]) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
EOF
  rm -rf "$TMP/whl"
  install -m 755 "$TMP/nv13" "$NV13"
  rm -f "$TMP/nv13"
  works "$NV13" || die "$NV13 does not run"
}

# ------------------------------------------------------- CUDA 11.8 (Debian)
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  local m=""
  shopt -s nullglob
  local srcs=(/etc/apt/sources.list.d/*.sources)
  local lists=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
  shopt -u nullglob
  if [ ${#srcs[@]} -gt 0 ]; then
    m=$(awk 'tolower($1)=="uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "${srcs[@]}")
  fi
  if [ -z "$m" ]; then
    for f in "${lists[@]}"; do
      [ -f "$f" ] || continue
      # `deb [opts] URI suite comp...`: skip an optional [ ... ] block
      m=$(awk '$1=="deb" { i = 2; if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                           if ($i !~ /security/) { print $i; exit } }' "$f")
      [ -n "$m" ] && break
    done
  fi
  [ -n "$m" ] || die "no Debian archive found in /etc/apt; set DEBIAN_MIRROR"
  echo "$m"
}

install_11() {
  if [ "${ORACLE_FORCE:-0}" != 1 ] && works "$NV11"; then
    log "nvdisasm-11.8 already present"
    return
  fi
  local mirror
  mirror=$(debian_mirror)
  local apt="$DEST/.apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" \
    "$apt/etc/sources.list.d" "$apt/etc/preferences.d"
  cat > "$apt/etc/sources.list" <<EOF
deb $mirror $DEBIAN_SUITE main contrib non-free
deb $mirror $DEBIAN_SUITE-updates main contrib non-free
EOF
  local opts=(
    -o "Dir::Etc::SourceList=$apt/etc/sources.list"
    -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d"
    -o "Dir::Etc::Preferences=$apt/etc/preferences"
    -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d"
    -o "Dir::State::Lists=$apt/lists"
    -o "Dir::Cache=$apt/cache"
    -o "APT::Sandbox::User=root"
    -o "Debug::NoLocking=1"
  )
  log "apt-get update with a private sources.list ($mirror $DEBIAN_SUITE, non-free enabled)"
  apt-get "${opts[@]}" update -qq
  log "downloading Debian nvidia-cuda-toolkit"
  mkdir -p "$TMP/deb"
  (cd "$TMP/deb" && apt-get "${opts[@]}" download -qq nvidia-cuda-toolkit)
  local deb
  deb=$(find "$TMP/deb" -name 'nvidia-cuda-toolkit_*.deb' | head -n 1)
  [ -n "$deb" ] || die "apt-get downloaded no nvidia-cuda-toolkit package"
  log "unpacking $(basename "$deb")"
  dpkg -x "$deb" "$TMP/root"
  rm -f "$deb"
  [ -f "$TMP/root/usr/bin/nvdisasm" ] || die "no usr/bin/nvdisasm in $(basename "$deb")"
  install -m 755 "$TMP/root/usr/bin/nvdisasm" "$NV11"
  rm -rf "$TMP/root"
  # the package lists are ~100 MB and only needed to find the package again
  rm -rf "$apt/lists" "$apt/cache"
  works "$NV11" || die "$NV11 does not run"
}

install_13
install_11
write_env

log "installed in $DEST:"
log "  nvdisasm-13:   $(version_of "$NV13")"
log "  nvdisasm-11.8: $(version_of "$NV11")"
log "source $DEST/env.sh to export NVDISASM_13 and NVDISASM_11"
