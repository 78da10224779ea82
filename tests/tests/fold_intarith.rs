//! Fold tests for the integer-arithmetic ops (IADD3.X, ISETP, VIADD).

use isa_tests::rng::Rng;
use nak::isa::{Icmp, IsetpType, OpIadd3x, OpIsetp, OpViadd, Setop};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

/// This file's draws on top of the shared generator.
trait Draw {
    fn u32(&mut self) -> u32;
}

impl Draw for Rng {
    fn u32(&mut self) -> u32 {
        // Bias towards edge values.
        match self.next_u64() % 6 {
            0 => [0, 1, u32::MAX, 0x8000_0000, 0x7fff_ffff][(self.next_u64() % 5) as usize],
            _ => self.next_u64() as u32,
        }
    }
}

fn edges() -> [u32; 6] {
    [0, 1, 2, u32::MAX, 0x8000_0000, 0x7fff_ffff]
}

fn iadd3x(nots: [bool; 5]) -> OpIadd3x {
    let r = |i| Src::reg(Reg::gpr(i));
    OpIadd3x {
        d: Reg::gpr(0),
        co0: Reg::pred(0),
        co1: Reg::pred(1),
        a: r(1).with_not(nots[0]),
        b: r(2).with_not(nots[1]),
        c: r(3).with_not(nots[2]),
        ci0: Src::reg(Reg::pred(2)).with_not(nots[3]),
        ci1: Src::reg(Reg::pred(3)).with_not(nots[4]),
    }
}

fn check_iadd3x(nots: [bool; 5], v: [u32; 3], p: [bool; 2]) {
    let op = iadd3x(nots);
    let out = op
        .fold(
            75,
            &[
                Value::U32(v[0]),
                Value::U32(v[1]),
                Value::U32(v[2]),
                Value::Pred(p[0]),
                Value::Pred(p[1]),
            ],
        )
        .unwrap();
    // Reference: u128 sum of the complemented terms.
    let t = |x: u32, n: bool| u128::from(if n { x ^ 0xffff_ffff } else { x });
    let sum = t(v[0], nots[0])
        + t(v[1], nots[1])
        + t(v[2], nots[2])
        + u128::from(p[0] != nots[3])
        + u128::from(p[1] != nots[4]);
    assert_eq!(
        out.vals[0],
        Value::U32((sum & 0xffff_ffff) as u32),
        "{nots:?} {v:?} {p:?}"
    );
    assert_eq!(out.vals[1], Value::Pred(sum >> 32 != 0));
    assert_eq!(out.vals[2], Value::Pred(sum >> 33 != 0));
}

