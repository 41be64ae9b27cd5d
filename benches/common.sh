# Shared by the benchmark scripts (sourced, not run).

# Sets `bin` to target/release/grains, built now, unless it names a binary already.
grains_binary() {
    if [ -z "$bin" ]; then
        cargo build --release --bin grains
        bin=target/release/grains
    fi
}

# The value of numeric key $1 in the one-line JSON object $2.
field() { grep -o "\"$1\":[^,}]*" <<<"$2" | head -n 1 | cut -d: -f2; }
