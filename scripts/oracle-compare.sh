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
# The SM's reference nvdisasm and word size, from the spec.
eval "$("$nak" info --sm "$sm")" || exit 1
tool_var=NVDISASM_$nvdisasm; tool=${!tool_var}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$nak" sample --sm "$sm" --ops "$ops" --per-form "$n" -o "$tmp/s.bin" || exit 1
"$nak" dis --sm "$sm" "$tmp/s.bin" > "$tmp/ours.tsv"
python3 - "$tool" "$sm" "$tmp" "$nak" <<'PY'
import subprocess, sys, re
tool, sm, tmp, nak = sys.argv[1:5]
ours = [l.rstrip('\n').split('\t') for l in open(f'{tmp}/ours.tsv')]
def norm(t):
    t = re.sub(r'^\s*/\*[0-9a-f]+\*/\s*', '', t).strip()
    if t.endswith(';'): t = t[:-1].rstrip()
    return re.sub(r'\s+', ' ', t)
def dis(words):
    """nvdisasm's text of `words` (hex), laid out by `nak pack`; or the error."""
    open(f'{tmp}/w.txt', 'w').write(''.join(w + '\n' for w in words))
    subprocess.run([nak, 'pack', '--sm', sm, f'{tmp}/w.txt', '-o', f'{tmp}/w.bin'], check=True)
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
