//! `nak dis --json`: one JSON object per instruction, one per line (JSON
//! Lines), for scripts. The fields are [`nak::dis::instruction`]'s; the
//! README documents the schema.

use std::path::Path;
use std::process::ExitCode;

use nak::dis::instruction::{Instruction, instructions};
use serde_json::{Value, json};

/// Print every instruction of `file` (a cubin, or a raw stream on `--sm`).
pub fn run(sm: Option<&str>, file: &Path) -> ExitCode {
    let input = match crate::input::read(sm, file) {
        Ok(i) => i,
        Err(code) => return code,
    };
    let all = match instructions(&input.bytes, input.sm) {
        Ok(all) => all,
        Err(e) => return crate::fail(2, format_args!("{}: {e}", file.display())),
    };
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut unknown = 0;
    for i in &all {
        unknown += usize::from(i.text.is_none());
        if let Err(e) = writeln!(out, "{}", to_json(i)) {
            crate::out::exit_on_write_error(&e);
        }
    }
    if let Err(e) = out.flush() {
        crate::out::exit_on_write_error(&e);
    }
    crate::unknown_note(unknown)
}

/// The JSON object of one instruction.
pub fn to_json(i: &Instruction) -> Value {
    let c = &i.control;
    json!({
        "kernel": i.kernel,
        "addr": i.addr,
        "words": i.words,
        "text": i.text,
        "guard": i.guard,
        "mnemonic": i.mnemonic,
        "modifiers": i.modifiers,
        "operands": i.operands.iter().map(|o| json!({"kind": o.kind, "text": o.text})).collect::<Vec<_>>(),
        "control": {
            "stall": c.stall,
            "yield": c.yield_hint,
            "write_barrier": c.write_barrier,
            "read_barrier": c.read_barrier,
            "wait": c.wait,
            "raw": c.raw,
            "text": c.text,
        },
    })
}
