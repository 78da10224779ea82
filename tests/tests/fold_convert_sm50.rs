//! Fold tests for the Maxwell/Pascal conversions (I2F, F2I, F2F, MUFU):
//! where they fold, they must give exactly what SM70's ops give for the
//! same conversion (whose folds tests/fold_convert.rs checks against a
//! reference), reading the part the Maxwell selector names; where the
//! spec says they refuse, they must refuse.

use isa_tests::rng::Rng;
use nak::isa::*;
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const SMS: [u32; 3] = [50, 52, 60];
const RNDS: [Rnd; 4] = [Rnd::Rn, Rnd::Rm, Rnd::Rp, Rnd::Rz];

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn inputs() -> Vec<u32> {
    let mut rng = Rng(0x5eed_0fc0_1234);
    let mut v = vec![
        0,
        1,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
        0x3c00_bc00,
        0x0000_7c01,
    ];
    v.extend((0..400).map(|_| rng.next_u32()));
    v
}

fn one(op: &Op, sm: u32, b: u32) -> Result<u32, String> {
    op.fold(sm, &[Value::U32(b)])
        .map(|v| match v.as_slice()[0] {
            Value::U32(x) => x,
            ref other => panic!("not a word: {other:?}"),
        })
        .map_err(|e| e.to_string())
}

fn i2f_mx(stype: CvtItypeShown, sel: u32, rnd: Rnd) -> OpI2fSm50 {
    OpI2fSm50 {
        d: Reg::gpr(0),
        b: r(1),
        dtype: CvtFtypeShown::F32,
        stype,
        rnd,
        cc: false,
        sel,
    }
}

