//! Fold tests for the bit ops (LOP3, SHF, PRMT, SEL, POPC, FLO, BREV, SGXT, BMSK), each
//! against a reference written independently here. The uniform twins of
//! POPC, FLO, BREV and SGXT (UPOPC, UFLO, UBREV, USGXT) are checked against
//! the same references.

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
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v: Vec<u32> = EDGE.to_vec();
    v.extend((0..n).map(|_| r.next_u32()));
    v
}

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

#[test]
fn lop3_every_lut() {
    let vals = inputs(40);
    for lut in 0..256u32 {
        for (i, &a) in vals.iter().enumerate() {
            let b = vals[(i * 7 + 3) % vals.len()];
            let c = vals[(i * 13 + 5) % vals.len()];
            // Reference: bit by bit, index = a*4 + b*2 + c.
            let mut want = 0u32;
            for bit in 0..32 {
                let idx = ((a >> bit) & 1) * 4 + ((b >> bit) & 1) * 2 + ((c >> bit) & 1);
                want |= ((lut >> idx) & 1) << bit;
            }
            for pc in [false, true] {
                for pand in [false, true] {
                    let op = OpLop3 {
                        pd: Reg::pred(0),
                        d: Reg::gpr(0),
                        a: r(1),
                        b: r(2),
                        c: r(3),
                        pc: Src::PT,
                        lut,
                        pop: PredOp::F,
                        pand,
                        cc: false,
                        x: false,
                    };
                    let out = op.fold(75, &[u(a), u(b), u(c), Value::Pred(pc)]).unwrap();
                    let pd = if pand {
                        want != 0 && pc
                    } else {
                        want != 0 || pc
                    };
                    assert_eq!(
                        out.as_slice(),
                        &[Value::Pred(pd), u(want)],
                        "lut {lut:#x} a {a:#x} b {b:#x} c {c:#x}"
                    );
                }
            }
        }
    }
}

fn shf_ref(a: u32, s: u32, c: u32, right: bool, ty: ShfType, wrap: bool, hi: bool) -> u32 {
    let (size, signed) = match ty {
        ShfType::S64 => (64u32, true),
        ShfType::U64 => (64, false),
        ShfType::S32 => (32, true),
        ShfType::U32 => (32, false),
    };
    let s = if wrap {
        s % size
    } else if s > size {
        size
    } else {
        s
    };
    let pair = (u128::from(c) << 32) | u128::from(a);
    let res: u128 = if !right {
        pair << s
    } else if signed && (c >> 31) == 1 {
        // Sign fill: ones above bit 63 before shifting.
        ((pair | (u128::MAX << 64)) >> s) & ((1u128 << 64) - 1)
    } else {
        pair >> s
    };
    if hi { (res >> 32) as u32 } else { res as u32 }
}

