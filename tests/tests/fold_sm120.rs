//! Fold tests for the SM120 ALU ops: ISETP.U64/.S64 (isetp64), SEL.64,
//! MOV.64, the two-source adds IADD, IADD.X, IADD.64, IADD.64.X and
//! IMNMX.S64/.U64 (imnmx64),
//! against references written independently of the spec's fold
//! expressions (i128 arithmetic, 32-bit halves).

use isa_tests::rng::Rng;
use nak::isa::{
    Icmp, IntType, IsetpType64, OpIadd, OpIadd64, OpIadd64x, OpIaddx, OpImnmx, OpImnmx64,
    OpIsetp64, OpMov64, OpSel64, OpSel64i, OpVimnmx, Setop, VimnmxType,
};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const EDGES: [u64; 10] = [
    0,
    1,
    2,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0xffff_ffff_0000_0000,
    u64::MAX - 1,
    u64::MAX,
];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn pairs(mut f: impl FnMut(u64, u64)) {
    for a in EDGES {
        for b in EDGES {
            f(a, b);
        }
    }
    let mut rng = Rng(0x0120_0120_0120_0120);
    for _ in 0..2000 {
        let a = rng.next_u64();
        // Equal high words half of the time, to reach the .EX fallback.
        let b = if rng.next_u64() & 1 == 0 {
            (a & 0xffff_ffff_0000_0000) | (rng.next_u64() & 0xffff_ffff)
        } else {
            rng.next_u64()
        };
        f(a, b);
        f(a, a);
    }
}

/// The value as a signed or unsigned 128-bit integer.
fn wide(ty: IsetpType64, v: u64) -> i128 {
    match ty {
        IsetpType64::U64 => i128::from(v),
        IsetpType64::S64 => i128::from(v as i64),
    }
}

/// The compare on the difference a - b (no shared code with the fold).
fn cmp_ref(cmp: Icmp, diff: i128) -> bool {
    match cmp {
        Icmp::F => false,
        Icmp::Lt => diff < 0,
        Icmp::Eq => diff == 0,
        Icmp::Le => diff <= 0,
        Icmp::Gt => diff > 0,
        Icmp::Ne => diff != 0,
        Icmp::Ge => diff >= 0,
        Icmp::T => true,
    }
}

fn setop_ref(setop: Setop, x: bool, acc: bool) -> bool {
    match setop {
        Setop::And => x & acc,
        Setop::Or => x | acc,
        Setop::Xor => x != acc,
    }
}

#[test]
fn isetp64() {
    for ty in IsetpType64::ALL {
        for cmp in Icmp::ALL {
            for setop in Setop::ALL {
                pairs(|a, b| {
                    for (acc, lc, ex) in [
                        (true, true, false),
                        (false, true, false),
                        (true, false, true),
                        (true, true, true),
                        (false, false, true),
                    ] {
                        let op = OpIsetp64 {
                            d: Reg::pred(0),
                            d2: Reg::pred(1),
                            a: r(2),
                            b: r(4),
                            acc: Src::reg(Reg::pred(2)),
                            lc: Src::reg(Reg::pred(3)),
                            cmp,
                            ty,
                            setop,
                            ex,
                        };
                        let out = op
                            .fold(
                                120,
                                &[
                                    Value::U64(a),
                                    Value::U64(b),
                                    Value::Pred(acc),
                                    Value::Pred(lc),
                                ],
                            )
                            .unwrap();
                        let diff = wide(ty, a) - wide(ty, b);
                        // .EX: equal operands defer to the lower compare
                        // (F and T stay constant).
                        let r = if ex && diff == 0 && !matches!(cmp, Icmp::F | Icmp::T) {
                            lc
                        } else {
                            cmp_ref(cmp, diff)
                        };
                        let what =
                            format!("{ty:?} {cmp:?} {setop:?} {a:#x} {b:#x} {acc} {lc} {ex}");
                        assert_eq!(out.vals[0], Value::Pred(setop_ref(setop, r, acc)), "{what}");
                        assert_eq!(
                            out.vals[1],
                            Value::Pred(setop_ref(setop, !r, acc)),
                            "{what}"
                        );
                    }
                });
            }
        }
    }
}

#[test]
fn sel64() {
    pairs(|a, b| {
        for (p, not) in [(false, false), (true, false), (false, true), (true, true)] {
            let op = OpSel64 {
                d: Reg::gpr(0),
                a: r(2),
                b: r(4),
                cond: Src::reg(Reg::pred(1)).with_not(not),
            };
            let out = op
                .fold(120, &[Value::U64(a), Value::U64(b), Value::Pred(p)])
                .unwrap();
            let want = if p != not { a } else { b };
            assert_eq!(out.vals[0], Value::U64(want), "{a:#x} {b:#x} {p} {not}");
        }
    });
}

