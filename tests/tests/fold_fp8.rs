//! Fold semantics of F2FP.F16/BF16.E4M3/E5M2.UNPACK_B (SM89 on) against a
//! reference written independently here: each FP8 byte decoded by hand
//! into an f64 (OCP FP8: E4M3 bias 7, no infinities, S.1111.111 NaN; E5M2
//! bias 15, IEEE-like), each F16 half of the result decoded by hand, the
//! two compared by value and sign (PTX `cvt.rn.f16x2.e4m3x2`: the upper
//! byte goes to the upper half). NaN inputs, and -0 under RELU, refuse.

use nak::isa::{F2fpFp8, F2fpHalf, F2fpUnpack, F2fpUnpackB, OpF2fpUnpack};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

fn op(stype: F2fpFp8, sel: F2fpHalf, relu: bool) -> OpF2fpUnpack {
    op_to(F2fpUnpack::F16, stype, sel, relu)
}

fn op_to(dtype: F2fpUnpack, stype: F2fpFp8, sel: F2fpHalf, relu: bool) -> OpF2fpUnpack {
    OpF2fpUnpack {
        d: Reg::gpr(0),
        b: Src::reg(Reg::gpr(1)),
        relu,
        dtype,
        stype,
        sel,
        unpack: F2fpUnpackB::UnpackB,
    }
}

