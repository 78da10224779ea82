//! The backend's IR: instructions with predicate guards over the generated
//! hardware ops ([`crate::isa::Op`]) plus virtual ops (copies, swaps,
//! parallel copies, phis, undef, branches, and 64-bit arithmetic that
//! [`crate::backend::passes::lower64`] splits into 32-bit hardware ops), grouped into
//! labelled basic blocks of one [`Function`] for one SM.
//!
//! Registers are the hardware's ([`Reg`]): GPRs, uniform GPRs, predicates
//! and uniform predicates (carries are predicates on SM70+). Virtual ops
//! name 64-bit pairs and vectors as [`VReg`] (first register and count).

pub mod text;

use crate::isa::{Icmp, Op, family_of};
use crate::runtime::instr::Common;
use crate::runtime::operand::{CBuf, Reg, RegFile, Src, SrcKind};
use std::collections::BTreeSet;

/// A register or a run of consecutive registers (`R4:R5`, `R8:R11`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VReg {
    pub reg: Reg,
    pub comps: u8,
}

impl VReg {
    pub const fn new(reg: Reg, comps: u8) -> VReg {
        VReg { reg, comps }
    }
    pub const fn one(reg: Reg) -> VReg {
        VReg { reg, comps: 1 }
    }
    /// Component `k` (RZ/PT stay themselves).
    pub fn comp(&self, k: u8) -> Reg {
        comp_reg(self.reg, k)
    }
}

/// Component `k` of a run starting at `r`; the zero register is every
/// component of a zero run.
pub fn comp_reg(r: Reg, k: u8) -> Reg {
    if r.is_zero() {
        r
    } else {
        Reg {
            file: r.file,
            idx: r.idx + k,
        }
    }
}

/// A source of a virtual op: registers (with a logical not for
/// predicates), an immediate of up to 64 bits, or a constant-buffer word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VSrc {
    Reg { reg: Reg, comps: u8, not: bool },
    Imm(u64),
    CBuf(CBuf),
}

impl VSrc {
    pub const fn reg(r: Reg) -> VSrc {
        VSrc::Reg {
            reg: r,
            comps: 1,
            not: false,
        }
    }
    pub const fn wide(v: VReg) -> VSrc {
        VSrc::Reg {
            reg: v.reg,
            comps: v.comps,
            not: false,
        }
    }
    /// Component `k` as a 32-bit (or predicate) hardware source.
    pub fn comp(&self, k: u8) -> Src {
        match *self {
            VSrc::Reg { reg, not, .. } => Src::reg(comp_reg(reg, k)).with_not(not),
            VSrc::Imm(v) => Src::imm((v >> (32 * k as u32)) as u32),
            VSrc::CBuf(c) => Src::cbuf(c.index, c.offset + 4 * k as u32),
        }
    }
    /// The source as one hardware source (component 0).
    pub fn src(&self) -> Src {
        self.comp(0)
    }
    /// From a hardware source (its neg/abs are dropped: copies move raw bits).
    pub fn from_src(s: &Src) -> VSrc {
        match s.kind {
            SrcKind::Reg(r) => VSrc::Reg {
                reg: r,
                comps: 1,
                not: s.not,
            },
            SrcKind::Imm(v) => VSrc::Imm(v as u64),
            SrcKind::CBuf(c) => VSrc::CBuf(c),
        }
    }
    pub fn as_reg(&self) -> Option<Reg> {
        match *self {
            VSrc::Reg { reg, .. } => Some(reg),
            _ => None,
        }
    }
}

/// The 64-bit operations [`crate::backend::passes::lower64`] splits into 32-bit ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op64 {
    Add,
    Sub,
    /// Shift left by the amount mod 64 (NIR's `ishl`, Rust's `wrapping_shl`).
    Shl,
    /// Shift right by the amount mod 64, logical or arithmetic.
    Shr {
        signed: bool,
    },
    /// Compare to a predicate.
    Setp {
        cmp: Icmp,
        signed: bool,
    },
    Min {
        signed: bool,
    },
    Max {
        signed: bool,
    },
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VOp {
    /// A hardware op of the spec.
    Hw(Op),
    /// `dst = src` over `dst.comps` registers.
    Copy { dst: VReg, src: VSrc },
    /// Exchange two registers (or runs of equal length).
    Swap { a: VReg, b: VReg },
    /// All copies read before any writes.
    ParCopy(Vec<(VReg, VSrc)>),
    /// SSA merge: the value from each predecessor block.
    Phi {
        dst: VReg,
        srcs: Vec<(String, VSrc)>,
    },
    /// The register holds no defined value.
    Undef(VReg),
    /// Branch to a block (taken where the guard holds).
    Bra(String),
    /// End the thread.
    Exit,
    /// 64-bit arithmetic on register pairs; `dst` is a pair, or a predicate
    /// for `Setp`; `b` is a 32-bit amount for shifts.
    Wide {
        op: Op64,
        dst: VReg,
        a: VSrc,
        b: VSrc,
    },
    /// 32-bit integer multiply, the low word of `a * b` (NIR's `imul`);
    /// [`crate::backend::passes::lower_mul`] picks the family's ops.
    Mul32 { dst: VReg, a: VSrc, b: VSrc },
}

