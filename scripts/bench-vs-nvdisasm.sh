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
tool=$NVDISASM_13; [ "$sm" -lt 75 ] && tool=$NVDISASM_11
cargo build -q --release -p nak-cli
nak=target/release/nak
tmp=${BENCH_TMP:-$(mktemp -d)}; [ -z "${BENCH_TMP:-}" ] && trap 'rm -rf "$tmp"' EXIT
# Covered corpus words of this SM (those nak decodes), repeated to N.
python3 - "$sm" "$n" "$tmp" <<'PY'
import gzip, subprocess, sys
sm, n, tmp = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
wb = 16 if sm >= 70 else 8
lines = gzip.open(f"tests/corpus/sm_{sm}.txt.gz", "rt").read().splitlines()
words = [bytes.fromhex(l.split("\t")[0]) for l in lines]
# keep the words nak decodes (covered mnemonics)
open(f"{tmp}/cand.bin", "wb").write(b"".join(words) if sm >= 70 else b"")
if sm >= 70:
    r = subprocess.run(["target/release/nak", "dis", "--sm", str(sm), f"{tmp}/cand.bin"], capture_output=True, text=True)
    keep = [w for w, l in zip(words, r.stdout.splitlines()) if not l.endswith("<unknown>")]
else:
    keep = []
    for i in range(0, len(words), 3):
        g = words[i:i+3]
        while len(g) < 3: g.append((0x50b0000000070f00).to_bytes(8, "little"))
        keep.append(g)
    data = b"".join((0x001f8000fc0007e0).to_bytes(8, "little") + b"".join(g) for g in keep)
    open(f"{tmp}/cand.bin", "wb").write(data)
    r = subprocess.run(["target/release/nak", "dis", "--sm", str(sm), f"{tmp}/cand.bin"], capture_output=True, text=True)
    flat = [w for g in keep for w in g]
    keep = [w for w, l in zip(flat, r.stdout.splitlines()) if not l.endswith("<unknown>")]
out = bytearray()
count = 0
while count < n:
    for w in keep:
        if count >= n: break
        if sm < 70 and count % 3 == 0:
            out += (0x001f8000fc0007e0).to_bytes(8, "little")
        out += w; count += 1
while sm < 70 and count % 3:
    out += (0x50b0000000070f00).to_bytes(8, "little"); count += 1
open(f"{tmp}/big.bin", "wb").write(out)
print(f"{count} instructions ({len(keep)} distinct covered corpus words), {len(out)} bytes")
PY
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
