//! `nak asm --cubin IN LISTING -o OUT`: the edited listing put back into
//! the cubin (see `nak::cubin::patch`), OUT written whole or not at all.

use std::path::Path;
use std::process::ExitCode;

use crate::{fail, out};

/// Patch `cubin` with `listing` into `out_path`; `sm`, when given, must be
/// the cubin's. Errors are `LISTING:LINE:COL: error: ...` (or
/// `LISTING: error:` for the listing as a whole).
pub fn run(
    sm: Option<&str>,
    cubin: &Path,
    listing: &Path,
    out_path: &Path,
    deny_warnings: bool,
) -> ExitCode {
    let bytes = match std::fs::read(cubin) {
        Ok(b) => b,
        Err(e) => return fail(2, format_args!("cannot read {}: {e}", cubin.display())),
    };
    let kind = nak::cubin::input_kind(&bytes[..bytes.len().min(256)]);
    if kind != nak::cubin::InputKind::Elf {
        let why = nak::cubin::refusal(kind).unwrap_or("not a cubin (no ELF header)");
        return fail(2, format_args!("{}: {why}", cubin.display()));
    }
    // `--sm`, when given, names the cubin's SM (checked before patching;
    // what else is wrong with the cubin the patch reports by the listing).
    if let Some(want) = sm {
        let checked = nak::dis::stream::parse_sm(want)
            .and_then(|w| nak::cubin::parse_for(&bytes, Some(w)).map(|_| ()));
        if let Err(e) = checked {
            return fail(2, format_args!("{}: {e}", cubin.display()));
        }
    }
    let text = match std::fs::read_to_string(listing) {
        Ok(t) => t,
        Err(e) => return fail(2, format_args!("cannot read {}: {e}", listing.display())),
    };
    let report = |level: &str, errs: &[nak::dis::listing::AsmFileError]| {
        for e in errs {
            if e.line == 0 {
                eprintln!("{}: {level}: {}", listing.display(), e.message);
            } else {
                let at = format!("{}:{}:{}", listing.display(), e.line, e.col);
                eprintln!("{at}: {level}: {}", e.message);
            }
        }
    };
    let patched = match nak::cubin::patch::patch(&bytes, &text) {
        Ok(p) => p,
        Err(errs) => {
            report("error", &errs);
            return ExitCode::from(1);
        }
    };
    if deny_warnings && !patched.warnings.is_empty() {
        report("error", &patched.warnings);
        return ExitCode::from(1);
    }
    report("warning", &patched.warnings);
    match out::write_whole(out_path, &patched.bytes) {
        Ok(()) => {
            eprintln!(
                "{} of {} instructions rewritten",
                patched.rewritten, patched.instructions
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, format_args!("cannot write {}: {e}", out_path.display())),
    }
}
