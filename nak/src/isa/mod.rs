//! The generated ISA: op structs, the `Op` enum, `decode`, `parse`, `FORMS`,
//! families and enums; and the runtime traits the op structs implement
//! (their shared methods: `encode`, `try_encode`, `legalize`, `print_line`,
//! `mem_access`...).

mod generated;

pub use crate::runtime::decode::Forms;
pub use crate::runtime::encode::Encode;
pub use crate::runtime::legalize_support::Legalize;
pub use crate::runtime::mem::MemOp;
pub use generated::*;

/// The encoding form `op` takes on `sm` (its row of [`FORMS`]).
pub fn form_of(sm: u32, op: &Op) -> Option<&'static crate::runtime::instr::FormInfo> {
    let id = op.form_id(sm)?;
    FORMS.iter().find(|f| f.op == op.name() && f.id == id)
}
