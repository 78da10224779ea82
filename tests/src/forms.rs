//! The spec model's forms with the ids the generated code gives them
//! (`FormInfo::id`, `Op::form_id`): an op's forms numbered in order over
//! all its encodings.

use isa_spec::model::{Encoding, Form, Op};

/// Each form of `op` with its id and its encoding.
pub fn with_ids(op: &Op) -> impl Iterator<Item = (u8, &Encoding, &Form)> {
    op.encodings
        .iter()
        .flat_map(|e| e.forms.iter().map(move |f| (e, f)))
        .enumerate()
        .map(|(id, (e, f))| (id as u8, e, f))
}
