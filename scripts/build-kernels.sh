#!/usr/bin/env bash
# Compile PTX with ptxas -O3 for the SMs given, into whole cubins: the data
# behind tests/kernels for SMs ../shared/kernels does not cover.
#
# Usage: scripts/build-kernels.sh SMS [PTX_DIR] [OUT]
#   SMS      comma-separated SM numbers, e.g. 52,53,61,62,72,87,88,103,110,121
#   PTX_DIR  default ../shared/corpus/ptx beside the checkout
#   OUT      default target/kernels; gets sm_NN/NAME.cubin
# Then `scripts/build-test-kernels.py OUT` writes tests/kernels/sm_NN.tsv.gz.
#
# ptxas comes from scripts/install-ptxas.sh (PTXAS_12 and PTXAS_13 override
# the paths): ptxas 12 below SM75, 13 from SM75. Each PTX file is compiled
# for an SM at or above its own `.target` (an arch-specific target such as
# sm_90a only for itself; a `// @max_sm N` comment caps it), with its
# `.target` rewritten to the SM and its `.version` raised to the least that
# SM needs. A file ptxas refuses is reported and skipped.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 1 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
sms="$1"
src="${2:-$root/../shared/corpus/ptx}"
out="${3:-$root/target/kernels}"
ptxas12="${PTXAS_12:-$root/.oracle/ptxas-12}"
ptxas13="${PTXAS_13:-$root/.oracle/ptxas-13}"

# The least PTX ISA version each SM needs (PTX ISA manual, "PTX ISA version").
min_version() {
  case "$1" in
    50) echo 4.0 ;; 52) echo 4.1 ;; 53) echo 4.2 ;; 60|61|62) echo 5.0 ;;
    70) echo 6.0 ;; 72) echo 6.1 ;; 75) echo 6.3 ;; 80) echo 7.0 ;;
    86) echo 7.1 ;; 87) echo 7.4 ;; 88) echo 9.0 ;; 89|90) echo 7.8 ;;
    100|101) echo 8.6 ;; 103|121) echo 8.8 ;; 110) echo 9.0 ;; 120) echo 8.7 ;;
    *) echo "no PTX version known for sm_$1" >&2; return 1 ;;
  esac
}
# a.b >= c.d
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$1" ]; }

for sm in ${sms//,/ }; do
  if [ "$sm" -lt 75 ]; then ptxas="$ptxas12"; else ptxas="$ptxas13"; fi
  "$ptxas" --version >/dev/null 2>&1 || { echo "no ptxas at $ptxas: run scripts/install-ptxas.sh" >&2; exit 1; }
  need=$(min_version "$sm")
  mkdir -p "$out/sm_$sm"
  n=0
  for f in "$src"/*.ptx; do
    name=$(basename "$f" .ptx)
    grep -q '\.entry' "$f" || continue
    target=$(sed -n 's/^[[:space:]]*\.target[[:space:]]*sm_\([0-9]*[a-z]\{0,1\}\).*/\1/p' "$f" | head -n 1)
    version=$(sed -n 's/^[[:space:]]*\.version[[:space:]]*\([0-9.]*\).*/\1/p' "$f" | head -n 1)
    max_sm=$(sed -n 's/.*@max_sm[[:space:]]*\([0-9]*\).*/\1/p' "$f" | head -n 1)
    # arch-specific targets (sm_90a) compile only for themselves
    case "$target" in *[a-z]) continue ;; esac
    [ "$sm" -ge "${target:-50}" ] || continue
    [ -z "$max_sm" ] || [ "$sm" -le "$max_sm" ] || continue
    version_ge "$version" "$need" || version="$need"
    opts=$(sed -n 's/.*@ptxas_opts[[:space:]]*\(.*\)/\1/p' "$f" | head -n 1)
    tmp="$out/sm_$sm/$name.ptx"
    sed -e "0,/^[[:space:]]*\.target[[:space:]]*sm_[0-9a-z]*/s//.target sm_$sm/" \
        -e "0,/^[[:space:]]*\.version[[:space:]]*[0-9.]*/s//.version $version/" "$f" > "$tmp"
    # shellcheck disable=SC2086
    if "$ptxas" -arch="sm_$sm" -O3 $opts "$tmp" -o "$out/sm_$sm/$name.cubin" 2> "$tmp.err"; then
      n=$((n + 1))
    else
      echo "sm_$sm $name: ptxas refused it: $(head -c 200 "$tmp.err")" >&2
      rm -f "$out/sm_$sm/$name.cubin"
    fi
    rm -f "$tmp" "$tmp.err"
  done
  echo "sm_$sm: $n cubins in $out/sm_$sm"
done
