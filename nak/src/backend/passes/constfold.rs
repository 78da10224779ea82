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
        let mut known = Known::new();
        // Maxwell's carry flag, when known.
        let mut carry: Option<bool> = None;
        let mut out = Vec::with_capacity(b.instrs.len());
        for mut i in std::mem::take(&mut b.instrs) {
            match known_guard(&i.guard, &known) {
                Some(false) => {
                    count += 1;
                    continue;
                }
                Some(true) => i.guard = Src::PT,
                None => {}
            }
            let unguarded = i.guard.is_zero();
            let mut replaced: Option<Vec<Instr>> = None;
            // Results of an op kept because it writes the carry.
            let mut kept_results: Option<Vec<(Reg, VSrc, u8)>> = None;
            let writes_cc = matches!(&i.op, VOp::Hw(op) if op.cc_use(sm).1);
            let mut carry_after: Option<bool> = None;
            if let VOp::Hw(op) = &i.op
                && op.has_fold(sm)
                && !op.src_info().is_empty()
                && op.class() != "control"
                // Copies of the results would each read the guard the
                // first of them rewrites (a result written to PT is dropped,
                // so it rewrites no guard).
                && !(0..op.dst_info().len())
                    .any(|k| !op.dst(k).is_zero() && Some(*op.dst(k)) == i.guard.as_reg())
            {
                let vals: Option<Vec<Value>> = op
                    .src_info()
                    .iter()
                    .enumerate()
                    .map(|(k, info)| known_src(op.src(k), info.ty, &known))
                    .collect();
                if let Some(vals) = vals
                    && let Ok((res, written)) = op.fold_cc(sm, &vals, carry)
                {
                    carry_after = written;
                    let mut copies = Vec::new();
                    for (k, info) in op.dst_info().iter().enumerate() {
                        let d = *op.dst(k);
                        if d.is_zero() {
                            continue;
                        }
                        let src = match res.as_slice().get(k) {
                            Some(Value::Pred(p)) => VSrc::Reg {
                                reg: Reg::PT,
                                comps: 1,
                                not: !p,
                            },
                            Some(Value::U32(v)) => VSrc::Imm(*v as u64),
                            Some(Value::U64(v)) => VSrc::Imm(*v),
                            None => continue,
                        };
                        copies.push(
                            Instr::new(VOp::Copy {
                                dst: VReg::new(d, info.ty.regs()),
                                src,
                            })
                            .with_guard(i.guard),
                        );
                    }
                    if writes_cc {
                        kept_results = Some(
                            copies
                                .iter()
                                .filter_map(|c| match &c.op {
                                    VOp::Copy { dst, src } => Some((dst.reg, *src, dst.comps)),
                                    _ => None,
                                })
                                .collect(),
                        );
                    } else {
                        replaced = Some(copies);
                    }
                }
            }
            if writes_cc {
                carry = if unguarded { carry_after } else { None };
            }
            let new = match replaced {
                Some(v) => {
                    count += 1;
                    v
                }
                None => vec![i],
            };
            for n in new {
                // Track what the instruction leaves in registers.
                let defs = n.defs();
                for d in &defs {
                    known.remove(d);
                }
                if unguarded && let VOp::Copy { dst, src } = &n.op {
                    for k in 0..dst.comps {
                        let d = dst.comp(k);
                        let ty = if d.file.is_pred() {
                            ValueType::Pred
                        } else {
                            ValueType::U32
                        };
                        let v = known_src(&src.comp(k), ty, &known).map(|v| match v {
                            Value::Pred(p) => p as u64,
                            Value::U32(x) => x as u64,
                            Value::U64(x) => x,
                        });
                        if let Some(v) = v
                            && !d.is_zero()
                        {
                            let v = if ty.is_pred() {
                                v ^ src.comp(k).not as u64
                            } else {
                                v
                            };
                            known.insert(d, v);
                        }
                    }
                }
                out.push(n);
            }
            // A kept carry writer: its results are known all the same.
            if unguarded && let Some(rs) = kept_results {
                for (reg, src, comps) in rs {
                    for k in 0..comps {
                        let d = comp_reg(reg, k);
                        let v = match src.comp(k).kind {
                            SrcKind::Imm(x) => Some(x as u64),
                            _ => None,
                        };
                        if let Some(v) = v
                            && !d.is_zero()
                            && !d.file.is_pred()
                        {
                            known.insert(d, v);
                        }
                    }
                }
            }
        }
        b.instrs = out;
    }
    count
}
