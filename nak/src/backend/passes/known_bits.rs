//! Known low bits of registers, to prove that an address is aligned.
//!
//! The analysis is generic over the spec: an op whose `low_bits` sources
//! alone decide the low n bits of its integer results (adds, multiplies,
//! left shifts, see `Op::low_bits_srcs`) is evaluated with its generated
//! fold on **every** combination of the low [`BITS`] bits its listed
//! sources may have. That is a proof, not a sample: the low bits of the
//! results depend on nothing else, and every case is tried. The other
//! sources must be exact (immediates, RZ, PT); an op refusing to fold, or
//! any other op, makes its destinations unknown.
//!
//! Facts start from the function's `.align` promises (for registers no
//! instruction writes, they hold in every block) and flow forward through
//! a block; control flow between blocks is not followed.

use crate::backend::ir::{Function, Instr, VOp, VSrc};
use crate::isa::Op;
use crate::runtime::fold::Value;
use crate::runtime::instr::ValueType;
use crate::runtime::operand::{Reg, RegFile, Src, SrcKind};
use std::collections::HashMap;

/// Low bits tracked: enough for 16-byte accesses.
pub const BITS: u32 = 4;
const MASK: u32 = (1 << BITS) - 1;

/// The low `n` bits of a value are `v` (`n <= BITS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Low {
    pub n: u32,
    pub v: u32,
}

impl Low {
    pub const UNKNOWN: Low = Low { n: 0, v: 0 };
    pub fn exact(x: u64) -> Low {
        Low {
            n: BITS,
            v: x as u32 & MASK,
        }
    }
    /// A multiple of `align` (a power of two).
    pub fn aligned(align: u32) -> Low {
        Low {
            n: align.trailing_zeros().min(BITS),
            v: 0,
        }
    }
    /// The largest power of two the value is known to be a multiple of.
    pub fn align(self) -> u32 {
        1 << self.v.trailing_zeros().min(self.n)
    }
    /// What holds for either value (a guarded write keeps the old one).
    pub fn meet(self, o: Low) -> Low {
        let n = self.n.min(o.n);
        let n = ((self.v ^ o.v) | (1 << n)).trailing_zeros();
        Low {
            n,
            v: self.v & ((1 << n) - 1),
        }
    }
}

/// Facts about GPRs and uniform GPRs at one point of a block.
#[derive(Clone, Debug, Default)]
pub struct KnownBits {
    regs: HashMap<Reg, Low>,
}

impl KnownBits {
    /// Facts at the start of any block: the `.align` promises on registers
    /// that no instruction of `f` writes.
    pub fn at_block_entry(f: &Function) -> KnownBits {
        let written: std::collections::HashSet<Reg> = f.instrs().flat_map(Instr::defs).collect();
        KnownBits {
            regs: f
                .align
                .iter()
                .filter(|(r, _)| !written.contains(r))
                .map(|&(r, a)| (r, Low::aligned(a)))
                .collect(),
        }
    }

    pub fn get(&self, r: Reg) -> Low {
        if r.is_zero() && !r.file.is_pred() {
            return Low::exact(0);
        }
        self.regs.get(&r).copied().unwrap_or(Low::UNKNOWN)
    }

    fn set(&mut self, r: Reg, l: Low, guarded: bool) {
        if r.is_zero() || !matches!(r.file, RegFile::Gpr | RegFile::UGpr) {
            return;
        }
        let l = if guarded { l.meet(self.get(r)) } else { l };
        if l.n == 0 {
            self.regs.remove(&r);
        } else {
            self.regs.insert(r, l);
        }
    }

    fn vsrc(&self, s: &VSrc, k: u8) -> Low {
        match *s {
            VSrc::Reg { reg, not, .. } => {
                let l = self.get(crate::backend::ir::comp_reg(reg, k));
                if not {
                    Low {
                        n: l.n,
                        v: !l.v & ((1 << l.n) - 1),
                    }
                } else {
                    l
                }
            }
            VSrc::Imm(v) => Low::exact(v >> (32 * k as u32)),
            VSrc::CBuf(_) => Low::UNKNOWN,
        }
    }

