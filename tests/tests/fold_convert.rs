//! Fold semantics of the 32-bit conversions (I2F, F2I, F2F) and FRND against
//! references written independently: Rust's own casts for round-to-nearest
//! and saturation, and exhaustive tables of F16/BF16 values for the small
//! formats.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 2] = [75, 120];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: Value) -> u32 {
    match v {
        Value::U32(x) => x,
        other => panic!("not a u32: {other:?}"),
    }
}

const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rm, Rnd::Rp, Rnd::Rz];

/// A small float format, as the sorted list of its non-negative finite
/// values plus the next power of two (standing for infinity).
struct Small {
    vals: Vec<f64>,
    sign: u32,
    qnan: u32,
}

impl Small {
    fn f16() -> Small {
        let mut vals: Vec<f64> = (0u32..0x7c00)
            .map(|h| {
                let e = h >> 10;
                let m = h & 0x3ff;
                if e == 0 {
                    m as f64 / 16_777_216.0
                } else {
                    f32::from_bits(((e + 112) << 23) | (m << 13)) as f64
                }
            })
            .collect();
        vals.push(65536.0);
        Small {
            vals,
            sign: 0x8000,
            qnan: 0x7fff,
        }
    }
    fn bf16() -> Small {
        let mut vals: Vec<f64> = (0u32..0x7f80)
            .map(|h| f32::from_bits(h << 16) as f64)
            .collect();
        vals.push(2f64.powi(128));
        Small {
            vals,
            sign: 0x8000,
            qnan: 0x7fff,
        }
    }
    fn decode(&self, h: u32) -> f64 {
        let m = h & (self.sign - 1);
        let v = if (m as usize) < self.vals.len() - 1 {
            self.vals[m as usize]
        } else if m as usize == self.vals.len() - 1 {
            f64::INFINITY
        } else {
            f64::NAN
        };
        if h & self.sign != 0 { -v } else { v }
    }
    fn round(&self, x: f64, rnd: Rnd) -> u32 {
        if x.is_nan() {
            return self.qnan;
        }
        let neg = x.is_sign_negative();
        let s = if neg { self.sign } else { 0 };
        let a = x.abs();
        let inf = (self.vals.len() - 1) as u32;
        if a.is_infinite() {
            return s | inf;
        }
        let i = self.vals.partition_point(|&v| v <= a) - 1;
        if i as u32 == inf {
            // At or beyond the next power of two: past every finite value.
            let away = match rnd {
                Rnd::Rn => true,
                Rnd::Rz => false,
                Rnd::Rm => neg,
                Rnd::Rp => !neg,
            };
            return s | if away { inf } else { inf - 1 };
        }
        if self.vals[i] == a {
            return s | i as u32;
        }
        let (lo, hi) = (i as u32, i as u32 + 1);
        let pick = match rnd {
            Rnd::Rz => lo,
            Rnd::Rm => {
                if neg {
                    hi
                } else {
                    lo
                }
            }
            Rnd::Rp => {
                if neg {
                    lo
                } else {
                    hi
                }
            }
            Rnd::Rn => {
                let dl = a - self.vals[lo as usize];
                let dh = self.vals[hi as usize] - a;
                if dl < dh || (dl == dh && lo % 2 == 0) {
                    lo
                } else {
                    hi
                }
            }
        };
        s | pick.min(inf)
    }
}

/// f64 to f32 in `rnd`: Rust's cast gives nearest-even, the neighbours
/// come from the bit pattern.
fn f32_ref(x: f64, rnd: Rnd) -> u32 {
    if x.is_nan() {
        return 0x7fff_ffff;
    }
    let n = x as f32;
    if n as f64 == x || rnd == Rnd::Rn {
        return n.to_bits();
    }
    let neg = x < 0.0;
    // Magnitudes: the one toward zero and the one away from it.
    let nb = n.to_bits() & 0x7fff_ffff;
    let (toward, away) = if (n.abs() as f64) < x.abs() {
        (nb, nb + 1)
    } else {
        (nb - 1, nb)
    };
    let away_mode = match rnd {
        Rnd::Rz => false,
        Rnd::Rm => neg,
        Rnd::Rp => !neg,
        Rnd::Rn => unreachable!(),
    };
    (if neg { 0x8000_0000 } else { 0 }) | if away_mode { away } else { toward }
}

