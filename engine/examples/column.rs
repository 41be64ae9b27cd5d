use glam::Vec3;
use grains::*;
fn env<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}
fn main() {
    let n = env("N", 40usize);
    let mut s = Settings::granular(2e-3);
    s.max_iterations = env("IT", 30u32);
    s.warm_start = env("WS", 1.0f32);
    s.contact_frequency = env("FREQ", s.contact_frequency);
    let mut b = World::builder(s);
    b.material(Material::new(0.5));
    b.wall(WallDesc::plane(Vec3::ZERO, Vec3::Z));
    let r = 0.005;
    for i in 0..n {
        b.body(Body::sphere(
            Vec3::new(0.0, 0.0, r + 2.0 * r * i as f32 + 0.0001 * i as f32),
            r,
            1.3e-3,
        ));
    }
    let mut w = b.build().unwrap();
    for k in 0..1000 {
        let st = w.step();
        if (k + 1) % env("EVERY", 100usize) == 0 {
            let top = w.position(n - 1).z;
            println!(
                "t={:.2} iters {} res {:.2e} ke/grain {:.3e} maxpen/r {:.4} top {:.5}",
                w.time(),
                st.iterations,
                st.residual,
                st.kinetic_energy / n as f64,
                st.max_penetration / r,
                top
            );
        }
    }
}
