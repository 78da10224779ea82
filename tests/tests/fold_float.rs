//! Fold semantics of the float ops (FADD, FMUL, FFMA, FMNMX, FMNMX3, FSETP, FSEL,
//! MUFU, FADD32I, FMUL32I) against references written independently.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 2] = [75, 52];
const QNAN: u32 = 0x7fff_ffff;

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn u(v: Value) -> u32 {
    match v {
        Value::U32(x) => x,
        other => panic!("not a u32: {other:?}"),
    }
}

fn p(v: Value) -> bool {
    match v {
        Value::Pred(x) => x,
        other => panic!("not a predicate: {other:?}"),
    }
}

/// This file's draws on top of the shared generator.
trait Draw {
    /// A float with a moderate exponent, so f64 sums stay exact.
    fn moderate(&mut self) -> f32;
}

impl Draw for Rng {
    fn moderate(&mut self) -> f32 {
        let m = self.next_u32() & 0x007f_ffff;
        let e = 110 + self.next_u32() % 30;
        let s = self.next_u32() & 0x8000_0000;
        f32::from_bits(s | e << 23 | m)
    }
}

fn edge() -> Vec<u32> {
    vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x4000_0000,
        0x3f00_0000,
        0x3fc0_0000,
        0x3380_0000,
    ]
}

/// Round an f64 value to f32 with a directed mode, by stepping from the
/// nearest f32 (independent of nak's helper).
fn round_ref(x: f64, rnd: Rnd) -> f32 {
    if x.is_nan() {
        return f32::from_bits(QNAN);
    }
    let n = x as f32;
    let up = |f: f32| -> f32 {
        if f == 0.0 {
            f32::from_bits(1)
        } else if f > 0.0 {
            f32::from_bits(f.to_bits() + 1)
        } else {
            f32::from_bits(f.to_bits() - 1)
        }
    };
    let down = |f: f32| -> f32 {
        if f == 0.0 {
            f32::from_bits(0x8000_0001)
        } else if f > 0.0 {
            f32::from_bits(f.to_bits() - 1)
        } else {
            f32::from_bits(f.to_bits() + 1)
        }
    };
    let nf = n as f64;
    match rnd {
        Rnd::Rn => n,
        Rnd::Rm if nf > x => down(n),
        Rnd::Rp if nf < x => up(n),
        Rnd::Rz if nf.abs() > x.abs() => {
            if x > 0.0 {
                down(n)
            } else {
                up(n)
            }
        }
        _ => n,
    }
}

fn canon(f: f32) -> u32 {
    if f.is_nan() { QNAN } else { f.to_bits() }
}

fn fadd(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool, sm: u32) -> u32 {
    let op = OpFadd {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        ftz,
        rnd,
        sat,
        cc: false,
    };
    u(
        op.fold(sm, &[Value::U32(a.to_bits()), Value::U32(b.to_bits())])
            .unwrap()
            .as_slice()[0],
    )
}

fn fmul(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool, sm: u32) -> u32 {
    let op = OpFmul {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        ftz,
        fmz: false,
        scale: FmulScale::None,
        rnd,
        sat,
        cc: false,
    };
    u(
        op.fold(sm, &[Value::U32(a.to_bits()), Value::U32(b.to_bits())])
            .unwrap()
            .as_slice()[0],
    )
}

fn ffma(a: f32, b: f32, c: f32, rnd: Rnd, sm: u32) -> u32 {
    let op = OpFfma {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        c: r(3),
        ftz: false,
        rnd,
        sat: false,
        cc: false,
    };
    let v = [a, b, c].map(|x| Value::U32(x.to_bits()));
    u(op.fold(sm, &v).unwrap().as_slice()[0])
}

#[test]
fn fadd_fmul_rn_edges_match_native() {
    for sm in SMS {
        for &x in &edge() {
            for &y in &edge() {
                let (a, b) = (f32::from_bits(x), f32::from_bits(y));
                assert_eq!(
                    fadd(a, b, Rnd::Rn, false, false, sm),
                    canon(a + b),
                    "{a:e} + {b:e}"
                );
                assert_eq!(
                    fmul(a, b, Rnd::Rn, false, false, sm),
                    canon(a * b),
                    "{a:e} * {b:e}"
                );
                let c = f32::from_bits(0x3f80_0000);
                assert_eq!(
                    ffma(a, b, c, Rnd::Rn, sm),
                    canon(a.mul_add(b, c)),
                    "fma {a:e} {b:e}"
                );
            }
        }
    }
}

