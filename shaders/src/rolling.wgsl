// Spinning and rolling friction (mirrors kernels/src/rolling.rs; only when some material pair has
// either), warm-started in stage 5 (prepare) and relaxed in stage 6 (solve): each contact's moment
// rows, a moment impulse γ_s n + γ_r1 t1 + γ_r2 t2 on a (b takes its negative) bounded by the
// contact's sliding impulses (γn, γ_t):
//
//   spinning  |γ_s| ≤ e_r ((μ γn)² − ‖γ_t‖²)^½   trinkle eq. 1's ellipsoid, sliding served first
//   rolling   ‖γ_r‖ ≤ e_roll γn
//
// The host prepends this file instead of rolling_off.wgsl to the warm start and the Jacobi stage
// for such steps; its hooks then carry the moments through the same entry points, with
// `moments` bound as group 1.

/// One contact's moment rows for a step.
struct Moment {
    /// e_r, e_roll, 1/w_m with w_m = 1/I_a + 1/I_b, and w_m |r_a| (turns Δγ_m into m/s).
    row: vec4<f32>,
    /// (γ_s, γ_r1, γ_r2, 0) (N m s).
    gamma: vec4<f32>,
    /// The last update's moment-impulse change on a (world vector), for the gather.
    impulse: vec4<f32>,
    /// The step's moment impulse as a world vector, kept under the step's row index for the
    /// next step's warm start (read there through last step's keys before this step writes it).
    cache: vec4<f32>,
}

@group(1) @binding(0) var<storage, read_write> moments: array<Moment>;

/// Contact c's moment constants (as Moments::build): the pair's e_r and e_roll from the
/// friction buffer's second and third tables, 1/w_m and w_m |r_a|.
fn moment_row(c: u32) -> vec4<f32> {
    let row = rows[c];
    var other: u32;
    var w = motion[row.body_a].inv_inertia;
    if row.body_b == NO_BODY {
        other = u32(walls[NO_BODY - keys[c].y].normal.w);
    } else {
        other = material[row.body_b];
        w = w + motion[row.body_b].inv_inertia;
    }
    let table = params.n_materials * params.n_materials;
    let pair = material[row.body_a] * params.n_materials + other;
    return vec4<f32>(friction[table + pair], friction[2u * table + pair], select(0.0, 1.0 / w, w > 0.0),
                     w * length(row.ra));
}

/// Projection of moment impulses g = (γ_s, γ_r1, γ_r2) onto the cones left by the sliding
/// impulses `slide` = (γn, γt1, γt2): γ_s clamped to ±e_r ((μ γn)² − ‖γ_t‖²)^½, γ_r scaled onto
/// the disk of radius e_roll γn (as project_moment_cones).
fn project_moment_cones(g: vec3<f32>, m: vec4<f32>, slide: vec3<f32>, mu: f32) -> vec3<f32> {
    let left = max(mu * mu * slide.x * slide.x - slide.y * slide.y - slide.z * slide.z, 0.0);
    let spin = m.x * sqrt(left);
    let roll = m.y * slide.x;
    let norm = sqrt(g.y * g.y + g.z * g.z);
    let scale = select(roll / norm, 1.0, norm <= roll);
    return vec3<f32>(min(max(g.x, -spin), spin), g.y * scale, g.z * scale);
}

/// Contact c's moment constants and γ_m⁰ = Π(w · L_last · [n t1 t2]) onto the cones of its
/// starting impulses `slide`, from last step's slot j (0 for a new contact); keeps D_m γ_m⁰ for
/// the warm start's gather.
fn warm_start_moments(c: u32, j: u32, slide: vec3<f32>) {
    let row = rows[c];
    let m = moment_row(c);
    var g = vec3<f32>(0.0);
    if j != NO_BODY {
        let l = moments[j].cache.xyz * params.warm_weight;
        g = project_moment_cones(vec3<f32>(dot(l, row.n), dot(l, row.t1), dot(l, row.t2)), m, slide, row.mu);
    }
    moments[c].row = m;
    moments[c].gamma = vec4<f32>(g, 0.0);
    moments[c].impulse = vec4<f32>(impulse_vector(row, g), 0.0);
}

/// One projected update of contact c's moment rows right after its sliding update (as
/// update_moment_pack): γ_m⁺ = Π(γ_m − ω w_m⁻¹ (n, t1, t2)ᵀ(ω_a − ω_b)) onto the cones of its new
/// impulses; keeps the change for the gather and returns the residual w_m |r_a| max|Δγ_m| / ω (m/s).
fn update_moments(c: u32, row: ContactRow, omega: f32) -> f32 {
    var w = motion[row.body_a].angular;
    if row.body_b != NO_BODY {
        w = w - motion[row.body_b].angular;
    }
    let u = vec3<f32>(dot(w, row.n), dot(w, row.t1), dot(w, row.t2));
    let m = moments[c];
    let g = m.gamma.xyz;
    let next = project_moment_cones(g - omega * m.row.z * u, m.row, gamma[c].xyz, row.mu);
    let d = next - g;
    moments[c].gamma = vec4<f32>(next, 0.0);
    moments[c].impulse = vec4<f32>(impulse_vector(row, d), 0.0);
    return max(max(abs(d.x), abs(d.y)), abs(d.z)) * m.row.w / omega;
}

/// `dl` plus the moment impulse ±L of a body's contact entry (body b takes −L).
fn add_moment_impulse(dl: vec3<f32>, entry: BodyEntry) -> vec3<f32> {
    let l = moments[entry.tag >> 1u].impulse.xyz;
    return dl + select(l, -l, (entry.tag & 1u) != 0u);
}

/// Remembers contact c's moment impulse as a world vector D_m γ_m for the next step.
fn store_moments(c: u32, row: ContactRow) {
    moments[c].cache = vec4<f32>(impulse_vector(row, moments[c].gamma.xyz), 0.0);
}

/// Whether the contacts carry moment rows (APGD's momentum then covers them too, apgd.wgsl).
const MOMENT_ROWS: bool = true;

/// Contact c's moment impulses (γ_s, γ_r1, γ_r2) and their rows' inverse diagonal 1/w_m (in w),
/// for APGD's momentum.
fn moment_state(c: u32) -> vec4<f32> {
    let m = moments[c];
    return vec4<f32>(m.gamma.xyz, m.row.z);
}

/// APGD's extrapolated point y_m of contact c's moment rows, from which their sweep starts.
fn place_moments(c: u32, y: vec3<f32>) {
    moments[c].gamma = vec4<f32>(y, 0.0);
}

/// The last update's moment-impulse change D_m (γ_m⁺ − y_m) of contact c (a world vector), for
/// APGD's gather.
fn moment_impulse(c: u32) -> vec3<f32> {
    return moments[c].impulse.xyz;
}
