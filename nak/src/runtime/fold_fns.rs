//! Functions the spec's fold expressions may call: the parts of GPU
//! arithmetic that plain Rust operators do not express.

/// Shift-amount clamp or wrap for a shift over `bits` bits.
pub fn shift_amount(s: u32, bits: u32, wrap: bool) -> u32 {
    if wrap { s & (bits - 1) } else { s.min(bits) }
}

use crate::isa::{
    CvtFtype32, CvtFtypeShown32, CvtItype32, Dcmp, F2iRnd, Fcmp, Hswz, Icmp, MufuFmt, MufuOp,
    PrmtMode, Rnd, Setop, ShfDir, ShfType,
};
use crate::runtime::fold::FoldError;

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

/// Double comparison (DSETP): as `fcmp_f32`, exact on every f64 (no
/// flush of denormals). Codes F and T are Maxwell's false and true; from
/// Volta they print MIN and MAX and the op's fold refuses them first.
pub fn dcmp_f64(cmp: Dcmp, a: f64, b: f64) -> bool {
    let un = a.is_nan() || b.is_nan();
    match cmp {
        Dcmp::F => false,
        Dcmp::Lt => a < b,
        Dcmp::Eq => a == b,
        Dcmp::Le => a <= b,
        Dcmp::Gt => a > b,
        Dcmp::Ne => !un && a != b,
        Dcmp::Ge => a >= b,
        Dcmp::Num => !un,
        Dcmp::Nan => un,
        Dcmp::Ltu => un || a < b,
        Dcmp::Equ => un || a == b,
        Dcmp::Leu => un || a <= b,
        Dcmp::Gtu => un || a > b,
        Dcmp::Neu => un || a != b,
        Dcmp::Geu => un || a >= b,
        Dcmp::T => true,
    }
}

/// IADD3's and UIADD3's 64-bit sum of three 32-bit terms, each negated
/// (`!x + 1`, in 64 bits: negating 0 carries) when its flag is set; the
/// result's bits 32 and 33 are the two carries out.
pub fn add3_neg(a: u32, a_neg: bool, b: u32, b_neg: bool, c: u32, c_neg: bool) -> u64 {
    let term = |v: u32, n: bool| if n { u64::from(!v) + 1 } else { u64::from(v) };
    term(a, a_neg) + term(b, b_neg) + term(c, c_neg)
}

/// Volta+ SHF's and USHF's funnel shift: the pair (c:a) shifted by b
/// (clamped, or wrapped with .W, over the type's 32 or 64 bits), right
/// shifts of a signed type filling with the sign; the low word, or the
/// high word with .HI.
pub fn shf_u32(dir: ShfDir, ty: ShfType, wrap: bool, hi: bool, a: u32, b: u32, c: u32) -> u32 {
    let bits = match ty {
        ShfType::S64 | ShfType::U64 => 64,
        _ => 32,
    };
    let s = shift_amount(b, bits, wrap);
    let x = (u64::from(c) << 32) | u64::from(a);
    let r: u64 = match (dir, ty) {
        (ShfDir::L, _) => ((u128::from(x)) << s) as u64,
        (ShfDir::R, ShfType::S64 | ShfType::S32) => ((i128::from(x as i64)) >> s) as u64,
        (ShfDir::R, _) => (u128::from(x) >> s) as u64,
    };
    if hi { (r >> 32) as u32 } else { r as u32 }
}

/// LEA.HI's (and ULEA.HI's) shifted term: the high word of the pair
/// (hi:a) shifted left by `shift`, where hi is c, or a's sign with .SX32.
pub fn lea_hi_u32(a: u32, c: u32, sx32: bool, shift: u32) -> u32 {
    let hi = if sx32 { ((a as i32) >> 31) as u32 } else { c };
    let x = (u64::from(hi) << 32) | u64::from(a);
    ((x << shift) >> 32) as u32
}