#[test]
fn directed_rounding_random() {
    let mut g = Rng(0x1234_5678_9abc_def1);
    for _ in 0..4000 {
        let (a, b) = (g.moderate(), g.moderate());
        for rnd in Rnd::ALL {
            let sum = a as f64 + b as f64;
            assert_eq!(
                fadd(a, b, rnd, false, false, 75),
                canon(round_ref(sum, rnd)),
                "{a:e}+{b:e} {rnd:?}"
            );
            let prod = a as f64 * b as f64;
            assert_eq!(
                fmul(a, b, rnd, false, false, 52),
                canon(round_ref(prod, rnd)),
                "{a:e}*{b:e} {rnd:?}"
            );
            assert_eq!(
                fmul(a, b, rnd, false, false, 75),
                canon(round_ref(prod, rnd))
            );
        }
        // FFMA: round-to-nearest against the correctly rounded std fma.
        let c = g.moderate();
        assert_eq!(ffma(a, b, c, Rnd::Rn, 75), canon(a.mul_add(b, c)));
    }
}

#[test]
fn directed_rounding_edges() {
    let big = f32::MAX;
    assert_eq!(fadd(big, big, Rnd::Rz, false, false, 75), big.to_bits());
    assert_eq!(fadd(big, big, Rnd::Rm, false, false, 75), big.to_bits());
    assert_eq!(
        fadd(big, big, Rnd::Rp, false, false, 75),
        f32::INFINITY.to_bits()
    );
    assert_eq!(
        fadd(-big, -big, Rnd::Rp, false, false, 75),
        (-big).to_bits()
    );
    // 1 + 2^-30: only RP moves up.
    let t = f32::from_bits(0x3080_0000);
    assert_eq!(fadd(1.0, t, Rnd::Rp, false, false, 75), 0x3f80_0001);
    assert_eq!(fadd(1.0, t, Rnd::Rn, false, false, 75), 0x3f80_0000);
    assert_eq!(fadd(-1.0, -t, Rnd::Rm, false, false, 75), 0xbf80_0001);
    assert_eq!(fadd(-1.0, -t, Rnd::Rz, false, false, 75), 0xbf80_0000);
    // Exact cancellation: +0, except -0 when rounding down.
    assert_eq!(fadd(1.0, -1.0, Rnd::Rn, false, false, 75), 0);
    assert_eq!(fadd(1.0, -1.0, Rnd::Rm, false, false, 75), 0x8000_0000);
    assert_eq!(fadd(-0.0, -0.0, Rnd::Rn, false, false, 75), 0x8000_0000);
    // Tie broken by a tail beyond f64 (1 + 2^-24 + 2^-80 rounds up).
    let a = f32::from_bits(0x3f80_0000);
    let p = ffma(
        f32::from_bits(0x3380_0000),
        1.0 + f32::EPSILON,
        a,
        Rnd::Rn,
        75,
    );
    assert_eq!(
        p,
        canon(f32::from_bits(0x3380_0000).mul_add(1.0 + f32::EPSILON, a))
    );
}

#[test]
fn ftz_and_sat() {
    let den = f32::from_bits(0x0000_0010);
    let nden = f32::from_bits(0x8000_0010);
    assert_eq!(fadd(den, 0.0, Rnd::Rn, true, false, 75), 0);
    assert_eq!(fadd(nden, -0.0, Rnd::Rn, true, false, 75), 0x8000_0000);
    assert_eq!(fadd(den, 0.0, Rnd::Rn, false, false, 75), den.to_bits());
    // A denormal result is flushed.
    let m = f32::from_bits(0x0080_0000);
    assert_eq!(fmul(m, 0.5, Rnd::Rn, true, false, 75), 0);
    assert_eq!(fmul(-m, 0.5, Rnd::Rn, true, false, 75), 0x8000_0000);
    assert_eq!(fmul(m, 0.5, Rnd::Rn, false, false, 75), 0x0040_0000);
    // Saturation: [0, 1], NaN -> 0.
    assert_eq!(fadd(0.75, 0.5, Rnd::Rn, false, true, 75), 1.0f32.to_bits());
    assert_eq!(fadd(-0.75, 0.5, Rnd::Rn, false, true, 75), 0);
    assert_eq!(fadd(0.25, 0.5, Rnd::Rn, false, true, 52), 0.75f32.to_bits());
    assert_eq!(fmul(f32::NAN, 1.0, Rnd::Rn, false, true, 75), 0);
    assert_eq!(fmul(f32::NAN, 1.0, Rnd::Rn, false, false, 75), QNAN);
}

