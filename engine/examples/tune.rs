use grains::pour::{PourQuality, PourScene};
use grains::{Settings, SolverKind};
use std::time::Instant;
fn env<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}
fn main() {
    let n = env("N", 8000usize);
    let steps = env("STEPS", 500u64);
    let scene = PourScene::new(n);
    let mut s = Settings::granular(env("H", 2e-3f32));
    s.threads = env("T", 2usize);
    s.max_iterations = env("IT", 30u32);
    s.warm_start = env("WS", 1.0f32);
    s.omega = env("OMEGA", 1.0f32);
    s.tolerance = env("TOL", 1e-4f32);
    s.contact_frequency = env("FREQ", s.contact_frequency);
    if env("JAC", 0u32) == 1 {
        s.solver = SolverKind::Jacobi;
    }
    let mut w = scene.world(s).unwrap();
    let t0 = Instant::now();
    let mut it = 0u64;
    for k in 0..steps {
        let st = w.step();
        it += st.iterations as u64;
        if (k + 1) % 50 == 0 {
            let q = PourQuality::measure(&w, &scene);
            println!("step {:4} t={:.2} contacts {:6} iters {:3} res {:.2e} maxpen/r {:.4} ke/grain {:.3e} z95 {:.2}", k + 1, w.time(), st.contacts, st.iterations, st.residual, q.max_pen_r, q.ke_mean_j, q.bed_z95_r);
        }
    }
    let q = PourQuality::measure(&w, &scene);
    speeds(&w);
    println!("{:?}", w.stage_times());
    println!(
        "{:.2}s {:.3e} bs/s it/step {:.1} {:?}",
        t0.elapsed().as_secs_f64(),
        n as f64 * steps as f64 / t0.elapsed().as_secs_f64(),
        it as f64 / steps as f64,
        q
    );
}
#[allow(dead_code)]
pub fn speeds(w: &grains::World) {
    let n = w.len();
    let mut v: Vec<(f32, f32)> = (0..n)
        .map(|i| (w.velocity(i).length(), w.position(i).z))
        .collect();
    v.sort_by(|a, b| b.0.total_cmp(&a.0));
    let fast = v.iter().filter(|x| x.0 > 0.01).count();
    let ke: f64 = (0..n)
        .map(|i| 0.5 * w.mass(i) as f64 * (w.velocity(i).length_squared() as f64))
        .sum();
    let rot: f64 = (0..n)
        .map(|i| {
            0.5 * 0.4
                * w.mass(i) as f64
                * (w.radius(i) as f64).powi(2)
                * (w.angular_velocity(i).length_squared() as f64)
        })
        .sum();
    println!("linear KE {ke:.3e} rotational KE {rot:.3e}");
    let ke_top: f64 = v[..n / 100]
        .iter()
        .map(|x| 0.5 * w.mass(0) as f64 * (x.0 as f64).powi(2))
        .sum();
    println!("vmax {:.3} z {:.3}; >1cm/s: {fast}; top1% share of lin KE {:.2}; v at 1%,10%,50%: {:.4} {:.4} {:.4}", v[0].0, v[0].1, ke_top / ke, v[n / 100].0, v[n / 10].0, v[n / 2].0);
    let wmax = (0..n)
        .map(|i| w.angular_velocity(i).length())
        .fold(0.0f32, f32::max);
    println!("omega max {wmax:.2}");
}
