#!/bin/sh
# The fixed latencies ptxas's code shows, per op and SM: for each op, the
# fewest cycles between it and an instruction reading its result at issue
# over all of tests/kernels (nak/examples/latency_survey.rs says how they
# are counted), as the `[sched] latency` table its spec file holds; and
# the fewest between it and a control op its predicate guards, as the
# `guard_latency` table. Every reader ptxas scheduled is at least the
# latency away, so the fewest cycles seen is never below it, however few
# the readers (more readers make it tighter). An SM with fewer than MIN
# readers (default 1; guards: MIN_GUARDS, default 1), or where the op's
# results are under a write barrier, is left out; the SMs where ptxas puts
# the op's results under a write barrier print as its `variable` list.
# SMs in none of them are the op's `unmeasured` list.
# Usage: scripts/survey-latencies.sh [MIN [MIN_GUARDS]]
set -eu
cd "$(dirname "$0")/.."
min=${1:-1}
min_guards=${2:-1}
cargo run -q --release -p nak --example latency_survey -- tests/kernels | awk -v min="$min" -v ming="$min_guards" '
  $3 == "variable" { variable[$2 " " $1]++; next }
  $3 == "guard" { k = "guard_latency " $2 " " $1; c = $4; need = ming }
  $3 != "guard" { k = "latency " $2 " " $1; c = $3; need = min }
  { n[k]++; floor[k] = need; if (!(k in least) || c < least[k]) least[k] = c }
  END {
    for (k in n) {
      split(k, a, " "); table = a[1]; op = a[2]; sm = a[3]
      if (n[k] < floor[k] || ((op " " sm) in variable)) continue
      t = table " " op
      readers[t] += n[k]; cells[t] = cells[t] sm "=" least[k] " "
    }
    for (k in variable) {
      split(k, a, " "); t = "variable " a[1]
      readers[t] += variable[k]; cells[t] = cells[t] a[2] "=v "
    }
    for (t in cells) print t, readers[t], cells[t]
  }' | sort -k2,2 -k1,1r | while read -r table op readers cells; do
  if [ "$table" = variable ]; then
    sms=$(echo "$cells" | tr ' ' '\n' | grep . | cut -d= -f1 | sort -n | paste -sd, -)
    echo "$op ($readers results under a barrier): variable = \"$sms\""
    continue
  fi
  # Group the SMs of each value: "50,60" = 13, "70,75" = 4
  line=$(echo "$cells" | tr ' ' '\n' | grep . | sort -t= -k1n | awk -F= '
    { if ($2 in sms) sms[$2] = sms[$2] "," $1; else { sms[$2] = $1; order[NR] = $2 } }
    END { s = ""; for (i = 1; i <= NR; i++) if (i in order) { v = order[i]; s = s (s == "" ? "" : ", ") "\"" sms[v] "\" = " v }; print s }')
  echo "$op ($readers readers): $table = { $line }"
done
