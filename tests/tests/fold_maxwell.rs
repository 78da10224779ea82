//! Fold tests for the Maxwell/Pascal integer ops (IADD, IADD32I, ISCADD,
//! ISCADD32I, IMNMX, ISETP, LOP3), each against a reference written here
//! with wider arithmetic (i64/u64/i128) rather than wrapping u32 operations.

use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::instr::Common;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 3] = [50, 52, 60];

const EDGE: [u32; 10] = [
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    u32::MAX,
    0x0123_4567,
    0xfedc_ba98,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// Edge values, then random ones; pairs are every edge pair plus random pairs.
fn pairs(n: usize) -> Vec<(u32, u32)> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v: Vec<(u32, u32)> = EDGE
        .iter()
        .flat_map(|&a| EDGE.iter().map(move |&b| (a, b)))
        .collect();
    v.extend((0..n).map(|_| (r.next(), r.next())));
    v
}

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

fn p(v: bool) -> Value {
    Value::Pred(v)
}

/// Two's complement negation through i64, reduced mod 2^32.
fn neg_ref(x: u32, n: bool) -> i64 {
    if n { -i64::from(x) } else { i64::from(x) }
}

fn mod32(x: i128) -> u32 {
    x.rem_euclid(1 << 32) as u32
}

#[test]
fn iadd_with_negations() {
    for sm in SMS {
        for (na, nb) in [(false, false), (true, false), (false, true)] {
            let o = OpIadd {
                d: Reg::gpr(0),
                a: r(1).with_neg(na),
                b: r(2).with_neg(nb),
                cc: false,
                x: false,
            };
            for (a, b) in pairs(2000) {
                let want = mod32(i128::from(neg_ref(a, na)) + i128::from(neg_ref(b, nb)));
                assert_eq!(
                    o.fold(sm, &[u(a), u(b)]).unwrap().as_slice(),
                    &[u(want)],
                    "SM{sm} -a{na} -b{nb} {a:#x} {b:#x}"
                );
            }
        }
    }
}

#[test]
fn iadd_both_negated_is_not_encodable() {
    // nvdisasm reads both negate bits as `.PO`, a different operation.
    let o = OpIadd {
        d: Reg::gpr(0),
        a: r(1).with_neg(true),
        b: r(2).with_neg(true),
        cc: false,
        x: false,
    };
    assert!(o.encode(50, &Common::default()).is_err());
}

#[test]
fn iadd32i_with_negation() {
    for na in [false, true] {
        for (a, b) in pairs(2000) {
            let o = OpIadd32i {
                d: Reg::gpr(0),
                a: r(1).with_neg(na),
                b: Src::imm(b),
                cc: false,
                x: false,
            };
            let want = mod32(i128::from(neg_ref(a, na)) + i128::from(b));
            assert_eq!(
                o.fold(52, &[u(a), u(b)]).unwrap().as_slice(),
                &[u(want)],
                "-a{na} {a:#x} {b:#x}"
            );
        }
    }
}

#[test]
fn iscadd_every_shift() {
    for (na, nb) in [(false, false), (true, false), (false, true)] {
        for shift in 0..32u8 {
            let o = OpIscadd {
                d: Reg::gpr(0),
                a: r(1).with_neg(na),
                b: r(2).with_neg(nb),
                shift: u32::from(shift),
                cc: false,
            };
            for (a, b) in pairs(200) {
                let want = mod32(
                    i128::from(neg_ref(a, na)) * (1i128 << shift) + i128::from(neg_ref(b, nb)),
                );
                assert_eq!(
                    o.fold(60, &[u(a), u(b)]).unwrap().as_slice(),
                    &[u(want)],
                    "-a{na} -b{nb} shift {shift} {a:#x} {b:#x}"
                );
            }
        }
    }
}

#[test]
fn iscadd32i_every_shift() {
    for shift in 0..32u8 {
        for (a, b) in pairs(200) {
            let o = OpIscadd32i {
                d: Reg::gpr(0),
                a: r(1),
                b: Src::imm(b),
                shift: u32::from(shift),
                cc: false,
            };
            let want = mod32(i128::from(a) * (1i128 << shift) + i128::from(b));
            assert_eq!(
                o.fold(50, &[u(a), u(b)]).unwrap().as_slice(),
                &[u(want)],
                "shift {shift} {a:#x} {b:#x}"
            );
        }
    }
}