#[test]
fn source_modifiers() {
    let op = OpFadd {
        d: Reg::gpr(0),
        a: r(1).with_neg(true),
        b: r(2).with_abs(true),
        ftz: false,
        rnd: Rnd::Rn,
        sat: false,
        cc: false,
    };
    let out = op
        .fold(
            75,
            &[
                Value::U32(2.0f32.to_bits()),
                Value::U32((-5.0f32).to_bits()),
            ],
        )
        .unwrap();
    assert_eq!(u(out.as_slice()[0]), 3.0f32.to_bits());
}

#[test]
fn wide_imm_ops() {
    let op = OpFadd32i {
        d: Reg::gpr(0),
        a: r(1),
        b: Src::imm(0x3f80_0000),
        ftz: false,
    };
    let out = op
        .fold(52, &[Value::U32(0x4000_0000), Value::U32(0x3f80_0000)])
        .unwrap();
    assert_eq!(u(out.as_slice()[0]), 3.0f32.to_bits());
    let op = OpFmul32i {
        d: Reg::gpr(0),
        a: r(1),
        b: Src::imm(0),
        ftz: false,
        fmz: false,
        sat: true,
        cc: false,
    };
    let out = op
        .fold(52, &[Value::U32(0x4000_0000), Value::U32(0x3f00_0000)])
        .unwrap();
    assert_eq!(u(out.as_slice()[0]), 1.0f32.to_bits());
}

fn fmnmx(a: u32, b: u32, min: bool, sm: u32) -> u32 {
    let op = OpFmnmx {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        p: Src::PT,
        ftz: false,
        nan: false,
        xorsign: false,
        cc: false,
    };
    u(
        op.fold(sm, &[Value::U32(a), Value::U32(b), Value::Pred(min)])
            .unwrap()
            .as_slice()[0],
    )
}

#[test]
fn fmnmx_nan_and_zeros() {
    for sm in SMS {
        let one = 1.0f32.to_bits();
        assert_eq!(fmnmx(0x7fc0_0000, one, true, sm), one);
        assert_eq!(fmnmx(one, 0xffc0_0000, false, sm), one);
        assert_eq!(fmnmx(0x7fc0_0000, 0x7fc0_0001, true, sm), QNAN);
        assert_eq!(fmnmx(0, 0x8000_0000, true, sm), 0x8000_0000);
        assert_eq!(fmnmx(0, 0x8000_0000, false, sm), 0);
        assert_eq!(fmnmx(0xff80_0000, one, true, sm), 0xff80_0000);
        let mut g = Rng(99);
        for _ in 0..2000 {
            let (a, b) = (g.moderate(), g.moderate());
            assert_eq!(
                fmnmx(a.to_bits(), b.to_bits(), true, sm),
                a.min(b).to_bits()
            );
            assert_eq!(
                fmnmx(a.to_bits(), b.to_bits(), false, sm),
                a.max(b).to_bits()
            );
        }
    }
}

