//! The random inputs of the fold tests: xorshift64 (shifts 13, 7, 17),
//! written here so the tests depend on nothing they check (the runtime's
//! word sampler has its own generator).

/// A repeatable generator; the value is its state (any non-zero seed).
pub struct Rng(pub u64);

impl Rng {
    /// The next state.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// 32 bits from the middle of the next state.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 16) as u32
    }
}
