// Stage 5c switched off: rolling.wgsl's hooks doing nothing, prepended instead of it when no
// material pair has spinning or rolling friction (the stages then bind and compute only the
// sliding rows).

fn warm_start_moments(c: u32, j: u32, slide: vec3<f32>) {}

fn update_moments(c: u32, row: ContactRow) -> f32 {
    return 0.0;
}

fn add_moment_impulse(dl: vec3<f32>, entry: BodyEntry) -> vec3<f32> {
    return dl;
}

fn store_moments(c: u32, row: ContactRow) {}
