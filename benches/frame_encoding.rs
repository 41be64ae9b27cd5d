//! The size and write time of one ParaView frame (`.vtu`) in each `[output] frame_encoding`
//! (ascii, binary, zlib), for the grains of the scenes given: the centres, radii, ids and
//! materials of each scene's start state, with the bed set in motion (each grain a velocity,
//! spin and orientation drawn at random: the values of a flowing bed, the hardest case for
//! zlib; a bed at rest compresses better). Each frame is encoded, then written to a file in the
//! system's temporary folder as a run writes it (to a temporary file, synced, renamed) and
//! removed. Not a timed test: the figures in docs/benchmark.md come from it.
//!
//!     cargo run --release -p grains-benches --example frame_encoding -- SCENE...
//!
//! For each scene and encoding it prints the bytes, bytes per grain, the seconds to encode and
//! the seconds to write (best of three), one line each; then the same for zlib with each
//! grain's orientation too (`[output] frame_orientation = true`).

use grains_app::output::vtk::vtu;
use grains_app::output::{write_atomic, Frame, FrameEncoding};
use grains_app::scene::Scene;
use std::time::Instant;

/// Repetitions of each measurement; the best is printed.
const REPEATS: usize = 3;

fn main() {
    let scenes: Vec<String> = std::env::args().skip(1).collect();
    if scenes.is_empty() {
        eprintln!("usage: frame_encoding SCENE...");
        std::process::exit(2);
    }
    println!("| grains | encoding | bytes | bytes per grain | encode (s) | write (s) |");
    println!("|---:|---|---:|---:|---:|---:|");
    for path in scenes {
        let frame = match in_motion(&path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1)
            }
        };
        let n = frame.positions.len();
        let file = std::env::temp_dir().join(format!("grains-frame-{}.vtu", std::process::id()));
        let mut oriented = frame.clone();
        oriented.orientation = true;
        let cases = FrameEncoding::ALL
            .map(|e| (e, &frame, ""))
            .into_iter()
            .chain([(FrameEncoding::Zlib, &oriented, " + orientation")]);
        for (encoding, frame, extra) in cases {
            let (mut encode, mut write, mut bytes) = (f64::MAX, f64::MAX, 0);
            for _ in 0..REPEATS {
                let t = Instant::now();
                let b = vtu(frame, encoding);
                encode = encode.min(t.elapsed().as_secs_f64());
                let t = Instant::now();
                if let Err(e) = write_atomic(&file, &b) {
                    eprintln!("error: {e}");
                    std::process::exit(1)
                }
                write = write.min(t.elapsed().as_secs_f64());
                bytes = b.len();
                let _ = std::fs::remove_file(&file);
            }
            println!(
                "| {n} | {}{extra} | {bytes} | {:.1} | {encode:.3} | {write:.3} |",
                encoding.name(),
                bytes as f64 / n as f64
            );
        }
    }
}

/// The frame of the scene at `path` at its start, every grain given a random velocity (up to
/// 1 m/s a component), spin (up to 100 rad/s) and orientation.
fn in_motion(path: &str) -> Result<Frame, String> {
    let scene = Scene::load(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    let world = scene.world_with(Some(1), None).map_err(|e| e.to_string())?;
    let n = world.len();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    };
    let mut f = Frame {
        materials: world.bodies().material.clone(),
        groups: vec![0; n],
        ids: world.ids().to_vec(),
        ..Frame::default()
    };
    for i in 0..n {
        f.positions.push(world.position(i).to_array());
        f.radii.push(world.radius(i));
        f.velocities.push([next(), next(), next()]);
        f.angular_velocities
            .push([next(), next(), next()].map(|w| 100.0 * w));
        let q = grains::Quat::from_xyzw(next(), next(), next(), next()).normalize();
        f.orientations.push(q.to_array());
    }
    Ok(f)
}
