//! `nak check`: the hazard checker on a raw kernel stream.

use std::path::Path;
use std::process::ExitCode;

use nak::dis::stream::parse_sm;

/// Print each finding as `ADDR<TAB>CODE<TAB>message`; exit 1 when there
/// is any, 0 when the kernel is clean, 2 on bad input.
pub fn run(sm: &str, file: &Path) -> ExitCode {
    let sm = match parse_sm(sm) {
        Ok(s) => s,
        Err(e) => return crate::fail(2, e),
    };
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return crate::fail(2, format_args!("cannot read {}: {e}", file.display())),
    };
    let findings = match nak::check::check(sm, &bytes) {
        Ok(f) => f,
        Err(e) => return crate::fail(2, format_args!("{}: {e}", file.display())),
    };
    for f in &findings {
        outln!("{:#06x}\t{}\t{}", f.addr, f.code.name(), f.message);
    }
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
