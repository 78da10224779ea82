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
pub mod schedule;

use std::fmt;

use crate::backend::ir::{Function, Instr, RegPool, VOp};

/// Replace each instruction whose op `picks` selects by the sequence
/// `lower` writes for it (given the SM and a pool of free registers),
/// every instruction of it under the original guard: the walk the
/// lowering passes share.
pub(crate) fn replace_each(
    f: &mut Function,
    picks: impl Fn(&VOp) -> bool,
    mut lower: impl FnMut(u32, VOp, &mut RegPool, &mut Vec<Instr>) -> Result<(), PassError>,
) -> Result<(), PassError> {
    if !f.instrs().any(|i| picks(&i.op)) {
        return Ok(());
    }
    let sm = f.sm;
    let mut pool = RegPool::new(f);
    for b in &mut f.blocks {
        let mut out = Vec::with_capacity(b.instrs.len());
        for i in std::mem::take(&mut b.instrs) {
            if !picks(&i.op) {
                out.push(i);
                continue;
            }
            let mut seq = Vec::new();
            lower(sm, i.op, &mut pool, &mut seq)?;
            out.extend(seq.into_iter().map(|x| x.with_guard(i.guard)));
        }
        b.instrs = out;
    }
    Ok(())
}

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