fn edge_ints() -> Vec<u32> {
    let mut v = vec![
        0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x1_0000,
    ];
    v.extend([
        0x7fff_ffff,
        0x8000_0000,
        0x8000_0001,
        0xffff_ffff,
        0xffff_fffe,
        0x00ff_ffff,
    ]);
    v.extend([
        0x0100_0001,
        0x0100_0003,
        0x0200_0005,
        0xfeff_ffff,
        0x1234_5678,
        65520,
        65519,
        65535,
    ]);
    v
}

fn ival(b: u32, t: CvtItype32) -> f64 {
    match t {
        CvtItype32::S32 => (b as i32) as f64,
        CvtItype32::U32 => b as f64,
        CvtItype32::S16 => ((b << 16) as i32 >> 16) as f64,
        CvtItype32::U16 => (b & 0xffff) as f64,
        CvtItype32::S8 => ((b << 24) as i32 >> 24) as f64,
        CvtItype32::U8 => (b & 0xff) as f64,
    }
}

const ITYPES: [CvtItype32; 6] = [
    CvtItype32::S32,
    CvtItype32::U32,
    CvtItype32::S16,
    CvtItype32::U16,
    CvtItype32::S8,
    CvtItype32::U8,
];

fn i2f(b: u32, st: CvtItype32, dt: CvtFtype32, rnd: Rnd, sm: u32) -> u32 {
    let op = OpI2f {
        d: Reg::gpr(0),
        b: r(1),
        dtype: dt,
        stype: st,
        rnd,
        sel: 0,
    };
    u(op.fold(sm, &[Value::U32(b)]).unwrap().as_slice()[0])
}

#[test]
fn i2f_matches_reference() {
    let (h, bf) = (Small::f16(), Small::bf16());
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut ins = edge_ints();
    for _ in 0..3000 {
        let x = rng.next_u32();
        ins.push(x >> (rng.next_u32() % 32));
    }
    for &sm in &SMS {
        for &b in &ins {
            for st in ITYPES {
                let x = ival(b, st);
                for rnd in RNDS {
                    assert_eq!(
                        i2f(b, st, CvtFtype32::F32, rnd, sm),
                        f32_ref(x, rnd),
                        "I2F.F32 {st:?} {rnd:?} {b:#x}"
                    );
                    assert_eq!(
                        i2f(b, st, CvtFtype32::F16, rnd, sm),
                        h.round(x, rnd),
                        "I2F.F16 {st:?} {rnd:?} {b:#x}"
                    );
                    assert_eq!(
                        i2f(b, st, CvtFtype32::Bf16, rnd, sm),
                        bf.round(x, rnd),
                        "I2F.BF16 {st:?} {rnd:?} {b:#x}"
                    );
                }
            }
        }
    }
    // Spot checks by hand.
    assert_eq!(
        i2f(0x0100_0001, CvtItype32::S32, CvtFtype32::F32, Rnd::Rn, 75),
        0x4b80_0000
    );
    assert_eq!(
        i2f(0x0100_0001, CvtItype32::S32, CvtFtype32::F32, Rnd::Rp, 75),
        0x4b80_0001
    );
    assert_eq!(
        i2f(0xffff_ffff, CvtItype32::S32, CvtFtype32::F32, Rnd::Rn, 75),
        0xbf80_0000
    );
    assert_eq!(
        i2f(0xffff_ffff, CvtItype32::U32, CvtFtype32::F32, Rnd::Rz, 75),
        0x4f7f_ffff
    );
    assert_eq!(
        i2f(65520, CvtItype32::U32, CvtFtype32::F16, Rnd::Rn, 75),
        0x7c00
    );
    assert_eq!(
        i2f(65520, CvtItype32::U32, CvtFtype32::F16, Rnd::Rz, 75),
        0x7bff
    );
    assert_eq!(
        i2f(0xff, CvtItype32::S8, CvtFtype32::F16, Rnd::Rn, 75),
        0xbc00
    );
}

const FRNDS: [F2iRnd; 4] = [F2iRnd::Rn, F2iRnd::Floor, F2iRnd::Ceil, F2iRnd::Trunc];

