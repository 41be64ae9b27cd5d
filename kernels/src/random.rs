//! Small deterministic pseudo-random sequences: one seed gives the same numbers on every machine
//! and in every program and test that shares it. [`Lcg`] (the 64-bit linear congruential
//! generator of Knuth's MMIX constants) builds the kernels' test scenes; [`SplitMix64`] (Steele,
//! Lea and Flood's splittable generator) draws the pour benchmark's jitter, the scene
//! generators' random placements and the fuzz and kill tests' cases.

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

/// SplitMix64: the state advances by the golden-ratio increment and each output is the state
/// through a bijective mix, so every seed (0 included) gives a full-quality sequence.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits (exact in `f64`).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A whole number in 0..n (`n` > 0), the next bits modulo `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
