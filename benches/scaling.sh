#!/usr/bin/env bash
# CPU scaling of the pour: `grains bench --json` on pour_1k, 8k, 27k, 100k and 1M with the
# benchmark's solver (the granular preset's projected Gauss–Seidel, at most 30 sweeps, tolerance
# 1e-4 m/s; the 100k and 1M scene files are the GPU's and say Jacobi, so the solver is set on the
# command line for all five), the same number of steps each. Prints ms/step, body-steps/s, the
# time per body-step and per contact-sweep relative to pour_27k, and keeps the JSON.
#
#   benches/scaling.sh [--steps N] [--threads N] [--bin PATH] [--out DIR] [SCENE.toml ...]
#
#   --steps N    steps per scene (default 100)
#   --threads N  CPU worker threads (default 2)
#   --bin PATH   the grains binary to run (default: build it with cargo build --release)
#   --out DIR    where each scene's JSON goes (default results/scaling)
#   SCENE.toml   scenes to run instead of the five below
set -euo pipefail
cd "$(dirname "$0")/.."

steps=100
threads=2
bin=
out=results/scaling
scenes=()
while [ $# -gt 0 ]; do
    case "$1" in
        --steps) steps=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --bin) bin=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
        *) scenes+=("$1"); shift ;;
    esac
done
[ ${#scenes[@]} -gt 0 ] || scenes=(scenes/pour_1k.toml scenes/pour_8k.toml scenes/pour_27k.toml \
    scenes/pour_100k.toml scenes/pour_1m.toml)
# shellcheck source=benches/common.sh
. benches/common.sh
grains_binary
mkdir -p "$out"

failed=0
rows=()
for scene in "${scenes[@]}"; do
    name=$(basename "$scene" .toml)
    if ! json=$("$bin" bench "$scene" --backend cpu --threads "$threads" --steps "$steps" \
        --solver gauss_seidel --iterations 30 --tolerance 1e-4 --omega 1 --json); then
        echo "$name: grains bench failed (see the error above)" >&2
        failed=1
        continue
    fi
    echo "$json" >"$out/$name.json"
    rows+=("$name $(field N "$json") $(field seconds "$json") $(field contact_sweeps_per_s "$json") $(field contacts_mean "$json") $(field iterations_mean "$json")")
done
printf '%s\n' "${rows[@]}" | awk -v steps="$steps" '
    { name[NR] = $1; n[NR] = $2; s[NR] = $3; cs[NR] = $4; c[NR] = $5; it[NR] = $6
      if ($1 == "pour_27k") ref = NR }
    END {
        printf "%-10s %9s %9s %12s %9s %7s %12s %11s %13s\n", "scene", "N", "ms/step",
            "body-steps/s", "contacts", "sweeps", "ns/body-step", "vs 27k", "ns/c-sweep vs 27k"
        for (i = 1; i <= NR; i++) {
            per = 1e9 * s[i] / (n[i] * steps)
            percs = 1e9 / cs[i]
            rel = ref ? per / (1e9 * s[ref] / (n[ref] * steps)) : 0
            relcs = ref ? percs / (1e9 / cs[ref]) : 0
            printf "%-10s %9d %9.2f %12.4g %9.0f %7.2f %12.1f %11.2f %13.2f\n", name[i], n[i],
                1000 * s[i] / steps, n[i] * steps / s[i], c[i], it[i], per, rel, relcs
        }
    }'
echo "JSON in $out/"
exit $failed
