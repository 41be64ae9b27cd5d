//! One test binary for the scene, runner and output tests.
//!
//! Each file beside this one is a module of it: `tests/NAME.rs` holds the tests `NAME::…`, run
//! alone with `cargo test --release -p grains-app --test app NAME::`. One binary links the engine
//! once, where a binary per file linked it once per file.
//!
//! `no_alloc.rs` stays a binary of its own: its counting global allocator would count the other
//! tests' allocations.
//!
//! `unit/` holds the library's own unit tests, one module per source file (`[lib] test = false`:
//! the library is not compiled a second time for them).

mod bonds_output;
mod conservation;
mod fields_output;
mod flow_field_scene;
mod mesh_loads;
mod meshes;
mod one_rank;
mod periodic_scene;
mod pile;
mod round_walls;
mod scene_fuzz;
mod scene_input;
mod unit;
mod vtk_frames;
mod vtk_reader;
mod wall_loads;
