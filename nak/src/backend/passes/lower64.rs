//! 64-bit lowering: `add64`/`sub64`/`shl64`/`shr64`/`setp64`/`min64`/`max64`
//! into 32-bit hardware ops, per family, with the ops of the spec. Shift
//! amounts wrap mod 64 (NIR's `ishl`/`ushr`/`ishr`, Rust's `wrapping_shl`):
//!
//! * SM70+ shifts: two SHF with `.W` and a 64-bit type, one returning the
//!   low word and one (`.HI`) the high word of the shifted pair:
//!   `shl`: `SHF.L.W.U64 a.lo, b, a.hi` and `SHF.L.W.U64.HI a.lo, b, a.hi`;
//!   `shr`: `SHF.R.W.{U64,S64}` and `SHF.R.W.{U64,S64}.HI`, same sources.
//! * SM70+ add/sub: IADD3 with a carry-out predicate, then IADD3.X reading it
//!   (sub: `a + ~b + 1`, the +1 being IADD3's negation of b.lo).
//! * SM70+ compares: ISETP on the low words (unsigned), ISETP.EX on the high
//!   words reading the low result; min/max: a compare and two SEL.
//!
//! * SM50 (Maxwell/Pascal) shifts: a left SHF always returns the high word
//!   there, and SHL/SHR clamp the amount at 32 with no 64-bit wrap (the
//!   spec's SM50 folds, tested in tests/fold_bitops_sm50.rs), so a
//!   register amount is first reduced by `LOP.AND t, b, 0x3f` (a constant
//!   one at lowering time): `shl`: hi = `SHF.L.U64 a.lo, t, a.hi`, lo =
//!   `SHL a.lo, t` (three instructions);
//!   `shr`: lo = `SHF.R.{U64,S64} a.lo, t, a.hi`, hi = `SHR[.U32] a.hi, t`.
//! * SM50 add/sub: the carry goes through the CC register: lo = `IADD.CC
//!   a.lo, ±b.lo`, hi = `IADD.X a.hi, ±b.hi` (a negated source enters the
//!   adder as ~x, so the subtraction is a + ~b + 1 across both words).
//! * SM50 compares without ISETP.X: the low-word compare (unsigned), then
//!   `ISETP.EQ.AND` of the high words with it, then the strict high-word
//!   compare `.OR`ed in; min/max: a compare and two SEL.
//!
//! Each part is compiled only when the spec has its ops (`cfg(nak_op = ..)`
//! from the build script); without them lowering reports which op is
//! missing.

use super::PassError;
use crate::backend::ir::{Function, Instr, Op64, RegPool, VOp, VReg, VSrc};
#[allow(unused_imports)]
use crate::runtime::operand::{Reg, RegFile, Src};

/// Lower every 64-bit virtual op of `f`.
pub fn lower(f: &mut Function) -> Result<(), PassError> {
    super::replace_each(
        f,
        |op| matches!(op, VOp::Wide { .. }),
        |sm, vop, pool, out| match vop {
            VOp::Wide { op, dst, a, b } => lower_one(sm, op, dst, a, b, pool, out),
            _ => Err(PassError::new("64-bit lowering given another op")),
        },
    )
}

/// Whether `d` (a pair) overlaps a register source.
#[allow(dead_code)]
fn overlaps(d: &VReg, s: &VSrc) -> bool {
    let VSrc::Reg { reg, comps, .. } = *s else {
        return false;
    };
    (0..d.comps).any(|i| {
        (0..comps).any(|j| !reg.is_zero() && d.comp(i) == crate::backend::ir::comp_reg(reg, j))
    })
}

#[allow(unused_variables)]
fn lower_one(
    sm: u32,
    op: Op64,
    dst: VReg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    let fam = crate::isa::family_of(sm).ok_or_else(|| PassError::new(format!("SM{sm}")))?;
    let is_setp = matches!(op, Op64::Setp { .. });
    if (is_setp && (dst.comps != 1 || !dst.reg.file.is_pred()))
        || (!is_setp && (dst.comps != 2 || dst.reg.file.is_pred()))
    {
        return Err(PassError::new(format!("64-bit {op:?}: bad destination")));
    }
    // Write through a temporary pair when the destination overlaps a source
    // the second instruction still reads.
    let (d, copy_back) = if !is_setp && (overlaps(&dst, &a) || overlaps(&dst, &b)) {
        let t = pool
            .alloc(dst.reg.file, 2, 2)
            .ok_or_else(|| PassError::new("no free register pair"))?;
        (VReg::new(t, 2), Some(dst))
    } else {
        (dst, None)
    };
    if fam == crate::isa::Family::Sm50 {
        sm50(op, d, a, b, pool, out)?;
    } else {
        sm70(op, d, a, b, pool, out)?;
    }
    if let Some(orig) = copy_back {
        out.push(Instr::new(VOp::Copy {
            dst: orig,
            src: VSrc::wide(d),
        }));
    }
    Ok(())
}