fn f2i(b: u32, st: CvtFtype32, dt: CvtItype32, rnd: F2iRnd, ftz: bool, sm: u32) -> u32 {
    let op = OpF2i {
        d: Reg::gpr(0),
        b: r(1),
        ftz,
        dtype: dt,
        stype: st,
        rnd,
        ntz: true,
        sel: 0,
    };
    u(op.fold(sm, &[Value::U32(b)]).unwrap().as_slice()[0])
}

/// Rust's float-to-int casts saturate and send NaN to 0.
fn f2i_ref(x: f64, dt: CvtItype32, rnd: F2iRnd) -> u32 {
    let y = match rnd {
        F2iRnd::Rn => x.round_ties_even(),
        F2iRnd::Floor => x.floor(),
        F2iRnd::Ceil => x.ceil(),
        F2iRnd::Trunc => x.trunc(),
    };
    match dt {
        CvtItype32::S32 => y as i32 as u32,
        CvtItype32::U32 => y as u32,
        CvtItype32::S16 => y as i16 as i32 as u32,
        CvtItype32::U16 => y as u16 as u32,
        CvtItype32::S8 => y as i8 as i32 as u32,
        CvtItype32::U8 => y as u8 as u32,
    }
}

fn float_edges() -> Vec<u32> {
    vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x3f00_0000,
        0xbf00_0000,
        0x3fc0_0000,
        0xbfc0_0000,
        0x4020_0000,
        0xc020_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x4effffff,
        0x4f000000,
        0xcf000000,
        0xcf000001,
        0x4f800000,
        0x4f7fffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
        0x7f7f_ffff,
        0x4300_0000,
        0xc300_0000,
        0x42fe_0000,
        0x477f_ff00,
        0x4780_0000,
        0xc700_0000,
        0x3380_0000,
        0x3380_0001,
        0x3300_0000,
        0x4b80_0001,
    ]
}

#[test]
fn f2i_matches_reference() {
    let h = Small::f16();
    let mut rng = Rng(0xdead_beef_1234_5678);
    let mut ins = float_edges();
    for _ in 0..3000 {
        let x = rng.next_u32();
        // Mostly moderate exponents, where rounding matters.
        let e = 100 + rng.next_u32() % 60;
        ins.push((x & 0x807f_ffff) | (e << 23));
        ins.push(rng.next_u32());
    }
    for &sm in &SMS {
        for &b in &ins {
            for dt in ITYPES {
                for rnd in FRNDS {
                    for ftz in [false, true] {
                        let f = f32::from_bits(b);
                        let fx = if ftz && f.is_subnormal() {
                            0.0
                        } else {
                            f as f64
                        };
                        assert_eq!(
                            f2i(b, CvtFtype32::F32, dt, rnd, ftz, sm),
                            f2i_ref(fx, dt, rnd),
                            "F2I {dt:?} {rnd:?} ftz={ftz} {b:#x}"
                        );
                        let hx = h.decode(b & 0xffff);
                        assert_eq!(
                            f2i(b, CvtFtype32::F16, dt, rnd, ftz, sm),
                            f2i_ref(hx, dt, rnd),
                            "F2I.F16 {dt:?} {rnd:?} {b:#x}"
                        );
                        let bx = f32::from_bits(b << 16) as f64;
                        assert_eq!(
                            f2i(b, CvtFtype32::Bf16, dt, rnd, ftz, sm),
                            f2i_ref(bx, dt, rnd),
                            "F2I.BF16 {dt:?} {rnd:?} {b:#x}"
                        );
                    }
                }
            }
        }
    }
    // By hand: ties to even, saturation, NaN -> 0, FTZ before CEIL.
    let s32 = CvtItype32::S32;
    assert_eq!(
        f2i(0x4020_0000, CvtFtype32::F32, s32, F2iRnd::Rn, false, 75),
        2
    );
    assert_eq!(
        f2i(0xc020_0000, CvtFtype32::F32, s32, F2iRnd::Rn, false, 75),
        (-2i32) as u32
    );
    assert_eq!(
        f2i(0x7f80_0000, CvtFtype32::F32, s32, F2iRnd::Trunc, false, 75),
        0x7fff_ffff
    );
    assert_eq!(
        f2i(0xff80_0000, CvtFtype32::F32, s32, F2iRnd::Trunc, false, 75),
        0x8000_0000
    );
    assert_eq!(
        f2i(
            0xbf80_0000,
            CvtFtype32::F32,
            CvtItype32::U32,
            F2iRnd::Trunc,
            false,
            75
        ),
        0
    );
    assert_eq!(
        f2i(0x7fc0_0000, CvtFtype32::F32, s32, F2iRnd::Trunc, false, 75),
        0
    );
    assert_eq!(f2i(1, CvtFtype32::F32, s32, F2iRnd::Ceil, false, 75), 1);
    assert_eq!(f2i(1, CvtFtype32::F32, s32, F2iRnd::Ceil, true, 75), 0);
    assert_eq!(
        f2i(
            0x4780_0000,
            CvtFtype32::F32,
            CvtItype32::S16,
            F2iRnd::Trunc,
            false,
            75
        ),
        0x7fff
    );
    assert_eq!(
        f2i(
            0xc780_0000,
            CvtFtype32::F32,
            CvtItype32::S16,
            F2iRnd::Trunc,
            false,
            75
        ),
        0xffff_8000
    );
}

