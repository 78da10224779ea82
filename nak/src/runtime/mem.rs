//! Memory accesses of load and store ops, as the spec's `[memory]` tables
//! describe them (`Op::mem_access`).

use crate::runtime::operand::{Reg, Src, SrcKind};

/// How a memory address uses its uniform register (the spec's
/// `mem_addr_mode` enum): not at all (`[R2.64+0x10]`), added to the
/// address (`[R2.64+UR4+0x10]`), or as the access descriptor
/// (`desc[UR4][R2.64+0x10]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrMode {
    Reg,
    Ur,
    Desc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemKind {
    Load,
    Store,
}

/// The state space an access's address points into (`[memory] space`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    /// Global memory: 64-bit addresses.
    Global,
    /// The CTA's shared memory: 32-bit addresses.
    Shared,
    /// The thread's own local memory: 32-bit addresses.
    Local,
    /// A generic 64-bit address (the runner treats it as global: it maps
    /// no shared or local window).
    Generic,
}

impl MemSpace {
    /// Whether addresses are 64-bit register pairs (else one register).
    pub fn addr_is_64(self) -> bool {
        matches!(self, MemSpace::Global | MemSpace::Generic)
    }
}

/// One access: `bytes` at `addr + offset`, which must be a multiple of `align`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    pub kind: MemKind,
    pub space: MemSpace,
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

/// A load or store's access, and the rewrites that combine accesses. Every
/// generated op implements it; ops without a `[memory]` table keep the
/// defaults (no access, nothing to rewrite).
pub trait MemOp: Sized {
    /// The memory access (`[memory]` in the op's spec file).
    fn mem_access(&self) -> Option<MemAccess> {
        None
    }
    /// The same access with `bytes` bytes (a zero-extending size), if the
    /// op has such a size.
    fn with_mem_bytes(&self, bytes: u32) -> Option<Self> {
        let _ = bytes;
        None
    }
    /// The same access at another offset with another data register
    /// (`None` when the offset does not fit the modifier's type).
    fn with_mem_at(&self, offset: i64, data: Reg) -> Option<Self> {
        let _ = (offset, data);
        None
    }
    /// Whether this access may be combined with another: a memory op
    /// whose ordering modifiers (`[memory] ordered`) are at their defaults.
    fn mem_combinable(&self) -> bool {
        false
    }
}

/// The register a data source names (RZ for anything else).
pub fn src_data_reg(s: &Src) -> Reg {
    match s.kind {
        SrcKind::Reg(r) => r,
        _ => Reg::RZ,
    }
}