    /// Update the facts past `i`.
    pub fn step(&mut self, sm: u32, i: &Instr) {
        let guarded = i.guard != Src::PT;
        match &i.op {
            VOp::Copy { dst, src } => {
                for k in 0..dst.comps {
                    let l = self.vsrc(src, k);
                    self.set(dst.comp(k), l, guarded);
                }
            }
            VOp::ParCopy(v) => {
                let me = &*self;
                let new: Vec<(Reg, Low)> = v
                    .iter()
                    .flat_map(|(d, s)| (0..d.comps).map(move |k| (d.comp(k), me.vsrc(s, k))))
                    .collect();
                for (r, l) in new {
                    self.set(r, l, guarded);
                }
            }
            VOp::Hw(op) => {
                let outs = eval(sm, op, self);
                for r in i.defs() {
                    let l = outs
                        .iter()
                        .find(|(d, _)| *d == r)
                        .map_or(Low::UNKNOWN, |x| x.1);
                    self.set(r, l, guarded);
                }
            }
            _ => {
                for r in i.defs() {
                    self.set(r, Low::UNKNOWN, false);
                }
            }
        }
    }
}

/// The value an exact source reads, if it is exact.
fn exact_value(s: &Src, ty: ValueType) -> Option<Value> {
    let v = match s.kind {
        SrcKind::Imm(v) => v as u64,
        SrcKind::Reg(r) if r.is_zero() => r.file.is_pred() as u64,
        _ => return None,
    };
    Some(match ty {
        ValueType::Pred => Value::Pred(v != 0),
        t if t.regs() == 2 => Value::U64(if matches!(t, ValueType::F64) {
            v << 32
        } else {
            v
        }),
        _ => Value::U32(v as u32),
    })
}

/// Known low bits of the destinations of `op` (only for ops with
/// `low_bits` sources whose other sources are exact).
fn eval(sm: u32, op: &Op, kb: &KnownBits) -> Vec<(Reg, Low)> {
    let listed = op.low_bits_srcs();
    if listed.is_empty() || !op.has_fold(sm) {
        return Vec::new();
    }
    let infos = op.src_info();
    let mut base = Vec::with_capacity(infos.len());
    // Per listed source: its known low bits.
    let mut free: Vec<(usize, Low)> = Vec::new();
    for (k, info) in infos.iter().enumerate() {
        let s = op.src(k);
        if listed.contains(&k) {
            let l = match s.kind {
                SrcKind::Reg(r) => kb.get(r),
                SrcKind::Imm(v) => Low::exact(v as u64),
                SrcKind::CBuf(_) => Low::UNKNOWN,
            };
            free.push((k, l));
            base.push(if info.ty.regs() == 2 {
                Value::U64(0)
            } else {
                Value::U32(0)
            });
        } else {
            match exact_value(s, info.ty) {
                Some(v) => base.push(v),
                None => return Vec::new(),
            }
        }
    }
    // Every combination of the unknown low bits of the listed sources.
    let unknown: u32 = free.iter().map(|(_, l)| BITS - l.n).sum();
    let dsts: Vec<usize> = (0..op.dst_info().len())
        .filter(|&k| !op.dst_info()[k].ty.is_pred())
        .collect();
    let mut acc: Vec<Option<Low>> = vec![None; dsts.len()];
    for combo in 0u32..(1 << unknown) {
        let mut vals = base.clone();
        let mut bits = combo;
        for &(k, l) in &free {
            let width = BITS - l.n;
            let hi = bits & ((1 << width) - 1);
            bits >>= width;
            let x = l.v | (hi << l.n);
            vals[k] = match vals[k] {
                Value::U64(_) => Value::U64(x as u64),
                _ => Value::U32(x),
            };
        }
        let Ok(out) = op.fold(sm, &vals) else {
            return Vec::new();
        };
        for (j, &d) in dsts.iter().enumerate() {
            let x = match out.as_slice()[d] {
                Value::U32(x) => x as u64,
                Value::U64(x) => x,
                Value::Pred(_) => 0,
            };
            let l = Low::exact(x);
            acc[j] = Some(acc[j].map_or(l, |a| a.meet(l)));
        }
    }
    dsts.iter()
        .zip(acc)
        .filter_map(|(&d, l)| Some((*op.dst(d), l?)))
        .collect()
}
