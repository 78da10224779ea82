#!/usr/bin/env bash
# Install ptxas, which only rebuilds test data (scripts/build-kernels.sh);
# the test suite does not need it. Two releases, because CUDA 13 dropped
# SM50..SM72:
#   DEST/ptxas-12   PyPI nvidia-cuda-nvcc-cu12 (sm_50 .. sm_120)
#   DEST/ptxas-13   PyPI nvidia-cuda-nvcc      (sm_75 .. sm_121)
# scripts/build-kernels.sh looks for them there.
#
# Usage: scripts/install-ptxas.sh [DEST]   (default .oracle)
# Versions: PTXAS12_VERSION (default 12.9.86), PTXAS13_VERSION (13.5.37).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${1:-$REPO/.oracle}
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
PY=${PYTHON:-python3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/install-ptxas.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# fetch PACKAGE==VERSION OUT: download the wheel, keep only its bin/ptxas.
fetch() {
  if [ "${ORACLE_FORCE:-0}" != 1 ] && "$2" --version >/dev/null 2>&1; then
    echo "[install-ptxas] $2 already present"
    return
  fi
  echo "[install-ptxas] downloading $1 from PyPI" >&2
  rm -rf "$TMP/whl"
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps \
    --only-binary=:all: --platform manylinux2014_x86_64 --python-version 3.11 \
    -d "$TMP/whl" "$1"
  "$PY" - "$TMP"/whl/*.whl "$2" <<'PYEOF'
import shutil, sys, zipfile
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    names = [n for n in z.namelist() if n.endswith("/bin/ptxas")]
    if not names:
        sys.exit("no bin/ptxas in " + whl)
    with z.open(names[0]) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
PYEOF
  chmod 755 "$2"
  "$2" --version >/dev/null || { echo "[install-ptxas] $2 does not run" >&2; exit 1; }
}

fetch "nvidia-cuda-nvcc-cu12==${PTXAS12_VERSION:-12.9.86}" "$DEST/ptxas-12"
fetch "nvidia-cuda-nvcc==${PTXAS13_VERSION:-13.5.37}" "$DEST/ptxas-13"
echo "[install-ptxas] installed $DEST/ptxas-12 and $DEST/ptxas-13"