/// Every 8-, 16- and 32-bit source type and every part the byte-offset
/// selector names: the SM70 fold of the same part (part index = offset /
/// part width).
#[test]
fn i2f_matches_sm70_on_every_part() {
    let types = [
        (CvtItypeShown::S32, CvtItype32::S32, 4),
        (CvtItypeShown::U32, CvtItype32::U32, 4),
        (CvtItypeShown::S16, CvtItype32::S16, 2),
        (CvtItypeShown::U16, CvtItype32::U16, 2),
        (CvtItypeShown::S8, CvtItype32::S8, 1),
        (CvtItypeShown::U8, CvtItype32::U8, 1),
    ];
    for sm in SMS {
        for (mx, v, bytes) in types {
            for byte in (0..4).step_by(bytes).take(if bytes == 4 { 1 } else { 4 }) {
                for rnd in RNDS {
                    let ours = Op::I2fSm50(i2f_mx(mx, byte, rnd));
                    let theirs = Op::I2f(OpI2f {
                        d: Reg::gpr(0),
                        b: r(1),
                        dtype: CvtFtype32::F32,
                        stype: v,
                        rnd,
                        sel: byte / bytes as u32,
                    });
                    for b in inputs() {
                        assert_eq!(
                            one(&ours, sm, b),
                            one(&theirs, 75, b),
                            "{mx:?} byte {byte} {rnd:?} of {b:#x}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn i2f_refuses_what_it_does_not_model() {
    let refused = [
        OpI2fSm50 {
            cc: true,
            ..i2f_mx(CvtItypeShown::S32, 0, Rnd::Rn)
        },
        OpI2fSm50 {
            dtype: CvtFtypeShown::F16,
            ..i2f_mx(CvtItypeShown::S32, 0, Rnd::Rn)
        },
        OpI2fSm50 {
            dtype: CvtFtypeShown::F64,
            ..i2f_mx(CvtItypeShown::S32, 0, Rnd::Rn)
        },
        i2f_mx(CvtItypeShown::S64, 0, Rnd::Rn),
        i2f_mx(CvtItypeShown::U32, 1, Rnd::Rn),
        OpI2fSm50 {
            b: Src { neg: true, ..r(1) },
            ..i2f_mx(CvtItypeShown::S32, 0, Rnd::Rn)
        },
        OpI2fSm50 {
            b: Src { abs: true, ..r(1) },
            ..i2f_mx(CvtItypeShown::S16, 0, Rnd::Rn)
        },
    ];
    for op in refused {
        assert!(one(&Op::I2fSm50(op), 50, 5).is_err(), "{op:?} folds");
    }
}

fn f2i_mx(stype: CvtFtypeShown, dtype: CvtItypeShown, sel: u32, rnd: F2iRnd) -> OpF2iSm50 {
    OpF2iSm50 {
        d: Reg::gpr(0),
        b: r(1),
        ftz: false,
        dtype,
        stype,
        rnd,
        cc: false,
        sel,
    }
}

/// F32 and both halves of an F16 (`.H1`), with neg/abs and FTZ, to S32
/// and U32 in every rounding: SM70's fold of the same source.
#[test]
fn f2i_matches_sm70() {
    let rnds = [F2iRnd::Rn, F2iRnd::Floor, F2iRnd::Ceil, F2iRnd::Trunc];
    let dts = [
        (CvtItypeShown::S32, CvtItype32::S32),
        (CvtItypeShown::U32, CvtItype32::U32),
    ];
    let sts = [
        (CvtFtypeShown::F32, CvtFtype32::F32, 0),
        (CvtFtypeShown::F16, CvtFtype32::F16, 0),
        (CvtFtypeShown::F16, CvtFtype32::F16, 1),
    ];
    for sm in SMS {
        for (mst, st, sel) in sts {
            for (mdt, dt) in dts {
                for rnd in rnds {
                    for flags in 0..8u32 {
                        let b = Src {
                            neg: flags & 1 != 0,
                            abs: flags & 2 != 0,
                            ..r(1)
                        };
                        let ftz = flags & 4 != 0;
                        let ours = Op::F2iSm50(OpF2iSm50 {
                            b,
                            ftz,
                            ..f2i_mx(mst, mdt, sel, rnd)
                        });
                        let theirs = Op::F2i(OpF2i {
                            d: Reg::gpr(0),
                            b,
                            ftz,
                            dtype: dt,
                            stype: st,
                            rnd,
                            ntz: false,
                            sel,
                        });
                        for x in inputs() {
                            assert_eq!(
                                one(&ours, sm, x),
                                one(&theirs, 75, x),
                                "{mst:?} sel {sel} {mdt:?} {rnd:?} flags {flags} of {x:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn f2i_refuses_what_it_does_not_model() {
    let base = |st, dt, sel| f2i_mx(st, dt, sel, F2iRnd::Trunc);
    let refused = [
        OpF2iSm50 {
            cc: true,
            ..base(CvtFtypeShown::F32, CvtItypeShown::S32, 0)
        },
        base(CvtFtypeShown::F64, CvtItypeShown::S32, 0),
        base(CvtFtypeShown::F32, CvtItypeShown::S64, 0),
        base(CvtFtypeShown::F32, CvtItypeShown::U16, 0),
        base(CvtFtypeShown::F32, CvtItypeShown::S32, 1),
    ];
    for op in refused {
        assert!(
            one(&Op::F2iSm50(op), 50, 0x4000_0000).is_err(),
            "{op:?} folds"
        );
    }
}

/// F2F folds F16 to F32 only (either half, neg/abs on the half's sign),
/// as SM70's fold does; every other conversion, .SAT and .CC refuse.
#[test]
fn f2f_widens_f16_as_sm70_and_refuses_the_rest() {
    let mx = |dtype, stype, sel, b: Src| OpF2fSm50 {
        d: Reg::gpr(0),
        b,
        ftz: false,
        dtype,
        stype,
        rnd: F2fRndSm50::Rn,
        sat: false,
        cc: false,
        sel,
    };
    for sm in SMS {
        for sel in 0..2 {
            for flags in 0..4u32 {
                let b = Src {
                    neg: flags & 1 != 0,
                    abs: flags & 2 != 0,
                    ..r(1)
                };
                let ours = Op::F2fSm50(mx(CvtFtypeShown::F32, CvtFtypeShown::F16, sel, b));
                let theirs = Op::F2f(OpF2f {
                    d: Reg::gpr(0),
                    b,
                    ftz: false,
                    dtype: CvtFtypeShown32::F32,
                    stype: CvtFtypeShown32::F16,
                    rnd: Rnd::Rn,
                    sel,
                });
                for x in inputs() {
                    assert_eq!(
                        one(&ours, sm, x),
                        one(&theirs, 75, x),
                        "sel {sel} flags {flags} of {x:#x}"
                    );
                }
            }
        }
    }
    let refused = [
        mx(CvtFtypeShown::F16, CvtFtypeShown::F32, 0, r(1)),
        mx(CvtFtypeShown::F32, CvtFtypeShown::F32, 0, r(1)),
        mx(CvtFtypeShown::F64, CvtFtypeShown::F32, 0, r(1)),
        OpF2fSm50 {
            sat: true,
            ..mx(CvtFtypeShown::F32, CvtFtypeShown::F16, 0, r(1))
        },
        OpF2fSm50 {
            cc: true,
            ..mx(CvtFtypeShown::F32, CvtFtypeShown::F16, 0, r(1))
        },
    ];
    for op in refused {
        assert!(one(&Op::F2fSm50(op), 50, 0x3c00).is_err(), "{op:?} folds");
    }
}

/// MUFU folds as on SM70 (the same approximation), and refuses .SAT.
#[test]
fn mufu_as_sm70_and_refuses_sat() {
    let op = |sat| OpMufu {
        d: Reg::gpr(0),
        a: r(1),
        op: MufuOp::Rcp,
        fmt: MufuFmt::F32,
        sel: 0,
        sat,
    };
    assert_eq!(one(&Op::Mufu(op(false)), 50, 0x4000_0000), Ok(0x3f00_0000));
    assert!(one(&Op::Mufu(op(true)), 50, 0x4000_0000).is_err());
}
