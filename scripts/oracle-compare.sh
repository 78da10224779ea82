#!/usr/bin/env bash
# oracle-compare.sh SM OPS [PER_FORM]
# Sweep random words of the given ops (comma-separated spec names) through
# our printer (`nak dis`) and nvdisasm, and show where the texts differ, and
# the words nvdisasm rejects. A quick loop for spec authors; the oracle test
# in tests/ runs the same check for every op in CI.
set -uo pipefail
sm=$1; ops=$2; n=${3:-32}
root=$(cd "$(dirname "$0")/.." && pwd)
nak="${NAK:-$root/target/debug/nak}"
if [ -z "${NVDISASM_13:-}" ] && [ -f "$root/.oracle/env.sh" ]; then source "$root/.oracle/env.sh"; fi
tool=$NVDISASM_13; [ "$sm" -lt 75 ] && tool=$NVDISASM_11
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$nak" sample --sm "$sm" --ops "$ops" --per-form "$n" -o "$tmp/s.bin" || exit 1
"$nak" dis --sm "$sm" "$tmp/s.bin" > "$tmp/ours.tsv"
python3 - "$tool" "$sm" "$tmp" <<'PY'
import subprocess, sys, re
tool, sm, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ours = [l.rstrip('\n').split('\t') for l in open(f'{tmp}/ours.tsv')]
wb = 16 if sm >= 70 else 8
def norm(t):
    t = re.sub(r'^\s*/\*[0-9a-f]+\*/\s*', '', t).strip()
    if t.endswith(';'): t = t[:-1].rstrip()
    return re.sub(r'\s+', ' ', t)
def dis(words):
    # words: list of hex strings; returns list of texts or None
    if sm >= 70:
        data = b''.join(bytes.fromhex(h) for h in words)
    else:
        data = b''
        for i in range(0, len(words), 3):
            g = words[i:i+3]
            g += ['000f0700b0500000'[:0] or '000f07000000b050'] * 0
            data += (0x001f8000fc0007e0).to_bytes(8, 'little')
            for h in g: data += bytes.fromhex(h)
            for _ in range(3 - len(g)): data += (0x50b0000000070f00).to_bytes(8, 'little')
    open(f'{tmp}/w.bin', 'wb').write(data)
    r = subprocess.run([tool, '-b', f'SM{sm}', f'{tmp}/w.bin'], capture_output=True, text=True)
    if r.returncode != 0: return None, r.stderr.strip().splitlines()[0] if r.stderr else 'error'
    lines = [norm(l) for l in r.stdout.splitlines() if re.match(r'^\s*/\*[0-9a-f]{4,}\*/', l)]
    return lines[:len(words)], None
texts, err = dis([o[0] for o in ours])
bad = rej = 0
if texts is None:
    texts = []
    for o in ours:
        t, e = dis([o[0]])
        texts.append(None if t is None else t[0])
        if t is None:
            rej += 1
            print(f'rejected {o[0]}  ours: {o[1]}\n         {e}')
for o, t in zip(ours, texts):
    if t is not None and o[1] != t:
        bad += 1
        print(f'word   {o[0]}\nours:  {o[1]}\nnvdis: {t}\n')
print(f'{len(ours)} compared, {bad} differ, {rej} rejected by nvdisasm')
PY