/// The integer compares' (ISETP, UISETP, 32 and 64 bits) result from
/// a < b and a == b (in the compare's signedness): with .EX, the high
/// words of a wider compare, so equal words give the low words' result
/// `lc` (F and T stay constant).
pub fn icmp_holds(cmp: Icmp, lt: bool, eq: bool, ex: bool, lc: bool) -> bool {
    if ex && eq && !matches!(cmp, Icmp::F | Icmp::T) {
        return lc;
    }
    match cmp {
        Icmp::F => false,
        Icmp::Lt => lt,
        Icmp::Eq => eq,
        Icmp::Le => lt || eq,
        Icmp::Gt => !lt && !eq,
        Icmp::Ne => !eq,
        Icmp::Ge => !lt,
        Icmp::T => true,
    }
}

/// PRMT's and UPRMT's byte permute of the pair (c:a) (a is the low word)
/// by selector b: in index mode each of b's nibbles picks a byte (bit 3
/// replicates that byte's sign); the other modes use b's low 2 bits.
pub fn prmt_u32(mode: PrmtMode, a: u32, b: u32, c: u32) -> u32 {
    let x = (u64::from(c) << 32) | u64::from(a);
    let byte = |i: u32| ((x >> (8 * (i & 7))) & 0xff) as u32;
    let s = b & 3;
    let pick =
        |i: [u32; 4]| byte(i[0]) | (byte(i[1]) << 8) | (byte(i[2]) << 16) | (byte(i[3]) << 24);
    let idx = |k: u32| {
        let n = (b >> (4 * k)) & 0xf;
        match (n & 8 != 0, byte(n) & 0x80 != 0) {
            (true, true) => 0xff,
            (true, false) => 0,
            (false, _) => byte(n),
        }
    };
    match mode {
        PrmtMode::Idx => idx(0) | (idx(1) << 8) | (idx(2) << 16) | (idx(3) << 24),
        PrmtMode::F4e => pick([s, s + 1, s + 2, s + 3]),
        PrmtMode::B4e => pick([s, s.wrapping_sub(1), s.wrapping_sub(2), s.wrapping_sub(3)]),
        PrmtMode::Rc8 => pick([s; 4]),
        PrmtMode::Ecl => pick([s, s.max(1), s.max(2), 3]),
        PrmtMode::Ecr => pick([0, s.min(1), s.min(2), s]),
        PrmtMode::Rc16 if s & 1 != 0 => pick([2, 3, 2, 3]),
        PrmtMode::Rc16 => pick([0, 1, 0, 1]),
    }
}