#[test]
fn fsetp_all_comparisons_and_setops() {
    let vals = [
        0u32,
        0x8000_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x7f80_0000,
        0x7fc0_0000,
        0x0000_0001,
    ];
    for sm in SMS {
        for cmp in Fcmp::ALL {
            for setop in Setop::ALL {
                for &x in &vals {
                    for &y in &vals {
                        for acc in [false, true] {
                            let (a, b) = (f32::from_bits(x), f32::from_bits(y));
                            let un = a.is_nan() || b.is_nan();
                            let ord = |f: fn(f32, f32) -> bool| !un && f(a, b);
                            let c = match cmp {
                                Fcmp::F => false,
                                Fcmp::Lt => ord(|a, b| a < b),
                                Fcmp::Eq => ord(|a, b| a == b),
                                Fcmp::Le => ord(|a, b| a <= b),
                                Fcmp::Gt => ord(|a, b| a > b),
                                Fcmp::Ne => ord(|a, b| a != b),
                                Fcmp::Ge => ord(|a, b| a >= b),
                                Fcmp::Num => !un,
                                Fcmp::Nan => un,
                                Fcmp::Ltu => un || a < b,
                                Fcmp::Equ => un || a == b,
                                Fcmp::Leu => un || a <= b,
                                Fcmp::Gtu => un || a > b,
                                Fcmp::Neu => un || a != b,
                                Fcmp::Geu => un || a >= b,
                                Fcmp::T => true,
                            };
                            let comb = |v: bool| match setop {
                                Setop::And => v & acc,
                                Setop::Or => v | acc,
                                Setop::Xor => v ^ acc,
                            };
                            let op = OpFsetp {
                                p: Reg::pred(0),
                                q: Reg::pred(1),
                                a: r(1),
                                b: r(2),
                                acc: Src::PT,
                                cmp,
                                ftz: false,
                                setop,
                            };
                            let out = op
                                .fold(sm, &[Value::U32(x), Value::U32(y), Value::Pred(acc)])
                                .unwrap();
                            assert_eq!(
                                p(out.as_slice()[0]),
                                comb(c),
                                "{cmp:?} {setop:?} {a} {b} {acc}"
                            );
                            assert_eq!(p(out.as_slice()[1]), comb(!c));
                        }
                    }
                }
            }
        }
    }
    // FTZ: a denormal compares equal to zero.
    let op = OpFsetp {
        p: Reg::pred(0),
        q: Reg::pred(1),
        a: r(1),
        b: r(2),
        acc: Src::PT,
        cmp: Fcmp::Eq,
        ftz: true,
        setop: Setop::And,
    };
    let out = op
        .fold(75, &[Value::U32(1), Value::U32(0), Value::Pred(true)])
        .unwrap();
    assert!(p(out.as_slice()[0]));
}

#[test]
fn fsel() {
    let op = OpFsel {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        cond: Src::PT,
        ftz: false,
    };
    for (c, want) in [(true, 0x7fc0_1234u32), (false, 0x8000_0001)] {
        let out = op
            .fold(
                75,
                &[
                    Value::U32(0x7fc0_1234),
                    Value::U32(0x8000_0001),
                    Value::Pred(c),
                ],
            )
            .unwrap();
        assert_eq!(u(out.as_slice()[0]), want);
    }
}

#[test]
fn mufu_loose() {
    let f = |op: MufuOp, x: f32| -> f32 {
        let o = OpMufu {
            d: Reg::gpr(0),
            a: r(1),
            op,
            fmt: MufuFmt::F32,
            sel: 0,
            sat: false,
        };
        f32::from_bits(u(o
            .fold(75, &[Value::U32(x.to_bits())])
            .unwrap()
            .as_slice()[0]))
    };
    let close = |got: f32, want: f64| ((got as f64 - want) / want).abs() < 1e-6;
    for x in [0.1f32, 0.5, 1.0, 2.0, 3.7, 100.0] {
        assert!(close(f(MufuOp::Rcp, x), 1.0 / x as f64));
        assert!(close(f(MufuOp::Rsq, x), 1.0 / (x as f64).sqrt()));
        assert!(close(f(MufuOp::Sqrt, x), (x as f64).sqrt()));
        assert!(close(f(MufuOp::Ex2, x), (x as f64).exp2()));
        assert!(close(f(MufuOp::Tanh, x), (x as f64).tanh()));
    }
    assert!(close(f(MufuOp::Lg2, 8.0), 3.0));
    assert!(close(f(MufuOp::Sin, 0.25), 1.0));
    assert!(close(f(MufuOp::Cos, 0.5), -1.0));
    assert_eq!(f(MufuOp::Rcp, 0.0), f32::INFINITY);
    assert_eq!(f(MufuOp::Rcp, -0.0), f32::NEG_INFINITY);
    assert_eq!(f(MufuOp::Rsq, 0.0), f32::INFINITY);
    assert!(f(MufuOp::Rsq, -1.0).is_nan());
    assert_eq!(f(MufuOp::Ex2, f32::NEG_INFINITY), 0.0);
    assert_eq!(f(MufuOp::Lg2, 0.0), f32::NEG_INFINITY);
    // RCP64H: high word of 1/2.0 (0x40000000_00000000) is 0x3fe00000.
    assert_eq!(
        f(MufuOp::Rcp64h, f32::from_bits(0x4000_0000)).to_bits(),
        0x3fe0_0000
    );
}

