//! The input of `nak check` and `nak dis --check-canonical`: a raw stream
//! (needing `--sm`) or a cubin (naming its SM), read whole.

use std::path::Path;
use std::process::ExitCode;

use nak::cubin::{InputKind, input_kind, refusal};
use nak::dis::stream::parse_sm;

/// A file read whole: the `--sm` given, its bytes and what they are.
pub struct Input {
    pub sm: Option<u32>,
    pub bytes: Vec<u8>,
    pub kind: InputKind,
}

/// Read `file`; a bad `--sm`, an unreadable file or a file of the wrong
/// kind (a fatbin, PTX, gzip) is the exit code after its message.
pub fn read(sm: Option<&str>, file: &Path) -> Result<Input, ExitCode> {
    let sm = sm
        .map(parse_sm)
        .transpose()
        .map_err(|e| crate::fail(2, e))?;
    let bytes = std::fs::read(file)
        .map_err(|e| crate::fail(2, format_args!("cannot read {}: {e}", file.display())))?;
    let kind = input_kind(&bytes[..bytes.len().min(256)]);
    if let Some(why) = refusal(kind) {
        return Err(crate::fail(2, format_args!("{}: {why}", file.display())));
    }
    Ok(Input { sm, bytes, kind })
}

/// Why a raw stream cannot be read without `--sm`.
pub const NEEDS_SM: &str = "a raw instruction stream needs --sm (only a cubin names its SM)";
