//! Fold tests for Maxwell/Pascal BFI against a bit-by-bit reference
//! written here: the fold covers fields inside the word (length 1..32,
//! first bit + length <= 32) and refuses the rest and `.CC`.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

fn bfi(cc: bool) -> OpBfi {
    OpBfi {
        d: Reg::gpr(0),
        a: Src::reg(Reg::gpr(1)),
        b: Src::reg(Reg::gpr(2)),
        c: Src::reg(Reg::gpr(3)),
        cc,
    }
}

/// Reference: copy a's bit i to bit pos + i of c, one bit at a time.
fn bfi_ref(a: u32, pos: u32, len: u32, c: u32) -> u32 {
    (0..len).fold(c, |acc, i| {
        let bit = (a >> i) & 1;
        (acc & !(1 << (pos + i))) | (bit << (pos + i))
    })
}

#[test]
fn bfi_every_field_inside_the_word() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let o = bfi(false);
    for pos in 0..32u32 {
        for len in 1..=(32 - pos) {
            for _ in 0..4 {
                let (a, c) = (r.next_u32(), r.next_u32());
                // Bytes 2..3 of b are not part of the field.
                let b = pos | (len << 8) | (r.next_u32() & 0xffff_0000);
                let out = o.fold(50, &[Value::U32(a), Value::U32(b), Value::U32(c)]);
                assert_eq!(
                    out.unwrap().as_slice(),
                    &[Value::U32(bfi_ref(a, pos, len, c))],
                    "a {a:#x} pos {pos} len {len} c {c:#x}"
                );
            }
        }
    }
}

#[test]
fn bfi_refuses_fields_past_the_word_empty_fields_and_cc() {
    let v = |b: u32| {
        [
            Value::U32(0x1234_5678),
            Value::U32(b),
            Value::U32(0x9abc_def0),
        ]
    };
    for b in [0x0000, 0x0010, 0x2101, 0x0821, 0xff00, 0x00ff] {
        assert!(bfi(false).fold(52, &v(b)).is_err(), "b {b:#x}");
    }
    assert!(bfi(true).fold(60, &v(0x0804)).is_err());
    assert!(bfi(false).fold(60, &v(0x0804)).is_ok());
}
