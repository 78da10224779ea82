//! Maxwell/Pascal IADD3, IMAD and LEA / LEA.HI: folds against references
//! written here with wider arithmetic (i128/u64), the modifiers whose
//! semantics nvdisasm cannot show refused, and IADD3's immediate, stored
//! sign-extended and printed as its 20-bit field.

use isa_tests::rng::Rng;
use nak::backend::ir::text::parse_hw;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::instr::Common;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 3] = [50, 52, 60];

const EDGE: [u32; 8] = [
    0,
    1,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    u32::MAX,
    0x0123_4567,
];

/// Every edge triple, then random triples.
fn triples(n: usize) -> Vec<(u32, u32, u32)> {
    let mut r = Rng(0x51_7cc1_b727_220a);
    let mut v = Vec::new();
    for &a in &EDGE {
        for &b in &EDGE {
            for &c in &EDGE {
                v.push((a, b, c));
            }
        }
    }
    v.extend((0..n).map(|_| (r.next_u32(), r.next_u32(), r.next_u32())));
    v
}

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

fn mod32(x: i128) -> u32 {
    x.rem_euclid(1 << 32) as u32
}

fn signed_if(x: u32, n: bool) -> i128 {
    if n { -i128::from(x) } else { i128::from(x) }
}

fn iadd3(na: bool, nb: bool, nc: bool) -> OpIadd3 {
    OpIadd3 {
        d: Reg::gpr(0),
        co0: Reg::PT,
        co1: Reg::PT,
        a: r(1).with_neg(na),
        b: r(2).with_neg(nb),
        c: r(3).with_neg(nc),
        mode: Iadd3Mode::None,
        x: false,
        cc: false,
        asel: HalfSel::Word,
        bsel: HalfSel::Word,
        csel: HalfSel::Word,
    }
}

#[test]
fn iadd3_sm50_every_negation() {
    for sm in SMS {
        for n in 0..8 {
            let (na, nb, nc) = (n & 1 != 0, n & 2 != 0, n & 4 != 0);
            let o = iadd3(na, nb, nc);
            assert!(o.encode(sm, &Common::default()).is_ok(), "SM{sm} negs {n}");
            for (a, b, c) in triples(300) {
                let want = mod32(signed_if(a, na) + signed_if(b, nb) + signed_if(c, nc));
                // d first; the carries are PT on Maxwell.
                let got = o.fold(sm, &[u(a), u(b), u(c)]).unwrap();
                assert_eq!(
                    got.as_slice()[0],
                    u(want),
                    "SM{sm} negs {n} {a:#x} {b:#x} {c:#x}"
                );
            }
        }
    }
}

#[test]
fn iadd3_sm50_refuses_what_nvdisasm_cannot_show() {
    let plain = iadd3(false, false, false);
    let refused = [
        OpIadd3 {
            mode: Iadd3Mode::Rs,
            ..plain
        },
        OpIadd3 {
            mode: Iadd3Mode::Ls,
            ..plain
        },
        OpIadd3 { x: true, ..plain },
        OpIadd3 { cc: true, ..plain },
        OpIadd3 {
            asel: HalfSel::H0,
            ..plain
        },
        OpIadd3 {
            bsel: HalfSel::H1,
            ..plain
        },
        OpIadd3 {
            csel: HalfSel::H0,
            ..plain
        },
    ];
    for o in refused {
        assert!(o.encode(50, &Common::default()).is_ok(), "{o:?} encodes");
        assert!(o.fold(50, &[u(1), u(2), u(3)]).is_err(), "{o:?} folds");
    }
    // Volta and later have none of them.
    assert!(refused[0].encode(70, &Common::default()).is_err());
    assert!(plain.fold(50, &[u(1), u(2), u(3)]).is_ok());
}

#[test]
fn iadd3_sm50_immediate_is_its_field_sign_extended() {
    // Corpus SM50: ptxas writes -0x3fe, nvdisasm prints the field's bits.
    let w = 0x39c2_007f_c027_0202u128;
    let text = "IADD3 R2, R2, 0xffc02, -R0";
    let (op, c) = decode(w, 50).expect("decodes");
    assert_eq!(op.text(&c, 50, 0), text);
    let Op::Iadd3(o) = op else {
        panic!("not IADD3: {op:?}")
    };
    assert_eq!(o.b, Src::imm(0xffff_fc02));
    assert_eq!(
        o.fold(50, &[u(0x1000), u(0xffff_fc02), u(1)])
            .unwrap()
            .as_slice()[0],
        u(0xc01)
    );
    let (back, bc) = parse_hw(text, 50).expect("parses");
    assert_eq!(back, op);
    assert_eq!(back.encode(50, &bc).ok(), Some(w));
    // An immediate outside 20 signed bits has no field.
    let wide = OpIadd3 {
        b: Src::imm(0x80000),
        ..o
    };
    assert!(wide.encode(50, &Common::default()).is_err());
}

fn imad(sign: ImulSign, hi: bool, na: bool, nc: bool) -> OpImadSm50 {
    OpImadSm50 {
        d: Reg::gpr(0),
        a: r(1).with_neg(na),
        b: r(2),
        c: r(3).with_neg(nc),
        sign,
        hi,
        sat: false,
        x: false,
        cc: false,
    }
}

const SIGNS: [ImulSign; 4] = [
    ImulSign::S32S32,
    ImulSign::U32U32,
    ImulSign::S32U32,
    ImulSign::U32S32,
];

