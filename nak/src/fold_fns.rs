//! Functions the spec's fold expressions may call: the parts of GPU
//! arithmetic that plain Rust operators do not express.

/// Shift-amount clamp or wrap for a shift over `bits` bits.
pub fn shift_amount(s: u32, bits: u32, wrap: bool) -> u32 {
    if wrap { s & (bits - 1) } else { s.min(bits) }
}
