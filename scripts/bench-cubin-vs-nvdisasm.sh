#!/usr/bin/env bash
# bench-cubin-vs-nvdisasm.sh [CUBIN...]
# `nak dis CUBIN` against `nvdisasm -c -hex CUBIN` on the same cubins
# (default: every cubin of ../shared/kernels/sm_90; the nvdisasm `nak info`
# names for the cubin's SM), each run as its own
# process as a user runs it: the median wall time per cubin of each (nak
# 21 runs, nvdisasm 5), their sum and the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-oracle.sh >/dev/null
# shellcheck disable=SC1091
source .oracle/env.sh
cargo build -q --release -p nak-cli
if [ $# -eq 0 ]; then
    set -- ../shared/kernels/sm_90/*.cubin
fi
python3 - target/release/nak "$@" <<'PY'
import os, re, statistics, subprocess, sys, time
nak, cubins = sys.argv[1], sys.argv[2:]
def wall(cmd, runs):
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        t.append(time.perf_counter() - s)
    return statistics.median(t)
tot_nak = tot_nv = 0.0
instrs = 0
for c in cubins:
    out = subprocess.run([nak, "dis", c], capture_output=True, text=True, check=True).stdout
    instrs += sum(1 for l in out.splitlines() if l.lstrip().startswith("/*") and "*/ " in l and ";" in l)
    a = wall([nak, "dis", c], 21)
    # The reference nvdisasm of the cubin's SM (`.target sm_NN`, or on
    # SM50..SM62 the header flags' `EF_CUDA_SMNN`).
    sm = re.search(r"(?:\.target\s+sm_|EF_CUDA_SM)(\d+)", out).group(1)
    ref = subprocess.run([nak, "info", "--sm", sm], capture_output=True, text=True, check=True).stdout
    which = dict(l.split("=", 1) for l in ref.split())["nvdisasm"]
    tool = os.environ[f"NVDISASM_{which}"]
    b = wall([tool, "-c", "-hex", c], 5)
    tot_nak += a; tot_nv += b
print(f"{len(cubins)} cubins, {instrs} instruction lines: nak dis {tot_nak*1000:.1f} ms, "
      f"nvdisasm -c -hex {tot_nv*1000:.0f} ms (sums of per-cubin medians): {tot_nv/tot_nak:.0f}x")
PY