const FTYPES: [CvtFtypeShown32; 3] = [
    CvtFtypeShown32::F32,
    CvtFtypeShown32::F16,
    CvtFtypeShown32::Bf16,
];

fn f2f(b: u32, st: CvtFtypeShown32, dt: CvtFtypeShown32, rnd: Rnd, ftz: bool, sm: u32) -> u32 {
    let op = OpF2f {
        d: Reg::gpr(0),
        b: r(1),
        ftz,
        dtype: dt,
        stype: st,
        rnd,
        sel: 0,
    };
    u(op.fold(sm, &[Value::U32(b)]).unwrap().as_slice()[0])
}

#[test]
fn f2f_matches_reference() {
    let (h, bf) = (Small::f16(), Small::bf16());
    let mut rng = Rng(0x0bad_cafe_f00d_1234);
    let mut ins = float_edges();
    ins.extend([
        0x477f_f000,
        0x477f_efff,
        0x3880_0000,
        0x387f_ffff,
        0x3300_0001,
        0x7f7f_8000,
        0x7f7f_7fff,
    ]);
    for _ in 0..3000 {
        let x = rng.next_u32();
        let e = 90 + rng.next_u32() % 60;
        ins.push((x & 0x807f_ffff) | (e << 23));
        ins.push(rng.next_u32());
    }
    for &sm in &SMS {
        for &b in &ins {
            for st in FTYPES {
                let x = match st {
                    CvtFtypeShown32::F32 => f32::from_bits(b) as f64,
                    CvtFtypeShown32::F16 => h.decode(b & 0xffff),
                    CvtFtypeShown32::Bf16 => f32::from_bits(b << 16) as f64,
                };
                for dt in FTYPES {
                    for rnd in RNDS {
                        for ftz in [false, true] {
                            let fx = if ftz
                                && st == CvtFtypeShown32::F32
                                && f32::from_bits(b).is_subnormal()
                            {
                                if x < 0.0 { -0.0 } else { 0.0 }
                            } else {
                                x
                            };
                            let want = match dt {
                                CvtFtypeShown32::F32 => {
                                    let w = f32_ref(fx, rnd);
                                    if ftz && f32::from_bits(w).is_subnormal() {
                                        w & 0x8000_0000
                                    } else {
                                        w
                                    }
                                }
                                CvtFtypeShown32::F16 => h.round(fx, rnd),
                                CvtFtypeShown32::Bf16 => bf.round(fx, rnd),
                            };
                            assert_eq!(
                                f2f(b, st, dt, rnd, ftz, sm),
                                want,
                                "F2F {dt:?}.{st:?} {rnd:?} ftz={ftz} {b:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
    let (f32t, f16t) = (CvtFtypeShown32::F32, CvtFtypeShown32::F16);
    assert_eq!(f2f(0x3f80_0000, f32t, f16t, Rnd::Rn, false, 75), 0x3c00);
    assert_eq!(f2f(0x477f_f000, f32t, f16t, Rnd::Rn, false, 75), 0x7c00);
    assert_eq!(f2f(0x477f_f000, f32t, f16t, Rnd::Rz, false, 75), 0x7bff);
    assert_eq!(f2f(0xc77f_f000, f32t, f16t, Rnd::Rp, false, 75), 0xfbff);
    assert_eq!(f2f(0x3300_0001, f32t, f16t, Rnd::Rn, false, 75), 0x0001);
    assert_eq!(f2f(0x3300_0000, f32t, f16t, Rnd::Rn, false, 75), 0x0000);
    assert_eq!(f2f(0x3300_0000, f32t, f16t, Rnd::Rp, false, 75), 0x0001);
    assert_eq!(f2f(0x7fc0_0000, f32t, f16t, Rnd::Rn, false, 75), 0x7fff);
    assert_eq!(f2f(0x7c00, f16t, f32t, Rnd::Rn, false, 75), 0x7f80_0000);
    assert_eq!(f2f(0x0001, f16t, f32t, Rnd::Rn, true, 75), 0x3380_0000);
}

/// A part selector (`R3.B2`, `R2.H1`) reads that byte or half of the
/// register: the fold of the selected part equals the fold of a register
/// holding the part, shifted down with plain Rust shifts and extended by
/// Rust's own casts, for every part of every narrow type.
#[test]
fn i2f_reads_the_selected_part() {
    let mut rng = Rng(0x5eed_f5e1);
    // (source type, part width, the part's value by plain casts)
    type Part = (CvtItype32, u32, fn(u32) -> f64);
    let parts: [Part; 4] = [
        (CvtItype32::U8, 8, |v| (v as u8) as f64),
        (CvtItype32::S8, 8, |v| (v as u8 as i8) as f64),
        (CvtItype32::U16, 16, |v| (v as u16) as f64),
        (CvtItype32::S16, 16, |v| (v as u16 as i16) as f64),
    ];
    for _ in 0..2000 {
        let w = rng.next_u32();
        for &(st, bits, value) in &parts {
            for sel in 0..32 / bits {
                let op = OpI2f {
                    d: Reg::gpr(0),
                    b: r(1),
                    dtype: CvtFtype32::F32,
                    stype: st,
                    rnd: Rnd::Rn,
                    sel,
                };
                let got = u(op.fold(75, &[Value::U32(w)]).unwrap().as_slice()[0]);
                // Every 8- and 16-bit integer is exact in f32.
                let want = (value(w >> (sel * bits)) as f32).to_bits();
                assert_eq!(got, want, "I2F.{st:?} part {sel} of {w:#x}");
            }
        }
    }
}

/// `F2I.F16 R2.H1` converts the high half; `-|R2.H1|` negates and takes
/// the magnitude of that half, not of the register's bit 31.
#[test]
fn f2i_reads_the_selected_half() {
    let h = Small::f16();
    let mut rng = Rng(0x4a1f);
    for _ in 0..4000 {
        let w = rng.next_u32();
        for sel in 0..2u32 {
            for (neg, abs) in [(false, false), (true, false), (false, true), (true, true)] {
                let op = OpF2i {
                    d: Reg::gpr(0),
                    b: Src { neg, abs, ..r(1) },
                    ftz: false,
                    dtype: CvtItype32::S32,
                    stype: CvtFtype32::F16,
                    rnd: F2iRnd::Trunc,
                    ntz: true,
                    sel,
                };
                let got = u(op.fold(75, &[Value::U32(w)]).unwrap().as_slice()[0]);
                let half = (w >> (16 * sel)) & 0xffff;
                let mut x = h.decode(half);
                if abs {
                    x = x.abs();
                }
                if neg {
                    x = -x;
                }
                let want = if x.is_nan() {
                    0
                } else {
                    x.trunc() as i32 as u32
                };
                assert_eq!(
                    got, want,
                    "F2I.F16 part {sel} of {w:#x} neg {neg} abs {abs}"
                );
            }
        }
    }
}

fn frnd(b: u32, ty: CvtFtype32, rnd: F2iRnd, ftz: bool) -> u32 {
    let op = OpFrnd {
        d: Reg::gpr(0),
        b: r(1),
        ftz,
        ty,
        rnd,
        sel: 0,
    };
    u(op.fold(90, &[Value::U32(b)]).unwrap().as_slice()[0])
}

/// FRND: F32 against Rust's own f32 rounding (in f32, not the fold's f64),
/// every F16 and BF16 value against the small-format tables.
#[test]
fn frnd_matches_reference() {
    let (h, bf) = (Small::f16(), Small::bf16());
    let mut rng = Rng(0x5eed_f00d_0123_4567);
    let mut ins = float_edges();
    ins.extend((0..3000).map(|_| rng.next_u32()));
    for rnd in FRNDS {
        let round = |x: f64| match rnd {
            F2iRnd::Rn => x.round_ties_even(),
            F2iRnd::Floor => x.floor(),
            F2iRnd::Ceil => x.ceil(),
            F2iRnd::Trunc => x.trunc(),
        };
        for &b in &ins {
            for ftz in [false, true] {
                let mut x = f32::from_bits(b);
                if ftz && x.is_subnormal() {
                    x = f32::from_bits(b & 0x8000_0000);
                }
                let y = match rnd {
                    F2iRnd::Rn => x.round_ties_even(),
                    F2iRnd::Floor => x.floor(),
                    F2iRnd::Ceil => x.ceil(),
                    F2iRnd::Trunc => x.trunc(),
                };
                let want = if y.is_nan() { 0x7fff_ffff } else { y.to_bits() };
                let got = frnd(b, CvtFtype32::F32, rnd, ftz);
                assert_eq!(got, want, "FRND {rnd:?} ftz={ftz} {b:#x}");
            }
        }
        for half in 0..0x1_0000u32 {
            let want = h.round(round(h.decode(half)), Rnd::Rn);
            assert_eq!(
                frnd(half, CvtFtype32::F16, rnd, false),
                want,
                "FRND.F16 {rnd:?} {half:#x}"
            );
            let want = bf.round(round(bf.decode(half)), Rnd::Rn);
            assert_eq!(
                frnd(half, CvtFtype32::Bf16, rnd, false),
                want,
                "FRND.BF16 {rnd:?} {half:#x}"
            );
        }
    }
    // Ties to even and the sign of a zero result.
    assert_eq!(
        frnd(0x4020_0000, CvtFtype32::F32, F2iRnd::Rn, false),
        0x4000_0000
    );
    assert_eq!(
        frnd(0xbf00_0000, CvtFtype32::F32, F2iRnd::Rn, false),
        0x8000_0000
    );
    assert_eq!(
        frnd(0xbe80_0000, CvtFtype32::F32, F2iRnd::Ceil, false),
        0x8000_0000
    );
    assert_eq!(frnd(0x3e00, CvtFtype32::F16, F2iRnd::Rn, false), 0x4000);
}

#[test]
fn frnd64_matches_rust() {
    let mut rng = Rng(0x0f64_f00d_7654_3210);
    let mut ins: Vec<u64> = vec![
        0,
        1 << 63,
        0x3fe0_0000_0000_0000,
        0xbfe0_0000_0000_0000,
        0x4004_0000_0000_0000,
    ];
    ins.extend((0..3000).map(|_| rng.next_u64()));
    for rnd in FRNDS {
        for &b in &ins {
            let x = f64::from_bits(b);
            let op = OpFrnd64 {
                d: Reg::gpr(0),
                b: r(2),
                ftz: false,
                ty: CvtFtype::F64,
                rnd,
            };
            let got = op.fold(90, &[Value::U64(b)]);
            if x.is_nan() {
                assert!(got.is_err(), "FRND.F64 of NaN {b:#x} must be refused");
                continue;
            }
            let want = match rnd {
                F2iRnd::Rn => x.round_ties_even(),
                F2iRnd::Floor => x.floor(),
                F2iRnd::Ceil => x.ceil(),
                F2iRnd::Trunc => x.trunc(),
            };
            assert_eq!(
                got.unwrap().as_slice(),
                &[Value::U64(want.to_bits())],
                "FRND.F64 {rnd:?} {b:#x}"
            );
        }
    }
}

/// I2FP is I2F's F32 result from a 32-bit integer: the same values for
/// every source, type and rounding it has.
#[test]
fn i2fp_matches_i2f() {
    for b in edge_ints() {
        for (st, st32) in [
            (CvtItype32Shown::S32, CvtItype32::S32),
            (CvtItype32Shown::U32, CvtItype32::U32),
        ] {
            for rnd in [Rnd::Rn, Rnd::Rz] {
                let op = OpI2fp {
                    d: Reg::gpr(0),
                    b: r(1),
                    stype: st,
                    rnd,
                };
                let got = u(op.fold(90, &[Value::U32(b)]).unwrap().as_slice()[0]);
                assert_eq!(
                    got,
                    i2f(b, st32, CvtFtype32::F32, rnd, 90),
                    "I2FP {st:?} {rnd:?} {b:#x}"
                );
            }
        }
    }
}