// Without the ops (cfg off) `out` is unused and clippy wants a slice.
#[allow(unused_variables, unreachable_code, clippy::ptr_arg)]
fn sm70(
    op: Op64,
    d: VReg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    let missing = |what: &str| {
        Err(PassError::new(format!(
            "64-bit {op:?} needs {what} in the spec"
        )))
    };
    match op {
        Op64::Shl | Op64::Shr { .. } => {
            #[cfg(nak_op = "shf")]
            {
                use crate::isa::{OpShf, ShfDir, ShfType};
                // `.W` wraps the amount mod 64 for the 64-bit types; both
                // halves come from the same 64-bit funnel of (a.hi:a.lo).
                let amount = match b {
                    VSrc::Imm(s) => VSrc::Imm(s & 63),
                    other => other,
                };
                let shf = |d: Reg, dir, ty, hi| {
                    Instr::hw(OpShf {
                        d,
                        a: a.comp(0),
                        b: amount.src(),
                        c: a.comp(1),
                        dir,
                        wrap: true,
                        ty,
                        hi,
                        x: false,
                        cc: false,
                    })
                };
                let (dir, ty) = match op {
                    Op64::Shl => (ShfDir::L, ShfType::U64),
                    Op64::Shr { signed: true } => (ShfDir::R, ShfType::S64),
                    _ => (ShfDir::R, ShfType::U64),
                };
                // d does not overlap a (see lower_one), so the second SHF
                // still reads the original pair.
                out.push(shf(d.comp(0), dir, ty, false));
                out.push(shf(d.comp(1), dir, ty, true));
                return Ok(());
            }
            missing("SHF")
        }
        Op64::Add | Op64::Sub => {
            #[cfg(nak_op = "iadd3x")]
            {
                use crate::isa::{OpIadd3, OpIadd3x};
                let carry = pool
                    .alloc(RegFile::Pred, 1, 1)
                    .ok_or_else(|| PassError::new("no free predicate for the carry"))?;
                let sub = op == Op64::Sub;
                out.push(Instr::hw(OpIadd3 {
                    d: d.comp(0),
                    co0: carry,
                    co1: Reg::PT,
                    a: a.comp(0),
                    b: b.comp(0).with_neg(sub),
                    c: Src::RZ,
                    mode: Default::default(),
                    x: false,
                    cc: false,
                    asel: Default::default(),
                    bsel: Default::default(),
                    csel: Default::default(),
                }));
                out.push(Instr::hw(OpIadd3x {
                    d: d.comp(1),
                    co0: Reg::PT,
                    co1: Reg::PT,
                    a: a.comp(1),
                    b: b.comp(1).with_not(sub),
                    c: Src::RZ,
                    ci0: Src::reg(carry),
                    ci1: Src::FALSE,
                }));
                return Ok(());
            }
            missing("IADD3.X")
        }
        Op64::Setp { cmp, signed } => {
            #[cfg(nak_op = "isetp")]
            {
                setp(cmp, signed, d.reg, a, b, pool, out)?;
                return Ok(());
            }
            missing("ISETP")
        }
        Op64::Min { signed } | Op64::Max { signed } => {
            #[cfg(all(nak_op = "isetp", nak_op = "sel"))]
            {
                use crate::isa::{Icmp, OpSel};
                let p = pool
                    .alloc(RegFile::Pred, 1, 1)
                    .ok_or_else(|| PassError::new("no free predicate"))?;
                let cmp = if matches!(op, Op64::Min { .. }) {
                    Icmp::Lt
                } else {
                    Icmp::Gt
                };
                setp(cmp, signed, p, a, b, pool, out)?;
                for k in 0..2 {
                    out.push(Instr::hw(OpSel {
                        d: d.comp(k),
                        a: a.comp(k),
                        b: b.comp(k),
                        cond: Src::reg(p),
                    }));
                }
                return Ok(());
            }
            missing("ISETP and SEL")
        }
    }
}