/// One instruction: a guard predicate (PT when unguarded) and an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    pub guard: Src,
    pub op: VOp,
    /// Control bits for hardware ops (kept from decoding or parsing); None
    /// is the family's neutral value (the spec's `[family.*.control]`).
    pub ctrl: Option<u32>,
    /// Raw bits for hardware ops (kept from decoding or parsing).
    pub raw: u128,
}

impl Instr {
    pub fn new(op: VOp) -> Instr {
        Instr {
            guard: Src::PT,
            op,
            ctrl: None,
            raw: 0,
        }
    }
    pub fn hw(op: impl Into<Op>) -> Instr {
        Instr::new(VOp::Hw(op.into()))
    }
    pub fn with_guard(mut self, g: Src) -> Instr {
        self.guard = g;
        self
    }
    /// The guard, control and raw bits a hardware op encodes with on `sm`.
    pub fn common(&self, sm: u32) -> Common {
        Common {
            guard: self.guard,
            ctrl: self.ctrl(sm),
            raw: self.raw,
        }
    }
    /// The control value on `sm`: the instruction's, else the family's
    /// neutral one.
    pub fn ctrl(&self, sm: u32) -> u32 {
        self.ctrl
            .unwrap_or_else(|| family_of(sm).map_or(0, |f| f.neutral_control()))
    }
    pub fn copy(dst: Reg, src: Src) -> Instr {
        Instr::new(VOp::Copy {
            dst: VReg::one(dst),
            src: VSrc::from_src(&src),
        })
    }
    /// Registers the instruction writes (every component).
    pub fn defs(&self) -> Vec<Reg> {
        let mut out = Vec::new();
        let mut run = |v: &VReg| {
            for k in 0..v.comps {
                out.push(v.comp(k));
            }
        };
        match &self.op {
            VOp::Hw(op) => {
                for (i, info) in op.dst_info().iter().enumerate() {
                    run(&VReg::new(*op.dst(i), info.ty.regs()));
                }
                // A load writes as many registers as it has words.
                if let Some(m) = op.mem_access()
                    && m.kind == crate::runtime::mem::MemKind::Load
                {
                    run(&VReg::new(m.data, m.data_regs() as u8));
                }
            }
            VOp::Copy { dst, .. } | VOp::Phi { dst, .. } | VOp::Undef(dst) => run(dst),
            VOp::Wide { dst, .. } | VOp::Mul32 { dst, .. } => run(dst),
            VOp::Swap { a, b } => {
                run(a);
                run(b);
            }
            VOp::ParCopy(v) => v.iter().for_each(|(d, _)| run(d)),
            VOp::Bra(_) | VOp::Exit => {}
        }
        out.retain(|r| !r.is_zero());
        out
    }
    /// Registers the instruction reads (guard included).
    pub fn uses(&self) -> Vec<Reg> {
        let mut out = Vec::new();
        if let Some(r) = self.guard.as_reg() {
            out.push(r);
        }
        let vs = |s: &VSrc, out: &mut Vec<Reg>| {
            if let VSrc::Reg { reg, comps, .. } = *s {
                for k in 0..comps {
                    out.push(comp_reg(reg, k));
                }
            }
        };
        match &self.op {
            VOp::Hw(op) => {
                for (i, info) in op.src_info().iter().enumerate() {
                    if let Some(r) = op.src(i).as_reg() {
                        for k in 0..info.ty.regs() {
                            out.push(comp_reg(r, k));
                        }
                    }
                }
                // A store reads as many registers as it has words.
                if let Some(m) = op.mem_access()
                    && m.kind == crate::runtime::mem::MemKind::Store
                {
                    for k in 0..m.data_regs() as u8 {
                        out.push(comp_reg(m.data, k));
                    }
                }
            }
            VOp::Copy { src, .. } => vs(src, &mut out),
            VOp::Swap { a, b } => {
                for v in [a, b] {
                    vs(&VSrc::wide(*v), &mut out);
                }
            }
            VOp::ParCopy(v) => v.iter().for_each(|(_, s)| vs(s, &mut out)),
            VOp::Phi { srcs, .. } => srcs.iter().for_each(|(_, s)| vs(s, &mut out)),
            VOp::Wide { a, b, .. } | VOp::Mul32 { a, b, .. } => {
                vs(a, &mut out);
                vs(b, &mut out);
            }
            VOp::Undef(_) | VOp::Bra(_) | VOp::Exit => {}
        }
        out.retain(|r| !r.is_zero());
        out
    }
}

