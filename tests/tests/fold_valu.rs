//! Fold semantics of the Volta+ conversions F2FP.PACK_AB and I2I, against
//! references written independently here: tables of
//! every finite F16/BF16 value searched for the nearest (RN, ties to even)
//! or the one toward zero (RZ), and Rust's integer arithmetic.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: Value) -> u32 {
    match v {
        Value::U32(x) => x,
        other => panic!("not a u32: {other:?}"),
    }
}

/// Every non-negative finite value of a 16-bit float format (its bits are
/// the index), ascending, decoded from the fields.
fn finite_table(ebits: u32, mbits: u32) -> Vec<f64> {
    let bias = (1i32 << (ebits - 1)) - 1;
    let max_e = (1u32 << ebits) - 1;
    (0u32..(max_e << mbits))
        .map(|h| {
            let e = h >> mbits;
            let m = (h & ((1 << mbits) - 1)) as f64;
            let frac = m / (1u64 << mbits) as f64;
            if e == 0 {
                frac * 2f64.powi(1 - bias)
            } else {
                (1.0 + frac) * 2f64.powi(e as i32 - bias)
            }
        })
        .collect()
}

/// `x` rounded to the format of `table` (RN or RZ), as its 16 bits; NaN is
/// the canonical 0x7fff, a value past the largest finite one is infinity
/// (RN, from halfway to the next power of two) or the largest (RZ).
fn round16(table: &[f64], x: f32, rz: bool) -> u32 {
    if x.is_nan() {
        return 0x7fff;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = (x as f64).abs();
    let inf = table.len() as u32;
    let max = *table.last().unwrap();
    let ulp = max - table[table.len() - 2];
    if a.is_infinite() || (!rz && a >= max + ulp / 2.0) {
        return sign | inf;
    }
    if a >= max {
        return sign | (inf - 1);
    }
    let i = table.partition_point(|&v| v <= a) - 1;
    let (lo, hi) = (table[i], table[i + 1]);
    let pick = if a == lo || rz || a - lo < hi - a || (a - lo == hi - a && i % 2 == 0) {
        i
    } else {
        i + 1
    };
    sign | pick as u32
}

fn f2fp(a: u32, b: u32, dtype: F2fpDtype, rnd: F2fpRnd, sm: u32) -> u32 {
    let op = OpF2fp {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        satfinite: false,
        relu: false,
        dtype,
        pack: F2fpPack::PackAb,
        rnd,
    };
    u(op.fold(sm, &[Value::U32(a), Value::U32(b)])
        .unwrap()
        .as_slice()[0])
}

fn edge_floats() -> Vec<u32> {
    let mut v = vec![
        0,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x3380_0000,
        0x3380_0001,
        0x337f_ffff,
        0x3300_0000,
        0x477f_e000,
        0x477f_efff,
        0x477f_f000,
        0x477f_f001,
        0x4780_0000,
        0x7f7f_ffff,
        0x3f80_1000,
        0x3f80_3000,
        0x3f80_8000,
        0x3f81_8000,
        0x3f80_8001,
        0x7f7f_8000,
        0x7f7f_7fff,
        0x3880_0000,
        0x387f_e000,
    ];
    let mut rng = Rng(0xf2f9_0000_1234_5678);
    for _ in 0..4000 {
        v.push(rng.next_u32());
    }
    v
}

#[test]
fn f2fp_pack_ab_matches_reference() {
    let (h, bf) = (finite_table(5, 10), finite_table(8, 7));
    let ins = edge_floats();
    for sm in [80, 89, 100, 120] {
        for (i, &a) in ins.iter().enumerate() {
            let b = ins[(i * 7 + 3) % ins.len()];
            for (rnd, rz) in [(F2fpRnd::Rn, false), (F2fpRnd::Rz, true)] {
                let fa = f32::from_bits(a);
                let fb = f32::from_bits(b);
                let want = (round16(&h, fa, rz) << 16) | round16(&h, fb, rz);
                assert_eq!(
                    f2fp(a, b, F2fpDtype::F16, rnd, sm),
                    want,
                    "F16 {rnd:?} {a:#x} {b:#x}"
                );
                let want = (round16(&bf, fa, rz) << 16) | round16(&bf, fb, rz);
                assert_eq!(
                    f2fp(a, b, F2fpDtype::Bf16, rnd, sm),
                    want,
                    "BF16 {rnd:?} {a:#x} {b:#x}"
                );
            }
        }
    }
    // By hand: 1.0 and -2.0 as F16 (0x3c00, 0xc000) and BF16 (0x3f80, 0xc000).
    assert_eq!(
        f2fp(0x3f80_0000, 0xc000_0000, F2fpDtype::F16, F2fpRnd::Rn, 90),
        0x3c00_c000
    );
    assert_eq!(
        f2fp(0x3f80_0000, 0xc000_0000, F2fpDtype::Bf16, F2fpRnd::Rn, 90),
        0x3f80_c000
    );
    // 1 + 2^-8 + 2^-9 rounds up to 1 + 2^-7 in BF16 RN, down in RZ.
    assert_eq!(
        f2fp(0, 0x3f81_8000, F2fpDtype::Bf16, F2fpRnd::Rn, 90),
        0x3f82
    );
    assert_eq!(
        f2fp(0, 0x3f81_8000, F2fpDtype::Bf16, F2fpRnd::Rz, 90),
        0x3f81
    );
}

#[test]
fn f2fp_refuses_relu_and_satfinite() {
    for (relu, satfinite) in [(true, false), (false, true)] {
        let op = OpF2fp {
            d: Reg::gpr(0),
            a: r(1),
            b: r(2),
            satfinite,
            relu,
            dtype: F2fpDtype::F16,
            pack: F2fpPack::PackAb,
            rnd: F2fpRnd::Rn,
        };
        assert!(op.fold(90, &[Value::U32(0), Value::U32(0)]).is_err());
    }
}

fn i2i_sat(b: u32, dtype: I2iSatType, sm: u32) -> u32 {
    let op = OpI2iSat {
        d: Reg::gpr(0),
        b: r(1),
        dtype,
        src: I2iSatSrc::S32Sat,
    };
    u(op.fold(sm, &[Value::U32(b)]).unwrap().as_slice()[0])
}

#[test]
fn i2i_sat_matches_rust_saturating_casts() {
    let mut rng = Rng(0x1215_a700_0bad_cafe);
    let mut ins: Vec<u32> = vec![0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536];
    ins.extend(ins.clone().iter().map(|x| x.wrapping_neg()));
    ins.extend([
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ff80,
        0xffff_ff7f,
        0xffff_8000,
        0xffff_7fff,
    ]);
    for _ in 0..2000 {
        let x = rng.next_u32();
        ins.push(x >> (rng.next_u32() % 32));
        ins.push(x);
    }
    // The reference: the narrow type's saturating conversion from i32, then
    // widened back (sign-extended for the signed types).
    let sat = |x: i32, lo: i32, hi: i32| {
        if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        }
    };
    for sm in [75, 90, 120] {
        for &b in &ins {
            let x = b as i32;
            let u8r = u8::try_from(x).unwrap_or(if x < 0 { 0 } else { u8::MAX }) as u32;
            let i8r =
                i8::try_from(x).unwrap_or(if x < 0 { i8::MIN } else { i8::MAX }) as i32 as u32;
            let u16r = u16::try_from(x).unwrap_or(if x < 0 { 0 } else { u16::MAX }) as u32;
            let i16r = sat(x, i16::MIN as i32, i16::MAX as i32) as u32;
            assert_eq!(i2i_sat(b, I2iSatType::U8, sm), u8r, "U8 {b:#x}");
            assert_eq!(i2i_sat(b, I2iSatType::S8, sm), i8r, "S8 {b:#x}");
            assert_eq!(i2i_sat(b, I2iSatType::U16, sm), u16r, "U16 {b:#x}");
            assert_eq!(i2i_sat(b, I2iSatType::S16, sm), i16r, "S16 {b:#x}");
        }
    }
    assert_eq!(i2i_sat(0xffff_ff00, I2iSatType::S8, 90), 0xffff_ff80);
    assert_eq!(i2i_sat(300, I2iSatType::U8, 90), 0xff);
}
