//! Fold semantics of VABSDIFF (SM70..SM100) against a reference written
//! independently here in i64 arithmetic: PTX `vabsdiff` with the
//! secondary `.add` and no `.sat` (a and b extended as their type says,
//! |a - b|, plus c, the low 32 bits), and the refusal of a predicate
//! result whose meaning is not known.

use isa_tests::rng::Rng;
use nak::isa::{IntType, OpVabsdiff};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const EDGES: [u32; 10] = [
    0,
    1,
    2,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_0001,
    0xffff_fffe,
    0xffff_ffff,
    0x1234_5678,
    0xedcb_a988,
];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn op(ty: IntType) -> OpVabsdiff {
    OpVabsdiff {
        d: Reg::gpr(0),
        pd0: Reg::PT,
        a: r(1),
        b: r(2),
        c: r(3),
        ty,
    }
}

/// The reference: both operands as mathematical integers, the distance
/// between them, then c added modulo 2^32.
fn reference(a: u32, b: u32, c: u32, signed: bool) -> u32 {
    let (x, y): (i64, i64) = if signed {
        (i64::from(a as i32), i64::from(b as i32))
    } else {
        (i64::from(a), i64::from(b))
    };
    let dist = if x > y { x - y } else { y - x };
    assert!((0..1i64 << 32).contains(&dist));
    ((dist + i64::from(c)) % (1i64 << 32)) as u32
}

fn check(a: u32, b: u32, c: u32) {
    for (ty, signed) in [(IntType::S32, true), (IntType::U32, false)] {
        for sm in [70, 75, 90, 100] {
            let out = op(ty)
                .fold(sm, &[Value::U32(a), Value::U32(b), Value::U32(c)])
                .unwrap();
            assert_eq!(
                out.vals[0],
                Value::U32(reference(a, b, c, signed)),
                "VABSDIFF {ty:?} {a:#x} {b:#x} {c:#x} on SM{sm}"
            );
        }
    }
}

#[test]
fn edges() {
    for a in EDGES {
        for b in EDGES {
            for c in EDGES {
                check(a, b, c);
            }
        }
    }
}

#[test]
fn random() {
    let mut rng = Rng(0x5ad_d1ff);
    for _ in 0..20_000 {
        let (a, b, c) = (rng.next_u32(), rng.next_u32(), rng.next_u32());
        check(a, b, c);
    }
}

#[test]
fn known_values() {
    // |(-1) - 1| = 2 signed; unsigned 0xffffffff - 1 = 0xfffffffe.
    let f = |ty, a, b, c| {
        op(ty)
            .fold(75, &[Value::U32(a), Value::U32(b), Value::U32(c)])
            .unwrap()
            .vals[0]
    };
    assert_eq!(f(IntType::S32, 0xffff_ffff, 1, 0), Value::U32(2));
    assert_eq!(f(IntType::U32, 0xffff_ffff, 1, 0), Value::U32(0xffff_fffe));
    // The largest signed distance, 2^32 - 1, then c = 1 wraps to 0.
    assert_eq!(f(IntType::S32, 0x7fff_ffff, 0x8000_0000, 1), Value::U32(0));
    assert_eq!(f(IntType::U32, 5, 9, 0x10), Value::U32(0x14));
}

#[test]
fn unknown_predicate_refuses() {
    let v = [Value::U32(3), Value::U32(5), Value::U32(7)];
    assert!(op(IntType::S32).fold(75, &v).is_ok());
    let p = OpVabsdiff {
        pd0: Reg::pred(6),
        ..op(IntType::S32)
    };
    assert!(p.fold(75, &v).is_err());
}
