//! Fold tests for the compare-and-set ops FSET (SM50..SM120), PSET and
//! PSETP (Maxwell/Pascal), each against a reference written with Rust's
//! own float comparisons (`PartialOrd`, `is_nan`) and boolean operators,
//! not the spec's helpers.

use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

/// Interesting f32 bit patterns: zeros, denormals, ones, infinities, NaNs.
const F32S: [u32; 12] = [
    0,
    0x8000_0000,
    1,
    0x8000_0001,
    0x007f_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x4000_0000,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_1234,
];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

/// `a CMP b` by Rust's float comparisons; `ftz` reads a denormal as a zero
/// of its sign.
fn fcmp_ref(cmp: Fcmp, a: u32, b: u32, ftz: bool) -> bool {
    let flush = |x: u32| {
        if ftz && x & 0x7f80_0000 == 0 {
            x & 0x8000_0000
        } else {
            x
        }
    };
    let (a, b) = (f32::from_bits(flush(a)), f32::from_bits(flush(b)));
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |c: bool| !unordered && c;
    let or_unordered = |c: bool| unordered || c;
    match cmp {
        Fcmp::F => false,
        Fcmp::Lt => ordered(a < b),
        Fcmp::Eq => ordered(a == b),
        Fcmp::Le => ordered(a <= b),
        Fcmp::Gt => ordered(a > b),
        Fcmp::Ne => ordered(a != b),
        Fcmp::Ge => ordered(a >= b),
        Fcmp::Num => !unordered,
        Fcmp::Nan => unordered,
        Fcmp::Ltu => or_unordered(a < b),
        Fcmp::Equ => or_unordered(a == b),
        Fcmp::Leu => or_unordered(a <= b),
        Fcmp::Gtu => or_unordered(a > b),
        Fcmp::Neu => or_unordered(a != b),
        Fcmp::Geu => or_unordered(a >= b),
        Fcmp::T => true,
    }
}

fn combine(setop: Setop, x: bool, acc: bool) -> bool {
    match setop {
        Setop::And => x && acc,
        Setop::Or => x || acc,
        Setop::Xor => x != acc,
    }
}

fn fset(cmp: Fcmp, setop: Setop, bf: bool, ftz: bool) -> OpFset {
    OpFset {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        acc: Src::PT,
        bf,
        cmp,
        ftz,
        setop,
        cc: false,
    }
}