/// A three-input logic op by truth table: bit `(a<<2)|(b<<1)|c` of `lut`
/// gives the result bit for each bit position of `a`, `b` and `c` (bits of
/// `lut` above 7 are ignored).
pub fn lut3_u32(lut: u32, a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for i in 0..8u32 {
        if (lut >> i) & 1 == 0 {
            continue;
        }
        let pick = |x: u32, bit: u32| if i & bit != 0 { x } else { !x };
        r |= pick(a, 4) & pick(b, 2) & pick(c, 1);
    }
    r
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

/// A fold the spec does not model (e.g. the 64-bit conversions).
pub fn fold_unmodelled<T>(what: &str) -> Result<T, FoldError> {
    Err(FoldError::new(format!("{what}: fold not modelled")))
}

/// Round the exact value `x` to a binary float format with `ebits` exponent
/// and `mbits` mantissa bits (IEEE layout, denormals kept) in mode `rnd`;
/// returns the format's bits. NaN gives the format's canonical NaN (all
/// exponent and mantissa bits set, sign clear).
pub fn round_to_format(x: f64, ebits: u32, mbits: u32, rnd: Rnd) -> u32 {
    let inf = ((1u64 << ebits) - 1) << mbits;
    let sign_bit = 1u64 << (ebits + mbits);
    if x.is_nan() {
        return (inf | ((1u64 << mbits) - 1)) as u32;
    }
    let neg = x.is_sign_negative();
    let sign = if neg { sign_bit } else { 0 };
    let a = x.abs();
    if a == 0.0 {
        return sign as u32;
    }
    if a.is_infinite() {
        return (sign | inf) as u32;
    }
    let bias = (1i32 << (ebits - 1)) - 1;
    let emin = 1 - bias;
    let bexp = ((a.to_bits() >> 52) & 0x7ff) as i32;
    let exp = if bexp == 0 { -1075 } else { bexp - 1023 };
    let e = exp.max(emin);
    // q = a / 2^(e - mbits), exact: a power-of-two scaling in range.
    let sh = mbits as i32 - e;
    let q = a * 2f64.powi(sh.clamp(-1000, 1000)) * 2f64.powi(sh - sh.clamp(-1000, 1000));
    let n = q.floor();
    let frac = q - n;
    let mut n = n as u64;
    let up = match rnd {
        Rnd::Rn => frac > 0.5 || (frac == 0.5 && n & 1 == 1),
        Rnd::Rz => false,
        Rnd::Rm => neg && frac > 0.0,
        Rnd::Rp => !neg && frac > 0.0,
    };
    if up {
        n += 1;
    }
    let mag = (((e + bias - 1) as i64 as u64) << mbits).wrapping_add(n);
    if e + bias - 1 < 0 || mag >= inf {
        // Overflow: infinity, or the largest finite toward zero.
        let to_inf = match rnd {
            Rnd::Rn => true,
            Rnd::Rz => false,
            Rnd::Rm => neg,
            Rnd::Rp => !neg,
        };
        let m = if e + bias - 1 < 0 {
            0
        } else if to_inf {
            inf
        } else {
            inf - 1
        };
        return (sign | m) as u32;
    }
    (sign | mag) as u32
}

fn half_to_f64(h: u32) -> f64 {
    let s = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN,
        _ => s * (1024.0 + m) * 2f64.powi(e - 25),
    }
}

/// The exact value of a source of float type `t`: F32 (flushed when `ftz`),
/// or the low 16 bits as F16/BF16 (the .H1 half select is not modelled).
fn cvt_src_f64(b: u32, t: CvtFtype32, ftz: bool) -> f64 {
    match t {
        CvtFtype32::F32 => {
            let x = f32::from_bits(b);
            (if ftz { ftz_f32(x) } else { x }) as f64
        }
        CvtFtype32::F16 => half_to_f64(b & 0xffff),
        CvtFtype32::Bf16 => f32::from_bits((b & 0xffff) << 16) as f64,
    }
}

/// Round the exact `x` to float type `t`: F32 bits (denormal results
/// flushed when `ftz`), or F16/BF16 in the low 16 bits (high half 0).
fn cvt_dst_bits(x: f64, t: CvtFtype32, rnd: Rnd, ftz: bool) -> u32 {
    match t {
        CvtFtype32::F32 => {
            let r = round_to_format(x, 8, 23, rnd);
            if ftz {
                ftz_f32(f32::from_bits(r)).to_bits()
            } else {
                r
            }
        }
        CvtFtype32::F16 => round_to_format(x, 5, 10, rnd),
        CvtFtype32::Bf16 => round_to_format(x, 8, 7, rnd),
    }
}

fn itype_value(b: u32, t: CvtItype32) -> f64 {
    match t {
        CvtItype32::S32 => b as i32 as f64,
        CvtItype32::U32 => b as f64,
        CvtItype32::S16 => b as u16 as i16 as f64,
        CvtItype32::U16 => (b & 0xffff) as f64,
        CvtItype32::S8 => b as u8 as i8 as f64,
        CvtItype32::U8 => (b & 0xff) as f64,
    }
}

