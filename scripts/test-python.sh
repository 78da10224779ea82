#!/usr/bin/env bash
# The Python module's tests: builds `nak` for Python with maturin into a
# virtual environment (target/python) and runs pytest on
# nak/python/tests against the `nak` command. Run by scripts/test.sh
# after `cargo test`, whose build of the libraries `maturin develop`
# reuses (the dev and test profiles have the same settings).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
venv=target/python
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check 'maturin>=1.8,<2' 'pytest>=8'
cargo build -q -p nak-cli
VIRTUAL_ENV="$PWD/$venv" "$venv/bin/maturin" develop -q -m nak/python/Cargo.toml
NAK_BIN="$PWD/target/debug/nak" "$venv/bin/pytest" -q nak/python/tests
