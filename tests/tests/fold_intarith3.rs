//! Fold tests for IMNMX, VIMNMX, VIADDMNMX, IABS and LEA (SM70+), against references
//! written independently of the spec's fold expressions.

use isa_tests::rng::Rng;
use nak::isa::{
    ImnmxX, IntType, OpIabs, OpImnmx, OpLea, OpLeaHiX, OpViaddmnmx, OpVimnmx, VimnmxType,
};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

/// This file's draws on top of the shared generator.
trait Draw {
    fn u32(&mut self) -> u32;
}

impl Draw for Rng {
    fn u32(&mut self) -> u32 {
        match self.next_u64() % 4 {
            0 => EDGES[(self.next_u64() % EDGES.len() as u64) as usize],
            _ => self.next_u64() as u32,
        }
    }
}

const EDGES: [u32; 10] = [
    0,
    1,
    2,
    u32::MAX,
    0x8000_0000,
    0x7fff_ffff,
    0xffff,
    0x8000_7fff,
    0x7f80_ff01,
    0x0080_8080,
];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn pairs(mut f: impl FnMut(u32, u32)) {
    for a in EDGES {
        for b in EDGES {
            f(a, b);
        }
    }
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    for _ in 0..3000 {
        f(rng.u32(), rng.u32());
    }
}

fn u(v: Value) -> u32 {
    match v {
        Value::U32(x) => x,
        other => panic!("not a u32: {other:?}"),
    }
}

#[test]
fn imnmx() {
    for sm in [75, 80, 86, 89, 90, 100, 120] {
        for ty in [IntType::S32, IntType::U32] {
            pairs(|a, b| {
                for (min, pnot) in [(true, false), (false, false), (true, true), (false, true)] {
                    let op = OpImnmx {
                        d: Reg::gpr(0),
                        pd0: Reg::PT,
                        pd1: Reg::PT,
                        a: r(1),
                        b: r(2),
                        p: Src::reg(Reg::pred(0)).with_not(pnot),
                        q: Src::PT.with_not(true),
                        ty,
                        cc: false,
                        xmode: ImnmxX::None,
                    };
                    // The predicate register holds `min ^ pnot`, so the
                    // predicate as read is `min`.
                    let out = op
                        .fold(
                            sm,
                            &[
                                Value::U32(a),
                                Value::U32(b),
                                Value::Pred(min ^ pnot),
                                Value::Pred(true), // q = !PT reads false
                            ],
                        )
                        .unwrap();
                    let want = match (ty, min) {
                        (IntType::S32, true) => (a as i32).min(b as i32) as u32,
                        (IntType::S32, false) => (a as i32).max(b as i32) as u32,
                        (IntType::U32, true) => a.min(b),
                        (IntType::U32, false) => a.max(b),
                    };
                    assert_eq!(
                        u(out.vals[0]),
                        want,
                        "SM{sm} {ty:?} {a:#x} {b:#x} min={min}"
                    );
                }
            });
        }
    }
}

/// Reference: split into lanes with std conversions, min/max per lane.
fn vimnmx_ref(ty: VimnmxType, relu: bool, a: u32, b: u32, min: bool) -> u32 {
    let lanes = |x: u32| -> Vec<i64> {
        match ty {
            VimnmxType::S32 => vec![i64::from(x as i32)],
            VimnmxType::U32 => vec![i64::from(x)],
            VimnmxType::S16x2 => vec![i64::from(x as i16), i64::from((x >> 16) as i16)],
            VimnmxType::U16x2 => vec![i64::from(x as u16), i64::from((x >> 16) as u16)],
            VimnmxType::S8x4 => x
                .to_le_bytes()
                .iter()
                .map(|&v| i64::from(v as i8))
                .collect(),
            VimnmxType::U8x4 => x.to_le_bytes().iter().map(|&v| i64::from(v)).collect(),
        }
    };
    let (la, lb) = (lanes(a), lanes(b));
    let width = 32 / la.len() as u32;
    let mut out = 0u64;
    for (i, (x, y)) in la.iter().zip(&lb).enumerate() {
        let mut m = if min { *x.min(y) } else { *x.max(y) };
        if relu {
            m = m.max(0);
        }
        let mask = (1u64 << width) - 1;
        out |= ((m as u64) & mask) << (i as u32 * width);
    }
    out as u32
}

#[test]
fn vimnmx() {
    let tys = [
        VimnmxType::S32,
        VimnmxType::U32,
        VimnmxType::S16x2,
        VimnmxType::U16x2,
        VimnmxType::S8x4,
        VimnmxType::U8x4,
    ];
    for sm in [90, 120] {
        for ty in tys {
            for relu in [false, true] {
                pairs(|a, b| {
                    for min in [true, false] {
                        let op = OpVimnmx {
                            d: Reg::gpr(0),
                            pd0: Reg::PT,
                            pd1: Reg::PT,
                            a: r(1),
                            b: r(2),
                            p: Src::reg(Reg::pred(0)),
                            ty,
                            relu,
                        };
                        let out = op
                            .fold(sm, &[Value::U32(a), Value::U32(b), Value::Pred(min)])
                            .unwrap();
                        assert_eq!(
                            u(out.vals[0]),
                            vimnmx_ref(ty, relu, a, b, min),
                            "SM{sm} {ty:?} relu={relu} {a:#x} {b:#x} min={min}"
                        );
                    }
                });
            }
        }
    }
}