/// An FP8 byte's value (None for NaN), by the format's definition.
fn fp8(x: u8, e4m3: bool) -> Option<f64> {
    let neg = x & 0x80 != 0;
    let (ebits, mbits, bias) = if e4m3 { (4, 3, 7) } else { (5, 2, 15) };
    let e = i32::from((x & 0x7f) >> mbits);
    let m = f64::from(x & ((1 << mbits) - 1));
    let emax = (1 << ebits) - 1;
    if e4m3 && e == emax && m == 7.0 {
        return None;
    }
    if !e4m3 && e == emax {
        if m != 0.0 {
            return None;
        }
        return Some(if neg {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let scale = f64::from(1u32 << mbits);
    let v = if e == 0 {
        m / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + m / scale) * 2f64.powi(e - bias)
    };
    Some(if neg { -v } else { v })
}

/// The value of a 16-bit IEEE 754 style float with `ebits` exponent and
/// `mbits` mantissa bits (the sign at bit 15); a NaN result fails the test.
fn ieee16(h: u32, ebits: u32, mbits: u32) -> f64 {
    let neg = h & 0x8000 != 0;
    let emax = (1i32 << ebits) - 1;
    let bias = emax / 2;
    let e = ((h >> mbits) as i32) & emax;
    let scale = f64::from(1u32 << mbits);
    let m = f64::from(h & ((1 << mbits) - 1));
    let v = if e == emax {
        assert_eq!(m, 0.0, "NaN result {h:#x}");
        f64::INFINITY
    } else if e == 0 {
        m / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + m / scale) * 2f64.powi(e - bias)
    };
    if neg { -v } else { v }
}

/// An F16's value, by IEEE 754 binary16.
fn f16(h: u32) -> f64 {
    ieee16(h, 5, 10)
}

/// A BF16's value (the upper half of an IEEE 754 binary32).
fn bf16(h: u32) -> f64 {
    ieee16(h, 8, 7)
}

fn same(x: f64, y: f64) -> bool {
    x == y && x.is_sign_negative() == y.is_sign_negative()
}

#[test]
fn all_pairs() {
    for e4m3 in [true, false] {
        let st = if e4m3 { F2fpFp8::E4m3 } else { F2fpFp8::E5m2 };
        for relu in [false, true] {
            for hi in 0..=255u8 {
                for lo in 0..=255u8 {
                    for (sel, shift) in [(F2fpHalf::H0, 0), (F2fpHalf::H1, 16)] {
                        let half = (u32::from(hi) << 8) | u32::from(lo);
                        // The other half holds garbage that must not matter.
                        let b = (half << shift) | ((0xa5c3 & 0xffff) << (16 - shift));
                        let out = op(st, sel, relu).fold(90, &[Value::U32(b)]);
                        let (vh, vl) = (fp8(hi, e4m3), fp8(lo, e4m3));
                        let negzero = |x: u8| relu && x == 0x80;
                        if vh.is_none() || vl.is_none() || negzero(hi) || negzero(lo) {
                            assert!(out.is_err(), "{hi:#x} {lo:#x} must refuse");
                            continue;
                        }
                        let d = match out.unwrap().vals[0] {
                            Value::U32(d) => d,
                            v => panic!("{v:?}"),
                        };
                        let r = |v: f64| if relu && v < 0.0 { 0.0 } else { v };
                        let (rh, rl) = (r(vh.unwrap()), r(vl.unwrap()));
                        assert!(
                            same(f16(d >> 16), rh),
                            "hi {hi:#x} e4m3 {e4m3} relu {relu}: {d:#x}"
                        );
                        assert!(
                            same(f16(d & 0xffff), rl),
                            "lo {lo:#x} e4m3 {e4m3} relu {relu}: {d:#x}"
                        );
                    }
                }
            }
        }
    }
}

/// The same sweep to BF16 (SM89/SM90 print `F2FP.BF16.E4M3.UNPACK_B`).
#[test]
fn all_pairs_bf16() {
    for e4m3 in [true, false] {
        let st = if e4m3 { F2fpFp8::E4m3 } else { F2fpFp8::E5m2 };
        for relu in [false, true] {
            for hi in 0..=255u8 {
                for lo in 0..=255u8 {
                    let b = (u32::from(hi) << 8) | u32::from(lo) | 0x5a3c_0000;
                    let out =
                        op_to(F2fpUnpack::Bf16, st, F2fpHalf::H0, relu).fold(89, &[Value::U32(b)]);
                    let (vh, vl) = (fp8(hi, e4m3), fp8(lo, e4m3));
                    let negzero = |x: u8| relu && x == 0x80;
                    if vh.is_none() || vl.is_none() || negzero(hi) || negzero(lo) {
                        assert!(out.is_err(), "{hi:#x} {lo:#x} must refuse");
                        continue;
                    }
                    let d = match out.unwrap().vals[0] {
                        Value::U32(d) => d,
                        v => panic!("{v:?}"),
                    };
                    let r = |v: f64| if relu && v < 0.0 { 0.0 } else { v };
                    assert!(
                        same(bf16(d >> 16), r(vh.unwrap())),
                        "hi {hi:#x} e4m3 {e4m3}: {d:#x}"
                    );
                    assert!(
                        same(bf16(d & 0xffff), r(vl.unwrap())),
                        "lo {lo:#x} e4m3 {e4m3}: {d:#x}"
                    );
                }
            }
        }
    }
}

/// The destinations and sources without a documented meaning refuse.
#[test]
fn unmodelled_refuse() {
    let b = [Value::U32(0x3838)];
    for dt in [F2fpUnpack::Tf32, F2fpUnpack::E5m2, F2fpUnpack::E4m3] {
        assert!(
            op_to(dt, F2fpFp8::E4m3, F2fpHalf::H0, false)
                .fold(89, &b)
                .is_err()
        );
    }
    for st in [F2fpFp8::E2m3, F2fpFp8::E3m2, F2fpFp8::Ue8m0] {
        assert!(
            op_to(F2fpUnpack::F16, st, F2fpHalf::H0, false)
                .fold(100, &b)
                .is_err()
        );
    }
}

#[test]
fn known_values() {
    let f = |st, b| {
        op(st, F2fpHalf::H0, false)
            .fold(89, &[Value::U32(b)])
            .unwrap()
            .vals[0]
    };
    // E4M3 0x38 = 1.0 -> F16 0x3c00; 0x7e = 448 -> 0x5f00; 0x01 = 2^-9 -> 0x1800.
    assert_eq!(f(F2fpFp8::E4m3, 0x3801), Value::U32(0x3c00_1800));
    assert_eq!(f(F2fpFp8::E4m3, 0x007e), Value::U32(0x0000_5f00));
    // E5M2 is the upper byte of an F16: 0x3c -> 0x3c00, 0x7c (inf) -> 0x7c00.
    assert_eq!(f(F2fpFp8::E5m2, 0x3c7c), Value::U32(0x3c00_7c00));
    // To BF16: E4M3 0x38 = 1.0 -> 0x3f80, 0x01 = 2^-9 -> 0x3b00.
    let g = |b| {
        op_to(F2fpUnpack::Bf16, F2fpFp8::E4m3, F2fpHalf::H0, false)
            .fold(89, &[Value::U32(b)])
            .unwrap()
            .vals[0]
    };
    assert_eq!(g(0x3801), Value::U32(0x3f80_3b00));
}