#[cfg(nak_op = "isetp")]
fn setp(
    cmp: crate::isa::Icmp,
    signed: bool,
    d: Reg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    use crate::isa::{IsetpType, OpIsetp, Setop};
    let lo = pool
        .alloc(RegFile::Pred, 1, 1)
        .ok_or_else(|| PassError::new("no free predicate"))?;
    let isetp = |d, a, b, ty, ex, lc| {
        Instr::hw(OpIsetp {
            d,
            d2: Reg::PT,
            a,
            b,
            acc: Src::PT,
            lc,
            cmp,
            ty,
            setop: Setop::And,
            ex,
            x: false,
        })
    };
    out.push(isetp(
        lo,
        a.comp(0),
        b.comp(0),
        IsetpType::U32,
        false,
        Src::PT,
    ));
    let ty = if signed {
        IsetpType::S32
    } else {
        IsetpType::U32
    };
    out.push(isetp(d, a.comp(1), b.comp(1), ty, true, Src::reg(lo)));
    Ok(())
}

// Without the ops (cfg off) `out` is unused and clippy wants a slice.
#[allow(unused_variables, unreachable_code, clippy::ptr_arg)]
fn sm50(
    op: Op64,
    d: VReg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    let missing = |what: &str| {
        Err(PassError::new(format!(
            "64-bit {op:?} on SM50 needs {what} in the spec"
        )))
    };
    match op {
        Op64::Shl | Op64::Shr { .. } => {
            #[cfg(all(nak_op = "shf", nak_op = "shl", nak_op = "shr", nak_op = "lop"))]
            {
                use crate::isa::{
                    LopOp, OpLop, OpShf, OpShl, OpShr, PredOp, ShfDir, ShfType, ShrType, ShrX,
                };
                // SHL/SHR clamp their amount at 32 and have no 64-bit wrap,
                // so the amount is reduced mod 64 first: at lowering time
                // for a constant, by a LOP.AND otherwise.
                let amount = match b {
                    VSrc::Imm(s) => Src::imm((s & 63) as u32),
                    other => {
                        let t = pool.alloc(RegFile::Gpr, 1, 1).ok_or_else(|| {
                            PassError::new("no free register for the shift amount")
                        })?;
                        out.push(Instr::hw(OpLop {
                            pd: Reg::PT,
                            d: t,
                            a: other.src(),
                            b: Src::imm(63),
                            op: LopOp::And,
                            pop: PredOp::F,
                            cc: false,
                            x: false,
                        }));
                        Src::reg(t)
                    }
                };
                let shf = |d: Reg, dir, ty| {
                    Instr::hw(OpShf {
                        d,
                        a: a.comp(0),
                        b: amount,
                        c: a.comp(1),
                        dir,
                        wrap: false,
                        ty,
                        hi: false,
                        x: false,
                        cc: false,
                    })
                };
                match op {
                    Op64::Shl => {
                        // A left SHF returns the high word on SM50.
                        out.push(shf(d.comp(1), ShfDir::L, ShfType::U64));
                        out.push(Instr::hw(OpShl {
                            d: d.comp(0),
                            a: a.comp(0),
                            b: amount,
                            wrap: false,
                            x: false,
                            cc: false,
                        }));
                    }
                    Op64::Shr { signed } => {
                        let (t64, t32) = if signed {
                            (ShfType::S64, ShrType::S32)
                        } else {
                            (ShfType::U64, ShrType::U32)
                        };
                        out.push(shf(d.comp(0), ShfDir::R, t64));
                        out.push(Instr::hw(OpShr {
                            d: d.comp(1),
                            a: a.comp(1),
                            b: amount,
                            ty: t32,
                            wrap: false,
                            xmode: ShrX::None,
                            brev: false,
                            cc: false,
                        }));
                    }
                    _ => unreachable!(),
                }
                return Ok(());
            }
            missing("SHF, SHL, SHR and LOP")
        }
        Op64::Add | Op64::Sub => {
            #[cfg(nak_op = "iadd")]
            {
                use crate::isa::OpIadd;
                let sub = op == Op64::Sub;
                // A negated immediate would be folded into its value by the
                // legalizer, which changes the adder's carry (a + ~b + 1 is
                // not a + (-b) for b = 0): subtract a register instead.
                let b = match b {
                    VSrc::Reg { .. } => b,
                    other if sub => {
                        let t = pool
                            .alloc(RegFile::Gpr, 2, 2)
                            .ok_or_else(|| PassError::new("no free register pair"))?;
                        out.push(Instr::new(crate::backend::ir::VOp::Copy {
                            dst: VReg::new(t, 2),
                            src: other,
                        }));
                        VSrc::wide(VReg::new(t, 2))
                    }
                    other => other,
                };
                out.push(Instr::hw(OpIadd {
                    d: d.comp(0),
                    co0: Reg::PT,
                    a: a.comp(0),
                    b: b.comp(0).with_neg(sub),
                    cc: true,
                    x: false,
                    sat: false,
                }));
                out.push(Instr::hw(OpIadd {
                    d: d.comp(1),
                    co0: Reg::PT,
                    a: a.comp(1),
                    b: b.comp(1).with_neg(sub),
                    cc: false,
                    x: true,
                    sat: false,
                }));
                return Ok(());
            }
            missing("IADD")
        }
        Op64::Setp { cmp, signed } => {
            #[cfg(nak_op = "isetp")]
            {
                setp50(cmp, signed, d.reg, a, b, pool, out)?;
                return Ok(());
            }
            missing("ISETP")
        }
        Op64::Min { signed } | Op64::Max { signed } => {
            #[cfg(all(nak_op = "isetp", nak_op = "sel"))]
            {
                use crate::isa::{Icmp, OpSel};
                let p = pool
                    .alloc(RegFile::Pred, 1, 1)
                    .ok_or_else(|| PassError::new("no free predicate"))?;
                let cmp = if matches!(op, Op64::Min { .. }) {
                    Icmp::Lt
                } else {
                    Icmp::Gt
                };
                setp50(cmp, signed, p, a, b, pool, out)?;
                for k in 0..2 {
                    out.push(Instr::hw(OpSel {
                        d: d.comp(k),
                        a: a.comp(k),
                        b: b.comp(k),
                        cond: Src::reg(p),
                    }));
                }
                return Ok(());
            }
            missing("ISETP and SEL")
        }
    }
}

