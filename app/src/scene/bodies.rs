//! `[[bodies]]`: the generators in order, each making one named group of bodies, and the
//! check that no two bodies overlap at the start. The generators themselves are in
//! `generators`, their shape keys in `form`, where bodies may go in `placement`.

use super::clumps::ClumpNames;
use super::generators::generate;
use super::materials::MaterialNames;
use super::origin::{Origin, Origins};
use super::placement::worst_overlap;
use super::polyhedra::group_hull;
use super::spec::BodySpec;
use super::values::Ctx;
use super::walls::Shakers;
use super::{Group, SceneError};
use grains::body::Body;
use grains::Polyhedron;

/// The bodies of a scene's generators, their named groups and the polyhedra's hull table
/// (to register with the builder in this order, see `super::polyhedra`).
type Made = (Vec<Body>, Vec<Group>, Vec<Polyhedron>);

/// Makes the bodies of every generator, in order, and names their groups; refuses a scene
/// whose bodies overlap by more than `tol` × the smaller radius (one without bodies is refused
/// by the caller, unless `[[insert]]` tables feed it).
pub(super) fn bodies(
    cx: &Ctx,
    generators: &[BodySpec],
    planar: bool,
    tol: f32,
    (materials, clumps): (&MaterialNames, &ClumpNames),
    shakers: &Shakers,
    origins: &mut Origins,
) -> Result<Made, SceneError> {
    let mut bodies: Vec<Body> = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut hulls: Vec<Polyhedron> = Vec::new();
    for (gi, g) in generators.iter().enumerate() {
        let start = bodies.len();
        let hull = group_hull(cx, &g.shape_keys(), &mut hulls)?;
        generate(
            cx,
            g,
            planar,
            (materials, clumps),
            shakers,
            hull,
            &mut bodies,
        )?;
        let name = match &g.name {
            Some(n) => {
                if groups.iter().any(|x| &x.name == n.get_ref()) {
                    return Err(cx.err(n.span(), "name", "two body groups share this name"));
                }
                n.get_ref().clone()
            }
            None => format!("bodies[{gi}]"),
        };
        groups.push(Group {
            name,
            range: start..bodies.len(),
        });
        origins.bodies.push((start..bodies.len(), origin(cx, g)));
    }
    let hull_table: Vec<_> = hulls.iter().map(|p| p.hull.clone()).collect();
    if let Some((i, j, overlap)) = worst_overlap(&bodies, tol, (&clumps.table, &hull_table)) {
        let generator_of = |b: usize| {
            let gi = groups
                .iter()
                .position(|g| g.range.contains(&b))
                .unwrap_or(0);
            &generators[gi].generator
        };
        return Err(cx.err(
            generator_of(j).span(),
            "bodies",
            format!(
                "bodies {i} and {j} overlap by {overlap:.3e} m at the start (more than {tol} of the smaller radius); body {j} comes from this generator, body {i} from the one on line {}",
                cx.line(generator_of(i).span().start)
            ),
        ));
    }
    Ok((bodies, groups, hulls))
}

/// The keys of generator `g` that set each field of its bodies.
fn origin(cx: &Ctx, g: &BodySpec) -> Origin {
    Origin::new(cx, g.generator.span())
        .key(cx, "position", "position", &g.position)
        .key(cx, "radius", "radius", &g.radius)
        .key(cx, "mass", "mass", &g.mass)
        .key(cx, "mass", "density", &g.density)
        .key(cx, "inertia", "inertia", &g.inertia)
        .key(cx, "inertia", "density", &g.density)
        .key(cx, "orientation", "axis", &g.axis)
        .key(cx, "velocity", "velocity", &g.velocity)
        .key(
            cx,
            "angular_velocity",
            "angular_velocity",
            &g.angular_velocity,
        )
        .key(cx, "material", "material", &g.material)
        .key(cx, "prescribed", "shaker", &g.shaker)
        .key(cx, "prescribed", "kind", &g.kind)
        .key(cx, "shape", "shape", &g.shape)
}