/// I2F (32-bit opcode): the low byte/half/word of `b` (the .B/.H byte
/// select is not modelled) as integer type `st`, rounded to `dt` in `rnd`.
pub fn i2f_f32(b: u32, st: CvtItype32, dt: CvtFtype32, rnd: Rnd) -> Result<f32, FoldError> {
    Ok(f32::from_bits(cvt_dst_bits(
        itype_value(b, st),
        dt,
        rnd,
        false,
    )))
}

/// F2I (32-bit opcode): round to an integer in `rnd`, then saturate to the
/// range of `dt`; NaN gives 0 (the default of the QMD's F2I NaN setting).
/// 8- and 16-bit results are sign- or zero-extended to 32 bits.
pub fn f2i_u32(
    b: f32,
    st: CvtFtype32,
    dt: CvtItype32,
    rnd: F2iRnd,
    ftz: bool,
) -> Result<u32, FoldError> {
    let x = cvt_src_f64(b.to_bits(), st, ftz);
    if x.is_nan() {
        return Ok(0);
    }
    let r = match rnd {
        F2iRnd::Rn => {
            let f = x.floor();
            let d = x - f;
            if d > 0.5 || (d == 0.5 && f % 2.0 != 0.0) {
                f + 1.0
            } else {
                f
            }
        }
        F2iRnd::Floor => x.floor(),
        F2iRnd::Ceil => x.ceil(),
        F2iRnd::Trunc => x.trunc(),
    };
    let (lo, hi): (f64, f64) = match dt {
        CvtItype32::S32 => (i32::MIN as f64, i32::MAX as f64),
        CvtItype32::U32 => (0.0, u32::MAX as f64),
        CvtItype32::S16 => (i16::MIN as f64, i16::MAX as f64),
        CvtItype32::U16 => (0.0, u16::MAX as f64),
        CvtItype32::S8 => (i8::MIN as f64, i8::MAX as f64),
        CvtItype32::U8 => (0.0, u8::MAX as f64),
    };
    let v = r.clamp(lo, hi);
    Ok(if lo < 0.0 {
        v as i64 as u32
    } else {
        v as u64 as u32
    })
}

/// F2F (32-bit opcode): F32/F16/BF16 to F32/F16/BF16, rounded in `rnd`;
/// FTZ flushes F32 denormal inputs and results. NaN gives the canonical
/// NaN of the result type.
pub fn f2f_f32(
    b: f32,
    st: CvtFtypeShown32,
    dt: CvtFtypeShown32,
    rnd: Rnd,
    ftz: bool,
) -> Result<f32, FoldError> {
    let t = |t: CvtFtypeShown32| match t {
        CvtFtypeShown32::F32 => CvtFtype32::F32,
        CvtFtypeShown32::F16 => CvtFtype32::F16,
        CvtFtypeShown32::Bf16 => CvtFtype32::Bf16,
    };
    let x = cvt_src_f64(b.to_bits(), t(st), ftz);
    Ok(f32::from_bits(cvt_dst_bits(x, t(dt), rnd, ftz)))
}

/// A finite f64 as (negative, integer significand, exponent of its last
/// bit): the value is `(-1)^neg * m * 2^e`.
fn f64_parts(x: f64) -> (bool, u128, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1 << 52) - 1)) as u128;
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, exp - 1075)
    };
    (x.is_sign_negative(), m, e)
}

/// An unsigned integer of any width, little-endian 64-bit limbs: exact
/// sums of f64 products span up to ~4,200 bits.
#[derive(Clone, PartialEq, Eq)]
struct Wide(Vec<u64>);

impl Wide {
    /// `m << shift`.
    fn shifted(m: u128, shift: u32) -> Wide {
        let limbs = (shift / 64) as usize;
        let s = shift % 64;
        let mut v = vec![0u64; limbs + 4];
        let wide = [m as u64, (m >> 64) as u64];
        for (i, &w) in wide.iter().enumerate() {
            v[limbs + i] |= w << s;
            if s != 0 {
                v[limbs + i + 1] |= w >> (64 - s);
            }
        }
        Wide(v)
    }

