#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the nvdisasm oracle when
# missing, lints the spec, builds everything, runs every test (their
# summaries are printed), and checks formatting and clippy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-oracle.sh
# shellcheck disable=SC1091
source .oracle/env.sh
echo "== spec lint"
cargo run -q -p nak-cli -- lint --format short --deny-warnings
echo "== build"
cargo build --workspace --all-targets
echo "== tests"
cargo test --workspace -- --nocapture --test-threads=2
echo "== fmt and clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