/// FMNMX3 by an independent reference: NaN inputs are skipped, all NaN
/// give the canonical NaN, and -0 orders below +0.
fn fmnmx3_ref(v: [u32; 3], min: bool) -> u32 {
    let key = |x: u32| -> i64 {
        // Sign-magnitude to a total order on the non-NaN floats.
        let m = i64::from(x & 0x7fff_ffff);
        if x >> 31 == 1 { -m - 1 } else { m }
    };
    let nums = v.into_iter().filter(|&x| !f32::from_bits(x).is_nan());
    let pick = if min {
        nums.min_by_key(|&x| key(x))
    } else {
        nums.max_by_key(|&x| key(x))
    };
    pick.unwrap_or(QNAN)
}

#[test]
fn fmnmx3_matches_reference() {
    let fold = |v: [u32; 3], min: bool| {
        let op = OpFmnmx3 {
            d: Reg::gpr(0),
            a: r(1),
            b: r(2),
            c: r(3),
            p: Src::PT,
            ftz: false,
            nan: false,
        };
        let ins = [
            Value::U32(v[0]),
            Value::U32(v[1]),
            Value::U32(v[2]),
            Value::Pred(min),
        ];
        u(op.fold(100, &ins).unwrap().as_slice()[0])
    };
    let e = edge();
    for &a in &e {
        for &b in &e {
            for &c in &[e[0], e[3], e[e.len() - 1], 0x7fc0_0000, 0x8000_0000] {
                for min in [true, false] {
                    let v = [a, b, c];
                    assert_eq!(fold(v, min), fmnmx3_ref(v, min), "{v:08x?} min={min}");
                }
            }
        }
    }
    let mut g = Rng(7);
    for _ in 0..3000 {
        let v = [g.moderate(), g.moderate(), g.moderate()].map(f32::to_bits);
        for min in [true, false] {
            assert_eq!(fold(v, min), fmnmx3_ref(v, min), "{v:08x?} min={min}");
        }
    }
}

/// FMUL's `.FMZ`, product scale and Maxwell `.CC` are not modelled: the
/// fold refuses them rather than fold a plain product; FMUL32I's too.
#[test]
fn fmul_unmodelled_modifiers_refuse() {
    let two = [Value::U32(2.0f32.to_bits()), Value::U32(3.0f32.to_bits())];
    let base = OpFmul {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        ftz: false,
        fmz: false,
        scale: FmulScale::None,
        rnd: Rnd::Rn,
        sat: false,
        cc: false,
    };
    assert_eq!(
        u(base.fold(50, &two).unwrap().as_slice()[0]),
        6.0f32.to_bits()
    );
    for op in [
        OpFmul { fmz: true, ..base },
        OpFmul {
            scale: FmulScale::D2,
            ..base
        },
        OpFmul {
            scale: FmulScale::M8,
            ..base
        },
        OpFmul { cc: true, ..base },
    ] {
        assert!(op.fold(50, &two).is_err(), "{op:?}");
    }
    let wide = OpFmul32i {
        d: Reg::gpr(0),
        a: r(1),
        b: Src::imm(0),
        ftz: false,
        fmz: false,
        sat: false,
        cc: false,
    };
    assert!(wide.fold(50, &two).is_ok());
    assert!(OpFmul32i { fmz: true, ..wide }.fold(50, &two).is_err());
    assert!(OpFmul32i { cc: true, ..wide }.fold(50, &two).is_err());
}

#[test]
fn ffma_fadd_cc_is_refused() {
    // Maxwell's .CC writes flags the fold does not model.
    let one = Value::U32(1.0f32.to_bits());
    let add = OpFadd {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        ftz: false,
        rnd: Rnd::Rn,
        sat: false,
        cc: true,
    };
    assert!(add.fold(50, &[one, one]).is_err());
    let fma = OpFfma {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        c: r(3),
        ftz: false,
        rnd: Rnd::Rn,
        sat: false,
        cc: true,
    };
    assert!(fma.fold(50, &[one, one, one]).is_err());
}

#[test]
fn fmnmx_flo_cc_is_refused() {
    // Maxwell's .CC writes flags the fold does not model.
    let one = Value::U32(1.0f32.to_bits());
    let mnmx = OpFmnmx {
        d: Reg::gpr(0),
        a: r(1),
        b: r(2),
        p: Src::PT,
        ftz: false,
        nan: false,
        xorsign: false,
        cc: true,
    };
    assert!(mnmx.fold(50, &[one, one, Value::Pred(true)]).is_err());
    let flo = OpFlo {
        pd: Reg::PT,
        d: Reg::gpr(0),
        b: r(1),
        ty: FloType::U32,
        sh: false,
        cc: true,
    };
    assert!(flo.fold(50, &[one]).is_err());
}
