//! Fold semantics of the packed-half compare and min/max ops (HSETP2,
//! HSET2, HMNMX2, HMNMX2.IS_A) against a reference written here: each
//! lane decoded from its F16/BF16 bits by hand, compared with f64
//! operators, min/max chosen by hand.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

/// Interesting F16 lanes: zeros, one, a subnormal, the largest finite,
/// infinities, a quiet and a signalling NaN, and a few ordinary values.
const F16S: [u16; 12] = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3555,
];

/// The exact value of an F16 (`bf16`: BF16) lane, decoded from its bits.
fn lane_value(h: u16, bf16: bool) -> f64 {
    let (ebits, mbits) = if bf16 { (8, 7) } else { (5, 10) };
    let sign = if h >> 15 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> mbits) & ((1 << ebits) - 1)) as i32;
    let m = (h & ((1 << mbits) - 1)) as f64;
    let bias = (1 << (ebits - 1)) - 1;
    if e == (1 << ebits) - 1 {
        return if m == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let (mant, exp) = if e == 0 {
        (m, 1 - bias)
    } else {
        (m + (1u32 << mbits) as f64, e - bias)
    };
    sign * mant * 2f64.powi(exp - mbits)
}

fn is_subnormal(h: u16, bf16: bool) -> bool {
    let exp_mask = if bf16 { 0x7f80 } else { 0x7c00 };
    h & exp_mask == 0 && h & 0x7fff != 0
}

