//! Fold tests for the control/move group: MOV and MOV32I copy the source
//! bits unchanged; the quad-lane mask is not modelled by the fold.

use nak::isa::{OpMov, OpMov32i};
use nak::runtime::fold::Value;
use nak::runtime::operand::{Reg, Src};

fn mov(mask: u32) -> OpMov {
    OpMov {
        d: Reg::gpr(0),
        b: Src::reg(Reg::gpr(1)),
        mask,
    }
}

fn lcg(s: &mut u64) -> u32 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*s >> 32) as u32
}

#[test]
fn mov_copies_bits_on_every_sm() {
    let edge = [
        0u32,
        1,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
        0x7fc0_0000,
        0xff80_0000,
        0x0000_0001,
    ];
    let mut s = 7u64;
    let mut vals: Vec<u32> = edge.to_vec();
    vals.extend((0..4000).map(|_| lcg(&mut s)));
    for sm in [50, 52, 60, 70, 75, 80, 86, 89, 90, 100, 120] {
        for mask in [0xf, 0x1, 0x0] {
            for &v in &vals {
                let out = mov(mask).fold(sm, &[Value::U32(v)]).unwrap();
                assert_eq!(out.len, 1);
                assert_eq!(
                    out.vals[0],
                    Value::U32(v),
                    "sm {sm} mask {mask:#x} v {v:#x}"
                );
            }
        }
    }
}

#[test]
fn mov32i_copies_bits() {
    let op = OpMov32i {
        d: Reg::gpr(0),
        b: Src::reg(Reg::gpr(1)),
        mask: 0xf,
    };
    let mut s = 11u64;
    for _ in 0..4000 {
        let v = lcg(&mut s);
        for sm in [50, 52, 60] {
            assert_eq!(
                op.fold(sm, &[Value::U32(v)]).unwrap().vals[0],
                Value::U32(v)
            );
        }
    }
}
