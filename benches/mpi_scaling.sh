#!/usr/bin/env bash
# Strong and weak scaling of distributed runs (docs/distributed.md): `grains run` of the APGD
# pour (scenes/pour_1k_mpi.toml with N changed) in one process and under `mpirun -np K`, one
# worker thread per rank, printing the stepping wall time of each run's summary.json; and, to
# compare ranks with threads, the strong-scaling pour in one process on as many threads as the
# most ranks, at most the machine's cores.
#
#   benches/mpi_scaling.sh [--bin PATH] [--out DIR] [--strong N] [--weak N] [--ranks "1 2 4"]
#
#   --bin PATH   the grains binary built with the mpi feature
#                (default: cargo build --release -p grains-cli --features mpi)
#   --out DIR    where the runs go (default results/mpi_scaling)
#   --strong N   grains of the strong-scaling runs (default 8000)
#   --weak N     grains per rank of the weak-scaling runs (default 4000)
#   --ranks L    rank counts (default "1 2 4"; more than the cores oversubscribe them)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=
out=results/mpi_scaling
strong=8000
weak=4000
ranks="1 2 4"
while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --strong) strong=$2; shift 2 ;;
        --weak) weak=$2; shift 2 ;;
        --ranks) ranks=$2; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$bin" ]; then
    cargo build --release -p grains-cli --features mpi >&2
    bin=target/release/grains
fi
mkdir -p "$out"
mpi=(mpirun --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpi+=(--allow-run-as-root); fi

# The pour scene with `n` grains, written to the output folder; prints its path.
scene() {
    local n=$1 file="$out/pour_${1}.toml"
    sed -e "s/^n = 1000/n = $n/" -e "s/^count = 1000/count = $n/" \
        -e "s/^name = \"pour_1k_mpi\"/name = \"pour_${n}_mpi\"/" scenes/pour_1k_mpi.toml >"$file"
    echo "$file"
}

# One run of `n` grains on `k` ranks (0: one process without MPI) of `t` worker threads each
# (default 1); prints its line.
run() {
    local n=$1 k=$2 t=${3:-1} dir="$out/n${1}_k${2}_t${3:-1}"
    rm -rf "$dir"
    local file
    file=$(scene "$n")
    if [ "$k" -eq 0 ]; then
        "$bin" run "$file" --out "$dir" --threads "$t" >/dev/null
    else
        "${mpi[@]}" -np "$k" "$bin" run "$file" --out "$dir" --threads "$t" >/dev/null
    fi
    local wall sweeps contacts
    wall=$(grep -m1 '"wall_seconds"' "$dir/summary.json" | tr -dc '0-9.')
    sweeps=$(grep -m1 '"iterations_mean"' "$dir/summary.json" | tr -dc '0-9.')
    contacts=$(grep -m1 '"contacts_mean"' "$dir/summary.json" | tr -dc '0-9.')
    local what="$k ranks"
    if [ "$k" -eq 0 ]; then what="1 process"; fi
    if [ "$t" -gt 1 ]; then what="$what, $t threads"; fi
    printf '| %s | %s | %.1f | %.1f | %.0f |\n' "$n" "$what" "$wall" "$sweeps" "$contacts"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| grains | run | stepping wall (s) | mean sweeps | mean contacts |"
echo "|---|---|---|---|---|"
run "$strong" 0
most=$(echo $ranks | tr ' ' '\n' | sort -n | tail -1)
if [ "$most" -gt "$(nproc)" ]; then most=$(nproc); fi
if [ "$most" -gt 1 ]; then run "$strong" 0 "$most"; fi
for k in $ranks; do run "$strong" "$k"; done
for k in $ranks; do run $((weak * k)) "$k"; done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
