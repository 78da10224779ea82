#!/bin/sh
# The fixed latencies ptxas's code shows, per op and SM: for each op, the
# fewest cycles between it and an instruction reading its result at issue
# over all of tests/kernels (nak/examples/latency_survey.rs says how they
# are counted), as the `[sched] latency` table its spec file holds. An SM
# with fewer than MIN readers (default 10), or where the op's results are
# under a write barrier, is left out.
# Usage: scripts/survey-latencies.sh [MIN]
set -eu
cd "$(dirname "$0")/.."
min=${1:-10}
cargo run -q --release -p nak --example latency_survey -- tests/kernels | awk -v min="$min" '
  $3 == "variable" { variable[$2 " " $1] = 1; next }
  { k = $2 " " $1; n[k]++; if (!(k in least) || $3 < least[k]) least[k] = $3 }
  END {
    for (k in n) {
      if (n[k] < min || (k in variable)) continue
      split(k, a, " "); op = a[1]; sm = a[2]
      readers[op] += n[k]; table[op] = table[op] sm "=" least[k] " "
    }
    for (op in table) print op, readers[op], table[op]
  }' | sort | while read -r op readers table; do
  # Group the SMs of each value: "50,60" = 13, "70,75" = 4
  line=$(echo "$table" | tr ' ' '\n' | grep . | sort -t= -k1n | awk -F= '
    { if ($2 in sms) sms[$2] = sms[$2] "," $1; else { sms[$2] = $1; order[NR] = $2 } }
    END { s = ""; for (i = 1; i <= NR; i++) if (i in order) { v = order[i]; s = s (s == "" ? "" : ", ") "\"" sms[v] "\" = " v }; print s }')
  echo "$op ($readers readers): latency = { $line }"
done