#[test]
fn vimnmx_is_commutative() {
    for ty in [VimnmxType::S16x2, VimnmxType::U32, VimnmxType::S8x4] {
        pairs(|a, b| {
            let op = OpVimnmx {
                d: Reg::gpr(0),
                pd0: Reg::PT,
                pd1: Reg::PT,
                a: r(1),
                b: r(2),
                p: Src::reg(Reg::pred(0)),
                ty,
                relu: false,
            };
            for min in [true, false] {
                let x = op.fold(120, &[Value::U32(a), Value::U32(b), Value::Pred(min)]);
                let y = op.fold(120, &[Value::U32(b), Value::U32(a), Value::Pred(min)]);
                assert_eq!(u(x.unwrap().vals[0]), u(y.unwrap().vals[0]));
            }
        });
    }
}

#[test]
fn iabs() {
    for sm in [70, 75, 90, 120] {
        pairs(|a, _| {
            let op = OpIabs {
                d: Reg::gpr(0),
                b: r(1),
            };
            let out = op.fold(sm, &[Value::U32(a)]).unwrap();
            // i64 absolute value truncated: |i32::MIN| wraps to itself.
            let want = i64::from(a as i32).unsigned_abs() as u32;
            assert_eq!(u(out.vals[0]), want, "SM{sm} {a:#x}");
        });
    }
}

#[test]
fn lea_lo() {
    pairs(|a, b| {
        for shift in [0u32, 1, 2, 3, 17, 31] {
            for (an, bn) in [(false, false), (false, true)] {
                let op = OpLea {
                    d: Reg::gpr(0),
                    co: Reg::pred(0),
                    a: r(1).with_neg(an),
                    b: r(2).with_neg(bn),
                    shift,
                };
                let out = op.fold(75, &[Value::U32(a), Value::U32(b)]).unwrap();
                // Reference in i128: the shifted low word, negated as
                // 2^32 - x (so negating 0 carries), plus b.
                let t = i128::from(a.wrapping_shl(shift));
                let t = if an { (1i128 << 32) - t } else { t };
                let bb = if bn {
                    (1i128 << 32) - i128::from(b)
                } else {
                    i128::from(b)
                };
                let sum = t + bb;
                assert_eq!(
                    u(out.vals[0]),
                    sum as u32,
                    "{a:#x} {b:#x} {shift} {an} {bn}"
                );
                assert_eq!(out.vals[1], Value::Pred(sum >= 1 << 32));
            }
        }
    });
}

#[test]
fn lea_hi_x_adds_the_high_word() {
    // 64-bit (hi:lo) << s + (bhi:blo) computed in u128, split as ptxas does:
    // LEA lo with carry out, then LEA.HI.X with carry in.
    let mut rng = Rng(0x5eed_1ea0_0000_0001);
    for _ in 0..3000 {
        let (lo, hi, blo, bhi) = (rng.u32(), rng.u32(), rng.u32(), rng.u32());
        let shift = (rng.next_u64() % 32) as u32;
        let lo_op = OpLea {
            d: Reg::gpr(0),
            co: Reg::pred(0),
            a: r(1),
            b: r(2),
            shift,
        };
        let o = lo_op.fold(90, &[Value::U32(lo), Value::U32(blo)]).unwrap();
        let hi_op = OpLeaHiX {
            d: Reg::gpr(3),
            co: Reg::PT,
            a: r(1),
            b: r(4),
            c: r(5),
            ci: Src::reg(Reg::pred(0)),
            sx32: false,
            shift,
        };
        let h = hi_op
            .fold(
                90,
                &[Value::U32(lo), Value::U32(bhi), Value::U32(hi), o.vals[1]],
            )
            .unwrap();
        let x = ((u128::from(hi) << 32) | u128::from(lo)) << shift;
        let want = (x + ((u128::from(bhi) << 32) | u128::from(blo))) as u64;
        assert_eq!(u(o.vals[0]), want as u32);
        assert_eq!(u(h.vals[0]), (want >> 32) as u32, "{lo:#x} {hi:#x} {shift}");
    }
}

/// Reference for VIADDMNMX: the lanes of a + b (each lane wrapping on its
/// own), then VIMNMX's reference with c.
fn viaddmnmx_ref(ty: VimnmxType, relu: bool, a: u32, b: u32, c: u32, min: bool) -> u32 {
    let sum = match ty {
        VimnmxType::S16x2 | VimnmxType::U16x2 => {
            let lo = (a as u16).wrapping_add(b as u16);
            let hi = ((a >> 16) as u16).wrapping_add((b >> 16) as u16);
            u32::from(lo) | u32::from(hi) << 16
        }
        _ => a.wrapping_add(b),
    };
    vimnmx_ref(ty, relu, sum, c, min)
}

#[test]
fn viaddmnmx() {
    let tys = [
        VimnmxType::S32,
        VimnmxType::U32,
        VimnmxType::S16x2,
        VimnmxType::U16x2,
    ];
    let mut rng = Rng(0x0005_eeda_dd0f_f00d);
    for ty in tys {
        for relu in [false, true] {
            pairs(|a, b| {
                let c = rng.u32();
                for min in [true, false] {
                    let op = OpViaddmnmx {
                        d: Reg::gpr(0),
                        a: r(1),
                        b: r(2),
                        c: r(3),
                        p: Src::reg(Reg::pred(0)),
                        ty,
                        relu,
                    };
                    let vals = [
                        Value::U32(a),
                        Value::U32(b),
                        Value::U32(c),
                        Value::Pred(min),
                    ];
                    let out = op.fold(90, &vals).unwrap();
                    assert_eq!(
                        u(out.vals[0]),
                        viaddmnmx_ref(ty, relu, a, b, c, min),
                        "{ty:?} relu={relu} {a:#x} {b:#x} {c:#x} min={min}"
                    );
                }
            });
        }
    }
}
