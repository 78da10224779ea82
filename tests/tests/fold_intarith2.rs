//! Fold tests for IMAD, IMAD.X, IMAD.WIDE(.X) and IMAD.HI (SM70+), and
//! their uniform twins UIMAD, UIMAD.X, UIMAD.WIDE(.X) (SM75+) and UIMAD.HI
//! (SM120): each twin folds the same inputs to the same values as the
//! vector op, checked here against the reference first.

use isa_tests::rng::Rng;
use nak::isa::{
    IntType, OpImad, OpImadHi, OpImadWide, OpImadWideX, OpImadx, OpUimad, OpUimadHi, OpUimadWide,
    OpUimadWideX, OpUimadx, XFlag,
};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

/// This file's draws on top of the shared generator.
trait Draw {
    fn u32(&mut self) -> u32;
}

impl Draw for Rng {
    fn u32(&mut self) -> u32 {
        match self.next_u64() % 5 {
            0 => EDGES[(self.next_u64() % EDGES.len() as u64) as usize],
            _ => self.next_u64() as u32,
        }
    }
}

const EDGES: [u32; 7] = [0, 1, 2, u32::MAX, 0x8000_0000, 0x7fff_ffff, 0xffff];
const TYS: [IntType; 2] = [IntType::S32, IntType::U32];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn ur(i: u8) -> Src {
    Src::reg(Reg::ugpr(i))
}

/// Full product as i128, signed or unsigned.
fn prod(ty: IntType, a: u32, b: u32) -> i128 {
    match ty {
        IntType::S32 => i128::from(a as i32) * i128::from(b as i32),
        IntType::U32 => i128::from(a) * i128::from(b),
    }
}

fn inputs(mut f: impl FnMut(u32, u32, u32, bool)) {
    for a in EDGES {
        for b in EDGES {
            for c in EDGES {
                f(a, b, c, false);
                f(a, b, c, true);
            }
        }
    }
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..4000 {
        let (a, b, c) = (rng.u32(), rng.u32(), rng.u32());
        f(a, b, c, rng.next_u64() & 1 == 1);
    }
}

#[test]
fn imad() {
    for ty in TYS {
        inputs(|a, b, c, n| {
            let op = OpImad {
                d: Reg::gpr(0),
                a: r(1),
                b: r(2),
                c: r(3).with_neg(n),
                ty,
            };
            let out = op
                .fold(75, &[Value::U32(a), Value::U32(b), Value::U32(c)])
                .unwrap();
            let cc = if n { -i128::from(c) } else { i128::from(c) };
            let want = (prod(ty, a, b) + cc).rem_euclid(1 << 32) as u32;
            assert_eq!(
                out.vals[0],
                Value::U32(want),
                "{ty:?} {a:#x} {b:#x} {c:#x} {n}"
            );
            let twin = OpUimad {
                d: Reg::ugpr(0),
                a: ur(1),
                b: ur(2),
                c: ur(3).with_neg(n),
                ty,
            };
            let v = [Value::U32(a), Value::U32(b), Value::U32(c)];
            assert_eq!(twin.fold(75, &v).unwrap(), out);
        });
    }
}

#[test]
fn imadx() {
    for ty in TYS {
        inputs(|a, b, c, p| {
            for (not_c, not_p) in [(false, false), (true, false), (false, true), (true, true)] {
                let op = OpImadx {
                    d: Reg::gpr(0),
                    a: r(1),
                    b: r(2),
                    c: r(3).with_not(not_c),
                    ci: Src::reg(Reg::pred(1)).with_not(not_p),
                    ty,
                    x: XFlag::X,
                };
                let out = op
                    .fold(
                        75,
                        &[Value::U32(a), Value::U32(b), Value::U32(c), Value::Pred(p)],
                    )
                    .unwrap();
                let cv = if not_c { u32::MAX - c } else { c };
                let want =
                    (prod(ty, a, b) + i128::from(cv) + i128::from(p != not_p)).rem_euclid(1 << 32);
                assert_eq!(out.vals[0], Value::U32(want as u32));
                let twin = OpUimadx {
                    d: Reg::ugpr(0),
                    a: ur(1),
                    b: ur(2),
                    c: ur(3).with_not(not_c),
                    ci: Src::reg(Reg::upred(1)).with_not(not_p),
                    ty,
                    x: XFlag::X,
                };
                let v = [Value::U32(a), Value::U32(b), Value::U32(c), Value::Pred(p)];
                assert_eq!(twin.fold(75, &v).unwrap(), out);
            }
        });
    }
}

