#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the nvdisasm oracle when
# missing, lints the spec, builds everything, runs every test (their
# summaries are printed) and the Python module's, and checks formatting
# and clippy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-oracle.sh
# shellcheck disable=SC1091
source .oracle/env.sh
# A one-off build gains nothing from the incremental cache, which took a
# third of the disk a clean run used; the lint runs from the test profile's
# build so that the generated library is compiled once, not twice.
export CARGO_INCREMENTAL=0
echo "== spec lint"
cargo run -q --profile test -p nak-cli -- lint --format short --deny-warnings
echo "== tests"
cargo test --workspace -- --nocapture --test-threads=2
echo "== python module"
bash scripts/test-python.sh
echo "== fmt and clippy"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