fn ext(x: u32, signed: bool) -> i128 {
    if signed {
        i128::from(x as i32)
    } else {
        i128::from(x)
    }
}

#[test]
fn imad_sm50_every_sign_low_and_high_word() {
    for sm in SMS {
        for sign in SIGNS {
            let (sa, sb) = match sign {
                ImulSign::S32S32 => (true, true),
                ImulSign::U32U32 => (false, false),
                ImulSign::S32U32 => (true, false),
                ImulSign::U32S32 => (false, true),
            };
            // The high word with no negation; the low word with either.
            let cases = [
                (true, false, false),
                (false, false, false),
                (false, true, false),
                (false, false, true),
            ];
            for (hi, na, nc) in cases {
                let o = imad(sign, hi, na, nc);
                for (a, b, c) in triples(200) {
                    let p = ext(a, sa) * ext(b, sb);
                    let word = if hi { p >> 32 } else { signed_if(p as u32, na) };
                    let want = mod32(word + signed_if(c, nc));
                    assert_eq!(
                        o.fold(sm, &[u(a), u(b), u(c)]).unwrap().as_slice(),
                        &[u(want)],
                        "SM{sm} {sign:?} hi{hi} -a{na} -c{nc} {a:#x} {b:#x} {c:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn imad_sm50_refusals_and_po() {
    let plain = imad(ImulSign::U32U32, false, false, false);
    for o in [
        OpImadSm50 { x: true, ..plain },
        OpImadSm50 { cc: true, ..plain },
        OpImadSm50 { sat: true, ..plain },
        imad(ImulSign::U32U32, true, true, false),
        imad(ImulSign::U32U32, true, false, true),
    ] {
        assert!(o.encode(50, &Common::default()).is_ok(), "{o:?} encodes");
        assert!(o.fold(50, &[u(3), u(5), u(7)]).is_err(), "{o:?} folds");
    }
    // Both negations print `.PO`, another operation: not encodable.
    let both = imad(ImulSign::U32U32, false, true, true);
    assert!(both.encode(50, &Common::default()).is_err());
    // It is its own op, which the fold leaves alone.
    let po = OpImadPoSm50 {
        d: Reg::gpr(9),
        a: r(9),
        b: r(22),
        c: r(0),
        sign: ImulSign::U32U32,
        hi: false,
        po: PoFlag::Po,
        sat: false,
        x: false,
        cc: false,
    };
    let w = po.encode(50, &Common::default()).unwrap();
    assert_eq!(w >> 51 & 3, 3, "{w:#x}");
    let (op, c) = decode(w, 50).expect("decodes");
    assert_eq!(op.text(&c, 50, 0), "IMAD.U32.U32.PO R9, R9, R22, R0");
    assert!(po.fold(50, &[u(3), u(5), u(7)]).is_err());
}

fn lea(shift: u32, na: bool) -> OpLeaSm50 {
    OpLeaSm50 {
        pd: Reg::PT,
        d: Reg::gpr(0),
        a: r(1).with_neg(na),
        b: r(2),
        shift,
        x: false,
        cc: false,
    }
}

fn lea_hi(shift: u32) -> OpLeaHiSm50 {
    OpLeaHiSm50 {
        pd: Reg::PT,
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        c: r(3),
        shift,
        x: false,
        cc: false,
    }
}

#[test]
fn lea_sm50_every_shift() {
    for sm in SMS {
        for shift in 0..32 {
            for na in [false, true] {
                let o = lea(shift, na);
                for (a, b, _) in triples(20) {
                    let want = mod32(signed_if(a, na) * (1i128 << shift) + i128::from(b));
                    // pd (PT: true) first, then d.
                    assert_eq!(
                        o.fold(sm, &[u(a), u(b)]).unwrap().as_slice()[1],
                        u(want),
                        "SM{sm} shift {shift} -a{na} {a:#x} {b:#x}"
                    );
                }
            }
            let o = lea_hi(shift);
            for (a, b, c) in triples(20) {
                let wide = (u64::from(c) << 32 | u64::from(a)) as u128;
                let want = mod32(((wide << shift) >> 32) as u32 as i128 + i128::from(b));
                assert_eq!(
                    o.fold(sm, &[u(a), u(b), u(c)]).unwrap().as_slice()[1],
                    u(want),
                    "SM{sm} LEA.HI shift {shift} {a:#x} {b:#x} {c:#x}"
                );
            }
        }
    }
}

#[test]
fn lea_sm50_refusals() {
    let plain = lea(4, false);
    for o in [
        OpLeaSm50 { x: true, ..plain },
        OpLeaSm50 { cc: true, ..plain },
        OpLeaSm50 {
            pd: Reg::pred(0),
            ..plain
        },
    ] {
        assert!(o.encode(50, &Common::default()).is_ok(), "{o:?} encodes");
        assert!(o.fold(50, &[u(3), u(5)]).is_err(), "{o:?} folds");
    }
    let hi = lea_hi(4);
    for o in [
        OpLeaHiSm50 { x: true, ..hi },
        OpLeaHiSm50 { cc: true, ..hi },
        OpLeaHiSm50 {
            a: r(1).with_neg(true),
            ..hi
        },
        OpLeaHiSm50 {
            pd: Reg::pred(0),
            ..hi
        },
    ] {
        assert!(o.encode(50, &Common::default()).is_ok(), "{o:?} encodes");
        assert!(o.fold(50, &[u(3), u(5), u(7)]).is_err(), "{o:?} folds");
    }
}