#[test]
fn imad_wide() {
    let mut rng = Rng(77);
    for ty in TYS {
        inputs(|a, b, c, n| {
            let c64 = u64::from(c) << 32 | u64::from(rng.u32());
            for c64 in [c64, u64::from(c), 0, u64::MAX] {
                let op = OpImadWide {
                    d: Reg::gpr(0),
                    co: Reg::pred(0),
                    a: r(2),
                    b: r(3),
                    c: r(4).with_neg(n),
                    ty,
                };
                let out = op
                    .fold(75, &[Value::U32(a), Value::U32(b), Value::U64(c64)])
                    .unwrap();
                // Reference: the product's 64-bit pattern plus c (or !c + 1).
                let p = prod(ty, a, b).rem_euclid(1 << 64) as u128;
                let term = if n {
                    u128::from(u64::MAX - c64) + 1
                } else {
                    u128::from(c64)
                };
                let sum = p + term;
                assert_eq!(
                    out.vals[0],
                    Value::U64(sum as u64),
                    "{ty:?} {a:#x} {b:#x} {c64:#x} {n}"
                );
                assert_eq!(out.vals[1], Value::Pred(sum >> 64 != 0));
                let twin = OpUimadWide {
                    d: Reg::ugpr(0),
                    co: Reg::upred(0),
                    a: ur(2),
                    b: ur(3),
                    c: ur(4).with_neg(n),
                    ty,
                };
                let v = [Value::U32(a), Value::U32(b), Value::U64(c64)];
                assert_eq!(twin.fold(75, &v).unwrap(), out);
                if !n {
                    // Without negation the low word is the plain wrapping product-sum.
                    let w = (prod(ty, a, b) + i128::from(c64)).rem_euclid(1 << 64) as u64;
                    assert_eq!(out.vals[0], Value::U64(w));
                }
            }
        });
    }
}

#[test]
fn imad_wide_x() {
    for ty in TYS {
        inputs(|a, b, c, p| {
            let c64 = u64::from(c).rotate_left(17) ^ 0x5555;
            for not_c in [false, true] {
                let op = OpImadWideX {
                    d: Reg::gpr(0),
                    co: Reg::pred(0),
                    a: r(2),
                    b: r(3),
                    c: r(4).with_not(not_c),
                    ci: Src::reg(Reg::pred(1)),
                    ty,
                    x: XFlag::X,
                };
                let out = op
                    .fold(
                        75,
                        &[
                            Value::U32(a),
                            Value::U32(b),
                            Value::U64(c64),
                            Value::Pred(p),
                        ],
                    )
                    .unwrap();
                let cv = if not_c { !c64 } else { c64 };
                let sum =
                    prod(ty, a, b).rem_euclid(1 << 64) as u128 + u128::from(cv) + u128::from(p);
                assert_eq!(out.vals[0], Value::U64(sum as u64));
                assert_eq!(out.vals[1], Value::Pred(sum >= 1 << 64));
                let twin = OpUimadWideX {
                    d: Reg::ugpr(0),
                    co: Reg::upred(0),
                    a: ur(2),
                    b: ur(3),
                    c: ur(4).with_not(not_c),
                    ci: Src::reg(Reg::upred(1)),
                    ty,
                    x: XFlag::X,
                };
                let v = [
                    Value::U32(a),
                    Value::U32(b),
                    Value::U64(c64),
                    Value::Pred(p),
                ];
                assert_eq!(twin.fold(75, &v).unwrap(), out);
            }
        });
    }
}

#[test]
fn imad_hi() {
    for ty in TYS {
        inputs(|a, b, c, n| {
            let op = OpImadHi {
                d: Reg::gpr(0),
                co: Reg::pred(0),
                a: r(1),
                b: r(2),
                c: r(3).with_neg(n),
                ty,
            };
            let out = op
                .fold(75, &[Value::U32(a), Value::U32(b), Value::U32(c)])
                .unwrap();
            let hi = (prod(ty, a, b) >> 32).rem_euclid(1 << 32) as u64;
            let term = if n { u64::from(!c) + 1 } else { u64::from(c) };
            let sum = hi + term;
            assert_eq!(
                out.vals[0],
                Value::U32(sum as u32),
                "{ty:?} {a:#x} {b:#x} {c:#x} {n}"
            );
            assert_eq!(out.vals[1], Value::Pred(sum > u64::from(u32::MAX)));
            let twin = OpUimadHi {
                d: Reg::ugpr(0),
                co: Reg::upred(0),
                a: ur(1),
                b: ur(2),
                c: ur(3).with_neg(n),
                ty,
            };
            let v = [Value::U32(a), Value::U32(b), Value::U32(c)];
            assert_eq!(twin.fold(120, &v).unwrap(), out);
        });
    }
    // mad.hi edge: (-1) * (-1) has a zero high word when signed, 0xfffffffe unsigned.
    let op = |ty| OpImadHi {
        d: Reg::gpr(0),
        co: Reg::pred(0),
        a: r(1),
        b: r(2),
        c: Src::RZ,
        ty,
    };
    let v = [Value::U32(u32::MAX), Value::U32(u32::MAX), Value::U32(0)];
    assert_eq!(
        op(IntType::S32).fold(75, &v).unwrap().vals[0],
        Value::U32(0)
    );
    assert_eq!(
        op(IntType::U32).fold(75, &v).unwrap().vals[0],
        Value::U32(0xffff_fffe)
    );
}
