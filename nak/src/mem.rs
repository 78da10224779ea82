//! Memory accesses of load and store ops, as the spec's `[memory]` tables
//! describe them (`Op::mem_access`).

use crate::operand::{Reg, Src, SrcKind};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    Load,
    Store,
}

/// One access: `bytes` at `addr + offset`, which must be a multiple of `align`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    pub kind: MemKind,
    pub bytes: u32,
    /// A load narrower than 4 bytes sign-extends (else zero-extends).
    pub signed: bool,
    pub align: u32,
    /// Address register (the first of a pair for 64-bit addresses).
    pub addr: Src,
    pub offset: i64,
    /// First data register: loaded into (load) or stored from (store);
    /// `bytes.div_ceil(4)` consecutive registers. RZ stores zeros.
    pub data: Reg,
}

impl MemAccess {
    /// Data registers the access reads or writes.
    pub fn data_regs(&self) -> u32 {
        self.bytes.div_ceil(4)
    }
}

/// The register a data source names (RZ for anything else).
pub fn src_data_reg(s: &Src) -> Reg {
    match s.kind {
        SrcKind::Reg(r) => r,
        _ => Reg::RZ,
    }
}
