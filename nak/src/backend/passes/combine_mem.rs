//! Combine two adjacent loads (or stores) of consecutive memory into one
//! access of twice the size, but only where the wider access's alignment
//! is proven: the address register's known low bits (see
//! [`super::known_bits`]) plus the constant offset must be a multiple of
//! the new size. An address the analysis knows nothing about (computed
//! from a thread id, loaded from memory) is never combined: the wider
//! access would fault where the two narrow ones did not.
//!
//! Two accesses combine when they are the same op with the same guard,
//! address register and modifiers, each at least 4 bytes, the second
//! starting where the first ends, with consecutive data registers whose
//! first is aligned to the new register count, and (for loads) the first
//! does not overwrite the second's address. Everything comes from the
//! spec's `[memory]` tables (`Op::mem_access`, `with_mem_bytes`,
//! `with_mem_at`); the combined op must encode on the target.

use super::known_bits::{KnownBits, Low};
use crate::backend::ir::{Function, Instr, VOp, comp_reg};
use crate::runtime::mem::MemKind;

/// Combine accesses in every block until nothing changes; returns how
/// many pairs were combined.
pub fn combine(f: &mut Function) -> usize {
    let sm = f.sm;
    let entry = KnownBits::at_block_entry(f);
    let mut combined = 0;
    for b in &mut f.blocks {
        loop {
            let mut changed = false;
            let mut kb = entry.clone();
            let mut i = 0;
            while i < b.instrs.len() {
                if i + 1 < b.instrs.len()
                    && let Some(w) = pair(sm, &kb, &b.instrs[i], &b.instrs[i + 1])
                {
                    b.instrs[i] = w;
                    b.instrs.remove(i + 1);
                    changed = true;
                    combined += 1;
                }
                kb.step(sm, &b.instrs[i]);
                i += 1;
            }
            if !changed {
                break;
            }
        }
    }
    combined
}

/// The wider access doing the work of `x` then `y`, if it is proven safe.
fn pair(sm: u32, kb: &KnownBits, x: &Instr, y: &Instr) -> Option<Instr> {
    let (VOp::Hw(a), VOp::Hw(b)) = (&x.op, &y.op) else {
        return None;
    };
    // Ordered or volatile accesses (`[memory] ordered` not at default) stay.
    if x.guard != y.guard || !a.mem_combinable() || !b.mem_combinable() {
        return None;
    }
    let (ma, mb) = (a.mem_access()?, b.mem_access()?);
    if ma.bytes < 4 || ma.bytes != mb.bytes || ma.data.is_zero() {
        return None;
    }
    // Same op, modifiers and address; the second right after the first.
    let next_data = comp_reg(ma.data, ma.data_regs() as u8);
    if mb.offset != ma.offset + ma.bytes as i64
        || mb.data != next_data
        || a.with_mem_at(mb.offset, mb.data).as_ref() != Some(b)
    {
        return None;
    }
    let bytes = 2 * ma.bytes;
    let regs = bytes.div_ceil(4);
    if !(ma.data.idx as u32).is_multiple_of(regs) {
        return None;
    }
    let addr = ma.addr.as_reg()?;
    if ma.kind == MemKind::Load
        && (0..ma.data_regs() as u8).any(|k| {
            let d = comp_reg(ma.data, k);
            d == addr || d == comp_reg(addr, 1)
        })
    {
        return None;
    }
    let wide = a.with_mem_bytes(bytes)?;
    let align = wide.mem_access()?.align;
    let base = kb.get(addr);
    let at = Low {
        n: base.n,
        v: (base.v as i64).wrapping_add(ma.offset) as u32 & ((1 << base.n) - 1),
    };
    if at.align() < align {
        return None;
    }
    wide.try_encode(sm, &x.common(sm))?;
    let mut w = x.clone();
    w.op = VOp::Hw(wide);
    Some(w)
}