#[test]
fn shf_all_modes() {
    let vals = inputs(60);
    let amounts: Vec<u32> = (0..70)
        .chain([96, 127, 128, 0xffff_ffff, 0x8000_0020])
        .collect();
    for ty in [ShfType::S64, ShfType::U64, ShfType::S32, ShfType::U32] {
        for dir in [ShfDir::L, ShfDir::R] {
            for wrap in [false, true] {
                for hi in [false, true] {
                    let op = OpShf {
                        d: Reg::gpr(0),
                        a: r(1),
                        b: r(2),
                        c: r(3),
                        dir,
                        wrap,
                        ty,
                        hi,
                        x: false,
                        cc: false,
                    };
                    for (i, &a) in vals.iter().enumerate() {
                        let c = vals[(i * 11 + 1) % vals.len()];
                        for &s in &amounts {
                            let out = op.fold(75, &[u(a), u(s), u(c)]).unwrap();
                            let want = shf_ref(a, s, c, dir == ShfDir::R, ty, wrap, hi);
                            assert_eq!(
                                out.as_slice(),
                                &[u(want)],
                                "{dir:?} {ty:?} w{wrap} hi{hi} a {a:#x} s {s} c {c:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
}

fn prmt_ref(a: u32, sel: u32, c: u32, mode: PrmtMode) -> u32 {
    let bytes: Vec<u8> = a
        .to_le_bytes()
        .iter()
        .chain(c.to_le_bytes().iter())
        .copied()
        .collect();
    let s = (sel & 3) as usize;
    // PTX ISA table of the byte indices for result bytes 3, 2, 1, 0.
    let idx: [usize; 4] = match mode {
        PrmtMode::Idx => {
            let mut out = 0u32;
            for k in 0..4 {
                let n = (sel >> (4 * k)) & 0xf;
                let v = bytes[(n & 7) as usize];
                let v = if n & 8 != 0 {
                    ((v as i8) >> 7) as u8
                } else {
                    v
                };
                out |= u32::from(v) << (8 * k);
            }
            return out;
        }
        PrmtMode::F4e => [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]][s],
        PrmtMode::B4e => [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]][s],
        PrmtMode::Rc8 => [[0; 4], [1; 4], [2; 4], [3; 4]][s],
        PrmtMode::Ecl => [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]][s],
        PrmtMode::Ecr => [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]][s],
        PrmtMode::Rc16 => [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]][s],
    };
    u32::from_be_bytes(idx.map(|i| bytes[i]))
}

#[test]
fn prmt_all_modes() {
    let vals = inputs(300);
    for mode in PrmtMode::ALL {
        let op = OpPrmt {
            d: Reg::gpr(0),
            a: r(1),
            b: r(2),
            c: r(3),
            mode,
        };
        for (i, &a) in vals.iter().enumerate() {
            let c = vals[(i * 17 + 2) % vals.len()];
            let sel = vals[(i * 5 + 9) % vals.len()];
            for sel in [
                sel,
                sel & 0x7777,
                sel | 0x8888,
                0,
                1,
                2,
                3,
                0x3210,
                0x7654,
                0xba98,
            ] {
                let out = op.fold(75, &[u(a), u(sel), u(c)]).unwrap();
                assert_eq!(
                    out.as_slice(),
                    &[u(prmt_ref(a, sel, c, mode))],
                    "{mode:?} a {a:#x} sel {sel:#x} c {c:#x}"
                );
            }
        }
    }
}

#[test]
fn sel_popc_brev() {
    let vals = inputs(2000);
    for (i, &a) in vals.iter().enumerate() {
        let b = vals[(i * 3 + 1) % vals.len()];
        for p in [false, true] {
            let op = OpSel {
                d: Reg::gpr(0),
                a: r(1),
                b: r(2),
                cond: Src::PT,
            };
            let out = op.fold(75, &[u(a), u(b), Value::Pred(p)]).unwrap();
            assert_eq!(out.as_slice(), &[u(if p { a } else { b })]);
        }
        let mut ones = 0;
        let mut rev = 0u32;
        for bit in 0..32 {
            ones += (a >> bit) & 1;
            rev |= ((a >> bit) & 1) << (31 - bit);
        }
        for not in [false, true] {
            let op = OpPopc {
                d: Reg::gpr(0),
                b: r(1).with_not(not),
            };
            let want = if not { 32 - ones } else { ones };
            assert_eq!(
                op.fold(75, &[u(a)]).unwrap().as_slice(),
                &[u(want)],
                "popc {a:#x} not {not}"
            );
            let twin = OpUpopc {
                d: Reg::ugpr(0),
                b: Src::reg(Reg::ugpr(1)).with_not(not),
            };
            assert_eq!(twin.fold(75, &[u(a)]).unwrap().as_slice(), &[u(want)]);
        }
        let op = OpBrev {
            d: Reg::gpr(0),
            b: r(1),
        };
        assert_eq!(op.fold(75, &[u(a)]).unwrap().as_slice(), &[u(rev)]);
        let twin = OpUbrev {
            d: Reg::ugpr(0),
            b: Src::reg(Reg::ugpr(1)),
        };
        assert_eq!(twin.fold(75, &[u(a)]).unwrap().as_slice(), &[u(rev)]);
    }
}

#[test]
fn flo_all_modes() {
    let vals = inputs(2000);
    for &x in &vals {
        for not in [false, true] {
            for ty in [FloType::U32, FloType::S32] {
                for sh in [false, true] {
                    let v = if not { !x } else { x };
                    // Reference: scan from bit 31 down for the first bit that
                    // differs from the sign (signed) or is one (unsigned).
                    let target = if ty == FloType::S32 { (v >> 31) ^ 1 } else { 1 };
                    let start = if ty == FloType::S32 { 30 } else { 31 };
                    let pos = (0..=start).rev().find(|&i| (v >> i) & 1 == target);
                    let want = match pos {
                        None => u32::MAX,
                        Some(p) if sh => 31 - p,
                        Some(p) => p,
                    };
                    let op = OpFlo {
                        pd: Reg::PT,
                        d: Reg::gpr(0),
                        b: r(1).with_not(not),
                        ty,
                        sh,
                        cc: false,
                    };
                    let out = op.fold(75, &[u(x)]).unwrap();
                    assert_eq!(
                        out.as_slice(),
                        &[Value::Pred(pos.is_none()), u(want)],
                        "{x:#x} not {not} {ty:?} sh {sh}"
                    );
                    let twin = OpUflo {
                        pd: Reg::UPT,
                        d: Reg::ugpr(0),
                        b: Src::reg(Reg::ugpr(1)).with_not(not),
                        ty,
                        sh,
                    };
                    assert_eq!(twin.fold(75, &[u(x)]).unwrap(), out);
                }
            }
        }
    }
}

/// Bit counts and positions around the edges, and some past 32.
const COUNTS: [u32; 12] = [0, 1, 2, 7, 16, 30, 31, 32, 33, 63, 64, 0xffff_ffff];

#[test]
fn sgxt_all_modes() {
    let vals = inputs(300);
    for &a in &vals {
        for n in COUNTS.into_iter().chain(vals.iter().map(|v| v % 40)) {
            for wrap in [false, true] {
                for ty in [IntType::S32, IntType::U32] {
                    // Reference: keep bits below the count, copy the top kept
                    // bit upward when signed; "all of a" for a clamped count.
                    let count = if wrap { n % 32 } else { n.min(32) };
                    let want = if count == 32 {
                        a
                    } else {
                        let kept = a & ((1u64 << count) - 1) as u32;
                        let top = count > 0 && (a >> (count - 1)) & 1 == 1;
                        if ty == IntType::S32 && top {
                            kept | !(((1u64 << count) - 1) as u32)
                        } else {
                            kept
                        }
                    };
                    let op = OpSgxt {
                        d: Reg::gpr(0),
                        a: r(1),
                        b: r(2),
                        wrap,
                        ty,
                    };
                    let out = op.fold(75, &[u(a), u(n)]).unwrap();
                    assert_eq!(out.as_slice(), &[u(want)], "{a:#x} {n} wrap {wrap} {ty:?}");
                    let twin = OpUsgxt {
                        d: Reg::ugpr(0),
                        a: Src::reg(Reg::ugpr(1)),
                        b: Src::reg(Reg::ugpr(2)),
                        wrap,
                        ty,
                    };
                    assert_eq!(twin.fold(75, &[u(a), u(n)]).unwrap(), out);
                }
            }
        }
    }
}

#[test]
fn bmsk_all_modes() {
    let vals = inputs(100);
    let args: Vec<u32> = COUNTS
        .into_iter()
        .chain(vals.iter().map(|v| v % 70))
        .collect();
    for &pos in &args {
        for &width in &args {
            for wrap in [false, true] {
                // Reference: set each bit from the start position for the
                // width, stopping at bit 31.
                let (start, len) = if wrap {
                    (pos % 32, width % 32)
                } else {
                    (pos, width.min(32))
                };
                let want = (0..32u32)
                    .filter(|&i| i >= start && u64::from(i) < u64::from(start) + u64::from(len))
                    .fold(0u32, |m, i| m | 1 << i);
                let op = OpBmsk {
                    d: Reg::gpr(0),
                    a: r(1),
                    b: r(2),
                    wrap,
                };
                let out = op.fold(75, &[u(pos), u(width)]).unwrap();
                assert_eq!(
                    out.as_slice(),
                    &[u(want)],
                    "pos {pos} width {width} wrap {wrap}"
                );
            }
        }
    }
}
