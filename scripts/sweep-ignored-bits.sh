#!/usr/bin/env bash
# Print, per spec encoding, the fixed bits nvdisasm ignores (the
# `ignored` key, isa-spec/README.md): `FILE:LINE<TAB>BITS`, the line of
# the encoding's `[[encoding]]`. Needs nvdisasm (installed when missing).
# Usage: scripts/sweep-ignored-bits.sh [SAMPLES_PER_FORM]   (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-oracle.sh
# shellcheck disable=SC1091
source .oracle/env.sh
exec cargo run -q --release -p isa-tests --example ignored_bits -- "${1:-2}"
