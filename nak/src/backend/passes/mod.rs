//! Passes over [`crate::backend::ir::Function`]: 64-bit and multiply lowering, legalization,
//! combining of loads and stores (on proven alignment), constant folding,
//! and assembly into an instruction stream.

pub mod assemble;
pub mod combine_mem;
pub mod constfold;
pub mod hwops;
pub mod known_bits;
pub mod legalize;
pub mod lower64;
pub mod lower_mul;

use std::fmt;

/// An error of a pass, naming the block and instruction where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    pub message: String,
}

impl PassError {
    pub fn new(m: impl Into<String>) -> PassError {
        PassError { message: m.into() }
    }
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PassError {}

impl From<crate::runtime::legalize_support::LegalizeError> for PassError {
    fn from(e: crate::runtime::legalize_support::LegalizeError) -> Self {
        PassError::new(e.to_string())
    }
}
