//! A small deterministic pseudo-random sequence for building reproducible test scenes (the
//! 64-bit linear congruential generator of Knuth's MMIX constants): one seed gives the same
//! numbers on every machine and in every test that shares it.

/// The generator's state.
#[derive(Clone, Copy, Debug)]
pub struct Lcg(u64);

impl Lcg {
    /// A sequence starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Lcg(seed)
    }

    /// The next 64-bit state.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0
    }

    /// The next number uniform in [0, 1), from the state's top 24 bits (exact in `f32`).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}
