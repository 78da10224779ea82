//! Functions the spec's fold expressions may call: the parts of GPU
//! arithmetic that plain Rust operators do not express.

/// Shift-amount clamp or wrap for a shift over `bits` bits.
pub fn shift_amount(s: u32, bits: u32, wrap: bool) -> u32 {
    if wrap { s & (bits - 1) } else { s.min(bits) }
}

use crate::fold::FoldError;
use crate::isa::{Fcmp, MufuFmt, MufuOp, Rnd, Setop};

/// The canonical NaN the float units return.
pub const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;

/// Flush a denormal to a zero of the same sign.
pub fn ftz_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

fn next_up_f32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down_f32(x: f32) -> f32 {
    -next_up_f32(-x)
}

/// Round the exact value `hi + lo` (with `hi == fl64(hi + lo)`) to f32 in
/// mode `rnd`.
pub fn round_f64_pair_to_f32(hi: f64, lo: f64, rnd: Rnd) -> f32 {
    if hi.is_nan() {
        return f32::from_bits(CANONICAL_NAN_F32);
    }
    if hi.is_infinite() {
        return hi as f32;
    }
    let r0 = hi as f32;
    if r0.is_infinite() {
        // Beyond the f32 range: directed modes stop at the largest finite.
        let max = if hi > 0.0 { f32::MAX } else { f32::MIN };
        return match rnd {
            Rnd::Rn => r0,
            Rnd::Rz => max,
            Rnd::Rm => {
                if hi > 0.0 {
                    max
                } else {
                    r0
                }
            }
            Rnd::Rp => {
                if hi > 0.0 {
                    r0
                } else {
                    max
                }
            }
        };
    }
    // Exact sign of (hi + lo) - r0.
    let m = hi - r0 as f64;
    let d = m + lo;
    match rnd {
        Rnd::Rn => {
            if m != 0.0 && lo != 0.0 {
                let other = if m > 0.0 {
                    next_up_f32(r0)
                } else {
                    next_down_f32(r0)
                };
                let tie = (other as f64 - hi).abs() == m.abs();
                if tie && (lo > 0.0) == (m > 0.0) {
                    return other;
                }
            }
            r0
        }
        Rnd::Rm => {
            if d < 0.0 {
                next_down_f32(r0)
            } else {
                r0
            }
        }
        Rnd::Rp => {
            if d > 0.0 {
                next_up_f32(r0)
            } else {
                r0
            }
        }
        Rnd::Rz => {
            if r0 > 0.0 && d < 0.0 {
                next_down_f32(r0)
            } else if r0 < 0.0 && d > 0.0 {
                next_up_f32(r0)
            } else if r0 == 0.0 {
                f32::from_bits(if hi < 0.0 { 0x8000_0000 } else { 0 })
            } else {
                r0
            }
        }
    }
}

/// Exact f64 sum as a (rounded sum, error) pair (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, if s.is_finite() { e } else { 0.0 })
}

fn zero_sum_sign(x: f64, y: f64, rnd: Rnd) -> f32 {
    if x.is_sign_negative() == y.is_sign_negative() {
        if x.is_sign_negative() { -0.0 } else { 0.0 }
    } else if rnd == Rnd::Rm {
        -0.0
    } else {
        0.0
    }
}

fn finish_f32(r: f32, ftz: bool, sat: bool) -> f32 {
    let mut r = if r.is_nan() {
        f32::from_bits(CANONICAL_NAN_F32)
    } else {
        r
    };
    if ftz {
        r = ftz_f32(r);
    }
    if sat {
        r = if r.is_nan() || r <= 0.0 {
            0.0
        } else if r >= 1.0 {
            1.0
        } else {
            r
        };
    }
    r
}

/// FADD: a + b rounded by `rnd`; `ftz` flushes denormal inputs and result.
pub fn fadd_f32(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    let (a, b) = if ftz {
        (ftz_f32(a), ftz_f32(b))
    } else {
        (a, b)
    };
    let (x, y) = (a as f64, b as f64);
    let (hi, lo) = two_sum(x, y);
    let r = if hi == 0.0 && lo == 0.0 && !hi.is_nan() {
        if x == 0.0 && y == 0.0 {
            zero_sum_sign(x, y, rnd)
        } else {
            zero_sum_sign(1.0, -1.0, rnd)
        }
    } else {
        round_f64_pair_to_f32(hi, lo, rnd)
    };
    finish_f32(r, ftz, sat)
}

/// FMUL: a * b rounded by `rnd` (the f64 product is exact).
pub fn fmul_f32(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    let (a, b) = if ftz {
        (ftz_f32(a), ftz_f32(b))
    } else {
        (a, b)
    };
    let p = a as f64 * b as f64;
    finish_f32(round_f64_pair_to_f32(p, 0.0, rnd), ftz, sat)
}

