//! The unit tests of `src/narrow_phase.rs`.

use grains_kernels::layout::key_wall;
use grains_kernels::layout::wall_key;
use grains_kernels::mesh::MeshWalls;
use grains_kernels::narrow_phase::*;

/// The sixteen points of one body against one wall get sixteen keys, each naming the body
/// and the wall once its flags are masked; [`point_flag`] gives only eight there (its
/// bits in the wall's half are set in every wall key).
#[test]
fn points_on_a_wall_have_distinct_keys() {
    for (body, wall) in [(0u32, 0u32), (7, 3), (MAX_BODIES as u32 - 1, 1000)] {
        let keys: Vec<u64> = (0..16)
            .map(|k| wall_key(body, wall) | wall_point_flag(k))
            .collect();
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 16, "body {body}, wall {wall}");
        for key in keys {
            assert_eq!(((key & !FLAGS_A) >> 32) as u32, body);
            assert_eq!(key_wall(key), wall as usize);
        }
        let point_flags: std::collections::HashSet<u64> = (0..16)
            .map(|k| wall_key(body, wall) | point_flag(k))
            .collect();
        assert_eq!(point_flags.len(), 8, "why walls need their own flags");
    }
}

/// A clump's members on the triangles of a mesh: the contact of member k with triangle t
/// is keyed `wall_key(body, first_wall + t) | wall_point_flag(k)`, so eight members on
/// three triangles beside four flat walls get 24 keys distinct from each other and from
/// the flat walls' (all 8 × 7), each naming the body and the triangle once its flags are
/// masked.
#[test]
fn clump_members_on_mesh_triangles_have_distinct_keys() {
    let mesh = MeshWalls {
        first_wall: 4,
        ..MeshWalls::default()
    };
    for body in [0u32, 5, MAX_BODIES as u32 - 1] {
        let mut keys = Vec::new();
        for k in 0..grains_kernels::shapes::clump::MAX_CLUMP_MEMBERS {
            for t in 0..3 {
                keys.push((wall_key(body, mesh.wall_of(t)) | wall_point_flag(k), t));
            }
            for w in 0..4 {
                keys.push((wall_key(body, w) | wall_point_flag(k), u32::MAX));
            }
        }
        let mut unique: Vec<u64> = keys.iter().map(|k| k.0).collect();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 8 * 7, "body {body}");
        for (key, t) in keys {
            assert_eq!(((key & !FLAGS_A) >> 32) as u32, body);
            let triangle = mesh.triangle_of_wall(key_wall(key));
            assert_eq!(triangle.map_or(u32::MAX, |t| t as u32), t);
        }
    }
}
