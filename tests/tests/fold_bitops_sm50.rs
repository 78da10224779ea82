//! Fold tests for the Maxwell/Pascal bit ops (LOP, LOP32I, SHL, SHR, SHF's
//! sm50 semantics, BFE) and PLOP3, each against a reference written here.

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

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

const OPS: [LopOp; 4] = [LopOp::And, LopOp::Or, LopOp::Xor, LopOp::PassB];
const POPS: [PredOp; 4] = [PredOp::F, PredOp::T, PredOp::Z, PredOp::Nz];

/// Reference two-input logic op, bit by bit through a truth table.
fn lop_ref(op: LopOp, a: u32, b: u32) -> u32 {
    let table: [u32; 4] = match op {
        // index = a_bit * 2 + b_bit
        LopOp::And => [0, 0, 0, 1],
        LopOp::Or => [0, 1, 1, 1],
        LopOp::Xor => [0, 1, 1, 0],
        LopOp::PassB => [0, 1, 0, 1],
    };
    (0..32).fold(0, |acc, bit| {
        let i = (((a >> bit) & 1) * 2 + ((b >> bit) & 1)) as usize;
        acc | (table[i] << bit)
    })
}

#[test]
fn lop_every_op() {
    let vals = inputs(500);
    for &op in &OPS {
        for &pop in &POPS {
            for (na, nb) in [(false, false), (true, false), (false, true), (true, true)] {
                let o = OpLop {
                    pd: Reg::pred(0),
                    d: Reg::gpr(0),
                    a: r(1).with_not(na),
                    b: r(2).with_not(nb),
                    op,
                    pop,
                    cc: false,
                    x: false,
                };
                for (i, &a) in vals.iter().enumerate() {
                    let b = vals[(i * 7 + 3) % vals.len()];
                    let a2 = if na { a ^ u32::MAX } else { a };
                    let b2 = if nb { !b } else { b };
                    let want = lop_ref(op, a2, b2);
                    let p = match pop {
                        PredOp::F => false,
                        PredOp::T => true,
                        PredOp::Z => want == 0,
                        PredOp::Nz => want != 0,
                    };
                    let out = o.fold(52, &[u(a), u(b)]).unwrap();
                    assert_eq!(
                        out.as_slice(),
                        &[Value::Pred(p), u(want)],
                        "{op:?} {pop:?} ~a{na} ~b{nb} a {a:#x} b {b:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn lop32i_every_op() {
    let vals = inputs(500);
    for &op in &OPS {
        for na in [false, true] {
            for (i, &a) in vals.iter().enumerate() {
                let b = vals[(i * 5 + 1) % vals.len()];
                let o = OpLop32i {
                    d: Reg::gpr(0),
                    a: r(1).with_not(na),
                    b: Src::imm(b),
                    op,
                    cc: false,
                    x: false,
                };
                let a2 = if na { !a } else { a };
                let out = o.fold(60, &[u(a), u(b)]).unwrap();
                assert_eq!(
                    out.as_slice(),
                    &[u(lop_ref(op, a2, b))],
                    "{op:?} a {a:#x} b {b:#x}"
                );
            }
        }
    }
}

fn amounts() -> Vec<u32> {
    (0..70)
        .chain([96, 127, 128, 0xffff_ffff, 0x8000_0020, 0x8000_0001])
        .collect()
}

#[test]
fn shl_shr() {
    let vals = inputs(200);
    for wrap in [false, true] {
        for &a in &vals {
            for &s in &amounts() {
                let s2 = if wrap { s % 32 } else { s.min(32) };
                // Reference via i64/u64 arithmetic.
                let shl = if s2 >= 32 {
                    0
                } else {
                    ((u64::from(a) << s2) & 0xffff_ffff) as u32
                };
                let shr_u = (u64::from(a) >> s2) as u32;
                let shr_s = if s2 >= 32 {
                    if (a as i32) < 0 { u32::MAX } else { 0 }
                } else {
                    ((a as i32) >> s2) as u32
                };
                let o = OpShl {
                    d: Reg::gpr(0),
                    a: r(1),
                    b: r(2),
                    wrap,
                    x: false,
                    cc: false,
                };
                assert_eq!(
                    o.fold(52, &[u(a), u(s)]).unwrap().as_slice(),
                    &[u(shl)],
                    "shl w{wrap} {a:#x} {s}"
                );
                for (ty, want) in [(ShrType::S32, shr_s), (ShrType::U32, shr_u)] {
                    let o = OpShr {
                        d: Reg::gpr(0),
                        a: r(1),
                        b: r(2),
                        ty,
                        wrap,
                        xmode: ShrX::None,
                        brev: false,
                        cc: false,
                    };
                    assert_eq!(
                        o.fold(52, &[u(a), u(s)]).unwrap().as_slice(),
                        &[u(want)],
                        "shr {ty:?} w{wrap} {a:#x} {s}"
                    );
                }
            }
        }
    }
}

/// Maxwell SHF (the spec's `fold_family.sm50` of shf.toml): left shifts always return the high word; a right
/// shift fills with the sign only for S64; the 32-bit type (code 0) is
/// unsigned.
fn shf50_ref(a: u32, s: u32, c: u32, right: bool, ty: ShfType, wrap: bool, hi: bool) -> u32 {
    let size = if matches!(ty, ShfType::S64 | ShfType::U64) {
        64
    } else {
        32
    };
    let s = if wrap { s % size } else { s.min(size) };
    let pair = (i128::from(c) << 32) | i128::from(a);
    if !right {
        return ((pair << s) >> 32) as u32;
    }
    let v = if ty == ShfType::S64 {
        (pair << 64) >> 64
    } else {
        pair
    };
    let res = v >> s;
    if hi { (res >> 32) as u32 } else { res as u32 }
}

#[test]
fn shf_sm50_semantics() {
    let vals = inputs(40);
    for ty in [ShfType::U32, ShfType::U64, ShfType::S64] {
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
                        for &s in &amounts() {
                            let want = shf50_ref(a, s, c, dir == ShfDir::R, ty, wrap, hi);
                            for sm in [50, 52, 60] {
                                let out = op.fold(sm, &[u(a), u(s), u(c)]).unwrap();
                                assert_eq!(
                                    out.as_slice(),
                                    &[u(want)],
                                    "sm{sm} {dir:?} {ty:?} w{wrap} hi{hi} a {a:#x} s {s} c {c:#x}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    // The quirk itself: SHF.L without .HI still gives the high word.
    let op = OpShf {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        c: r(3),
        dir: ShfDir::L,
        wrap: false,
        ty: ShfType::U64,
        hi: false,
        x: false,
        cc: false,
    };
    assert_eq!(
        op.fold(52, &[u(0x8000_0001), u(1), u(0)])
            .unwrap()
            .as_slice(),
        &[u(1)]
    );
    assert_eq!(
        op.fold(75, &[u(0x8000_0001), u(1), u(0)])
            .unwrap()
            .as_slice(),
        &[u(2)]
    );
}

#[test]
fn plop3_every_lut() {
    for lut0 in 0..256u32 {
        let lut1 = lut0.reverse_bits() >> 24 ^ 0x5a;
        for bits in 0..64u32 {
            let (a, b, c) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
            let (na, nb, nc) = (bits & 8 != 0, bits & 16 != 0, bits & 32 != 0);
            let op = OpPlop3 {
                pd: Reg::pred(0),
                pq: Reg::pred(1),
                a: Src::PT.with_not(na),
                b: Src::PT.with_not(nb),
                c: Src::PT.with_not(nc),
                lut0,
                lut1,
            };
            // Reference: the LUT masks a = 0xf0, b = 0xcc, c = 0xaa.
            let m = |x: bool, mask: u32| if x { mask } else { !mask & 0xff };
            let sel = m(a != na, 0xf0) & m(b != nb, 0xcc) & m(c != nc, 0xaa);
            let out = op
                .fold(75, &[Value::Pred(a), Value::Pred(b), Value::Pred(c)])
                .unwrap();
            assert_eq!(
                out.as_slice(),
                &[Value::Pred(lut0 & sel != 0), Value::Pred(lut1 & sel != 0)],
                "lut0 {lut0:#x} lut1 {lut1:#x} bits {bits:#b}"
            );
        }
    }
}

#[test]
fn sm50_shared_folds() {
    // SEL, POPC, FLO and PRMT share their fold with SM70+: spot checks on SM52.
    let vals = inputs(300);
    for &a in &vals {
        let op = OpPopc {
            d: Reg::gpr(0),
            b: r(1),
        };
        let ones = (0..32).filter(|i| (a >> i) & 1 == 1).count() as u32;
        assert_eq!(op.fold(52, &[u(a)]).unwrap().as_slice(), &[u(ones)]);
        let op = OpSel {
            d: Reg::gpr(0),
            a: r(1),
            b: r(2),
            cond: Src::PT,
        };
        assert_eq!(
            op.fold(52, &[u(a), u(!a), Value::Pred(false)])
                .unwrap()
                .as_slice(),
            &[u(!a)]
        );
        let op = OpFlo {
            pd: Reg::pred(7),
            d: Reg::gpr(0),
            b: r(1),
            ty: FloType::U32,
            sh: false,
            cc: false,
        };
        let want = if a == 0 {
            u32::MAX
        } else {
            (0..32).rev().find(|i| (a >> i) & 1 == 1).unwrap()
        };
        assert_eq!(op.fold(52, &[u(a)]).unwrap().as_slice()[1], u(want));
    }
}

/// BFE against a field extracted bit by bit: every field that lies inside
/// the word, zero- or sign-extended; the fold refuses an empty field, one
/// past the word's end, .BREV and .CC.
#[test]
fn bfe_fields_inside_the_word() {
    let vals = inputs(40);
    let bfe = |ty, brev, cc| OpBfe {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        ty,
        brev,
        cc,
    };
    for ty in [ShrType::S32, ShrType::U32] {
        let o = bfe(ty, false, false);
        for pos in 0..32u32 {
            for len in 1..=32 - pos {
                for &a in &vals {
                    let mut want = 0u32;
                    for k in 0..len {
                        want |= (a >> (pos + k) & 1) << k;
                    }
                    if ty == ShrType::S32 && len < 32 && want >> (len - 1) & 1 == 1 {
                        want |= u32::MAX << len;
                    }
                    let b = pos | len << 8;
                    assert_eq!(
                        o.fold(50, &[u(a), u(b)]).unwrap().as_slice(),
                        &[u(want)],
                        "BFE {ty:?} {a:#x} pos {pos} len {len}"
                    );
                }
            }
        }
        for b in [0u32, 5, 0x2101, 0x0120, 0xff00, 0x1011] {
            assert!(o.fold(50, &[u(7), u(b)]).is_err(), "BFE {ty:?} b {b:#x}");
        }
        for (brev, cc) in [(true, false), (false, true)] {
            assert!(bfe(ty, brev, cc).fold(50, &[u(7), u(0x800)]).is_err());
        }
    }
}

#[test]
fn shr_brev_chain_and_cc_are_refused() {
    // .BREV, .X/.XHI (the CC chain) and .CC's flags are not modelled.
    let base = OpShr {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        ty: ShrType::U32,
        wrap: false,
        xmode: ShrX::None,
        brev: false,
        cc: false,
    };
    assert!(base.fold(50, &[u(8), u(1)]).is_ok());
    for o in [
        OpShr { brev: true, ..base },
        OpShr { cc: true, ..base },
        OpShr {
            xmode: ShrX::X,
            ..base
        },
        OpShr {
            xmode: ShrX::Xhi,
            ..base
        },
    ] {
        assert!(o.fold(50, &[u(8), u(1)]).is_err(), "{o:?}");
    }
}

#[test]
fn shl_chain_and_cc_are_refused() {
    // .X (the CC chain) and .CC's flags are not modelled.
    let base = OpShl {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        wrap: false,
        x: false,
        cc: false,
    };
    assert!(base.fold(50, &[u(8), u(1)]).is_ok());
    for o in [OpShl { x: true, ..base }, OpShl { cc: true, ..base }] {
        assert!(o.fold(50, &[u(8), u(1)]).is_err(), "{o:?}");
    }
}

#[test]
fn shf_chain_and_cc_are_refused() {
    // Maxwell's .X (the CC chain) and .CC's flags are not modelled.
    let base = OpShf {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        c: r(3),
        dir: ShfDir::R,
        wrap: false,
        ty: ShfType::U64,
        hi: false,
        x: false,
        cc: false,
    };
    assert!(base.fold(50, &[u(8), u(1), u(0)]).is_ok());
    for o in [OpShf { x: true, ..base }, OpShf { cc: true, ..base }] {
        assert!(o.fold(50, &[u(8), u(1), u(0)]).is_err(), "{o:?}");
    }
}
