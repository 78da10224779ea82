#!/usr/bin/env bash
# Build tests/cubins/: a few whole cubins per SM with nvdisasm's listing of
# each, for the cubin listing test (nak/cli/tests/cli_cubin.rs), which
# must pass without ../shared.
#
# Usage: scripts/build-test-cubins.sh [KERNELS] [OUT]
#
# KERNELS (default ../shared/kernels beside the checkout) holds
# sm_NN/NAME.cubin and sm_NN/NAME.sass.gz (`nvdisasm -c -hex NAME.cubin`,
# gzip-compressed; its README names the ptxas and nvdisasm versions).
# OUT (default tests/cubins) gets sm_NN/NAME.cubin.gz and NAME.sass.gz for
# the NAMES below where KERNELS has them: branches, indirect branches and
# local functions (control), calls and returns (int_arith_u16), barriers
# and reconvergence (barriers), dual-issue pairs on Maxwell (bits),
# textures and a relocated operand (tex_surf), and the .nv.info offsets
# nvdisasm 13 labels (async_sm80).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${1:-$root/../shared/kernels}"
out="${2:-$root/tests/cubins}"
names="control int_arith_u16 barriers bits tex_surf async_sm80"
[ -d "$src" ] || { echo "no $src" >&2; exit 2; }
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
for dir in "$src"/sm_*; do
    sm="$(basename "$dir")"
    for n in $names; do
        [ -f "$dir/$n.cubin" ] && [ -f "$dir/$n.sass.gz" ] || continue
        mkdir -p "$out.tmp/$sm"
        gzip -9 -n -c "$dir/$n.cubin" > "$out.tmp/$sm/$n.cubin.gz"
        cp "$dir/$n.sass.gz" "$out.tmp/$sm/$n.sass.gz"
    done
done
[ -f "$out/README.md" ] && cp "$out/README.md" "$out.tmp/"
rm -rf "$out" && mv "$out.tmp" "$out"
du -sh "$out"
