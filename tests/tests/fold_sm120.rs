//! Fold tests for the SM120 64-bit ALU ops: ISETP.U64/.S64 (isetp64),
//! SEL.64 and MOV.64, against references written independently of the
//! spec's fold expressions (i128 arithmetic, 32-bit halves).

use nak::isa::{Icmp, IsetpType64, OpIsetp64, OpMov64, OpSel64, Setop};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

const EDGES: [u64; 10] = [
    0,
    1,
    2,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0xffff_ffff_0000_0000,
    u64::MAX - 1,
    u64::MAX,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn r(i: u8) -> Src {
    Src::reg(Reg::gpr(i))
}

fn pairs(mut f: impl FnMut(u64, u64)) {
    for a in EDGES {
        for b in EDGES {
            f(a, b);
        }
    }
    let mut rng = Rng(0x0120_0120_0120_0120);
    for _ in 0..2000 {
        let a = rng.next();
        // Equal high words half of the time, to reach the .EX fallback.
        let b = if rng.next() & 1 == 0 {
            (a & 0xffff_ffff_0000_0000) | (rng.next() & 0xffff_ffff)
        } else {
            rng.next()
        };
        f(a, b);
        f(a, a);
    }
}

/// The value as a signed or unsigned 128-bit integer.
fn wide(ty: IsetpType64, v: u64) -> i128 {
    match ty {
        IsetpType64::U64 => i128::from(v),
        IsetpType64::S64 => i128::from(v as i64),
    }
}

/// The compare on the difference a - b (no shared code with the fold).
fn cmp_ref(cmp: Icmp, diff: i128) -> bool {
    match cmp {
        Icmp::F => false,
        Icmp::Lt => diff < 0,
        Icmp::Eq => diff == 0,
        Icmp::Le => diff <= 0,
        Icmp::Gt => diff > 0,
        Icmp::Ne => diff != 0,
        Icmp::Ge => diff >= 0,
        Icmp::T => true,
    }
}

fn setop_ref(setop: Setop, x: bool, acc: bool) -> bool {
    match setop {
        Setop::And => x & acc,
        Setop::Or => x | acc,
        Setop::Xor => x != acc,
    }
}

#[test]
fn isetp64() {
    for ty in IsetpType64::ALL {
        for cmp in Icmp::ALL {
            for setop in Setop::ALL {
                pairs(|a, b| {
                    for (acc, lc, ex) in [
                        (true, true, false),
                        (false, true, false),
                        (true, false, true),
                        (true, true, true),
                        (false, false, true),
                    ] {
                        let op = OpIsetp64 {
                            d: Reg::pred(0),
                            d2: Reg::pred(1),
                            a: r(2),
                            b: r(4),
                            acc: Src::reg(Reg::pred(2)),
                            lc: Src::reg(Reg::pred(3)),
                            cmp,
                            ty,
                            setop,
                            ex,
                        };
                        let out = op
                            .fold(
                                120,
                                &[
                                    Value::U64(a),
                                    Value::U64(b),
                                    Value::Pred(acc),
                                    Value::Pred(lc),
                                ],
                            )
                            .unwrap();
                        let diff = wide(ty, a) - wide(ty, b);
                        // .EX: equal operands defer to the lower compare
                        // (F and T stay constant).
                        let r = if ex && diff == 0 && !matches!(cmp, Icmp::F | Icmp::T) {
                            lc
                        } else {
                            cmp_ref(cmp, diff)
                        };
                        let what =
                            format!("{ty:?} {cmp:?} {setop:?} {a:#x} {b:#x} {acc} {lc} {ex}");
                        assert_eq!(out.vals[0], Value::Pred(setop_ref(setop, r, acc)), "{what}");
                        assert_eq!(
                            out.vals[1],
                            Value::Pred(setop_ref(setop, !r, acc)),
                            "{what}"
                        );
                    }
                });
            }
        }
    }
}

#[test]
fn sel64() {
    pairs(|a, b| {
        for (p, not) in [(false, false), (true, false), (false, true), (true, true)] {
            let op = OpSel64 {
                d: Reg::gpr(0),
                a: r(2),
                b: r(4),
                cond: Src::reg(Reg::pred(1)).with_not(not),
            };
            let out = op
                .fold(120, &[Value::U64(a), Value::U64(b), Value::Pred(p)])
                .unwrap();
            let want = if p != not { a } else { b };
            assert_eq!(out.vals[0], Value::U64(want), "{a:#x} {b:#x} {p} {not}");
        }
    });
}

#[test]
fn mov64() {
    pairs(|a, _| {
        let op = OpMov64 {
            d: Reg::gpr(0),
            b: r(2),
        };
        let out = op.fold(120, &[Value::U64(a)]).unwrap();
        // Both halves arrive unchanged.
        let Value::U64(v) = out.vals[0] else {
            panic!("MOV.64 folds to a 64-bit value")
        };
        assert_eq!((v as u32, (v >> 32) as u32), (a as u32, (a >> 32) as u32));
    });
}
