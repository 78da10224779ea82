//! Fold semantics of the fp64 ops (DADD, DMUL, DFMA, DSETP; Maxwell's DSET, DMNMX) against references
//! built from Rust's own f64 arithmetic: round-to-nearest is the native
//! operation; the directed modes step from it by the sign of the exact
//! error (TwoSum for sums, `mul_add` for products), independent of nak's
//! wide-integer rounding.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 3] = [70, 90, 120];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn bits(v: Result<nak::runtime::fold::FoldOut, nak::runtime::fold::FoldError>) -> u64 {
    match v.expect("folds").as_slice()[0] {
        Value::U64(x) => x,
        other => panic!("not a u64: {other:?}"),
    }
}

fn vals(xs: &[f64]) -> Vec<Value> {
    xs.iter().map(|x| Value::U64(x.to_bits())).collect()
}

fn dadd_op(rnd: Rnd) -> OpDadd {
    OpDadd {
        d: Reg::gpr(0),
        a: r(2),
        b: r(4),
        rnd,
        cc: false,
    }
}

fn dmul_op(rnd: Rnd) -> OpDmul {
    OpDmul {
        d: Reg::gpr(0),
        a: r(2),
        b: r(4),
        rnd,
        cc: false,
    }
}

fn dfma_op(rnd: Rnd) -> OpDfma {
    OpDfma {
        d: Reg::gpr(0),
        a: r(2),
        b: r(4),
        c: r(6),
        rnd,
        cc: false,
    }
}

fn dadd(a: f64, b: f64, rnd: Rnd, sm: u32) -> u64 {
    bits(dadd_op(rnd).fold(sm, &vals(&[a, b])))
}

fn dmul(a: f64, b: f64, rnd: Rnd, sm: u32) -> u64 {
    bits(dmul_op(rnd).fold(sm, &vals(&[a, b])))
}

fn dfma(a: f64, b: f64, c: f64, rnd: Rnd, sm: u32) -> u64 {
    bits(dfma_op(rnd).fold(sm, &vals(&[a, b, c])))
}

/// This file's draws on top of the shared generator.
trait Draw {
    /// Any finite f64 (denormals included).
    fn finite(&mut self) -> f64;
    /// An f64 with a biased exponent in `lo..hi` and `sig` significant bits.
    fn ranged(&mut self, lo: u64, hi: u64, sig: u32) -> f64;
}

impl Draw for Rng {
    fn finite(&mut self) -> f64 {
        loop {
            let x = f64::from_bits(self.next_u64());
            if x.is_finite() {
                return x;
            }
        }
    }

    fn ranged(&mut self, lo: u64, hi: u64, sig: u32) -> f64 {
        let m = self.next_u64() & ((1 << 52) - 1) & !((1u64 << (52 - (sig - 1))) - 1);
        let e = lo + self.next_u64() % (hi - lo);
        f64::from_bits((self.next_u64() & 1 << 63) | e << 52 | m)
    }
}

/// The rounded `s` (nearest) stepped by the sign of the exact error `e`
/// (value = s + e exactly) to mode `rnd`.
fn directed(s: f64, e: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rn => s,
        Rnd::Rm if e < 0.0 => s.next_down(),
        Rnd::Rp if e > 0.0 => s.next_up(),
        Rnd::Rz if s > 0.0 && e < 0.0 => s.next_down(),
        Rnd::Rz if s < 0.0 && e > 0.0 => s.next_up(),
        _ => s,
    }
}

