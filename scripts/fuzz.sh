#!/usr/bin/env bash
# A long fuzz run: scripts/fuzz.sh TARGET SECONDS [SEED]
# Targets: dis (random and mutated words on every SM, decoded, printed and
# checked for the round trip), asm (mutated corpus lines), ir (mutated
# text-IR functions), cubin (mutated test cubins), spec (mutated spec
# files: loader and lint), or all (each for SECONDS). Prints the inputs
# fed per target; on a panic, the input and exit 1. See FUZZING.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET|all SECONDS [SEED]" >&2
    exit 2
fi
targets=("$1")
if [ "$1" = all ]; then
    targets=(dis asm ir cubin spec)
fi
cargo build -q --release -p isa-tests --example fuzz
for t in "${targets[@]}"; do
    "${CARGO_TARGET_DIR:-target}/release/examples/fuzz" "$t" "$2" ${3:+"$3"}
done