/// A labelled basic block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub label: String,
    pub instrs: Vec<Instr>,
}

/// A function for one SM: blocks in layout order, the first is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub sm: u32,
    pub blocks: Vec<Block>,
    /// What the caller promises at entry: the register (the low word of an
    /// address) is a multiple of the power of two (text: `.align R4 8`).
    /// The known-bits analysis starts from these to prove alignment.
    pub align: Vec<(Reg, u32)>,
}

impl Function {
    pub fn new(sm: u32) -> Function {
        Function {
            sm,
            blocks: Vec::new(),
            align: Vec::new(),
        }
    }
    /// A one-block function.
    pub fn from_instrs(sm: u32, instrs: Vec<Instr>) -> Function {
        Function {
            sm,
            blocks: vec![Block {
                label: "bb0".into(),
                instrs,
            }],
            align: Vec::new(),
        }
    }
    pub fn instrs(&self) -> impl Iterator<Item = &Instr> {
        self.blocks.iter().flat_map(|b| b.instrs.iter())
    }
    /// Every register the function names.
    pub fn used_regs(&self) -> BTreeSet<Reg> {
        let mut s = BTreeSet::new();
        for i in self.instrs() {
            s.extend(i.defs());
            s.extend(i.uses());
        }
        s
    }
}

/// Hands out registers the function does not use (the IR is after register
/// allocation, so passes that need temporaries take them from here).
#[derive(Clone, Debug)]
pub struct RegPool {
    used: BTreeSet<Reg>,
    sm: u32,
}

impl RegPool {
    pub fn new(f: &Function) -> RegPool {
        RegPool {
            used: f.used_regs(),
            sm: f.sm,
        }
    }
    /// Mark a register as taken.
    pub fn reserve(&mut self, r: Reg) {
        self.used.insert(r);
    }
    /// `n` consecutive free registers of `file`, the first aligned to `align`.
    pub fn alloc(&mut self, file: RegFile, n: u8, align: u8) -> Option<Reg> {
        // One past the last allocatable index: the file's zero or true
        // register (the spec's `registers`) is never handed out.
        let limit = crate::isa::zero_index(self.sm, file).map_or(0, u16::from);
        let align = align.max(1) as u16;
        let mut base: u16 = 0;
        while base + n as u16 <= limit {
            let free = (0..n as u16).all(|k| {
                !self.used.contains(&Reg {
                    file,
                    idx: (base + k) as u8,
                })
            });
            if free {
                for k in 0..n as u16 {
                    self.used.insert(Reg {
                        file,
                        idx: (base + k) as u8,
                    });
                }
                return Some(Reg {
                    file,
                    idx: base as u8,
                });
            }
            base += align;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocates one register of `file` at a time until the pool runs dry.
    fn drain(sm: u32, file: RegFile) -> Vec<u8> {
        let mut pool = RegPool::new(&Function::new(sm));
        std::iter::from_fn(|| pool.alloc(file, 1, 1).map(|r| r.idx)).collect()
    }

    #[test]
    fn the_pool_never_hands_out_a_zero_register() {
        for sm in [75, 80, 90, 100, 120] {
            let max = crate::isa::zero_index(sm, RegFile::UGpr).expect("SM with UGPRs");
            let urs = drain(sm, RegFile::UGpr);
            assert_eq!(urs.len(), max as usize, "SM{sm}: UR0..UR{}", max - 1);
            assert!(!urs.contains(&max), "SM{sm} handed out URZ (UR{max})");
        }
        assert!(drain(70, RegFile::UGpr).is_empty(), "SM70 has no UGPRs");
        assert_eq!(drain(75, RegFile::Gpr).len(), 255, "R0..R254, never RZ");
        assert_eq!(drain(75, RegFile::Pred).len(), 7, "P0..P6, never PT");
    }
}
