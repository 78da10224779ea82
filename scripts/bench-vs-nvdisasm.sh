#!/usr/bin/env bash
# bench-vs-nvdisasm.sh [SM] [N] [RUNS]
# Disassemble the same raw file of N instructions (default 1,000,000: the
# covered corpus instructions of SM repeated) with `nak dis` and with
# nvdisasm, alternating runs, and print the wall times and their ratio.
set -euo pipefail
sm=${1:-75}; n=${2:-1000000}; runs=${3:-3}
cd "$(dirname "$0")/.."
bash scripts/install-oracle.sh >/dev/null
source .oracle/env.sh
cargo build -q --release -p nak-cli
nak=target/release/nak
tmp=${BENCH_TMP:-$(mktemp -d)}; [ -z "${BENCH_TMP:-}" ] && trap 'rm -rf "$tmp"' EXIT
eval "$("$nak" info --sm "$sm")"
tool_var=NVDISASM_$nvdisasm; tool=${!tool_var}
# Covered corpus words of this SM (those nak decodes), repeated to N, laid
# out as a stream by `nak pack`.
zcat "tests/corpus/sm_$sm.txt.gz" | cut -f1 > "$tmp/all.txt"
"$nak" pack --sm "$sm" "$tmp/all.txt" -o "$tmp/all.bin"
"$nak" dis --sm "$sm" "$tmp/all.bin" 2>/dev/null | grep -v '<unknown>' | cut -f1 > "$tmp/keep.txt"
python3 - "$n" "$tmp" <<'PY'
import sys
n, tmp = int(sys.argv[1]), sys.argv[2]
keep = open(f"{tmp}/keep.txt").read().split()
words = (keep * (n // len(keep) + 1))[:n]
open(f"{tmp}/big.txt", "w").write("\n".join(words) + "\n")
print(f"{n} instructions ({len(keep)} distinct covered corpus words)")
PY
"$nak" pack --sm "$sm" "$tmp/big.txt" -o "$tmp/big.bin"
python3 - "$nak" "$tool" "$sm" "$tmp/big.bin" "$runs" <<'PY'
import subprocess, sys, time
nak, tool, sm, f, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def t(cmd):
    s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - s
best_a = best_b = float("inf")
for i in range(runs):
    a = t([nak, "dis", "--sm", sm, f]); b = t([tool, "-b", f"SM{sm}", f])
    best_a, best_b = min(best_a, a), min(best_b, b)
    print(f"run {i + 1}: nak dis {a:.3f}s, nvdisasm {b:.3f}s")
print(f"best: nak dis {best_a:.3f}s, nvdisasm {best_b:.3f}s, ratio {best_b / best_a:.0f}x")
PY