    fn limb(&self, i: usize) -> u64 {
        self.0.get(i).copied().unwrap_or(0)
    }

    fn cmp(&self, o: &Wide) -> std::cmp::Ordering {
        let n = self.0.len().max(o.0.len());
        (0..n)
            .rev()
            .map(|i| self.limb(i).cmp(&o.limb(i)))
            .find(|c| c.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    }

    /// `self + o` (`sub`: `self - o`, with `self >= o`).
    fn add_sub(&self, o: &Wide, sub: bool) -> Wide {
        let n = self.0.len().max(o.0.len()) + 1;
        let mut out = Vec::with_capacity(n);
        let mut carry = 0i128;
        for i in 0..n {
            let o = o.limb(i) as i128;
            let t = self.limb(i) as i128 + if sub { -o } else { o } + carry;
            out.push(t.rem_euclid(1 << 64) as u64);
            carry = t.div_euclid(1 << 64);
        }
        Wide(out)
    }

    fn bit_len(&self) -> u32 {
        let top = self.0.iter().rposition(|&l| l != 0);
        top.map_or(0, |i| i as u32 * 64 + 64 - self.0[i].leading_zeros())
    }

    fn bit(&self, i: u32) -> bool {
        self.limb((i / 64) as usize) >> (i % 64) & 1 == 1
    }

    fn any_below(&self, i: u32) -> bool {
        (0..i).any(|b| self.bit(b))
    }

    /// Bits `lo..lo + 64` as an integer.
    fn bits_from(&self, lo: u32) -> u64 {
        (0..64).fold(0, |acc, k| acc | (self.bit(lo + k) as u64) << k)
    }
}

/// Round `(-1)^neg * m * 2^e` (m exact) to f64 in mode `rnd`, denormals
/// kept, overflow as IEEE directed rounding gives it.
fn round_wide_to_f64(neg: bool, m: &Wide, e: i32, rnd: Rnd) -> f64 {
    let sign = if neg { -1.0 } else { 1.0 };
    let n = m.bit_len();
    if n == 0 {
        return 0.0 * sign;
    }
    let top = e + n as i32 - 1;
    let lsb = (top - 52).max(-1074);
    let (mut q, inexact_up) = if lsb <= e {
        (m.bits_from(0) << (e - lsb), false)
    } else {
        let shift = (lsb - e) as u32;
        let q = m.bits_from(shift);
        let half = m.bit(shift - 1);
        let sticky = m.any_below(shift - 1);
        let up = match rnd {
            Rnd::Rn => half && (sticky || q & 1 == 1),
            Rnd::Rz => false,
            Rnd::Rp => !neg && (half || sticky),
            Rnd::Rm => neg && (half || sticky),
        };
        (q, up)
    };
    q += inexact_up as u64;
    let mut lsb = lsb;
    if q >> 53 != 0 {
        q >>= 1;
        lsb += 1;
    }
    let max_lsb = 1023 - 52;
    if lsb > max_lsb {
        let to_inf = match rnd {
            Rnd::Rn => true,
            Rnd::Rz => false,
            Rnd::Rp => !neg,
            Rnd::Rm => neg,
        };
        return sign * if to_inf { f64::INFINITY } else { f64::MAX };
    }
    let bits = if q >> 52 == 0 {
        q
    } else {
        ((lsb + 1075) as u64) << 52 | (q & ((1 << 52) - 1))
    };
    sign * f64::from_bits(bits)
}

/// `p_sign * pm * 2^pe + c` exactly (pm a product of two significands),
/// rounded once to f64. `c` is finite; the sign of an exact zero follows
/// IEEE (`-0` only from two negative zeros, or in mode RM).
fn round_sum_f64(p: (bool, u128, i32), c: f64, rnd: Rnd) -> f64 {
    let (pn, pm, pe) = p;
    let (cn, cm, ce) = f64_parts(c);
    let base = pe.min(ce);
    let pw = Wide::shifted(pm, (pe - base) as u32);
    let cw = Wide::shifted(cm, (ce - base) as u32);
    if pm == 0 && cm == 0 {
        let neg = if pn == cn { pn } else { rnd == Rnd::Rm };
        return if neg { -0.0 } else { 0.0 };
    }
    let (neg, m) = if pn == cn {
        (pn, pw.add_sub(&cw, false))
    } else {
        match pw.cmp(&cw) {
            std::cmp::Ordering::Equal => return if rnd == Rnd::Rm { -0.0 } else { 0.0 },
            std::cmp::Ordering::Greater => (pn, pw.add_sub(&cw, true)),
            std::cmp::Ordering::Less => (cn, cw.add_sub(&pw, true)),
        }
    };
    round_wide_to_f64(neg, &m, base, rnd)
}

/// The fold of a NaN or infinite operation, or `None` when all is finite.
/// Which NaN the fp64 unit returns is not documented: such folds refuse.
fn special_f64(a: f64, b: f64, c: f64) -> Option<Result<f64, FoldError>> {
    let p = a * b;
    let r = p + c;
    if a.is_nan() || b.is_nan() || c.is_nan() || r.is_nan() {
        return Some(fold_unmodelled("an f64 operation with a NaN result"));
    }
    (a.is_infinite() || b.is_infinite() || c.is_infinite()).then_some(Ok(r))
}

/// DFMA: a * b + c with one rounding in mode `rnd` (denormals kept).
pub fn dfma_f64(a: f64, b: f64, c: f64, rnd: Rnd) -> Result<f64, FoldError> {
    if let Some(r) = special_f64(a, b, c) {
        return r;
    }
    let (an, am, ae) = f64_parts(a);
    let (bn, bm, be) = f64_parts(b);
    Ok(round_sum_f64((an != bn, am * bm, ae + be), c, rnd))
}

/// DADD: a + b rounded in mode `rnd` (denormals kept).
pub fn dadd_f64(a: f64, b: f64, rnd: Rnd) -> Result<f64, FoldError> {
    if let Some(r) = special_f64(a, 1.0, b) {
        return r;
    }
    Ok(round_sum_f64(f64_parts(a), b, rnd))
}

/// DMUL: a * b rounded in mode `rnd` (denormals kept).
pub fn dmul_f64(a: f64, b: f64, rnd: Rnd) -> Result<f64, FoldError> {
    // A product alone: add a zero of the product's own sign, which leaves
    // every value (and a zero's sign) as it is.
    let zero = if a.is_sign_negative() != b.is_sign_negative() {
        -0.0
    } else {
        0.0
    };
    dfma_f64(a, b, zero, rnd)
}

/// DMNMX: `min(a, b)` when `min`, else `max(a, b)`. A NaN input yields
/// the other input (PTX's min.f64 / max.f64, which ptxas compiles to it);
/// which NaN two NaNs give, and which zero `-0` and `+0` give, is not
/// documented: such folds refuse.
pub fn dmnmx_f64(a: f64, b: f64, min: bool) -> Result<f64, FoldError> {
    if a.is_nan() && b.is_nan() {
        return fold_unmodelled("DMNMX of two NaNs");
    }
    if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
        return fold_unmodelled("DMNMX of zeros of both signs");
    }
    Ok(if a.is_nan() || b.is_nan() {
        if a.is_nan() { b } else { a }
    } else if (a < b) == min {
        a
    } else {
        b
    })
}

