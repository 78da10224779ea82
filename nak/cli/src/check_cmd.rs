//! `nak check`: the hazard checker on a raw kernel stream, or on every
//! kernel of a cubin.

use std::path::Path;
use std::process::ExitCode;

use nak::check::Finding;
use nak::cubin::InputKind;

/// Each kernel's findings, with its name for a cubin's.
type KernelFindings = Vec<(Option<String>, Vec<Finding>)>;

/// Print each finding as `ADDR<TAB>CODE<TAB>message` (a cubin's with its
/// kernel's name first); exit 1 when there is any, 0 when every kernel
/// is clean, 2 on bad input.
pub fn run(sm: Option<&str>, file: &Path) -> ExitCode {
    let input = match crate::input::read(sm, file) {
        Ok(i) => i,
        Err(code) => return code,
    };
    let found = match (input.kind, input.sm) {
        (InputKind::Elf, sm) => check_cubin(&input.bytes, sm),
        (_, Some(sm)) => nak::check::check(sm, &input.bytes).map(|f| vec![(None, f)]),
        (_, None) => Err(crate::input::NEEDS_SM.into()),
    };
    let found = match found {
        Ok(f) => f,
        Err(e) => return crate::fail(2, format_args!("{}: {e}", file.display())),
    };
    let mut any = false;
    for (kernel, findings) in &found {
        for f in findings {
            any = true;
            match kernel {
                Some(k) => outln!("{k}\t{:#06x}\t{}\t{}", f.addr, f.code.name(), f.message),
                None => outln!("{:#06x}\t{}\t{}", f.addr, f.code.name(), f.message),
            }
        }
    }
    if any {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Each code section of the cubin checked as one kernel at address 0
/// (the kernel's name is its section's without `.text.`).
fn check_cubin(bytes: &[u8], want_sm: Option<u32>) -> Result<KernelFindings, String> {
    let cubin = nak::cubin::parse_for(bytes, want_sm)?;
    let mut out = Vec::new();
    for t in &cubin.texts {
        let name = t.name.strip_prefix(".text.").unwrap_or(&t.name).to_string();
        let findings = nak::check::check(cubin.sm, t.data).map_err(|e| format!("{name}: {e}"))?;
        out.push((Some(name), findings));
    }
    Ok(out)
}
