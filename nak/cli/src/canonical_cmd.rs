//! `nak dis --check-canonical`: which words of a raw stream or a cubin do
//! not come back from their own text, and why.

use std::path::Path;
use std::process::ExitCode;

use nak::cubin::InputKind;
use nak::dis::canonical::{self, Verdict};
use nak::dis::stream::{Decoded, word_hex};

/// Each code section's verdicts, with its name for a cubin's.
type Sections = Vec<(Option<String>, Vec<(Decoded, Verdict)>)>;

/// Print `ADDR<TAB>HEX<TAB>TEXT<TAB>reason` for each word whose text does
/// not assemble back to it (a cubin's lines start with the kernel's
/// name), and the counts on stderr; exit 1 when there is any such word, 0
/// when there is none, 2 on bad input.
pub fn run(sm: Option<&str>, file: &Path) -> ExitCode {
    let input = match crate::input::read(sm, file) {
        Ok(i) => i,
        Err(code) => return code,
    };
    let found = match (input.kind, input.sm) {
        (InputKind::Elf, sm) => check_cubin(&input.bytes, sm),
        (_, Some(sm)) => canonical::check_stream(sm, &input.bytes).map(|v| (sm, vec![(None, v)])),
        (_, None) => Err(crate::input::NEEDS_SM.into()),
    };
    let (sm, found) = match found {
        Ok(f) => f,
        Err(e) => return crate::fail(2, format_args!("{}: {e}", file.display())),
    };
    let family = nak::isa::family_of(sm).expect("a checked SM has a family");
    let (mut decoded, mut non, mut broken) = (0, 0, 0);
    for (kernel, verdicts) in &found {
        let prefix = kernel.as_ref().map_or(String::new(), |k| format!("{k}\t"));
        for (d, v) in verdicts {
            decoded += 1;
            let why = match v {
                Verdict::Canonical => continue,
                Verdict::NonCanonical { why, .. } => {
                    non += 1;
                    format!("non-canonical: {why}")
                }
                Verdict::Broken { why } => {
                    broken += 1;
                    format!("does not round-trip: {why}")
                }
            };
            let text = nak::dis::listing::instr_text(d, sm).unwrap_or_default();
            let hex = word_hex(d.word, family);
            outln!("{prefix}{:#06x}\t{hex}\t{text}\t{why}", d.addr);
        }
    }
    eprintln!(
        "{}: {decoded} decodable words, {non} non-canonical, {broken} that do not round-trip",
        file.display()
    );
    if non + broken > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Each code section of the cubin, checked on the cubin's SM.
fn check_cubin(bytes: &[u8], want_sm: Option<u32>) -> Result<(u32, Sections), String> {
    let cubin = nak::cubin::parse_for(bytes, want_sm)?;
    let mut out = Vec::new();
    for t in &cubin.texts {
        let name = t.name.strip_prefix(".text.").unwrap_or(&t.name).to_string();
        let v = canonical::check_stream(cubin.sm, t.data).map_err(|e| format!("{name}: {e}"))?;
        out.push((Some(name), v));
    }
    Ok((cubin.sm, out))
}