/// Knuth's TwoSum: the exact error of `a + b` (finite sums).
fn sum_error(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[test]
fn nearest_matches_native_on_any_finite_values() {
    let mut g = Rng(0x9e37_79b9_7f4a_7c15);
    for sm in SMS {
        for _ in 0..3000 {
            let (a, b, c) = (g.finite(), g.finite(), g.finite());
            assert_eq!(dadd(a, b, Rnd::Rn, sm), (a + b).to_bits(), "{a:e}+{b:e}");
            assert_eq!(dmul(a, b, Rnd::Rn, sm), (a * b).to_bits(), "{a:e}*{b:e}");
            let want = a.mul_add(b, c);
            assert_eq!(
                dfma(a, b, c, Rnd::Rn, sm),
                want.to_bits(),
                "fma {a:e} {b:e} {c:e}"
            );
        }
    }
}

#[test]
fn directed_sums_step_by_the_exact_error() {
    let mut g = Rng(0x1234_5678_9abc_def1);
    for _ in 0..4000 {
        // Wide exponents, denormal sums included; no overflow.
        let (a, b) = (g.ranged(0, 2046, 53), g.ranged(0, 2046, 53));
        let (s, e) = sum_error(a, b);
        if !s.is_finite() {
            continue;
        }
        for rnd in Rnd::ALL {
            let want = directed(s, e, rnd);
            if want != 0.0 {
                assert_eq!(dadd(a, b, rnd, 90), want.to_bits(), "{a:e}+{b:e} {rnd:?}");
            }
        }
    }
}

#[test]
fn directed_products_step_by_the_exact_error() {
    let mut g = Rng(0x0bad_cafe_f00d_1234);
    for _ in 0..4000 {
        // Normal products well above the denormal range: mul_add gives
        // the exact error.
        let (a, b) = (g.ranged(600, 1400, 53), g.ranged(600, 1400, 53));
        let p = a * b;
        let e = a.mul_add(b, -p);
        for rnd in Rnd::ALL {
            assert_eq!(
                dmul(a, b, rnd, 90),
                directed(p, e, rnd).to_bits(),
                "{a:e}*{b:e} {rnd:?}"
            );
        }
    }
}

#[test]
fn directed_fma_rounds_once() {
    let mut g = Rng(0x5555_aaaa_3333_cccc);
    for _ in 0..4000 {
        // 26-bit significands: a * b is exact, so a * b + c is the exact
        // sum of two doubles.
        let (a, b) = (g.ranged(700, 1300, 26), g.ranged(700, 1300, 26));
        let c = g.ranged(300, 1700, 53);
        let p = a * b;
        let (s, e) = sum_error(p, c);
        if !s.is_finite() || s == 0.0 {
            continue;
        }
        for rnd in Rnd::ALL {
            assert_eq!(
                dfma(a, b, c, rnd, 90),
                directed(s, e, rnd).to_bits(),
                "fma {a:e} {b:e} {c:e} {rnd:?}"
            );
        }
    }
    // One rounding, not two: (1 + 2^-52) * (1 - 2^-52) - 1 is -2^-104,
    // which a rounded product (exactly 1) would lose.
    let (a, b) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON);
    assert_eq!(
        dfma(a, b, -1.0, Rnd::Rn, 75),
        (-(2f64.powi(-104))).to_bits()
    );
}

#[test]
fn overflow_and_denormals_per_mode() {
    let max = f64::MAX;
    let inf = f64::INFINITY;
    for (rnd, pos, neg) in [
        (Rnd::Rn, inf, -inf),
        (Rnd::Rz, max, -max),
        (Rnd::Rp, inf, -max),
        (Rnd::Rm, max, -inf),
    ] {
        assert_eq!(dadd(max, max, rnd, 90), pos.to_bits(), "{rnd:?}");
        assert_eq!(dadd(-max, -max, rnd, 90), neg.to_bits(), "{rnd:?}");
        assert_eq!(dmul(max, 2.0, rnd, 90), pos.to_bits(), "{rnd:?}");
        assert_eq!(dfma(max, -2.0, 0.0, rnd, 90), neg.to_bits(), "{rnd:?}");
    }
    // Denormals are kept, and directed modes round below the normal range.
    let tiny = f64::from_bits(1);
    assert_eq!(dmul(tiny, 0.5, Rnd::Rn, 90), 0);
    assert_eq!(dmul(tiny, 0.5, Rnd::Rp, 90), 1);
    assert_eq!(dmul(tiny, 0.75, Rnd::Rn, 90), 1);
    assert_eq!(dmul(tiny, 0.75, Rnd::Rz, 90), 0);
    assert_eq!(dmul(-tiny, 0.25, Rnd::Rm, 90), (-tiny).to_bits());
    assert_eq!(
        dadd(f64::MIN_POSITIVE, -tiny, Rnd::Rn, 90),
        (f64::MIN_POSITIVE - tiny).to_bits()
    );
}

