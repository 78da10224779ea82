//! Every op's `low_bits` claim (the sources whose low n bits alone decide
//! the low n bits of its integer results) holds on random instances and
//! values: changing a listed source above bit n leaves the results' low n
//! bits alone. The known-bits analysis that proves address alignment
//! trusts these claims.

use nak::isa;
use nak::runtime::fold::Value;
use nak::runtime::instr::ValueType;
use nak::runtime::sample::{Rng, sample_words};

fn random_value(rng: &mut Rng, ty: ValueType) -> Value {
    match ty {
        ValueType::Pred => Value::Pred(rng.next_u64() & 1 == 1),
        t if t.regs() == 2 => Value::U64(rng.next_u64()),
        _ => Value::U32(rng.next_u64() as u32),
    }
}

/// `v` with every bit from `n` up replaced by random bits.
fn scramble_above(rng: &mut Rng, v: Value, n: u32) -> Value {
    let keep = |bits: u32| if n >= bits { u64::MAX } else { (1u64 << n) - 1 };
    match v {
        Value::U32(x) => {
            let k = keep(32) as u32;
            Value::U32((x & k) | (rng.next_u64() as u32 & !k))
        }
        Value::U64(x) => {
            let k = keep(64);
            Value::U64((x & k) | (rng.next_u64() & !k))
        }
        p => p,
    }
}

fn low(v: Value, n: u32) -> u64 {
    let x = match v {
        Value::U32(x) => x as u64,
        Value::U64(x) => x,
        Value::Pred(_) => 0,
    };
    if n >= 64 { x } else { x & ((1u64 << n) - 1) }
}

#[test]
fn low_bits_claims_hold() {
    let mut rng = Rng::new(0x10b175);
    let mut checked = 0usize;
    let mut ops = std::collections::BTreeSet::new();
    for &sm in isa::ALL_SMS {
        for w in sample_words(sm, &[], 8, 11) {
            let Some((op, _)) = isa::decode(w, sm) else {
                continue;
            };
            let listed = op.low_bits_srcs();
            if listed.is_empty() || !op.has_fold(sm) {
                continue;
            }
            let infos = op.src_info();
            for _ in 0..16 {
                let srcs: Vec<Value> = infos.iter().map(|i| random_value(&mut rng, i.ty)).collect();
                let Ok(base) = op.fold(sm, &srcs) else {
                    continue;
                };
                let n = (rng.next_u64() % 40) as u32;
                let mut other = srcs.clone();
                for &k in listed {
                    other[k] = scramble_above(&mut rng, other[k], n);
                }
                let Ok(got) = op.fold(sm, &other) else {
                    continue;
                };
                for (k, info) in op.dst_info().iter().enumerate() {
                    if info.ty.is_pred() {
                        continue;
                    }
                    assert_eq!(
                        low(base.as_slice()[k], n),
                        low(got.as_slice()[k], n),
                        "SM{sm} {}: destination {k}'s low {n} bits changed with the high bits of \
                         the low_bits sources ({srcs:x?} vs {other:x?})",
                        op.name()
                    );
                }
                checked += 1;
                ops.insert(op.name());
            }
        }
    }
    println!("low_bits: {checked} cases over {} ops", ops.len());
    assert!(ops.len() >= 10, "only {ops:?} checked");
}
