//! 32-bit integer multiply (`mul32`, the low word of a * b, NIR's `imul`)
//! into the hardware ops of the family:
//!
//! * SM70+: one `IMAD d, a, b, RZ`.
//! * SM50 (Maxwell/Pascal) has no 32x32 multiplier on the fast path, only
//!   XMAD's 16x16; ptxas multiplies registers in three (as in its output
//!   for `a * b`):
//!   `XMAD t, a, b, RZ` (a.lo * b.lo),
//!   `XMAD.MRG u, a, b.H1, RZ` (the low half of a.lo * b.hi, b.lo above it),
//!   `XMAD.PSL.CBCC d, a.H1, u.H1, t` ((a.hi * b.lo) << 16 + t + (u << 16)).
//!   An immediate b is split into its halves instead (16-bit immediates):
//!   `XMAD t, a, lo, RZ`, `XMAD.PSL t2, a.H1, lo, t` and, when the high
//!   half is not zero, `XMAD.PSL d, a, hi, t2`.
//!
//! The results are checked against Rust's `wrapping_mul` by running the
//! lowered code (tests/backend.rs, `mul32_matches_rust`).

use super::PassError;
use crate::backend::ir::{Function, Instr, RegPool, VOp, VReg, VSrc};
#[allow(unused_imports)]
use crate::runtime::operand::{Reg, RegFile, Src};

/// Lower every `mul32` of `f`.
pub fn lower(f: &mut Function) -> Result<(), PassError> {
    super::replace_each(
        f,
        |op| matches!(op, VOp::Mul32 { .. }),
        |sm, op, pool, out| match op {
            VOp::Mul32 { dst, a, b } => lower_one(sm, dst, a, b, pool, out),
            _ => Err(PassError::new("mul32 lowering given another op")),
        },
    )
}

fn lower_one(
    sm: u32,
    dst: VReg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    if dst.comps != 1 || dst.reg.file != RegFile::Gpr {
        return Err(PassError::new("mul32: the destination is one GPR"));
    }
    // Constants go second (XMAD's a is always a register).
    let (a, b) = match (a, b) {
        (VSrc::Imm(x), VSrc::Imm(y)) => {
            let p = (x as u32).wrapping_mul(y as u32);
            out.push(Instr::new(VOp::Copy {
                dst,
                src: VSrc::Imm(p as u64),
            }));
            return Ok(());
        }
        (VSrc::Reg { .. }, _) => (a, b),
        _ => (b, a),
    };
    let fam = crate::isa::family_of(sm).ok_or_else(|| PassError::new(format!("SM{sm}")))?;
    if fam == crate::isa::Family::Sm50 {
        sm50(dst.reg, a, b, pool, out)
    } else {
        sm70(dst.reg, a, b, out)
    }
}

// Without the ops (cfg off) the arguments are unused.
#[allow(unused_variables, unreachable_code, clippy::ptr_arg)]
fn sm70(d: Reg, a: VSrc, b: VSrc, out: &mut Vec<Instr>) -> Result<(), PassError> {
    #[cfg(nak_op = "imad")]
    {
        out.push(Instr::hw(crate::isa::OpImad {
            d,
            a: a.src(),
            b: b.src(),
            c: Src::reg(Reg::RZ),
            ty: crate::isa::IntType::U32,
        }));
        return Ok(());
    }
    Err(PassError::new("mul32 on SM70+ needs IMAD in the spec"))
}

#[allow(unused_variables, unreachable_code, clippy::ptr_arg)]
fn sm50(
    d: Reg,
    a: VSrc,
    b: VSrc,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    #[cfg(nak_op = "xmad")]
    {
        use crate::isa::{OpXmad, XmadCmode, XmadSign};
        let xmad = |d: Reg, a: Src, asel: u32, b: Src, bsel: u32, c: Src| OpXmad {
            d,
            a,
            b,
            c,
            sign: XmadSign::U16U16,
            psl: false,
            cmode: XmadCmode::C,
            mrg: false,
            x: false,
            cc: false,
            asel,
            bsel,
        };
        let mut temp = || {
            pool.alloc(RegFile::Gpr, 1, 1)
                .ok_or_else(|| PassError::new("mul32: no free register"))
        };
        let rz = Src::reg(Reg::RZ);
        let t = temp()?;
        if let VSrc::Imm(v) = b {
            let (lo, hi) = (v as u32 & 0xffff, v as u32 >> 16);
            let lo = Src::imm(lo);
            out.push(Instr::hw(xmad(t, a.src(), 0, lo, 0, rz)));
            let t2 = if hi == 0 { d } else { temp()? };
            out.push(Instr::hw(OpXmad {
                psl: true,
                ..xmad(t2, a.src(), 1, lo, 0, Src::reg(t))
            }));
            if hi != 0 {
                out.push(Instr::hw(OpXmad {
                    psl: true,
                    ..xmad(d, a.src(), 0, Src::imm(hi), 0, Src::reg(t2))
                }));
            }
            return Ok(());
        }
        let u = temp()?;
        out.push(Instr::hw(xmad(t, a.src(), 0, b.src(), 0, rz)));
        out.push(Instr::hw(OpXmad {
            mrg: true,
            ..xmad(u, a.src(), 0, b.src(), 1, rz)
        }));
        out.push(Instr::hw(OpXmad {
            psl: true,
            cmode: XmadCmode::Cbcc,
            ..xmad(d, a.src(), 1, Src::reg(u), 1, Src::reg(t))
        }));
        return Ok(());
    }
    Err(PassError::new("mul32 on SM50 needs XMAD in the spec"))
}