fn reference_cmp(cmp: Fcmp, a: f64, b: f64) -> bool {
    let un = a.is_nan() || b.is_nan();
    match cmp {
        Fcmp::F => false,
        Fcmp::Lt => !un && a < b,
        Fcmp::Eq => !un && a == b,
        Fcmp::Le => !un && a <= b,
        Fcmp::Gt => !un && a > b,
        Fcmp::Ne => !un && a != b,
        Fcmp::Ge => !un && a >= b,
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

fn reference_setop(op: Setop, v: bool, acc: bool) -> bool {
    match op {
        Setop::And => v && acc,
        Setop::Or => v || acc,
        Setop::Xor => v != acc,
    }
}

fn pred(v: Value) -> bool {
    match v {
        Value::Pred(x) => x,
        other => panic!("not a predicate: {other:?}"),
    }
}

fn word(v: Value) -> u32 {
    match v {
        Value::U32(x) => x,
        other => panic!("not a u32: {other:?}"),
    }
}

fn hsetp2(cmp: Fcmp, setop: Setop, ftz: bool) -> OpHsetp2 {
    OpHsetp2 {
        p: Reg::pred(0),
        q: Reg::pred(1),
        a: r(1),
        b: r(2),
        acc: Src::PT,
        fmt: Hfmt::F16,
        cmp,
        h_and: false,
        ftz,
        setop,
        asel: Hswz::H1h0,
        bsel: Hswz::H1h0,
    }
}

#[test]
fn hsetp2_every_comparison_lane_by_lane() {
    for cmp in Fcmp::ALL {
        for setop in Setop::ALL {
            for &x in &F16S {
                for &y in &F16S {
                    for acc in [false, true] {
                        // Low lanes x, y; high lanes y, x.
                        let a = u32::from(x) | u32::from(y) << 16;
                        let b = u32::from(y) | u32::from(x) << 16;
                        let out = hsetp2(cmp, setop, false)
                            .fold(90, &[Value::U32(a), Value::U32(b), Value::Pred(acc)])
                            .unwrap();
                        let (vx, vy) = (lane_value(x, false), lane_value(y, false));
                        let lo = reference_setop(setop, reference_cmp(cmp, vx, vy), acc);
                        let hi = reference_setop(setop, reference_cmp(cmp, vy, vx), acc);
                        let msg = format!("{cmp:?} {setop:?} {x:#x} {y:#x} {acc}");
                        assert_eq!(pred(out.as_slice()[0]), lo, "{msg}");
                        assert_eq!(pred(out.as_slice()[1]), hi, "{msg}");
                    }
                }
            }
        }
    }
}

#[test]
fn hsetp2_swizzles_modifiers_ftz_and_bf16() {
    let mut g = Rng(7);
    for _ in 0..3000 {
        let (a, b) = (g.next_u32(), g.next_u32());
        let mut op = hsetp2(Fcmp::Lt, Setop::And, g.next_u32() & 1 == 1);
        op.fmt = if g.next_u32() & 1 == 1 {
            Hfmt::Bf16
        } else {
            Hfmt::F16
        };
        let sels = [Hswz::H1h0, Hswz::H0h0, Hswz::H1h1];
        op.asel = sels[(g.next_u32() % 3) as usize];
        op.bsel = sels[(g.next_u32() % 3) as usize];
        op.a.neg = g.next_u32() & 1 == 1;
        op.b.abs = g.next_u32() & 1 == 1;
        let bf16 = op.fmt == Hfmt::Bf16;
        let lanes = |w: u32, sel: Hswz, neg: bool, abs: bool| -> [f64; 2] {
            let (lo, hi) = match sel {
                Hswz::H0h0 => (w as u16, w as u16),
                Hswz::H1h1 => ((w >> 16) as u16, (w >> 16) as u16),
                _ => (w as u16, (w >> 16) as u16),
            };
            [lo, hi].map(|h| {
                let h = if abs { h & 0x7fff } else { h };
                let h = if neg { h ^ 0x8000 } else { h };
                if op.ftz && is_subnormal(h, bf16) {
                    if h >> 15 != 0 { -0.0 } else { 0.0 }
                } else {
                    lane_value(h, bf16)
                }
            })
        };
        let la = lanes(a, op.asel, op.a.neg, false);
        let lb = lanes(b, op.bsel, false, op.b.abs);
        let out = op
            .fold(90, &[Value::U32(a), Value::U32(b), Value::Pred(true)])
            .unwrap();
        assert_eq!(
            pred(out.as_slice()[0]),
            reference_cmp(Fcmp::Lt, la[0], lb[0])
        );
        assert_eq!(
            pred(out.as_slice()[1]),
            reference_cmp(Fcmp::Lt, la[1], lb[1])
        );
    }
    // FTZ: a subnormal equals zero only when flushed.
    let srcs = [Value::U32(0x0001_0001), Value::U32(0), Value::Pred(true)];
    let out = hsetp2(Fcmp::Eq, Setop::And, true).fold(60, &srcs).unwrap();
    assert!(pred(out.as_slice()[0]) && pred(out.as_slice()[1]));
    let out = hsetp2(Fcmp::Eq, Setop::And, false).fold(60, &srcs).unwrap();
    assert!(!pred(out.as_slice()[0]) && !pred(out.as_slice()[1]));
}

#[test]
fn hsetp2_refuses_what_is_not_modelled() {
    let srcs = [Value::U32(0), Value::U32(0), Value::Pred(true)];
    let mut op = hsetp2(Fcmp::Eq, Setop::And, false);
    op.h_and = true;
    assert!(op.fold(90, &srcs).is_err());
    let mut op = hsetp2(Fcmp::Eq, Setop::And, false);
    op.asel = Hswz::F32;
    assert!(op.fold(80, &srcs).is_err());
}

#[test]
fn hset2_masks_and_boolean_floats() {
    for cmp in Fcmp::ALL {
        for &x in &F16S {
            for &y in &F16S {
                for bf in [false, true] {
                    for (setop, acc) in [(Setop::And, true), (Setop::Or, false), (Setop::Xor, true)]
                    {
                        let op = OpHset2 {
                            d: Reg::gpr(0),
                            a: r(1),
                            b: r(2),
                            acc: Src::PT,
                            fmt: Hfmt::F16,
                            bf,
                            cmp,
                            ftz: false,
                            setop,
                            asel: Hswz::H1h0,
                            bsel: Hswz::H1h0,
                        };
                        let a = u32::from(x) | u32::from(y) << 16;
                        let b = u32::from(y) | u32::from(y) << 16;
                        let d = word(
                            op.fold(75, &[Value::U32(a), Value::U32(b), Value::Pred(acc)])
                                .unwrap()
                                .as_slice()[0],
                        );
                        let true_lane = if bf { 0x3c00 } else { 0xffff };
                        let lane = |p: u16, q: u16| {
                            let t = reference_setop(
                                setop,
                                reference_cmp(cmp, lane_value(p, false), lane_value(q, false)),
                                acc,
                            );
                            if t { true_lane } else { 0 }
                        };
                        assert_eq!(d, lane(x, y) | lane(y, y) << 16, "{cmp:?} {x:#x} {y:#x}");
                    }
                }
            }
        }
    }
}

fn hmnmx2(fmt: Hfmt, nan: bool, xorsign: bool) -> OpHmnmx2 {
    OpHmnmx2 {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        p: Src::PT,
        fmt,
        ftz: false,
        nan,
        xorsign,
        asel: Hswz::H1h0,
        bsel: Hswz::H1h0,
    }
}

/// The reference min (or max) of two lanes, as bits: -0 below +0, a NaN
/// lane loses to a number; `None` where the result is a NaN.
fn reference_minmax(x: u16, y: u16, min: bool, bf16: bool, nan: bool) -> Option<u16> {
    let (vx, vy) = (lane_value(x, bf16), lane_value(y, bf16));
    match (vx.is_nan(), vy.is_nan()) {
        (true, true) => return None,
        (true, false) | (false, true) if nan => return None,
        (true, false) => return Some(y),
        (false, true) => return Some(x),
        _ => {}
    }
    let x_below = vx < vy || (vx == vy && x >> 15 == 1 && y >> 15 == 0);
    Some(if x_below == min { x } else { y })
}

#[test]
fn hmnmx2_lanes_nan_and_xorsign() {
    let bf16s: [u16; 8] = [0, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x7f80, 0xff80, 0x7fc0];
    for (fmt, vals) in [(Hfmt::F16, &F16S[..]), (Hfmt::Bf16, &bf16s[..])] {
        let bf16 = fmt == Hfmt::Bf16;
        for &x in vals {
            for &y in vals {
                for min in [false, true] {
                    for nan in [false, true] {
                        for xorsign in [false, true] {
                            let a = u32::from(x) | u32::from(y) << 16;
                            let b = u32::from(y) | u32::from(y) << 16;
                            let got = hmnmx2(fmt, nan, xorsign)
                                .fold(90, &[Value::U32(a), Value::U32(b), Value::Pred(min)]);
                            let lane = |p: u16, q: u16| {
                                reference_minmax(p, q, min, bf16, nan).map(|m| {
                                    if xorsign {
                                        (m & 0x7fff) | ((p ^ q) & 0x8000)
                                    } else {
                                        m
                                    }
                                })
                            };
                            match (lane(x, y), lane(y, y)) {
                                (Some(lo), Some(hi)) => assert_eq!(
                                    word(got.unwrap().as_slice()[0]),
                                    u32::from(lo) | u32::from(hi) << 16,
                                    "{fmt:?} {x:#x} {y:#x} min={min} nan={nan} xorsign={xorsign}"
                                ),
                                // A NaN lane's bits are not modelled.
                                _ => assert!(got.is_err()),
                            }
                        }
                    }
                }
            }
        }
    }
    // .F32 (one F32 result) is not modelled.
    let srcs = [Value::U32(0), Value::U32(0), Value::Pred(true)];
    assert!(hmnmx2(Hfmt::F32, false, false).fold(80, &srcs).is_err());
}

#[test]
fn hmnmx2_is_a_folds_d_only_while_its_predicates_are_pt() {
    let op = OpHmnmx2IsA {
        d: Reg::gpr(0),
        pd0: Reg::PT,
        pd1: Reg::PT,
        a: r(1),
        b: r(2),
        p: Src::PT,
        fmt: Hfmt::F16,
        ftz: false,
        nan: false,
        xorsign: false,
        is_a: IsA::IsA,
        asel: Hswz::H1h0,
        bsel: Hswz::H1h0,
    };
    // Lanes: min(1, -1) = -1, min(+0, -0) = -0.
    let srcs = [
        Value::U32(0x0000_3c00),
        Value::U32(0x8000_bc00),
        Value::Pred(true),
    ];
    let out = op.fold(90, &srcs).unwrap();
    assert_eq!(word(out.as_slice()[0]), 0x8000_bc00);
    let with_preds = OpHmnmx2IsA {
        pd0: Reg::pred(0),
        ..op
    };
    assert!(with_preds.fold(90, &srcs).is_err());
}
