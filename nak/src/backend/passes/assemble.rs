//! Lay a legalized function out as an instruction stream.

use super::PassError;
use super::hwops;
use crate::backend::ir::{Function, VOp};
use crate::dis::stream::{encode_stream, instr_addr};
use std::collections::HashMap;

/// Encode every instruction of a legalized function, blocks in order
/// (Maxwell bundles padded with NOPs).
/// A trailing virtual `exit` (when the spec has no EXIT) is dropped: the
/// program ends at its last word. Branches become the spec's BRA with the
/// offset of their block (a block without instructions stands for the
/// next instruction, or the end of the program).
pub fn assemble(f: &Function) -> Result<Vec<u8>, PassError> {
    let sm = f.sm;
    let all: Vec<_> = f.instrs().collect();
    let mut start: HashMap<&str, usize> = HashMap::new();
    let mut n = 0;
    for b in &f.blocks {
        start.insert(b.label.as_str(), n);
        n += b.instrs.len();
    }
    let mut words = Vec::with_capacity(all.len());
    for (n, i) in all.iter().enumerate() {
        match &i.op {
            VOp::Hw(op) => {
                let w = op
                    .encode(sm, &i.common(sm))
                    .map_err(|e| PassError::new(format!("instruction {n}: {e}")))?;
                words.push((w, i.ctrl(sm)));
            }
            VOp::Exit if n + 1 == all.len() && i.guard.is_zero() => {}
            VOp::Bra(l) => {
                let at = *start.get(l.as_str()).ok_or_else(|| {
                    PassError::new(format!("instruction {n}: branch to unknown block `{l}`"))
                })?;
                let addr = |k: usize| {
                    instr_addr(sm, k)
                        .ok_or_else(|| PassError::new(format!("SM{sm} is not covered")))
                };
                let (here, width) = addr(n)?;
                let offset = addr(at)?.0 as i64 - (here + width) as i64;
                let op = hwops::bra_op(sm, offset).ok_or_else(|| {
                    PassError::new(format!(
                        "instruction {n}: the spec has no branch reaching {offset:+} bytes on SM{sm}"
                    ))
                })?;
                let c = crate::runtime::instr::Common {
                    guard: i.guard,
                    ctrl: i.ctrl(sm),
                    raw: 0,
                };
                let w = op
                    .encode(sm, &c)
                    .map_err(|e| PassError::new(format!("instruction {n}: {e}")))?;
                words.push((w, i.ctrl(sm)));
            }
            other => {
                return Err(PassError::new(format!(
                    "instruction {n}: {other:?} has no encoding (not legalized, or its op is not in the spec)"
                )));
            }
        }
    }
    // A bundle's empty slots hold NOPs, which hardware and nvdisasm read
    // (a zero word is no instruction).
    encode_stream(sm, &words, crate::dis::stream::nop_word(sm)).map_err(PassError::new)
}