#[test]
fn zero_signs_follow_ieee() {
    let neg0 = (-0.0f64).to_bits();
    assert_eq!(dadd(1.5, -1.5, Rnd::Rn, 90), 0);
    assert_eq!(dadd(1.5, -1.5, Rnd::Rm, 90), neg0);
    assert_eq!(dadd(-0.0, -0.0, Rnd::Rn, 90), neg0);
    assert_eq!(dadd(-0.0, 0.0, Rnd::Rn, 90), 0);
    assert_eq!(dadd(-0.0, 0.0, Rnd::Rm, 90), neg0);
    assert_eq!(dmul(0.0, -3.0, Rnd::Rn, 90), neg0);
    assert_eq!(dfma(0.0, -3.0, -0.0, Rnd::Rp, 90), neg0);
    assert_eq!(dfma(0.0, -3.0, 0.0, Rnd::Rp, 90), 0);
    assert_eq!(dfma(2.0, 3.0, -6.0, Rnd::Rm, 90), neg0);
}

#[test]
fn infinities_fold_and_nan_results_refuse() {
    let inf = f64::INFINITY;
    assert_eq!(dadd(inf, 1.0, Rnd::Rz, 90), inf.to_bits());
    assert_eq!(dmul(-inf, 2.0, Rnd::Rz, 90), (-inf).to_bits());
    assert_eq!(dfma(1.0, 2.0, -inf, Rnd::Rp, 90), (-inf).to_bits());
    // Which NaN the fp64 unit writes is not modelled: these must not fold.
    assert!(dadd_op(Rnd::Rn).fold(90, &vals(&[inf, -inf])).is_err());
    assert!(dmul_op(Rnd::Rn).fold(90, &vals(&[inf, 0.0])).is_err());
    assert!(
        dfma_op(Rnd::Rn)
            .fold(90, &vals(&[1.0, 1.0, f64::NAN]))
            .is_err()
    );
}

#[test]
fn source_modifiers_apply_before_the_operation() {
    let op = OpDadd {
        d: Reg::gpr(0),
        a: r(2).with_neg(true),
        b: r(4).with_abs(true).with_neg(true),
        rnd: Rnd::Rn,
        cc: false,
    };
    assert_eq!(
        bits(op.fold(90, &vals(&[1.25, -3.0]))),
        (-1.25f64 - 3.0).to_bits()
    );
    let op = OpDfma {
        d: Reg::gpr(0),
        a: r(2).with_abs(true),
        b: r(4),
        c: r(6).with_neg(true),
        rnd: Rnd::Rn,
        cc: false,
    };
    assert_eq!(
        bits(op.fold(90, &vals(&[-2.0, 3.0, 1.0]))),
        5.0f64.to_bits()
    );
}

fn pred(v: Value) -> bool {
    match v {
        Value::Pred(x) => x,
        other => panic!("not a predicate: {other:?}"),
    }
}

fn dsetp_op(cmp: Dcmp, setop: Setop) -> OpDsetp {
    OpDsetp {
        p: Reg::pred(0),
        q: Reg::pred(1),
        a: r(2),
        b: r(4),
        acc: Src::PT,
        cmp,
        setop,
    }
}

/// The comparison by `partial_cmp` (None: unordered), independent of the
/// fold's helper.
fn dsetp_reference(cmp: Dcmp, a: f64, b: f64) -> bool {
    use std::cmp::Ordering::*;
    let o = a.partial_cmp(&b);
    let un = o.is_none();
    let is = |want: &[std::cmp::Ordering]| o.is_some_and(|x| want.contains(&x));
    match cmp {
        Dcmp::F => false,
        Dcmp::Lt => is(&[Less]),
        Dcmp::Eq => is(&[Equal]),
        Dcmp::Le => is(&[Less, Equal]),
        Dcmp::Gt => is(&[Greater]),
        Dcmp::Ne => is(&[Less, Greater]),
        Dcmp::Ge => is(&[Greater, Equal]),
        Dcmp::Num => !un,
        Dcmp::Nan => un,
        Dcmp::Ltu => un || is(&[Less]),
        Dcmp::Equ => un || is(&[Equal]),
        Dcmp::Leu => un || is(&[Less, Equal]),
        Dcmp::Gtu => un || is(&[Greater]),
        Dcmp::Neu => un || is(&[Less, Greater]),
        Dcmp::Geu => un || is(&[Greater, Equal]),
        Dcmp::T => true,
    }
}