/// A float rounded to an integral value in mode `rnd` (the sign of a zero
/// result kept, as IEEE roundToIntegral does); NaN and infinities pass.
fn round_integral(x: f64, rnd: F2iRnd) -> f64 {
    match rnd {
        F2iRnd::Rn => x.round_ties_even(),
        F2iRnd::Floor => x.floor(),
        F2iRnd::Ceil => x.ceil(),
        F2iRnd::Trunc => x.trunc(),
    }
}

/// FRND (32-bit opcode): round an F32, F16 or BF16 to an integral value of
/// its own type (exact in that type); `ftz` flushes an F32 denormal input.
/// NaN gives the type's canonical NaN; F16/BF16 results sit in the low half.
pub fn frnd_f32(b: f32, t: CvtFtype32, rnd: F2iRnd, ftz: bool) -> f32 {
    let x = round_integral(cvt_src_f64(b.to_bits(), t, ftz), rnd);
    f32::from_bits(cvt_dst_bits(x, t, Rnd::Rn, ftz))
}

/// FRND.F64: round a double to an integral value (exact); a NaN result is
/// refused, as for the other f64 ops.
pub fn frnd_f64(b: f64, rnd: F2iRnd) -> Result<f64, FoldError> {
    if b.is_nan() {
        return fold_unmodelled("an f64 operation with a NaN result");
    }
    Ok(round_integral(b, rnd))
}

