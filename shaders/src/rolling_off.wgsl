// Spinning and rolling friction switched off (the idle twin of rolling.wgsl, which mirrors
// kernels/src/rolling.rs): rolling.wgsl's hooks doing nothing, prepended instead of it when no
// material pair has spinning or rolling friction (the stages then bind and compute only the
// sliding rows).

/// No moment rows to warm-start.
fn warm_start_moments(c: u32, j: u32, slide: vec3<f32>) {}

/// No moment rows to update: no residual.
fn update_moments(c: u32, row: ContactRow, omega: f32) -> f32 {
    return 0.0;
}

/// No moment impulse to gather.
fn add_moment_impulse(dl: vec3<f32>, entry: BodyEntry) -> vec3<f32> {
    return dl;
}

/// No moment impulse to remember.
fn store_moments(c: u32, row: ContactRow) {}

/// No moment rows for APGD's momentum.
const MOMENT_ROWS: bool = false;

/// No moment impulses (and a zero inverse diagonal: they add nothing).
fn moment_state(c: u32) -> vec4<f32> {
    return vec4<f32>(0.0);
}

/// No moment rows to move.
fn place_moments(c: u32, y: vec3<f32>) {}

/// No moment impulse.
fn moment_impulse(c: u32) -> vec3<f32> {
    return vec3<f32>(0.0);
}