/// A 64-bit compare from 32-bit ISETPs (no ISETP.X): the low words compare
/// unsigned; equal high words defer to it.
#[cfg(nak_op = "isetp")]
fn setp50(
    cmp: crate::isa::Icmp,
    signed: bool,
    d: Reg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    use crate::isa::{Icmp, IsetpType, OpIsetp, Setop};
    let ty = if signed {
        IsetpType::S32
    } else {
        IsetpType::U32
    };
    let isetp = |d, a, b, cmp, ty, setop, acc| {
        Instr::hw(OpIsetp {
            d,
            d2: Reg::PT,
            a,
            b,
            acc,
            lc: Src::PT,
            cmp,
            ty,
            setop,
            ex: false,
            x: false,
        })
    };
    let (ahi, bhi, alo, blo) = (a.comp(1), b.comp(1), a.comp(0), b.comp(0));
    match cmp {
        Icmp::F | Icmp::T => out.push(isetp(d, ahi, bhi, cmp, ty, Setop::And, Src::PT)),
        Icmp::Eq | Icmp::Ne => {
            let p = pool
                .alloc(RegFile::Pred, 1, 1)
                .ok_or_else(|| PassError::new("no free predicate"))?;
            let setop = if cmp == Icmp::Eq {
                Setop::And
            } else {
                Setop::Or
            };
            out.push(isetp(p, alo, blo, cmp, IsetpType::U32, Setop::And, Src::PT));
            out.push(isetp(d, ahi, bhi, cmp, ty, setop, Src::reg(p)));
        }
        _ => {
            let p = pool
                .alloc(RegFile::Pred, 1, 1)
                .ok_or_else(|| PassError::new("no free predicate"))?;
            let strict = match cmp {
                Icmp::Lt | Icmp::Le => Icmp::Lt,
                _ => Icmp::Gt,
            };
            out.push(isetp(p, alo, blo, cmp, IsetpType::U32, Setop::And, Src::PT));
            out.push(isetp(p, ahi, bhi, Icmp::Eq, ty, Setop::And, Src::reg(p)));
            out.push(isetp(d, ahi, bhi, strict, ty, Setop::Or, Src::reg(p)));
        }
    }
    Ok(())
}