/// SEL.64's immediate form: the 33-bit immediate, sign-extended.
#[test]
fn sel64i() {
    pairs(|a, b| {
        // Any 33-bit signed value: the low 33 bits of b, sign-extended.
        let imm = ((b << 31) as i64) >> 31;
        for (p, not) in [(false, false), (true, false), (false, true), (true, true)] {
            let op = OpSel64i {
                d: Reg::gpr(0),
                a: r(2),
                cond: Src::reg(Reg::pred(1)).with_not(not),
                imm,
            };
            let out = op.fold(120, &[Value::U64(a), Value::Pred(p)]).unwrap();
            let want = if p != not {
                a
            } else {
                u64::from_le_bytes(imm.to_le_bytes())
            };
            assert_eq!(out.vals[0], Value::U64(want), "{a:#x} {imm:#x} {p} {not}");
        }
    });
}

#[test]
fn mov64() {
    pairs(|a, _| {
        let op = OpMov64 {
            d: Reg::gpr(0),
            b: r(2),
        };
        let out = op.fold(120, &[Value::U64(a)]).unwrap();
        // Both halves arrive unchanged.
        let Value::U64(v) = out.vals[0] else {
            panic!("MOV.64 folds to a 64-bit value")
        };
        assert_eq!((v as u32, (v >> 32) as u32), (a as u32, (a >> 32) as u32));
    });
}

/// A source as the adder sees it: negated (two's complement, taken as
/// 2^width - x so that negating 0 carries) or bitwise not.
fn term(x: u64, width: u32, neg: bool, not: bool) -> i128 {
    let m = (1i128 << width) - 1;
    let x = i128::from(x) & m;
    if neg {
        (m + 1) - x
    } else if not {
        m - x
    } else {
        x
    }
}

/// (sum mod 2^width, carry out of bit width-1) of the adder's terms.
fn add_ref(terms: &[i128], width: u32) -> (u64, bool) {
    let s: i128 = terms.iter().sum();
    ((s & ((1i128 << width) - 1)) as u64, s >> width != 0)
}

#[test]
fn iadd_and_iaddx() {
    for (na, nb) in [(false, false), (true, false), (false, true), (true, true)] {
        pairs(|a, b| {
            let (a, b) = (a as u32, (b >> 32) as u32 ^ b as u32);
            let op = OpIadd {
                d: Reg::gpr(0),
                co0: Reg::pred(0),
                a: r(1).with_neg(na),
                b: r(2).with_neg(nb),
                cc: false,
                x: false,
                sat: false,
            };
            let out = op.fold(120, &[Value::U32(a), Value::U32(b)]).unwrap();
            let t = [term(a.into(), 32, na, false), term(b.into(), 32, nb, false)];
            let (d, co) = add_ref(&t, 32);
            let what = format!("IADD -a{na} -b{nb} {a:#x} {b:#x}");
            assert_eq!(
                out.as_slice(),
                &[Value::U32(d as u32), Value::Pred(co)],
                "{what}"
            );
            for ci in [false, true] {
                let op = OpIaddx {
                    d: Reg::gpr(0),
                    co0: Reg::pred(0),
                    a: r(1).with_not(na),
                    b: r(2).with_not(nb),
                    ci: Src::reg(Reg::pred(1)),
                };
                let out = op
                    .fold(120, &[Value::U32(a), Value::U32(b), Value::Pred(ci)])
                    .unwrap();
                let t = [
                    term(a.into(), 32, false, na),
                    term(b.into(), 32, false, nb),
                    i128::from(ci),
                ];
                let (d, co) = add_ref(&t, 32);
                let what = format!("IADD.X ~a{na} ~b{nb} {a:#x} {b:#x} {ci}");
                assert_eq!(
                    out.as_slice(),
                    &[Value::U32(d as u32), Value::Pred(co)],
                    "{what}"
                );
            }
        });
    }
}

