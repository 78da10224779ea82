//! Constant folding with the generated folds: a hardware op whose sources
//! are all known (immediates, RZ/PT, or registers a preceding unguarded
//! copy in the same block set to a constant) becomes copies of its results,
//! predicate and carry outputs included. A guard known false deletes the
//! instruction; a guard known true is dropped.
//!
//! Maxwell's CC carry flag is followed through the block too: an op that
//! reads it folds when the carry is known. An op that writes it stays (a
//! later reader that does not fold still needs the flag), but its results
//! and the carry it writes become known.

use crate::backend::ir::{Function, Instr, VOp, VReg, VSrc, comp_reg};
use crate::runtime::fold::Value;
use crate::runtime::instr::ValueType;
use crate::runtime::operand::{Reg, Src, SrcKind};
use std::collections::HashMap;

/// Known register contents: 32-bit words and predicate values.
type Known = HashMap<Reg, u64>;

fn known_src(s: &Src, ty: ValueType, known: &Known) -> Option<Value> {
    let n = ty.regs();
    match s.kind {
        SrcKind::Imm(v) => Some(match (ty, n) {
            (ValueType::Pred, _) => return None,
            (ValueType::F64, _) => Value::U64((v as u64) << 32),
            (_, 2) => Value::U64(v as u64),
            _ => Value::U32(v),
        }),
        SrcKind::CBuf(_) => None,
        SrcKind::Reg(r) => {
            let word = |k: u8| -> Option<u64> {
                let c = comp_reg(r, k);
                if c.is_zero() {
                    Some(if ty.is_pred() { 1 } else { 0 })
                } else {
                    known.get(&c).copied()
                }
            };
            if ty.is_pred() {
                Some(Value::Pred(word(0)? != 0))
            } else if n == 2 {
                Some(Value::U64(word(0)? | (word(1)? << 32)))
            } else {
                Some(Value::U32(word(0)? as u32))
            }
        }
    }
}

/// The guard's value when known.
fn known_guard(g: &Src, known: &Known) -> Option<bool> {
    known_src(g, ValueType::Pred, known)
        .and_then(|v| v.pred().ok())
        .map(|v| v ^ g.not)
}

/// Fold every foldable instruction; returns how many were folded.
pub fn fold_constants(f: &mut Function) -> usize {
    let sm = f.sm;
    let mut count = 0;
    for b in &mut f.blocks {
        let mut st = BlockState::default();
        let mut out = Vec::with_capacity(b.instrs.len());
        for i in std::mem::take(&mut b.instrs) {
            count += st.step(sm, i, &mut out);
        }
        b.instrs = out;
    }
    count
}

/// What constant folding knows at a point of a block.
#[derive(Default)]
struct BlockState {
    known: Known,
    /// Maxwell's carry flag, when known.
    carry: Option<bool>,
}

impl BlockState {
    /// Fold (or keep) one instruction into `out` and learn what it leaves
    /// in registers; returns 1 when it was folded or deleted.
    fn step(&mut self, sm: u32, mut i: Instr, out: &mut Vec<Instr>) -> usize {
        match known_guard(&i.guard, &self.known) {
            Some(false) => return 1,
            Some(true) => i.guard = Src::PT,
            None => {}
        }
        let unguarded = i.guard.is_zero();
        let writes_cc = matches!(&i.op, VOp::Hw(op) if op.cc_use(sm).1);
        let folded = self.fold(sm, &i);
        if writes_cc {
            let written = folded.as_ref().and_then(|f| f.1);
            self.carry = if unguarded { written } else { None };
        }
        match folded {
            // A carry writer stays (a later reader that does not fold still
            // needs the flag), but its results are known all the same.
            Some((copies, _)) if writes_cc => {
                self.track(&i, unguarded);
                out.push(i);
                if unguarded {
                    copies.iter().for_each(|c| self.learn_kept(c));
                }
                0
            }
            Some((copies, _)) => {
                for c in copies {
                    self.track(&c, unguarded);
                    out.push(c);
                }
                1
            }
            None => {
                self.track(&i, unguarded);
                out.push(i);
                0
            }
        }
    }

    /// The copies of `i`'s results and the carry it writes, when its
    /// sources are known and the spec's fold computes it.
    fn fold(&self, sm: u32, i: &Instr) -> Option<(Vec<Instr>, Option<bool>)> {
        let VOp::Hw(op) = &i.op else { return None };
        let foldable = op.has_fold(sm)
            && !op.src_info().is_empty()
            && op.class() != "control"
            // Copies of the results would each read the guard the first
            // of them rewrites (a result written to PT is dropped, so it
            // rewrites no guard).
            && !(0..op.dst_info().len())
                .any(|k| !op.dst(k).is_zero() && Some(*op.dst(k)) == i.guard.as_reg());
        if !foldable {
            return None;
        }
        let vals: Vec<Value> = op
            .src_info()
            .iter()
            .enumerate()
            .map(|(k, info)| known_src(op.src(k), info.ty, &self.known))
            .collect::<Option<_>>()?;
        let (res, written) = op.fold_cc(sm, &vals, self.carry).ok()?;
        Some((result_copies(op, res.as_slice(), i.guard), written))
    }

    /// Forget what `n` overwrites; remember what an unguarded copy sets.
    fn track(&mut self, n: &Instr, unguarded: bool) {
        for d in &n.defs() {
            self.known.remove(d);
        }
        let VOp::Copy { dst, src } = &n.op else {
            return;
        };
        if !unguarded {
            return;
        }
        for k in 0..dst.comps {
            let d = dst.comp(k);
            let ty = if d.file.is_pred() {
                ValueType::Pred
            } else {
                ValueType::U32
            };
            let Some(v) = known_src(&src.comp(k), ty, &self.known) else {
                continue;
            };
            let v = match v {
                Value::Pred(p) => p as u64 ^ src.comp(k).not as u64,
                Value::U32(x) => x as u64,
                Value::U64(x) => x,
            };
            if !d.is_zero() {
                self.known.insert(d, v);
            }
        }
    }

    /// Remember the immediate results of a kept carry writer's copy.
    fn learn_kept(&mut self, c: &Instr) {
        let VOp::Copy { dst, src } = &c.op else {
            return;
        };
        for k in 0..dst.comps {
            let d = comp_reg(dst.reg, k);
            if let SrcKind::Imm(x) = src.comp(k).kind
                && !d.is_zero()
                && !d.file.is_pred()
            {
                self.known.insert(d, x as u64);
            }
        }
    }
}

/// One copy per result `res` of `op` (a predicate as PT or !PT), each
/// under `guard`; zero destinations are skipped.
fn result_copies(op: &crate::isa::Op, res: &[Value], guard: Src) -> Vec<Instr> {
    let mut copies = Vec::new();
    for (k, info) in op.dst_info().iter().enumerate() {
        let d = *op.dst(k);
        if d.is_zero() {
            continue;
        }
        let src = match res.get(k) {
            Some(Value::Pred(p)) => VSrc::Reg {
                reg: Reg::PT,
                comps: 1,
                not: !p,
            },
            Some(Value::U32(v)) => VSrc::Imm(*v as u64),
            Some(Value::U64(v)) => VSrc::Imm(*v),
            None => continue,
        };
        let dst = VReg::new(d, info.ty.regs());
        copies.push(Instr::new(VOp::Copy { dst, src }).with_guard(guard));
    }
    copies
}