#[test]
fn iadd3x_edges_and_random() {
    for m in 0..32u32 {
        let nots = [0, 1, 2, 3, 4].map(|i| m >> i & 1 == 1);
        for a in edges() {
            for b in edges() {
                for c in [0, u32::MAX] {
                    for p in [[false, false], [true, false], [true, true]] {
                        check_iadd3x(nots, [a, b, c], p);
                    }
                }
            }
        }
    }
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..5000 {
        let m = rng.next_u64();
        let nots = [0, 1, 2, 3, 4].map(|i| m >> i & 1 == 1);
        check_iadd3x(
            nots,
            [rng.u32(), rng.u32(), rng.u32()],
            [m >> 8 & 1 == 1, m >> 9 & 1 == 1],
        );
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
const SETOPS: [Setop; 3] = [Setop::And, Setop::Or, Setop::Xor];

fn isetp(cmp: Icmp, ty: IsetpType, setop: Setop, ex: bool) -> OpIsetp {
    OpIsetp {
        d: Reg::pred(0),
        d2: Reg::PT,
        a: Src::reg(Reg::gpr(1)),
        b: Src::reg(Reg::gpr(2)),
        acc: Src::reg(Reg::pred(1)),
        lc: Src::reg(Reg::pred(2)),
        cmp,
        ty,
        setop,
        ex,
        x: false,
    }
}

/// Reference: compare as i64 (sign- or zero-extended); .EX with equal high
/// words takes the low compare.
fn reference(cmp: Icmp, signed: bool, ex: bool, a: u32, b: u32, lc: bool) -> bool {
    let (x, y) = if signed {
        (i64::from(a as i32), i64::from(b as i32))
    } else {
        (i64::from(a), i64::from(b))
    };
    let eq_fallback = ex && x == y && !matches!(cmp, Icmp::F | Icmp::T);
    if eq_fallback {
        return lc;
    }
    match cmp {
        Icmp::F => false,
        Icmp::Lt => x < y,
        Icmp::Eq => x == y,
        Icmp::Le => x <= y,
        Icmp::Gt => x > y,
        Icmp::Ne => x != y,
        Icmp::Ge => x >= y,
        Icmp::T => true,
    }
}

#[allow(clippy::too_many_arguments)]
fn check_isetp(
    cmp: Icmp,
    signed: bool,
    setop: Setop,
    ex: bool,
    a: u32,
    b: u32,
    acc: bool,
    lc: bool,
) {
    let ty = if signed {
        IsetpType::S32
    } else {
        IsetpType::U32
    };
    let out = isetp(cmp, ty, setop, ex)
        .fold(
            80,
            &[
                Value::U32(a),
                Value::U32(b),
                Value::Pred(acc),
                Value::Pred(lc),
            ],
        )
        .unwrap();
    let r = reference(cmp, signed, ex, a, b, lc);
    let comb = |x: bool| match setop {
        Setop::And => x & acc,
        Setop::Or => x | acc,
        Setop::Xor => x ^ acc,
    };
    assert_eq!(
        out.vals[0],
        Value::Pred(comb(r)),
        "{cmp:?} {signed} {setop:?} {ex} {a:#x} {b:#x} {acc} {lc}"
    );
    assert_eq!(out.vals[1], Value::Pred(comb(!r)));
}

#[test]
fn isetp_every_mode_edges_and_random() {
    let mut rng = Rng(0xdead_beef_0bad_cafe);
    for cmp in CMPS {
        for signed in [false, true] {
            for setop in SETOPS {
                for ex in [false, true] {
                    for a in edges() {
                        for b in edges() {
                            for (acc, lc) in
                                [(false, false), (true, false), (false, true), (true, true)]
                            {
                                check_isetp(cmp, signed, setop, ex, a, b, acc, lc);
                            }
                        }
                    }
                    for _ in 0..200 {
                        let m = rng.next_u64();
                        check_isetp(
                            cmp,
                            signed,
                            setop,
                            ex,
                            rng.u32(),
                            rng.u32(),
                            m & 1 == 1,
                            m & 2 == 2,
                        );
                    }
                }
            }
        }
    }
}

/// A 64-bit compare chained as ISETP (low, unsigned) + ISETP.EX (high).
#[test]
fn isetp_ex_chain_matches_64bit_compare() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..3000 {
        let (x, y) = (
            u64::from(rng.u32()) << 32 | u64::from(rng.u32()),
            u64::from(rng.u32()) << 32 | u64::from(rng.u32()),
        );
        let y = if rng.next_u64().is_multiple_of(4) {
            (y & 0xffff_ffff) | (x & !0xffff_ffff)
        } else {
            y
        };
        for cmp in CMPS {
            for signed in [false, true] {
                let lo = isetp(cmp, IsetpType::U32, Setop::And, false)
                    .fold(
                        75,
                        &[
                            Value::U32(x as u32),
                            Value::U32(y as u32),
                            Value::Pred(true),
                            Value::Pred(true),
                        ],
                    )
                    .unwrap()
                    .vals[0];
                let ty = if signed {
                    IsetpType::S32
                } else {
                    IsetpType::U32
                };
                let hi = isetp(cmp, ty, Setop::And, true)
                    .fold(
                        75,
                        &[
                            Value::U32((x >> 32) as u32),
                            Value::U32((y >> 32) as u32),
                            Value::Pred(true),
                            lo,
                        ],
                    )
                    .unwrap()
                    .vals[0];
                let want = if signed {
                    cmp64(cmp, (x as i64).cmp(&(y as i64)))
                } else {
                    cmp64(cmp, x.cmp(&y))
                };
                assert_eq!(hi, Value::Pred(want), "{cmp:?} {signed} {x:#x} {y:#x}");
            }
        }
    }
}

fn cmp64(cmp: Icmp, o: std::cmp::Ordering) -> bool {
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

/// VIADD against i64 arithmetic (32-bit) and per-half u16 arithmetic
/// (.16x2); a negated b with .16x2 is refused.
#[test]
fn viadd_matches_reference() {
    let mut rng = Rng(0x7add_7add);
    for _ in 0..20_000 {
        let (a, b) = (rng.u32(), rng.u32());
        for x2 in [false, true] {
            for neg in [false, true] {
                let op = OpViadd {
                    d: Reg::gpr(0),
                    a: Src::reg(Reg::gpr(1)),
                    b: Src::reg(Reg::gpr(2)).with_neg(neg),
                    x2,
                };
                let out = op.fold(90, &[Value::U32(a), Value::U32(b)]);
                if x2 && neg {
                    assert!(out.is_err(), "VIADD.16x2 with -b must be refused");
                    continue;
                }
                let want = if x2 {
                    let half = |s: u32| ((a >> s) as u16).wrapping_add((b >> s) as u16) as u32;
                    half(0) | half(16) << 16
                } else {
                    let bb = if neg { -(b as i64) } else { b as i64 };
                    (a as i64 + bb) as u32
                };
                assert_eq!(
                    out.unwrap().as_slice(),
                    &[Value::U32(want)],
                    "{a:#x} {b:#x} x2 {x2} neg {neg}"
                );
            }
        }
    }
}