#[test]
fn iadd64_and_iadd64x() {
    for (na, nb) in [(false, false), (true, false), (false, true), (true, true)] {
        pairs(|a, b| {
            let op = OpIadd64 {
                d: Reg::gpr(0),
                co0: Reg::pred(0),
                a: r(2).with_neg(na),
                b: r(4).with_neg(nb),
            };
            let out = op.fold(120, &[Value::U64(a), Value::U64(b)]).unwrap();
            let (d, co) = add_ref(&[term(a, 64, na, false), term(b, 64, nb, false)], 64);
            let what = format!("IADD.64 -a{na} -b{nb} {a:#x} {b:#x}");
            assert_eq!(out.as_slice(), &[Value::U64(d), Value::Pred(co)], "{what}");
            for ci in [false, true] {
                let op = OpIadd64x {
                    d: Reg::gpr(0),
                    co0: Reg::pred(0),
                    a: r(2).with_not(na),
                    b: r(4).with_not(nb),
                    ci: Src::reg(Reg::pred(1)),
                };
                let out = op
                    .fold(120, &[Value::U64(a), Value::U64(b), Value::Pred(ci)])
                    .unwrap();
                let t = [
                    term(a, 64, false, na),
                    term(b, 64, false, nb),
                    i128::from(ci),
                ];
                let (d, co) = add_ref(&t, 64);
                let what = format!("IADD.64.X ~a{na} ~b{nb} {a:#x} {b:#x} {ci}");
                assert_eq!(out.as_slice(), &[Value::U64(d), Value::Pred(co)], "{what}");
            }
        });
    }
}

#[test]
fn imnmx64() {
    for ty in IsetpType64::ALL {
        pairs(|a, b| {
            for (min, pnot) in [(true, false), (false, false), (true, true), (false, true)] {
                let op = OpImnmx64 {
                    d: Reg::gpr(0),
                    pd0: Reg::PT,
                    pd1: Reg::PT,
                    a: r(2),
                    b: r(4),
                    p: Src::reg(Reg::pred(0)).with_not(pnot),
                    q: Src::PT.with_not(true),
                    ty,
                };
                let vals = [
                    Value::U64(a),
                    Value::U64(b),
                    Value::Pred(min ^ pnot),
                    Value::Pred(true), // q = !PT reads false
                ];
                let out = op.fold(120, &vals).unwrap();
                let (x, y) = (wide(ty, a), wide(ty, b));
                let want = (if min { x.min(y) } else { x.max(y) }) as u64;
                let what = format!("{ty:?} {a:#x} {b:#x} min={min}");
                assert_eq!(out.vals[0], Value::U64(want), "{what}");
            }
        });
    }
}

/// Predicate results of unknown meaning (`unknown = true`) and IMNMX's
/// second predicate source: the fold refuses unless they are PT / false.
#[test]
fn unknown_predicates_refuse_to_fold() {
    let base = OpImnmx64 {
        d: Reg::gpr(0),
        pd0: Reg::PT,
        pd1: Reg::PT,
        a: r(2),
        b: r(4),
        p: Src::PT,
        q: Src::PT.with_not(true),
        ty: IsetpType64::S64,
    };
    // q = !PT: the register reads true, q false.
    let v64 = [
        Value::U64(1),
        Value::U64(2),
        Value::Pred(true),
        Value::Pred(true),
    ];
    assert_eq!(base.fold(120, &v64).unwrap().vals[0], Value::U64(1));
    assert!(
        OpImnmx64 {
            pd0: Reg::pred(1),
            ..base
        }
        .fold(120, &v64)
        .is_err()
    );
    assert!(
        OpImnmx64 {
            pd1: Reg::pred(1),
            ..base
        }
        .fold(120, &v64)
        .is_err()
    );
    let q_true = [
        Value::U64(1),
        Value::U64(2),
        Value::Pred(true),
        Value::Pred(false),
    ];
    assert!(base.fold(120, &q_true).is_err());
    let m = OpImnmx {
        d: Reg::gpr(0),
        pd0: Reg::pred(2),
        pd1: Reg::PT,
        a: r(1),
        b: r(2),
        p: Src::PT,
        q: Src::PT.with_not(true),
        ty: IntType::S32,
        cc: false,
        xmode: nak::isa::ImnmxX::None,
    };
    let v32 = [
        Value::U32(1),
        Value::U32(2),
        Value::Pred(true),
        Value::Pred(true),
    ];
    assert!(m.fold(120, &v32).is_err());
    assert!(OpImnmx { pd0: Reg::PT, ..m }.fold(120, &v32).is_ok());
    let v = OpVimnmx {
        d: Reg::gpr(0),
        pd0: Reg::PT,
        pd1: Reg::pred(3),
        a: r(1),
        b: r(2),
        p: Src::PT,
        ty: VimnmxType::S32,
        relu: false,
    };
    let v3 = [Value::U32(1), Value::U32(2), Value::Pred(true)];
    assert!(v.fold(100, &v3).is_err());
    assert!(OpVimnmx { pd1: Reg::PT, ..v }.fold(100, &v3).is_ok());
}
