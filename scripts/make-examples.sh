#!/usr/bin/env bash
# Rebuild examples/: a few corpus instructions of every mnemonic the spec
# covers, per SM, as text (examples/sm_NN.sass) and assembled with
# `nak asm` into a raw stream (examples/sm_NN.bin) for `nak dis`.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p nak-cli
nak=target/release/nak
mkdir -p examples
for sm in 50 75 90; do
  zcat "tests/corpus/sm_$sm.txt.gz" | python3 -c '
import sys, collections
seen = collections.Counter()
for line in sys.stdin:
    hexw, text = line.rstrip("\n").split("\t")
    m = text.split(" ")[1] if text.startswith("@") else text.split(" ")[0]
    base = m.split(".")[0]
    if seen[m] < 2 and seen[base] < 12:
        seen[m] += 1; seen[base] += 1
        print(text)
' > "examples/sm_$sm.all"
  # keep the lines our assembler accepts (the covered mnemonics)
  : > "examples/sm_$sm.sass"
  while IFS= read -r l; do
    printf '%s\n' "$l" > /tmp/nak-example-line.sass
    if "$nak" asm --sm "$sm" /tmp/nak-example-line.sass -o /tmp/nak-example-line.bin 2>/dev/null; then
      printf '%s\n' "$l" >> "examples/sm_$sm.sass"
    fi
  done < "examples/sm_$sm.all"
  rm -f "examples/sm_$sm.all"
  "$nak" asm --sm "$sm" "examples/sm_$sm.sass" -o "examples/sm_$sm.bin"
  echo "examples/sm_$sm.bin: $(wc -l < "examples/sm_$sm.sass") instructions"
done