#[test]
fn fset_every_compare_combine_and_result_kind() {
    for sm in [50, 60, 75, 90, 120] {
        for cmp in Fcmp::ALL {
            for setop in Setop::ALL {
                // From Volta FSET always writes 1.0 (nvdisasm prints .BF
                // for every word) and `bf` is Maxwell's only.
                let bfs: &[bool] = if sm >= 70 { &[false] } else { &[false, true] };
                for &bf in bfs {
                    for ftz in [false, true] {
                        let o = fset(cmp, setop, bf, ftz);
                        for a in F32S {
                            for b in F32S {
                                for acc in [false, true] {
                                    let p = combine(setop, fcmp_ref(cmp, a, b, ftz), acc);
                                    let one = if bf || sm >= 70 {
                                        1.0f32.to_bits()
                                    } else {
                                        u32::MAX
                                    };
                                    let want = if p { one } else { 0 };
                                    let got = o
                                        .fold(sm, &[Value::U32(a), Value::U32(b), Value::Pred(acc)])
                                        .unwrap();
                                    assert_eq!(
                                        got.as_slice(),
                                        &[Value::U32(want)],
                                        "SM{sm} {o:?} {a:#x} {b:#x} {acc}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn fset_applies_source_modifiers_and_refuses_cc() {
    let mut o = fset(Fcmp::Lt, Setop::And, true, false);
    o.a.neg = true;
    o.b.abs = true;
    // -(1.0) < |-0.5|
    let args = [
        Value::U32(0x3f80_0000),
        Value::U32(0xbf00_0000),
        Value::Pred(true),
    ];
    assert_eq!(
        o.fold(50, &args).unwrap().as_slice(),
        &[Value::U32(0x3f80_0000)]
    );
    o.a.neg = false;
    assert_eq!(o.fold(50, &args).unwrap().as_slice(), &[Value::U32(0)]);
    o.cc = true;
    assert!(o.fold(50, &args).is_err());
}

const SETOPS: [Setop; 3] = [Setop::And, Setop::Or, Setop::Xor];

fn pred(i: u8) -> Src {
    Src::reg(Reg::pred(i))
}

/// Every (a, b, c) truth assignment.
fn triples() -> impl Iterator<Item = (bool, bool, bool)> {
    (0..8u8).map(|i| (i & 4 != 0, i & 2 != 0, i & 1 != 0))
}

#[test]
fn pset_every_op_pair_and_result_kind() {
    for sm in [50, 52, 60] {
        for bop0 in SETOPS {
            for bop1 in SETOPS {
                for bf in [false, true] {
                    let o = OpPset {
                        d: Reg::gpr(0),
                        a: pred(0),
                        b: pred(1),
                        c: pred(2),
                        bf,
                        bop0,
                        bop1,
                        cc: false,
                    };
                    for (a, b, c) in triples() {
                        let v = combine(bop1, combine(bop0, a, b), c);
                        let want = match (v, bf) {
                            (false, _) => 0,
                            (true, true) => 1.0f32.to_bits(),
                            (true, false) => u32::MAX,
                        };
                        let got = o
                            .fold(sm, &[Value::Pred(a), Value::Pred(b), Value::Pred(c)])
                            .unwrap();
                        assert_eq!(got.as_slice(), &[Value::U32(want)], "{o:?} {a} {b} {c}");
                    }
                }
            }
        }
    }
}

#[test]
fn pset_applies_not_and_refuses_cc() {
    let mut o = OpPset {
        d: Reg::gpr(0),
        a: pred(0),
        b: pred(1),
        c: pred(2),
        bf: false,
        bop0: Setop::And,
        bop1: Setop::And,
        cc: false,
    };
    o.a.not = true;
    let args = [Value::Pred(false), Value::Pred(true), Value::Pred(true)];
    assert_eq!(
        o.fold(50, &args).unwrap().as_slice(),
        &[Value::U32(u32::MAX)]
    );
    o.cc = true;
    assert!(o.fold(50, &args).is_err());
}

#[test]
fn psetp_every_op_pair() {
    for sm in [50, 52, 60] {
        for bop0 in SETOPS {
            for bop1 in SETOPS {
                let o = OpPsetp {
                    p: Reg::pred(3),
                    q: Reg::pred(4),
                    a: pred(0),
                    b: pred(1),
                    c: pred(2),
                    bop0,
                    bop1,
                };
                for (a, b, c) in triples() {
                    let ab = combine(bop0, a, b);
                    let want = [
                        Value::Pred(combine(bop1, ab, c)),
                        Value::Pred(combine(bop1, !ab, c)),
                    ];
                    let got = o
                        .fold(sm, &[Value::Pred(a), Value::Pred(b), Value::Pred(c)])
                        .unwrap();
                    assert_eq!(got.as_slice(), &want, "{o:?} {a} {b} {c}");
                }
            }
        }
    }
}

#[test]
fn csetp_folds_the_constant_tests_and_refuses_flag_tests() {
    for test in CcTest::ALL {
        for setop in SETOPS {
            let o = OpCsetp {
                p: Reg::pred(0),
                q: Reg::pred(1),
                acc: Src::PT,
                test,
                flags: CcOperand::Cc,
                setop,
            };
            for acc in [false, true] {
                let got = o.fold(50, &[Value::Pred(acc)]);
                let constant = match test {
                    CcTest::F => Some(false),
                    CcTest::T => Some(true),
                    _ => None,
                };
                match constant {
                    Some(t) => assert_eq!(
                        got.unwrap().as_slice(),
                        &[
                            Value::Pred(combine(setop, t, acc)),
                            Value::Pred(combine(setop, !t, acc))
                        ]
                    ),
                    None => assert!(got.is_err(), "{test:?} reads flags not modelled"),
                }
            }
        }
    }
}

/// FCMP's comparisons by name, with the `Fcmp` the reference uses.
fn fcmp_gt_as_fcmp(c: FcmpGt) -> Fcmp {
    let name = format!("{c:?}");
    Fcmp::ALL
        .into_iter()
        .find(|f| format!("{f:?}") == name)
        .expect("same names")
}

#[test]
fn fcmp_selects_by_comparing_c_with_zero() {
    for sm in [50, 52, 60] {
        for cmp in FcmpGt::ALL {
            for ftz in [false, true] {
                let o = OpFcmp {
                    d: Reg::gpr(0),
                    a: r(1),
                    b: r(2),
                    c: r(3),
                    cmp,
                    ftz,
                };
                for c in F32S {
                    let (a, b) = (0x1234_5678, 0x7fc0_0001);
                    let want = if fcmp_ref(fcmp_gt_as_fcmp(cmp), c, 0, ftz) {
                        a
                    } else {
                        b
                    };
                    let got = o
                        .fold(sm, &[Value::U32(a), Value::U32(b), Value::U32(c)])
                        .unwrap();
                    assert_eq!(got.as_slice(), &[Value::U32(want)], "{o:?} {c:#x}");
                }
            }
        }
    }
}
