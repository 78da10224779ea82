//! Fold tests for the Maxwell/Pascal integer ops added for issue 20 (I2I),
//! each against a reference written with Rust's own integer
//! operations (`as` casts, `try_from`, `saturating_*`, `wrapping_*`,
//! `Ord`, i128 products) rather than the spec's formulation.

use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 3] = [50, 52, 60];

const EDGE: [u32; 14] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0x8000_7f80,
    u32::MAX,
    0x0123_4567,
    0xfedc_ba98,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 16) as u32
    }
}

/// Edge values, then random ones.
fn values(n: usize) -> Vec<u32> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v = EDGE.to_vec();
    v.extend((0..n).map(|_| r.next()));
    v
}

fn u(v: u32) -> Value {
    Value::U32(v)
}

fn i2i(dtype: I2iType, stype: I2iType, sat: bool, sel: u32) -> OpI2i {
    OpI2i {
        d: Reg::gpr(0),
        b: Src::reg(Reg::gpr(1)),
        dtype,
        stype,
        sat,
        cc: false,
        sel,
    }
}

/// What a 32-bit result of I2I is by Rust's conversions: the part at byte
/// offset `sel` of `v` as stype, then to dtype by `as` (wrapping) or,
/// with `sat`, by `try_from` with the bound it overflows.
fn i2i_ref(dtype: I2iType, stype: I2iType, sat: bool, sel: u32, v: u32) -> u32 {
    let w = v >> (8 * sel);
    let signed: Option<i32> = match stype {
        I2iType::S32 => Some(v as i32),
        I2iType::S16 => Some(i32::from(w as u16 as i16)),
        I2iType::S8 => Some(i32::from(w as u8 as i8)),
        _ => None,
    };
    let unsigned: u32 = match stype {
        I2iType::U16 => u32::from(w as u16),
        I2iType::U8 => u32::from(w as u8),
        _ => v,
    };
    match (dtype, signed, sat) {
        (I2iType::U32, Some(x), true) => u32::try_from(x).unwrap_or(0),
        (_, Some(x), _) => x as u32,
        (I2iType::S32, None, true) => i32::try_from(unsigned).unwrap_or(i32::MAX) as u32,
        (_, None, _) => unsigned,
    }
}

const TYPES: [I2iType; 6] = [
    I2iType::S32,
    I2iType::U32,
    I2iType::S16,
    I2iType::U16,
    I2iType::S8,
    I2iType::U8,
];

#[test]
fn i2i_to_a_word_from_every_type_part_and_saturation() {
    for sm in SMS {
        for dtype in [I2iType::S32, I2iType::U32] {
            for stype in TYPES {
                let sels: &[u32] = match stype {
                    I2iType::S16 | I2iType::U16 => &[0, 2],
                    I2iType::S8 | I2iType::U8 => &[0, 1, 2, 3],
                    _ => &[0],
                };
                for &sel in sels {
                    for sat in [false, true] {
                        let o = i2i(dtype, stype, sat, sel);
                        for v in values(500) {
                            let want = i2i_ref(dtype, stype, sat, sel, v);
                            let got = o.fold(sm, &[u(v)]).unwrap();
                            assert_eq!(got.as_slice(), &[u(want)], "{o:?} {v:#x}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn i2i_negate_and_absolute_value_of_a_word() {
    for sat in [false, true] {
        for (neg, abs) in [(true, false), (false, true), (true, true)] {
            let o = OpI2i {
                b: Src::reg(Reg::gpr(1)).with_neg(neg).with_abs(abs),
                ..i2i(I2iType::S32, I2iType::S32, sat, 0)
            };
            for v in values(500) {
                let x = v as i32;
                let want = match (neg, abs, sat) {
                    (true, false, false) => x.wrapping_neg(),
                    (true, false, true) => x.saturating_neg(),
                    (false, true, false) => x.wrapping_abs(),
                    (false, true, true) => x.saturating_abs(),
                    // -|x| is exact (|MIN| is 2^31, so -|MIN| is MIN):
                    // one saturation at the end, not one per step.
                    (_, _, false) => 0i32.wrapping_sub_unsigned(x.unsigned_abs()),
                    (_, _, true) => 0i32.saturating_sub_unsigned(x.unsigned_abs()),
                };
                let got = o.fold(50, &[u(v)]).unwrap();
                assert_eq!(got.as_slice(), &[u(want as u32)], "{o:?} {v:#x}");
            }
        }
    }
    // U32.U32 -R (ptxas's unsigned negation): two's complement.
    let o = OpI2i {
        b: Src::reg(Reg::gpr(1)).with_neg(true),
        ..i2i(I2iType::U32, I2iType::U32, false, 0)
    };
    for v in values(500) {
        let got = o.fold(60, &[u(v)]).unwrap();
        assert_eq!(got.as_slice(), &[u(v.wrapping_neg())], "{v:#x}");
    }
}

#[test]
fn i2i_refuses_what_it_does_not_model() {
    let refused = [
        // A narrow result: how the upper bits are filled is not known.
        i2i(I2iType::S16, I2iType::S32, true, 0),
        i2i(I2iType::U8, I2iType::U32, false, 0),
        // A word read from a byte offset.
        i2i(I2iType::S32, I2iType::S32, false, 1),
        // The CC flags.
        OpI2i {
            cc: true,
            ..i2i(I2iType::S32, I2iType::S32, false, 0)
        },
        // A negated half: in its width or the word's.
        OpI2i {
            b: Src::reg(Reg::gpr(1)).with_neg(true),
            ..i2i(I2iType::S32, I2iType::S16, false, 0)
        },
    ];
    for o in refused {
        assert!(o.fold(50, &[u(0x8000)]).is_err(), "{o:?}");
    }
}
