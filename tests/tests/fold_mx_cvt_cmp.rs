//! Fold tests for the Maxwell/Pascal integer ops I2I, ISET, IMUL, IMUL32I
//! and ICMP, each against a reference written with Rust's own integer
//! operations (`as` casts, `try_from`, `saturating_*`, `wrapping_*`,
//! `Ord`, i128 products) rather than the spec's formulation.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 3] = [50, 52, 60];

const EDGE: [u32; 14] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_7f80,
    u32::MAX,
    0x0123_4567,
    0xfedc_ba98,
];

/// Edge values, then random ones.
fn values(n: usize) -> Vec<u32> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v = EDGE.to_vec();
    v.extend((0..n).map(|_| r.next_u32()));
    v
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

fn i2i(dtype: I2iType, stype: I2iType, sat: bool, sel: u32) -> OpI2i {
    OpI2i {
        d: Reg::gpr(0),
        b: Src::reg(Reg::gpr(1)),
        dtype,
        stype,
        sat,
        cc: false,
        sel,
    }
}

/// What a 32-bit result of I2I is by Rust's conversions: the part at byte
/// offset `sel` of `v` as stype, then to dtype by `as` (wrapping) or,
/// with `sat`, by `try_from` with the bound it overflows.
fn i2i_ref(dtype: I2iType, stype: I2iType, sat: bool, sel: u32, v: u32) -> u32 {
    let w = v >> (8 * sel);
    let signed: Option<i32> = match stype {
        I2iType::S32 => Some(v as i32),
        I2iType::S16 => Some(i32::from(w as u16 as i16)),
        I2iType::S8 => Some(i32::from(w as u8 as i8)),
        _ => None,
    };
    let unsigned: u32 = match stype {
        I2iType::U16 => u32::from(w as u16),
        I2iType::U8 => u32::from(w as u8),
        _ => v,
    };
    match (dtype, signed, sat) {
        (I2iType::U32, Some(x), true) => u32::try_from(x).unwrap_or(0),
        (_, Some(x), _) => x as u32,
        (I2iType::S32, None, true) => i32::try_from(unsigned).unwrap_or(i32::MAX) as u32,
        (_, None, _) => unsigned,
    }
}

const TYPES: [I2iType; 6] = [
    I2iType::S32,
    I2iType::U32,
    I2iType::S16,
    I2iType::U16,
    I2iType::S8,
    I2iType::U8,
];

