#!/usr/bin/env bash
# Print, per spec encoding, the fixed bits nvdisasm ignores (the
# `ignored` and `ignored_on` keys, isa-spec/README.md):
# `FILE:LINE<TAB>IGNORED<TAB>IGNORED_ON`, the line of the encoding's
# `[[encoding]]`; with --write, put them in the op files. Needs nvdisasm
# (installed when missing).
# Usage: scripts/sweep-ignored-bits.sh [SAMPLES_PER_FORM] [--write]   (default 8)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-oracle.sh
# shellcheck disable=SC1091
source .oracle/env.sh
exec cargo run -q --release -p isa-tests --example ignored_bits -- "$@"
