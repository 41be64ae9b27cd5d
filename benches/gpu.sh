#!/usr/bin/env bash
# GPU benchmark: `grains bench --backend gpu --json` on the pour and the 3-D Brazil nut at 100k
# and 1M grains, 50 projected Jacobi sweeps per step (the issue's target: 1M grains, 50 sweeps,
# at most 10 ms/step on an H100). Prints ms/step, body-steps/s, the last step's residual and the
# mean over the steps read back, the bytes per contact-sweep from the layout and the solve's
# achieved GB/s of each, and keeps the JSON.
#
#   benches/gpu.sh [--steps N] [--bin PATH] [--out DIR] [SCENE.toml ...] [-- BENCH OPTIONS]
#
#   --steps N   steps per scene (default 100)
#   --bin PATH  the grains binary to run (default: build it with cargo build --release)
#   --out DIR   where each scene's JSON goes (default results/gpu_bench)
#   SCENE.toml  scenes to run instead of the four below
#   -- ...      options passed to `grains bench` instead of `--iterations 50` (for example
#               `-- --solver apgd --iterations 20`)
set -euo pipefail
cd "$(dirname "$0")/.."

steps=100
bin=
out=results/gpu_bench
scenes=()
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --steps) steps=$2; shift 2 ;;
        --bin) bin=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        --) shift; extra=("$@"); break ;;
        -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
        *) scenes+=("$1"); shift ;;
    esac
done
[ ${#extra[@]} -gt 0 ] || extra=(--iterations 50)
[ ${#scenes[@]} -gt 0 ] || scenes=(scenes/pour_100k.toml scenes/pour_1m.toml \
    scenes/brazil_nut_100k.toml scenes/brazil_nut_1m.toml)
# shellcheck source=benches/common.sh
. benches/common.sh
grains_binary
mkdir -p "$out"

failed=0
printf '%-18s %9s %6s %9s %13s %10s %9s %9s %9s %8s %9s  %s\n' \
    scene N steps ms/step body-steps/s contacts residual res_mean B/c-sweep GB/s max_pen/r adapter
for scene in "${scenes[@]}"; do
    name=$(basename "$scene" .toml)
    if ! json=$("$bin" bench "$scene" --backend gpu --steps "$steps" --json "${extra[@]}"); then
        echo "$name: grains bench failed (see the error above)" >&2
        failed=1
        continue
    fi
    echo "$json" >"$out/$name.json"
    n=$(field N "$json")
    seconds=$(field seconds "$json")
    adapter=$(grep -o '"adapter":"[^"]*"' <<<"$json" | cut -d'"' -f4)
    awk -v name="$name" -v n="$n" -v steps="$steps" -v s="$seconds" \
        -v c="$(field contacts_mean "$json")" -v pen="$(field max_pen_r "$json")" \
        -v res="$(field residual "$json")" -v resm="$(field residual_mean "$json")" -v bytes="$(field bytes_per_contact_sweep "$json")" \
        -v gb="$(field solve_gb_per_s "$json")" -v adapter="$adapter" 'BEGIN {
            printf "%-18s %9d %6d %9.3f %13.4g %10.0f %9.2e %9.2e %9.0f %8.0f %9.4f  %s\n",
                name, n, steps, 1000 * s / steps, n * steps / s, c, res, resm, bytes, gb, pen, adapter
        }'
done
echo "JSON in $out/"
exit $failed
