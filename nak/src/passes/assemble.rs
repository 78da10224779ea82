//! Lay a legalized function out as an instruction stream.

use super::PassError;
use crate::ir::{Function, VOp};
use crate::stream::encode_stream;

/// Encode every instruction of a legalized function, blocks in order.
/// A trailing virtual `exit` (when the spec has no EXIT) is dropped: the
/// program ends at its last word. Branches need BRA in the spec.
pub fn assemble(f: &Function) -> Result<Vec<u8>, PassError> {
    let sm = f.sm;
    let all: Vec<_> = f.instrs().collect();
    let mut words = Vec::with_capacity(all.len());
    for (n, i) in all.iter().enumerate() {
        match &i.op {
            VOp::Hw(op) => {
                let w = op
                    .encode(sm, &i.common())
                    .map_err(|e| PassError::new(format!("instruction {n}: {e}")))?;
                words.push((w, i.ctrl));
            }
            VOp::Exit if n + 1 == all.len() && i.guard.is_zero() => {}
            other => {
                return Err(PassError::new(format!(
                    "instruction {n}: {other:?} has no encoding (not legalized, or its op is not in the spec)"
                )));
            }
        }
    }
    encode_stream(sm, &words, None).map_err(PassError::new)
}