/// FFMA: a * b + c with one rounding.
pub fn ffma_f32(a: f32, b: f32, c: f32, rnd: Rnd, ftz: bool, sat: bool) -> f32 {
    let (a, b, c) = if ftz {
        (ftz_f32(a), ftz_f32(b), ftz_f32(c))
    } else {
        (a, b, c)
    };
    let p = a as f64 * b as f64;
    let z = c as f64;
    let (hi, lo) = two_sum(p, z);
    let r = if hi == 0.0 && lo == 0.0 && !hi.is_nan() {
        if p == 0.0 && z == 0.0 {
            zero_sum_sign(p, z, rnd)
        } else {
            zero_sum_sign(1.0, -1.0, rnd)
        }
    } else {
        round_f64_pair_to_f32(hi, lo, rnd)
    };
    finish_f32(r, ftz, sat)
}

/// FMNMX: min if `min` else max; -0 < +0; a NaN input yields the other
/// input (both NaN: canonical NaN). `.NAN` propagates NaN instead;
/// `.XORSIGN` gives the result the XOR of the input signs.
pub fn fmnmx_f32(a: f32, b: f32, min: bool, ftz: bool, nan: bool, xorsign: bool) -> f32 {
    let (a, b) = if ftz {
        (ftz_f32(a), ftz_f32(b))
    } else {
        (a, b)
    };
    let qnan = f32::from_bits(CANONICAL_NAN_F32);
    if a.is_nan() && b.is_nan() || nan && (a.is_nan() || b.is_nan()) {
        return qnan;
    }
    let r = if a.is_nan() {
        b
    } else if b.is_nan() {
        a
    } else {
        let a_lt_b = a < b || (a == b && a.is_sign_negative() && !b.is_sign_negative());
        if a_lt_b == min { a } else { b }
    };
    if xorsign {
        let s = (a.to_bits() ^ b.to_bits()) & 0x8000_0000;
        f32::from_bits((r.to_bits() & 0x7fff_ffff) | s)
    } else {
        r
    }
}

/// Float comparison (ordered, unordered, NUM, NAN, F, T).
pub fn fcmp_f32(cmp: Fcmp, a: f32, b: f32, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (ftz_f32(a), ftz_f32(b))
    } else {
        (a, b)
    };
    let un = a.is_nan() || b.is_nan();
    match cmp {
        Fcmp::F => false,
        Fcmp::Lt => a < b,
        Fcmp::Eq => a == b,
        Fcmp::Le => a <= b,
        Fcmp::Gt => a > b,
        Fcmp::Ne => !un && a != b,
        Fcmp::Ge => a >= b,
        Fcmp::Num => !un,
        Fcmp::Nan => un,
        Fcmp::Ltu => un || a < b,
        Fcmp::Equ => un || a == b,
        Fcmp::Leu => un || a <= b,
        Fcmp::Gtu => un || a > b,
        Fcmp::Neu => un || a != b,
        Fcmp::Geu => un || a >= b,
        Fcmp::T => true,
    }
}

/// Combine a comparison result with the accumulator predicate.
pub fn setop_apply(op: Setop, r: bool, acc: bool) -> bool {
    match op {
        Setop::And => r && acc,
        Setop::Or => r || acc,
        Setop::Xor => r ^ acc,
    }
}

/// MUFU, approximated with std functions (F32 forms only). SIN/COS take
/// turns; RCP64H/RSQ64H work on the high word of a double.
pub fn mufu_f32(op: MufuOp, fmt: MufuFmt, a: f32) -> Result<f32, FoldError> {
    if fmt != MufuFmt::F32 {
        return Err(FoldError::new("MUFU fold: only the F32 format is modelled"));
    }
    let hi64 = |f: fn(f64) -> f64| -> f32 {
        let x = f64::from_bits((a.to_bits() as u64) << 32);
        f32::from_bits((f(x).to_bits() >> 32) as u32)
    };
    let tau = std::f32::consts::TAU;
    Ok(match op {
        MufuOp::Cos => (a * tau).cos(),
        MufuOp::Sin => (a * tau).sin(),
        MufuOp::Ex2 => a.exp2(),
        MufuOp::Lg2 => a.log2(),
        MufuOp::Rcp => 1.0 / a,
        MufuOp::Rsq => 1.0 / a.sqrt(),
        MufuOp::Rcp64h => hi64(|x| 1.0 / x),
        MufuOp::Rsq64h => hi64(|x| 1.0 / x.sqrt()),
        MufuOp::Sqrt => a.sqrt(),
        MufuOp::Tanh => a.tanh(),
    })
}