#[test]
fn i2i_to_a_word_from_every_type_part_and_saturation() {
    for sm in SMS {
        for dtype in [I2iType::S32, I2iType::U32] {
            for stype in TYPES {
                let sels: &[u32] = match stype {
                    I2iType::S16 | I2iType::U16 => &[0, 2],
                    I2iType::S8 | I2iType::U8 => &[0, 1, 2, 3],
                    _ => &[0],
                };
                for &sel in sels {
                    for sat in [false, true] {
                        let o = i2i(dtype, stype, sat, sel);
                        for v in values(500) {
                            let want = i2i_ref(dtype, stype, sat, sel, v);
                            let got = o.fold(sm, &[u(v)]).unwrap();
                            assert_eq!(got.as_slice(), &[u(want)], "{o:?} {v:#x}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn i2i_negate_and_absolute_value_of_a_word() {
    for sat in [false, true] {
        for (neg, abs) in [(true, false), (false, true), (true, true)] {
            let o = OpI2i {
                b: Src::reg(Reg::gpr(1)).with_neg(neg).with_abs(abs),
                ..i2i(I2iType::S32, I2iType::S32, sat, 0)
            };
            for v in values(500) {
                let x = v as i32;
                let want = match (neg, abs, sat) {
                    (true, false, false) => x.wrapping_neg(),
                    (true, false, true) => x.saturating_neg(),
                    (false, true, false) => x.wrapping_abs(),
                    (false, true, true) => x.saturating_abs(),
                    // -|x| is exact (|MIN| is 2^31, so -|MIN| is MIN):
                    // one saturation at the end, not one per step.
                    (_, _, false) => 0i32.wrapping_sub_unsigned(x.unsigned_abs()),
                    (_, _, true) => 0i32.saturating_sub_unsigned(x.unsigned_abs()),
                };
                let got = o.fold(50, &[u(v)]).unwrap();
                assert_eq!(got.as_slice(), &[u(want as u32)], "{o:?} {v:#x}");
            }
        }
    }
    // U32.U32 -R (ptxas's unsigned negation): two's complement.
    let o = OpI2i {
        b: Src::reg(Reg::gpr(1)).with_neg(true),
        ..i2i(I2iType::U32, I2iType::U32, false, 0)
    };
    for v in values(500) {
        let got = o.fold(60, &[u(v)]).unwrap();
        assert_eq!(got.as_slice(), &[u(v.wrapping_neg())], "{v:#x}");
    }
}

#[test]
fn i2i_refuses_what_it_does_not_model() {
    let refused = [
        // A narrow result: how the upper bits are filled is not known.
        i2i(I2iType::S16, I2iType::S32, true, 0),
        i2i(I2iType::U8, I2iType::U32, false, 0),
        // A word read from a byte offset.
        i2i(I2iType::S32, I2iType::S32, false, 1),
        // The CC flags.
        OpI2i {
            cc: true,
            ..i2i(I2iType::S32, I2iType::S32, false, 0)
        },
        // A negated half: in its width or the word's.
        OpI2i {
            b: Src::reg(Reg::gpr(1)).with_neg(true),
            ..i2i(I2iType::S32, I2iType::S16, false, 0)
        },
    ];
    for o in refused {
        assert!(o.fold(50, &[u(0x8000)]).is_err(), "{o:?}");
    }
}

const CMPS: [Icmp; 8] = [
    Icmp::F,
    Icmp::Lt,
    Icmp::Eq,
    Icmp::Le,
    Icmp::Gt,
    Icmp::Ne,
    Icmp::Ge,
    Icmp::T,
];

/// Pairs of edge values, then random pairs.
fn pairs(n: usize) -> Vec<(u32, u32)> {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut v: Vec<(u32, u32)> = EDGE
        .iter()
        .flat_map(|&a| EDGE.iter().map(move |&b| (a, b)))
        .collect();
    v.extend((0..n).map(|_| (r.next_u32(), r.next_u32())));
    v
}

/// `a CMP b` by Rust's `Ord` on i32 or u32.
fn cmp_ref(cmp: Icmp, signed: bool, a: u32, b: u32) -> bool {
    let o = if signed {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    use std::cmp::Ordering::*;
    match cmp {
        Icmp::F => false,
        Icmp::Lt => o == Less,
        Icmp::Eq => o == Equal,
        Icmp::Le => o != Greater,
        Icmp::Gt => o == Greater,
        Icmp::Ne => o != Equal,
        Icmp::Ge => o != Less,
        Icmp::T => true,
    }
}

#[test]
fn iset_every_compare_combine_and_result_kind() {
    for sm in SMS {
        for cmp in CMPS {
            for ty in [IsetpType::S32, IsetpType::U32] {
                for setop in [Setop::And, Setop::Or, Setop::Xor] {
                    for bf in [false, true] {
                        let o = OpIset {
                            d: Reg::gpr(0),
                            a: Src::reg(Reg::gpr(1)),
                            b: Src::reg(Reg::gpr(2)),
                            acc: Src::PT,
                            bf,
                            cmp,
                            ty,
                            x: false,
                            setop,
                            cc: false,
                        };
                        for (a, b) in pairs(300) {
                            for acc in [false, true] {
                                let r = cmp_ref(cmp, ty == IsetpType::S32, a, b);
                                let p = match setop {
                                    Setop::And => r & acc,
                                    Setop::Or => r | acc,
                                    Setop::Xor => r != acc,
                                };
                                let one = if bf { 1.0f32.to_bits() } else { u32::MAX };
                                let want = if p { one } else { 0 };
                                let got = o.fold(sm, &[u(a), u(b), Value::Pred(acc)]).unwrap();
                                assert_eq!(got.as_slice(), &[u(want)], "{o:?} {a:#x} {b:#x} {acc}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn iset_refuses_the_cc_register() {
    for (x, cc) in [(true, false), (false, true)] {
        let o = OpIset {
            d: Reg::gpr(0),
            a: Src::reg(Reg::gpr(1)),
            b: Src::reg(Reg::gpr(2)),
            acc: Src::PT,
            bf: false,
            cmp: Icmp::Eq,
            ty: IsetpType::S32,
            x,
            setop: Setop::And,
            cc,
        };
        assert!(o.fold(50, &[u(1), u(1), Value::Pred(true)]).is_err());
    }
}

/// The 64-bit product by Rust's widening casts: (low word, high word).
fn mul_ref(sign: ImulSign, a: u32, b: u32) -> (u32, u32) {
    let wide = |v: u32, signed: bool| {
        if signed {
            i128::from(v as i32)
        } else {
            i128::from(v)
        }
    };
    let (sa, sb) = match sign {
        ImulSign::S32S32 => (true, true),
        ImulSign::S32U32 => (true, false),
        ImulSign::U32S32 => (false, true),
        ImulSign::U32U32 => (false, false),
    };
    let p = wide(a, sa) * wide(b, sb);
    (p as u64 as u32, (p >> 32) as u64 as u32)
}

const SIGNS: [ImulSign; 4] = [
    ImulSign::S32S32,
    ImulSign::U32U32,
    ImulSign::S32U32,
    ImulSign::U32S32,
];

#[test]
fn imul_and_imul32i_low_and_high_words_of_every_signedness() {
    for sm in SMS {
        for sign in SIGNS {
            for hi in [false, true] {
                let o = OpImul {
                    d: Reg::gpr(0),
                    a: Src::reg(Reg::gpr(1)),
                    b: Src::reg(Reg::gpr(2)),
                    sign,
                    hi,
                    cc: false,
                };
                for (a, b) in pairs(1000) {
                    let (lo, high) = mul_ref(sign, a, b);
                    let want = if hi { high } else { lo };
                    let got = o.fold(sm, &[u(a), u(b)]).unwrap();
                    assert_eq!(got.as_slice(), &[u(want)], "{o:?} {a:#x} {b:#x}");
                    let w = OpImul32i {
                        d: Reg::gpr(0),
                        a: Src::reg(Reg::gpr(1)),
                        b: Src::imm(b),
                        sign,
                        hi,
                        cc: false,
                    };
                    let got = w.fold(sm, &[u(a), u(b)]).unwrap();
                    assert_eq!(got.as_slice(), &[u(want)], "{w:?} {a:#x} {b:#x}");
                }
            }
        }
    }
    // mul.lo is the same word whatever the signedness.
    for (a, b) in pairs(100) {
        assert_eq!(mul_ref(ImulSign::U32U32, a, b).0, a.wrapping_mul(b));
    }
}

#[test]
fn icmp_selects_a_when_c_compares_true_against_zero() {
    for sm in SMS {
        for cmp in CMPS {
            for ty in [IsetpType::S32, IsetpType::U32] {
                let o = OpIcmp {
                    d: Reg::gpr(0),
                    a: Src::reg(Reg::gpr(1)),
                    b: Src::reg(Reg::gpr(2)),
                    c: Src::reg(Reg::gpr(3)),
                    cmp,
                    ty,
                };
                for (c, a) in pairs(300) {
                    let b = !a;
                    let want = if cmp_ref(cmp, ty == IsetpType::S32, c, 0) {
                        a
                    } else {
                        b
                    };
                    let got = o.fold(sm, &[u(a), u(b), u(c)]).unwrap();
                    assert_eq!(got.as_slice(), &[u(want)], "{o:?} {a:#x} {c:#x}");
                }
            }
        }
    }
}
