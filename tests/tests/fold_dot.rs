//! Fold tests for the integer dot products (IDP.4A, IDP.2A) against a
//! reference in i64 arithmetic with Rust's own narrowing casts.

use isa_tests::rng::Rng;
use nak::isa::{Int8Type, Int16Type, LoHi, OpIdp2a, OpIdp4a};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

fn inputs() -> Vec<u32> {
    let mut rng = Rng(0xd07_d07_d07);
    let mut v = vec![
        0,
        1,
        u32::MAX,
        0x8080_8080,
        0x7f7f_7f7f,
        0x0180_ff7f,
        0x8000_7fff,
    ];
    v.extend((0..60).map(|_| rng.next_u32()));
    v
}

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn byte(v: u32, i: u32, signed: bool) -> i64 {
    let x = (v >> (8 * i)) as u8;
    if signed { x as i8 as i64 } else { x as i64 }
}

fn half(v: u32, i: u32, signed: bool) -> i64 {
    let x = (v >> (16 * i)) as u16;
    if signed { x as i16 as i64 } else { x as i64 }
}

#[test]
fn idp4a_matches_reference() {
    let vals = inputs();
    for (i, &a) in vals.iter().enumerate() {
        for (j, &b) in vals.iter().enumerate() {
            let c = vals[(i * 7 + j * 3) % vals.len()];
            for (atype, sa) in [(Int8Type::U8, false), (Int8Type::S8, true)] {
                for (btype, sb) in [(Int8Type::U8, false), (Int8Type::S8, true)] {
                    for neg in [false, true] {
                        let acc = if neg { -(c as i64) } else { c as i64 };
                        let sum: i64 = (0..4).map(|k| byte(a, k, sa) * byte(b, k, sb)).sum();
                        let want = (acc + sum) as u32;
                        let op = OpIdp4a {
                            d: Reg::gpr(0),
                            a: r(1),
                            b: r(2),
                            c: r(3).with_neg(neg),
                            atype,
                            btype,
                        };
                        let out = op.fold(75, &[Value::U32(a), Value::U32(b), Value::U32(c)]);
                        assert_eq!(
                            out.unwrap().as_slice(),
                            &[Value::U32(want)],
                            "{a:#x} {b:#x} {c:#x} {atype:?} {btype:?} neg {neg}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn idp2a_matches_reference() {
    let vals = inputs();
    for (i, &a) in vals.iter().enumerate() {
        for (j, &b) in vals.iter().enumerate() {
            let c = vals[(i * 5 + j * 11) % vals.len()];
            for (hl, k) in [(LoHi::Lo, 0), (LoHi::Hi, 2)] {
                for (atype, sa) in [(Int16Type::U16, false), (Int16Type::S16, true)] {
                    for (btype, sb) in [(Int8Type::U8, false), (Int8Type::S8, true)] {
                        let sum =
                            half(a, 0, sa) * byte(b, k, sb) + half(a, 1, sa) * byte(b, k + 1, sb);
                        let want = (c as i64 + sum) as u32;
                        let op = OpIdp2a {
                            d: Reg::gpr(0),
                            a: r(1),
                            b: r(2),
                            c: r(3),
                            half: hl,
                            atype,
                            btype,
                        };
                        let out = op.fold(90, &[Value::U32(a), Value::U32(b), Value::U32(c)]);
                        assert_eq!(
                            out.unwrap().as_slice(),
                            &[Value::U32(want)],
                            "{a:#x} {b:#x} {c:#x} {hl:?} {atype:?} {btype:?}"
                        );
                    }
                }
            }
        }
    }
}
