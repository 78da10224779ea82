#!/usr/bin/env bash
# bench-incremental.sh [OP] [RUNS]
# How long `cargo build` takes after a one-file spec edit: appends a comment
# to isa-spec/spec/ops/<class>/OP.toml (default iadd3), times `cargo build` (the
# workspace's default build, dev profile), restores the file, and repeats.
# Prints each run's wall time and the units cargo rebuilt with their times
# (from `cargo build --timings`), so the dominant step is visible.
set -euo pipefail
op=${1:-iadd3}; runs=${2:-3}
cd "$(dirname "$0")/.."
f=$(find isa-spec/spec/ops -name "$op.toml" | head -n 1)
[ -f "$f" ] || { echo "no such op file: $f" >&2; exit 2; }
orig=$(mktemp); cp "$f" "$orig"
trap 'cp "$orig" "$f"; rm -f "$orig"' EXIT
cargo build -q 2>/dev/null  # warm: everything up to date first
for i in $(seq "$runs"); do
    echo "# bench-incremental edit $i $(date +%s%N)" >> "$f"
    s=$(date +%s.%N)
    cargo build -q --timings 2>/dev/null
    e=$(date +%s.%N)
    cp "$orig" "$f"
    python3 - "$s" "$e" "$i" <<'PY'
import json, re, sys
s, e, i = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
html = open("target/cargo-timings/cargo-timing.html").read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S).group(1))
ran = sorted((u for u in units if u["duration"] > 0.05), key=lambda u: -u["duration"])
steps = ", ".join(f"{u['name']} {u.get('target', '').strip() or 'lib'} {u['duration']:.2f}s" for u in ran)
print(f"run {i}: cargo build {e - s:.2f}s ({steps})")
PY
done
cargo build -q 2>/dev/null  # leave the tree built for the restored file