/// One lane (bits 0..16 of `h`) of a packed-half word as the exact f32 it
/// holds: F16, or BF16 when `bf16`; a subnormal is flushed to a zero of
/// its sign when `ftz`.
fn half_lane_f32(h: u32, bf16: bool, ftz: bool) -> f32 {
    let h = h & 0xffff;
    let (exp_mask, sign) = if bf16 {
        (0x7f80, 0x8000)
    } else {
        (0x7c00, 0x8000)
    };
    if ftz && h & exp_mask == 0 {
        return f32::from_bits((h & sign) << 16);
    }
    if bf16 {
        f32::from_bits(h << 16)
    } else {
        half_to_f64(h) as f32
    }
}

/// The (low, high) lanes of a packed-half source as exact f32 values: the
/// halves its swizzle `sel` reads (unprinted: low and high; `.H0_H0`,
/// `.H1_H1`: one half twice), `|x|` and `-x` applied to each lane's sign
/// bit, read as F16 or BF16 and flushed when `ftz`. The `.F32` swizzle
/// (the register read as one F32) is not modelled.
pub fn half_lanes(
    raw: u32,
    sel: Hswz,
    neg: bool,
    abs: bool,
    bf16: bool,
    ftz: bool,
) -> Result<(f32, f32), FoldError> {
    let (lo, hi) = match sel {
        Hswz::H1h0 => (raw & 0xffff, raw >> 16),
        Hswz::H0h0 => (raw & 0xffff, raw & 0xffff),
        Hswz::H1h1 => (raw >> 16, raw >> 16),
        Hswz::F32 => return fold_unmodelled("a packed-half source read as F32"),
    };
    let mods = |h: u32| {
        let h = if abs { h & 0x7fff } else { h };
        if neg { h ^ 0x8000 } else { h }
    };
    Ok((
        half_lane_f32(mods(lo), bf16, ftz),
        half_lane_f32(mods(hi), bf16, ftz),
    ))
}

/// Two lane values packed as F16 or BF16 (low lane in bits 0..16). Each
/// must be a value the format holds exactly (a min/max of lanes is); a
/// NaN lane is refused, as the NaN the unit writes is not modelled.
pub fn pack_half_lanes(lo: f32, hi: f32, bf16: bool) -> Result<u32, FoldError> {
    let (ebits, mbits) = if bf16 { (8, 7) } else { (5, 10) };
    let pack = |x: f32| -> Result<u32, FoldError> {
        if x.is_nan() {
            return fold_unmodelled("a packed-half NaN result");
        }
        let h = round_to_format(x as f64, ebits, mbits, Rnd::Rn);
        if half_lane_f32(h, bf16, false).to_bits() != x.to_bits() {
            return fold_unmodelled("a lane value the half format cannot hold");
        }
        Ok(h)
    };
    Ok(pack(lo)? | (pack(hi)? << 16))
}