#[test]
fn imnmx_signed_unsigned_min_max() {
    for ty in [IntType::S32, IntType::U32] {
        for (sel, not) in [(true, false), (true, true)] {
            let o = OpImnmx {
                d: Reg::gpr(0),
                a: r(1),
                b: r(2),
                p: Src::PT.with_not(not),
                ty,
                cc: false,
                xmode: ImnmxX::None,
            };
            for (a, b) in pairs(2000) {
                let (x, y) = if ty == IntType::S32 {
                    (i64::from(a as i32), i64::from(b as i32))
                } else {
                    (i64::from(a), i64::from(b))
                };
                // sel true (PT): minimum; false (!PT): maximum.
                let want = if not { x.max(y) } else { x.min(y) };
                let out = o.fold(52, &[u(a), u(b), p(sel)]).unwrap();
                assert_eq!(
                    out.as_slice(),
                    &[u(want as u32)],
                    "{ty:?} max{not} {a:#x} {b:#x}"
                );
            }
        }
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

#[test]
fn isetp_every_compare_and_combine() {
    for ty in [IsetpType::S32, IsetpType::U32] {
        for cmp in CMPS {
            for setop in [Setop::And, Setop::Or, Setop::Xor] {
                for (acc, acc_not) in [(true, false), (false, false), (true, true)] {
                    let o = OpIsetp {
                        d: Reg::pred(0),
                        d2: Reg::pred(1),
                        a: r(1),
                        b: r(2),
                        acc: Src::reg(Reg::pred(2)).with_not(acc_not),
                        lc: Src::PT,
                        cmp,
                        ty,
                        setop,
                        ex: false,
                        x: false,
                    };
                    for (a, b) in pairs(300) {
                        let (x, y) = if ty == IsetpType::S32 {
                            (i64::from(a as i32), i64::from(b as i32))
                        } else {
                            (i64::from(a), i64::from(b))
                        };
                        let c = match cmp {
                            Icmp::F => false,
                            Icmp::Lt => x < y,
                            Icmp::Eq => x == y,
                            Icmp::Le => x <= y,
                            Icmp::Gt => x > y,
                            Icmp::Ne => x != y,
                            Icmp::Ge => x >= y,
                            Icmp::T => true,
                        };
                        let q = acc != acc_not;
                        let comb = |v: bool| match setop {
                            Setop::And => v & q,
                            Setop::Or => v | q,
                            Setop::Xor => v ^ q,
                        };
                        let out = o.fold(50, &[u(a), u(b), p(acc), p(true)]).unwrap();
                        assert_eq!(
                            out.as_slice(),
                            &[p(comb(c)), p(comb(!c))],
                            "{ty:?} {cmp:?} {setop:?} acc {acc}/{acc_not} {a:#x} {b:#x}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn isetp_sm50_rejects_ex_and_low_compare() {
    // .EX (SM70's predicate-chained compare) does not exist on Maxwell,
    // whose 64-bit compares use .X (the CC register): the encoder refuses
    // it instead of emitting a word with other semantics.
    let mut o = OpIsetp {
        d: Reg::pred(0),
        d2: Reg::PT,
        a: r(1),
        b: r(2),
        acc: Src::PT,
        lc: Src::PT,
        cmp: Icmp::Lt,
        ty: IsetpType::U32,
        setop: Setop::And,
        ex: true,
        x: false,
    };
    assert!(o.encode(50, &Common::default()).is_err());
    o.ex = false;
    assert!(o.encode(50, &Common::default()).is_ok());
    o.lc = Src::reg(Reg::pred(3));
    assert!(o.encode(50, &Common::default()).is_err());
}

/// LOP3 by truth table, bit by bit: bit i of the LUT is the result for
/// (a, b, c) = (i >> 2 & 1, i >> 1 & 1, i & 1).
fn lut_ref(lut: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |acc, bit| {
        let i = ((a >> bit) & 1) << 2 | ((b >> bit) & 1) << 1 | ((c >> bit) & 1);
        acc | (u32::from(lut >> i & 1) << bit)
    })
}

#[test]
fn lop3_sm50_every_lut_and_pop() {
    let vals = pairs(40);
    for lut in 0..=255u8 {
        for pop in [PredOp::F, PredOp::T, PredOp::Z, PredOp::Nz] {
            let o = OpLop3 {
                pd: Reg::pred(0),
                d: Reg::gpr(0),
                a: r(1),
                b: r(2),
                c: r(3),
                pc: Src::FALSE,
                lut: u32::from(lut),
                pop,
                pand: false,
                cc: false,
                x: false,
            };
            for (i, &(a, b)) in vals.iter().enumerate() {
                let c = vals[(i * 7 + 3) % vals.len()].0;
                let want = lut_ref(lut, a, b, c);
                let pd = match pop {
                    PredOp::F => false,
                    PredOp::T => true,
                    PredOp::Z => want == 0,
                    PredOp::Nz => want != 0,
                };
                let out = o.fold(52, &[u(a), u(b), u(c), p(false)]).unwrap();
                assert_eq!(
                    out.as_slice(),
                    &[p(pd), u(want)],
                    "lut {lut:#x} {pop:?} {a:#x} {b:#x} {c:#x}"
                );
            }
        }
    }
}

/// FFMA32I against f64 arithmetic: a * b + c with one rounding (exact in
/// f64 for these inputs, whose products need at most 48 bits), on d's
/// register as the addend.
#[test]
fn ffma32i_against_f64() {
    let vals: [f32; 8] = [0.0, 1.0, -1.5, 2.25, 1024.0, -0.125, 3.0e5, 7.0];
    for na in [false, true] {
        for nc in [false, true] {
            let o = OpFfma32i {
                d: Reg::gpr(4),
                a: r(1).with_neg(na),
                b: Src::imm(0),
                c: r(4).with_neg(nc),
                ftz: false,
                sat: false,
            };
            for &a in &vals {
                for &b in &vals {
                    for &c in &vals {
                        let (x, z) = (if na { -a } else { a }, if nc { -c } else { c });
                        let want = (f64::from(x) * f64::from(b) + f64::from(z)) as f32;
                        let out = o
                            .fold(50, &[u(a.to_bits()), u(b.to_bits()), u(c.to_bits())])
                            .unwrap();
                        assert_eq!(out.as_slice(), &[u(want.to_bits())], "{x} * {b} + {z}");
                    }
                }
            }
        }
    }
}

#[test]
fn ffma32i_addend_is_the_destination() {
    let mut o = OpFfma32i {
        d: Reg::gpr(4),
        a: r(1),
        b: Src::imm(0x3f80_0000),
        c: r(4),
        ftz: false,
        sat: false,
    };
    assert!(o.encode(52, &Common::default()).is_ok());
    o.c = r(5);
    assert!(o.encode(52, &Common::default()).is_err());
}

#[test]
fn cc_register_forms_encode_and_fold_through_the_carry() {
    // IADD's .CC writes the adder's carry, .X reads it: `fold` (no carry
    // known) refuses .X, `fold_cc` takes the carry in and gives it out.
    let u = Value::U32;
    let base = OpIadd {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        cc: false,
        x: false,
    };
    for (cc, x) in [(true, false), (false, true), (true, true)] {
        let o = OpIadd { cc, x, ..base };
        assert_eq!(o.fold(50, &[u(1), u(2)]).is_err(), x, "cc {cc} x {x}");
        assert_eq!(o.cc_use(50), (x, cc));
        assert!(o.encode(50, &Common::default()).is_ok());
    }
    assert_eq!(base.fold(50, &[u(1), u(2)]).unwrap().as_slice(), &[u(3)]);
    let cc = OpIadd { cc: true, ..base };
    let (out, carry) = cc.fold_cc(50, &[u(u32::MAX), u(2)], None).unwrap();
    assert_eq!((out.as_slice(), carry), (&[u(1)][..], Some(true)));
    let x = OpIadd { x: true, ..base };
    let (out, carry) = x.fold_cc(50, &[u(5), u(6)], Some(true)).unwrap();
    assert_eq!((out.as_slice(), carry), (&[u(12)][..], None));
    // Subtraction: a + ~b + 1, the carry out being "no borrow".
    let sub = OpIadd {
        cc: true,
        b: r(2).with_neg(true),
        ..base
    };
    let (out, carry) = sub.fold_cc(50, &[u(5), u(6)], None).unwrap();
    assert_eq!((out.as_slice(), carry), (&[u(u32::MAX)][..], Some(false)));
    let (out, carry) = sub.fold_cc(50, &[u(6), u(0)], None).unwrap();
    assert_eq!((out.as_slice(), carry), (&[u(6)][..], Some(true)));
    let m = OpImnmx {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        p: Src::PT,
        ty: IntType::U32,
        cc: false,
        xmode: ImnmxX::Xhi,
    };
    assert!(m.fold(50, &[u(1), u(2), Value::Pred(true)]).is_err());
    let s = OpIsetp {
        d: Reg::pred(0),
        d2: Reg::PT,
        a: r(1),
        b: r(2),
        acc: Src::PT,
        lc: Src::PT,
        cmp: Icmp::Lt,
        ty: IsetpType::U32,
        setop: Setop::And,
        ex: false,
        x: true,
    };
    assert!(s.encode(50, &Common::default()).is_ok());
    assert!(
        s.fold(50, &[u(1), u(2), Value::Pred(true), Value::Pred(true)])
            .is_err()
    );
}
