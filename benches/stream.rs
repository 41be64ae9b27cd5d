//! The machine's memory bandwidth by the four STREAM kernels (McCalpin): copy a = b, scale
//! a = s b, add a = b + c and triad a = b + s c over f64 arrays far larger than the caches, on
//! N threads, counting the bytes STREAM counts (16 per element for copy and scale, 24 for add and
//! triad). The solve's achieved bandwidth that `grains bench` prints is compared with these
//! (docs/benchmark.md). An example, not a binary, so that `cargo run -- …` at the workspace's
//! root still means the `grains` program.
//!
//!     cargo run --release -p grains-benches --example stream -- [THREADS] [MIB PER ARRAY]
//!
//! Defaults: 2 threads, 512 MiB per array. Prints each kernel's best of ten passes in GB/s.

use rayon::prelude::*;
use std::time::Instant;

/// Elements each thread's task takes at a time.
const CHUNK: usize = 1 << 16;

/// Passes per kernel; the best is kept, as STREAM does.
const PASSES: usize = 10;

fn main() {
    let mut args = std::env::args().skip(1);
    let parse = |a: Option<String>, default: usize, what: &str| -> usize {
        match a {
            None => default,
            Some(s) => match s.parse::<usize>() {
                Ok(v) if v > 0 => v,
                _ => {
                    eprintln!("error: {what} must be a positive integer, got {s:?}");
                    std::process::exit(2)
                }
            },
        }
    };
    let threads = parse(args.next(), 2, "THREADS");
    let mib = parse(args.next(), 512, "MIB PER ARRAY");
    if let Some(extra) = args.next() {
        eprintln!("error: unexpected argument {extra:?} (usage: stream [THREADS] [MIB PER ARRAY])");
        std::process::exit(2)
    }
    let Some(n) = mib.checked_mul(1 << 20).map(|bytes| bytes / 8) else {
        eprintln!("error: {mib} MiB per array is more than this machine can address");
        std::process::exit(2)
    };
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start {threads} threads: {e}");
            std::process::exit(1)
        }
    };
    pool.install(|| {
        let (mut a, mut b, mut c) = (filled(n, 1.0), filled(n, 2.0), filled(n, 0.0));
        let s = 3.0;
        println!("STREAM, {threads} threads, {mib} MiB per array (best of {PASSES} passes):");
        let copy = best(16 * n, || {
            c.par_chunks_mut(CHUNK)
                .zip(a.par_chunks(CHUNK))
                .for_each(|(c, a)| c.copy_from_slice(a))
        });
        let scale = best(16 * n, || {
            b.par_chunks_mut(CHUNK)
                .zip(c.par_chunks(CHUNK))
                .for_each(|(b, c)| b.iter_mut().zip(c).for_each(|(b, c)| *b = s * c))
        });
        let add = best(24 * n, || {
            c.par_chunks_mut(CHUNK)
                .zip(a.par_chunks(CHUNK).zip(b.par_chunks(CHUNK)))
                .for_each(|(c, (a, b))| {
                    c.iter_mut()
                        .zip(a.iter().zip(b))
                        .for_each(|(c, (a, b))| *c = a + b)
                })
        });
        let triad = best(24 * n, || {
            a.par_chunks_mut(CHUNK)
                .zip(b.par_chunks(CHUNK).zip(c.par_chunks(CHUNK)))
                .for_each(|(a, (b, c))| {
                    a.iter_mut()
                        .zip(b.iter().zip(c))
                        .for_each(|(a, (b, c))| *a = b + s * c)
                })
        });
        for (name, gb) in [
            ("copy", copy),
            ("scale", scale),
            ("add", add),
            ("triad", triad),
        ] {
            println!("{name:6} {gb:8.1} GB/s");
        }
        // Keep the arrays' last values observable, so no pass is optimised away.
        let check = a[n / 2] + b[n / 3] + c[n - 1];
        if !check.is_finite() {
            eprintln!("error: the arrays hold non-finite values");
            std::process::exit(1)
        }
    });
}

/// The best bandwidth (GB/s) of `PASSES` runs of `pass`, which moves `bytes` bytes.
fn best(bytes: usize, mut pass: impl FnMut()) -> f64 {
    (0..PASSES)
        .map(|_| {
            let t = Instant::now();
            pass();
            bytes as f64 / t.elapsed().as_secs_f64() / 1e9
        })
        .fold(0.0, f64::max)
}

/// An array of `n` copies of `x`, or a clear error and exit where the memory cannot be had.
fn filled(n: usize, x: f64) -> Vec<f64> {
    let mut v = Vec::new();
    if let Err(e) = v.try_reserve_exact(n) {
        eprintln!(
            "error: cannot allocate {} MiB for an array: {e}",
            (n * 8) >> 20
        );
        std::process::exit(1)
    }
    v.resize(n, x);
    v
}
