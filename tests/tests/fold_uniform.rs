//! Fold tests for the uniform datapath's ALU ops (UIADD3, UIADD3.X, USHF,
//! ULOP3, ULEA and its .HI/.X forms, UISETP, UISETP.U64, UPRMT, USEL,
//! UMOV), each against a reference written independently here. The ops
//! share their vector twins' fold helpers, so each test also checks that
//! the twin folds the same inputs to the same values.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const EDGE: [u32; 8] = [
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    u32::MAX,
    0x0123_4567,
];

fn inputs(n: usize) -> Vec<u32> {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let mut v: Vec<u32> = EDGE.to_vec();
    v.extend((0..n).map(|_| r.next_u32()));
    v
}

fn ur(i: u8) -> Src {
    Src::reg(Reg::ugpr(i))
}

fn up(i: u8) -> Src {
    Src::reg(Reg::upred(i))
}

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn p(i: u8) -> Src {
    Src::reg(Reg::pred(i))
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

fn pr(v: bool) -> Value {
    Value::Pred(v)
}

/// Triples of test values: every edge value against rotated others.
fn triples(n: usize) -> Vec<(u32, u32, u32)> {
    let v = inputs(n);
    (0..v.len())
        .flat_map(|i| (0..v.len()).map(move |j| (i, j)))
        .map(|(i, j)| (v[i], v[j], v[(i * 7 + j * 3 + 1) % v.len()]))
        .collect()
}

/// Two's complement in 128 bits, so a negated 0 stays 0 here and the
/// carries come out of the plain sum of what the hardware adds.
fn signed_term(v: u32, neg: bool) -> i128 {
    if neg { -i128::from(v) } else { i128::from(v) }
}

#[test]
fn uiadd3_sum_and_carries() {
    for (a, b, c) in triples(12) {
        for negs in 0..8u32 {
            let (na, nb, nc) = (negs & 1 != 0, negs & 2 != 0, negs & 4 != 0);
            // Reference: the hardware adds !x + 1 for -x; in 64 bits that
            // is 2^32 - x (and 2^32 for x = 0), so each negated term adds
            // 2^32 to the signed sum.
            let sum = signed_term(a, na)
                + signed_term(b, nb)
                + signed_term(c, nc)
                + (1i128 << 32) * i128::from(negs.count_ones());
            let want = [u(sum as u32), pr(sum >= 1 << 32), pr(sum >= 1 << 33)];
            let src = [u(a), u(b), u(c)];
            let op = OpUiadd3 {
                d: Reg::ugpr(0),
                co0: Reg::upred(0),
                co1: Reg::upred(1),
                a: ur(1).with_neg(na),
                b: ur(2).with_neg(nb),
                c: ur(3).with_neg(nc),
            };
            let got = op.fold(90, &src).unwrap();
            assert_eq!(
                got.as_slice(),
                &want,
                "a {a:#x} b {b:#x} c {c:#x} negs {negs}"
            );
            let twin = OpIadd3 {
                d: Reg::gpr(0),
                co0: Reg::pred(0),
                co1: Reg::pred(1),
                a: r(1).with_neg(na),
                b: r(2).with_neg(nb),
                c: r(3).with_neg(nc),
                mode: Iadd3Mode::None,
                x: false,
                cc: false,
                asel: HalfSel::Word,
                bsel: HalfSel::Word,
                csel: HalfSel::Word,
            };
            assert_eq!(twin.fold(90, &src).unwrap(), got);
        }
    }
}

#[test]
fn uiadd3x_adds_carries_in() {
    for (a, b, c) in triples(10) {
        for ci in 0..4u32 {
            let (ci0, ci1) = (ci & 1 != 0, ci & 2 != 0);
            let sum = u64::from(a) + u64::from(b) + u64::from(c) + u64::from(ci0) + u64::from(ci1);
            let op = OpUiadd3x {
                d: Reg::ugpr(0),
                co0: Reg::upred(0),
                co1: Reg::UPT,
                a: ur(1),
                b: ur(2),
                c: ur(3),
                ci0: up(1),
                ci1: up(2),
            };
            let got = op.fold(100, &[u(a), u(b), u(c), pr(ci0), pr(ci1)]).unwrap();
            assert_eq!(
                got.as_slice(),
                &[u(sum as u32), pr(sum >> 32 != 0), pr(sum >> 33 != 0)],
                "a {a:#x} b {b:#x} c {c:#x} ci {ci}"
            );
        }
    }
}

/// The funnel shift, bit by bit: result bit i of the 64-bit pair shifted
/// is pair bit i - s (left) or i + s (right), sign or zero past the end.
fn funnel_ref(a: u32, s: u32, c: u32, right: bool, ty: ShfType, wrap: bool, hi: bool) -> u32 {
    let (width, signed) = match ty {
        ShfType::S64 => (64i64, true),
        ShfType::U64 => (64, false),
        ShfType::S32 => (32, true),
        ShfType::U32 => (32, false),
    };
    let s = if wrap {
        i64::from(s) % width
    } else {
        i64::from(s).min(width)
    };
    let pair_bit = |i: i64| -> u64 {
        if i < 0 {
            0
        } else if i >= 64 {
            if right && signed {
                u64::from(c >> 31)
            } else {
                0
            }
        } else if i < 32 {
            u64::from((a >> i) & 1)
        } else {
            u64::from((c >> (i - 32)) & 1)
        }
    };
    let mut out = 0u64;
    for i in 0..64 {
        let from = if right { i + s } else { i - s };
        out |= pair_bit(from) << i;
    }
    if hi { (out >> 32) as u32 } else { out as u32 }
}

#[test]
fn ushf_all_modes() {
    let vals = inputs(20);
    let amounts: Vec<u32> = (0..66).chain([96, 0xffff_ffff, 0x8000_0021]).collect();
    for ty in [ShfType::S64, ShfType::U64, ShfType::S32, ShfType::U32] {
        for dir in [ShfDir::L, ShfDir::R] {
            for wrap in [false, true] {
                for hi in [false, true] {
                    let op = OpUshf {
                        d: Reg::ugpr(0),
                        a: ur(1),
                        b: ur(2),
                        c: ur(3),
                        dir,
                        wrap,
                        ty,
                        hi,
                    };
                    for (i, &a) in vals.iter().enumerate() {
                        let c = vals[(i * 5 + 2) % vals.len()];
                        for &s in &amounts {
                            let want = funnel_ref(a, s, c, dir == ShfDir::R, ty, wrap, hi);
                            let got = op.fold(90, &[u(a), u(s), u(c)]).unwrap();
                            assert_eq!(
                                got.as_slice(),
                                &[u(want)],
                                "{ty:?} {dir:?} wrap {wrap} hi {hi} a {a:#x} s {s} c {c:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn ulop3_tables() {
    for lut in [0x00, 0xc0, 0x3c, 0xf8, 0x96, 0xe8, 0xfe, 0xff, 0x33, 0x5a] {
        for (a, b, c) in triples(6) {
            // Reference: the table's well-known functions by name.
            let want = match lut {
                0x00 => 0,
                0xc0 => a & b,
                0x3c => a ^ b,
                0xf8 => a | (b & c),
                0x96 => a ^ b ^ c,
                0xe8 => (a & b) | (a & c) | (b & c),
                0xfe => a | b | c,
                0xff => u32::MAX,
                0x33 => !b,
                _ => a ^ c,
            };
            for (pc, pand) in [(false, false), (true, false), (false, true), (true, true)] {
                let op = OpUlop3 {
                    pd: Reg::upred(0),
                    d: Reg::ugpr(0),
                    a: ur(1),
                    b: ur(2),
                    c: ur(3),
                    pc: up(1),
                    lut,
                    pand,
                };
                let got = op.fold(75, &[u(a), u(b), u(c), pr(pc)]).unwrap();
                let pd = if pand {
                    want != 0 && pc
                } else {
                    want != 0 || pc
                };
                assert_eq!(got.as_slice(), &[pr(pd), u(want)], "lut {lut:#x}");
            }
        }
    }
}

#[test]
fn ulea_forms() {
    for (a, b, c) in triples(10) {
        for shift in [0u32, 1, 4, 17, 31] {
            let wide = (u128::from(a)) << shift;
            // LEA: a << shift + b (b negated: + 2^32 - b).
            for nb in [false, true] {
                let t = u128::from((wide as u64) as u32);
                let sum = t + if nb {
                    (1u128 << 32) - u128::from(b)
                } else {
                    u128::from(b)
                };
                let op = OpUlea {
                    d: Reg::ugpr(0),
                    co: Reg::upred(0),
                    a: ur(1),
                    b: ur(2).with_neg(nb),
                    shift,
                };
                let got = op.fold(90, &[u(a), u(b)]).unwrap();
                assert_eq!(got.as_slice(), &[u(sum as u32), pr(sum >> 32 != 0)]);
            }
            // LEA.HI: the high word of (c:a) << shift, or of sext(a).
            for sx32 in [false, true] {
                let hi = if sx32 {
                    if a >> 31 != 0 { u32::MAX } else { 0 }
                } else {
                    c
                };
                let pair = (u128::from(hi) << 32) | u128::from(a);
                let t = ((pair << shift) >> 32) as u32;
                let sum = u64::from(t) + u64::from(b);
                let op = OpUleaHi {
                    d: Reg::ugpr(0),
                    co: Reg::upred(0),
                    a: ur(1),
                    b: ur(2),
                    c: ur(3),
                    sx32,
                    shift,
                };
                let got = op.fold(100, &[u(a), u(b), u(c)]).unwrap();
                assert_eq!(
                    got.as_slice(),
                    &[u(sum as u32), pr(sum >> 32 != 0)],
                    "sx32 {sx32}"
                );
                for ci in [false, true] {
                    let sum = u64::from(t) + u64::from(b) + u64::from(ci);
                    let op = OpUleaHiX {
                        d: Reg::ugpr(0),
                        co: Reg::upred(0),
                        a: ur(1),
                        b: ur(2),
                        c: ur(3),
                        ci: up(1),
                        sx32,
                        shift,
                    };
                    let got = op.fold(100, &[u(a), u(b), u(c), pr(ci)]).unwrap();
                    assert_eq!(got.as_slice(), &[u(sum as u32), pr(sum >> 32 != 0)]);
                }
            }
            for ci in [false, true] {
                let sum = u64::from(a.wrapping_shl(shift)) + u64::from(b) + u64::from(ci);
                let op = OpUleaX {
                    d: Reg::ugpr(0),
                    co: Reg::upred(0),
                    a: ur(1),
                    b: ur(2),
                    ci: up(1),
                    shift,
                };
                let got = op.fold(90, &[u(a), u(b), pr(ci)]).unwrap();
                assert_eq!(got.as_slice(), &[u(sum as u32), pr(sum >> 32 != 0)]);
            }
        }
    }
}

/// The compare by name, on values already ordered in the right signedness.
fn cmp_ref<T: Ord>(cmp: Icmp, a: T, b: T) -> bool {
    match cmp {
        Icmp::F => false,
        Icmp::Lt => a < b,
        Icmp::Eq => a == b,
        Icmp::Le => a <= b,
        Icmp::Gt => a > b,
        Icmp::Ne => a != b,
        Icmp::Ge => a >= b,
        Icmp::T => true,
    }
}

fn setop_ref(op: Setop, x: bool, acc: bool) -> bool {
    match op {
        Setop::And => x & acc,
        Setop::Or => x | acc,
        Setop::Xor => x != acc,
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
fn uisetp_compares() {
    for (a, b, _) in triples(8) {
        for cmp in CMPS {
            for ty in [IsetpType::U32, IsetpType::S32] {
                for setop in [Setop::And, Setop::Or, Setop::Xor] {
                    for (acc, ex, lc) in [
                        (true, false, true),
                        (false, false, true),
                        (true, true, false),
                        (true, true, true),
                    ] {
                        let base = if ty == IsetpType::S32 {
                            cmp_ref(cmp, a as i32, b as i32)
                        } else {
                            cmp_ref(cmp, a, b)
                        };
                        // .EX: equal high words defer to the low words' result.
                        let res = if ex && a == b && !matches!(cmp, Icmp::F | Icmp::T) {
                            lc
                        } else {
                            base
                        };
                        let op = OpUisetp {
                            d: Reg::upred(0),
                            d2: Reg::upred(1),
                            a: ur(1),
                            b: ur(2),
                            acc: up(2),
                            lc: up(3),
                            cmp,
                            ty,
                            setop,
                            ex,
                        };
                        let src = [u(a), u(b), pr(acc), pr(lc)];
                        let got = op.fold(90, &src).unwrap();
                        let want = [
                            pr(setop_ref(setop, res, acc)),
                            pr(setop_ref(setop, !res, acc)),
                        ];
                        assert_eq!(
                            got.as_slice(),
                            &want,
                            "{cmp:?} {ty:?} {setop:?} ex {ex} a {a:#x} b {b:#x}"
                        );
                        let twin = OpIsetp {
                            d: Reg::pred(0),
                            d2: Reg::pred(1),
                            a: r(1),
                            b: r(2),
                            acc: p(2),
                            lc: p(3),
                            cmp,
                            ty,
                            setop,
                            ex,
                            x: false,
                        };
                        assert_eq!(twin.fold(90, &src).unwrap(), got);
                    }
                }
            }
        }
    }
}

#[test]
fn uisetp64_compares() {
    let v = inputs(6);
    for (i, &lo) in v.iter().enumerate() {
        for (j, &hi) in v.iter().enumerate() {
            let a = (u64::from(hi) << 32) | u64::from(lo);
            let b = (u64::from(v[(i + j) % v.len()]) << 32) | u64::from(v[(i * 3 + 1) % v.len()]);
            for cmp in CMPS {
                for ty in [IsetpType64::U64, IsetpType64::S64] {
                    let want = if ty == IsetpType64::S64 {
                        cmp_ref(cmp, a as i64, b as i64)
                    } else {
                        cmp_ref(cmp, a, b)
                    };
                    let op = OpUisetp64 {
                        d: Reg::upred(0),
                        d2: Reg::UPT,
                        a: ur(2),
                        b: ur(4),
                        acc: Src::PT,
                        lc: Src::PT,
                        cmp,
                        ty,
                        setop: Setop::And,
                        ex: false,
                    };
                    let got = op
                        .fold(120, &[Value::U64(a), Value::U64(b), pr(true), pr(true)])
                        .unwrap();
                    assert_eq!(
                        got.as_slice(),
                        &[pr(want), pr(!want)],
                        "{cmp:?} {ty:?} a {a:#x} b {b:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn uprmt_index_mode() {
    let vals = inputs(30);
    for (i, &a) in vals.iter().enumerate() {
        let c = vals[(i * 11 + 4) % vals.len()];
        let sel = vals[(i * 3 + 7) % vals.len()];
        let bytes: Vec<u8> = a.to_le_bytes().into_iter().chain(c.to_le_bytes()).collect();
        // Reference: nibble k of the selector picks byte (n & 7) of c:a;
        // with bit 3 set, that byte's sign bit fills the result byte.
        let mut want = 0u32;
        for k in 0..4 {
            let n = (sel >> (4 * k)) & 0xf;
            let byte = bytes[(n & 7) as usize];
            let out = if n & 8 == 0 {
                byte
            } else if byte & 0x80 != 0 {
                0xff
            } else {
                0
            };
            want |= u32::from(out) << (8 * k);
        }
        let op = OpUprmt {
            d: Reg::ugpr(0),
            a: ur(1),
            b: ur(2),
            c: ur(3),
        };
        let got = op.fold(90, &[u(a), u(sel), u(c)]).unwrap();
        assert_eq!(got.as_slice(), &[u(want)], "a {a:#x} sel {sel:#x} c {c:#x}");
    }
}

#[test]
fn usel_and_umov() {
    for (a, b, _) in triples(4) {
        for cond in [false, true] {
            let op = OpUsel {
                d: Reg::ugpr(0),
                a: ur(1),
                b: ur(2),
                cond: up(0),
            };
            let got = op.fold(100, &[u(a), u(b), pr(cond)]).unwrap();
            assert_eq!(got.as_slice(), &[u(if cond { a } else { b })]);
        }
        let mov = OpUmov {
            d: Reg::ugpr(0),
            b: Src::imm(a),
        };
        assert_eq!(mov.fold(75, &[u(a)]).unwrap().as_slice(), &[u(a)]);
    }
}