#[test]
fn dsetp_compares_every_f64_exactly() {
    // Zeros of both signs, denormals, infinities, NaNs, and pairs that
    // differ only in the low word (an f32 or high-word compare would tie).
    let xs = [
        0.0,
        -0.0,
        1.0,
        1.0 + f64::EPSILON,
        -1.0,
        f64::from_bits(1),
        f64::from_bits(0x8000_0000_0000_0001),
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from_bits(0xfff0_0000_0000_0001),
    ];
    for sm in [50, 60, 70, 90, 120] {
        for cmp in Dcmp::ALL {
            // Volta on: codes F and T are MIN and MAX, whose results are
            // not known; the fold must refuse them.
            let refused = sm >= 70 && matches!(cmp, Dcmp::F | Dcmp::T);
            for setop in Setop::ALL {
                for &a in &xs {
                    for &b in &xs {
                        for acc in [false, true] {
                            let out = dsetp_op(cmp, setop).fold(
                                sm,
                                &[
                                    Value::U64(a.to_bits()),
                                    Value::U64(b.to_bits()),
                                    Value::Pred(acc),
                                ],
                            );
                            if refused {
                                assert!(out.is_err(), "SM{sm} {cmp:?} folds");
                                continue;
                            }
                            let out = out.expect("folds");
                            let c = dsetp_reference(cmp, a, b);
                            let comb = |v: bool| match setop {
                                Setop::And => v & acc,
                                Setop::Or => v | acc,
                                Setop::Xor => v ^ acc,
                            };
                            let what = format!("SM{sm} {cmp:?} {setop:?} {a:e} {b:e} {acc}");
                            assert_eq!(pred(out.as_slice()[0]), comb(c), "{what}");
                            assert_eq!(pred(out.as_slice()[1]), comb(!c), "{what}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn dsetp_applies_source_modifiers() {
    let mut op = dsetp_op(Dcmp::Gt, Setop::And);
    op.a = r(2).with_abs(true);
    op.b = r(4).with_neg(true);
    // |-2| > -(3) and, with the accumulator negated, false.
    let args = [
        Value::U64((-2.0f64).to_bits()),
        Value::U64(3.0f64.to_bits()),
        Value::Pred(true),
    ];
    assert!(pred(op.fold(90, &args).unwrap().as_slice()[0]));
    op.acc = Src::PT.with_not(true);
    assert!(!pred(op.fold(90, &args).unwrap().as_slice()[0]));
}

#[test]
fn maxwell_dadd_folds_and_cc_writes_refuse() {
    // Maxwell's DADD folds as Volta's; the CC flags it writes with `.CC`
    // are not modelled.
    let args = vals(&[1.0, 2.0]);
    for sm in [50, 52, 60] {
        let mut add = dadd_op(Rnd::Rn);
        assert_eq!(bits(add.fold(sm, &args)), 3.0f64.to_bits());
        assert_eq!(dadd(1.5, -1.5, Rnd::Rm, sm), (-0.0f64).to_bits());
        add.cc = true;
        assert!(add.fold(sm, &args).is_err());
    }
}

#[test]
fn maxwell_dmul_dfma_fold_and_cc_writes_refuse() {
    // Maxwell's DMUL and DFMA fold as Volta's (the same helpers); the CC
    // flags they write with `.CC` are not modelled.
    for sm in [50, 52, 60] {
        assert_eq!(dmul(1.5, -3.0, Rnd::Rn, sm), (-4.5f64).to_bits());
        assert_eq!(dfma(2.0, 3.0, 0.5, Rnd::Rz, sm), 6.5f64.to_bits());
        let mut mul = dmul_op(Rnd::Rn);
        mul.cc = true;
        assert!(mul.fold(sm, &vals(&[1.0, 2.0])).is_err());
        let mut fma = dfma_op(Rnd::Rn);
        fma.cc = true;
        assert!(fma.fold(sm, &vals(&[1.0, 2.0, 3.0])).is_err());
    }
}

fn dset_op(cmp: Dcmp, setop: Setop, bf: bool) -> OpDset {
    OpDset {
        d: Reg::gpr(0),
        a: r(2),
        b: r(4),
        acc: Src::PT,
        bf,
        cmp,
        setop,
        cc: false,
    }
}

fn word(v: Value) -> u32 {
    match v {
        Value::U32(x) => x,
        other => panic!("not a u32: {other:?}"),
    }
}

#[test]
fn dset_writes_a_mask_or_one_point_zero() {
    let xs = [
        0.0,
        -0.0,
        1.0,
        1.0 + f64::EPSILON,
        -1.0,
        f64::INFINITY,
        f64::NAN,
    ];
    for cmp in Dcmp::ALL {
        for setop in Setop::ALL {
            for bf in [false, true] {
                for &a in &xs {
                    for &b in &xs {
                        for acc in [false, true] {
                            let args = [
                                Value::U64(a.to_bits()),
                                Value::U64(b.to_bits()),
                                Value::Pred(acc),
                            ];
                            let out = dset_op(cmp, setop, bf).fold(50, &args).expect("folds");
                            let c = dsetp_reference(cmp, a, b);
                            let p = match setop {
                                Setop::And => c & acc,
                                Setop::Or => c | acc,
                                Setop::Xor => c ^ acc,
                            };
                            let want = match (p, bf) {
                                (false, _) => 0,
                                (true, false) => u32::MAX,
                                (true, true) => 1.0f32.to_bits(),
                            };
                            let what = format!("{cmp:?} {setop:?} bf={bf} {a:e} {b:e} {acc}");
                            assert_eq!(word(out.as_slice()[0]), want, "{what}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn dset_applies_source_modifiers_and_refuses_cc() {
    let mut op = dset_op(Dcmp::Lt, Setop::And, true);
    op.a = r(2).with_neg(true);
    op.b = r(4).with_abs(true);
    // -(2) < |-1|: 1.0; without the modifiers 2 < -1 is false.
    let args = [
        Value::U64(2.0f64.to_bits()),
        Value::U64((-1.0f64).to_bits()),
        Value::Pred(true),
    ];
    assert_eq!(word(op.fold(60, &args).unwrap().as_slice()[0]), 0x3f80_0000);
    assert_eq!(
        word(
            dset_op(Dcmp::Lt, Setop::And, true)
                .fold(60, &args)
                .unwrap()
                .as_slice()[0]
        ),
        0
    );
    op.cc = true;
    assert!(op.fold(60, &args).is_err());
}

fn dmnmx(a: f64, b: f64, min: bool) -> Result<u64, nak::runtime::fold::FoldError> {
    let op = OpDmnmx {
        d: Reg::gpr(0),
        a: r(2),
        b: r(4),
        p: Src::PT,
        cc: false,
    };
    let args = [
        Value::U64(a.to_bits()),
        Value::U64(b.to_bits()),
        Value::Pred(min),
    ];
    op.fold(50, &args).map(|o| match o.as_slice()[0] {
        Value::U64(x) => x,
        other => panic!("not a u64: {other:?}"),
    })
}

#[test]
fn dmnmx_picks_by_the_predicate_and_skips_one_nan() {
    let mut rng = Rng(0xd_4d4e);
    for _ in 0..2000 {
        let (a, b) = (rng.finite(), rng.finite());
        if a == 0.0 && b == 0.0 {
            continue;
        }
        assert_eq!(
            dmnmx(a, b, true).unwrap(),
            a.min(b).to_bits(),
            "min {a:e} {b:e}"
        );
        assert_eq!(
            dmnmx(a, b, false).unwrap(),
            a.max(b).to_bits(),
            "max {a:e} {b:e}"
        );
    }
    // Equal low words do not tie: the whole double is compared.
    let up = 1.0 + f64::EPSILON;
    assert_eq!(dmnmx(1.0, up, false).unwrap(), up.to_bits());
    assert_eq!(dmnmx(f64::NAN, -3.0, true).unwrap(), (-3.0f64).to_bits());
    assert_eq!(
        dmnmx(f64::INFINITY, f64::NAN, false).unwrap(),
        f64::INFINITY.to_bits()
    );
    // Undocumented: which NaN two NaNs give, which zero -0 and +0 give.
    assert!(dmnmx(f64::NAN, f64::NAN, true).is_err());
    assert!(dmnmx(0.0, -0.0, true).is_err());
    assert_eq!(dmnmx(-0.0, -0.0, false).unwrap(), (-0.0f64).to_bits());
}

#[test]
fn dmnmx_applies_source_modifiers_and_refuses_cc() {
    let mut op = OpDmnmx {
        d: Reg::gpr(0),
        a: r(2).with_abs(true),
        b: r(4).with_neg(true),
        p: Src::PT,
        cc: false,
    };
    // min(|-5|, -(2)) = -2.
    let args = vals(&[-5.0, 2.0]);
    let args = [args[0], args[1], Value::Pred(true)];
    assert_eq!(bits(op.fold(52, &args)), (-2.0f64).to_bits());
    op.cc = true;
    assert!(op.fold(52, &args).is_err());
}
