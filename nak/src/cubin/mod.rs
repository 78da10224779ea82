//! Cubins: NVIDIA's ELF files of compiled kernels, listed as
//! `nvdisasm -c -hex` lists them (`nak dis FILE` on a cubin). What the
//! input is comes from its first bytes: an ELF cubin, a fatbinary or PTX
//! passed by mistake (each refused with what to run instead), or else a
//! raw instruction stream.

pub mod cfg;
pub mod elf;
pub mod labels;
pub mod listing;
pub mod listing_read;
pub mod nvinfo;
pub mod patch;

/// What a file given to `nak dis` is, by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// An ELF file (`\x7fELF`).
    Elf,
    /// A fatbinary (magic 0xBA55ED50, little-endian), the container nvcc
    /// embeds cubins in.
    Fatbin,
    /// PTX source text (`.version` or `.target` first, after comments).
    Ptx,
    /// A gzip-compressed file (or a raw stream that starts alike: with
    /// `--sm` it is read as one).
    Gzip,
    /// Anything else: a raw instruction stream.
    Raw,
}

/// Classify `head`, the file's first bytes (at least 4 when the file has
/// them).
pub fn input_kind(head: &[u8]) -> InputKind {
    if head.starts_with(b"\x7fELF") {
        return InputKind::Elf;
    }
    if head.starts_with(&0xBA55_ED50u32.to_le_bytes()) {
        return InputKind::Fatbin;
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        return InputKind::Gzip;
    }
    let text = String::from_utf8_lossy(head);
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//"));
    if first.is_some_and(|l| l.starts_with(".version") || l.starts_with(".target")) {
        return InputKind::Ptx;
    }
    InputKind::Raw
}

/// The error for an input that is not a cubin nor a raw stream.
pub fn refusal(kind: InputKind) -> Option<&'static str> {
    match kind {
        InputKind::Fatbin => Some(
            "this is a fatbinary, not a cubin: extract its cubins with `cuobjdump -xelf all FILE` and disassemble each",
        ),
        InputKind::Ptx => Some(
            "this is PTX text, not machine code: compile it with `ptxas -arch=sm_NN FILE -o FILE.cubin` and disassemble the cubin",
        ),
        _ => None,
    }
}

/// `nak dis` of a cubin: its listing and the count of unknown encodings.
/// `want_sm`, when given, must be the cubin's SM (an `sm_90a` cubin is
/// SM90).
pub fn disassemble(bytes: &[u8], want_sm: Option<u32>) -> Result<(String, usize), String> {
    listing::listing(&parse_for(bytes, want_sm)?)
}

/// `nak dis --cfg` of a cubin: its control-flow graph as `nvdisasm -cfg`
/// prints it (Graphviz DOT) and the count of unknown encodings.
pub fn disassemble_cfg(bytes: &[u8], want_sm: Option<u32>) -> Result<(String, usize), String> {
    cfg::cfg_dot(&parse_for(bytes, want_sm)?)
}

/// The cubin, when the spec covers its SM and it is `want_sm` (if given).
pub fn parse_for(bytes: &[u8], want_sm: Option<u32>) -> Result<elf::Cubin<'_>, String> {
    let cubin = elf::Cubin::parse(bytes)?;
    check_sm(&cubin, want_sm)?;
    Ok(cubin)
}

/// The cubin's SM is one the spec covers and, when `want_sm` is given,
/// the one asked for (an `sm_90a` cubin is SM90).
pub fn check_sm(cubin: &elf::Cubin, want_sm: Option<u32>) -> Result<(), String> {
    if crate::isa::family_of(cubin.sm).is_none() {
        return Err(format!(
            "the cubin's ELF flags ({:#x}) name SM{}, which the spec does not cover",
            cubin.flags, cubin.sm
        ));
    }
    if let Some(want) = want_sm
        && want != cubin.sm
    {
        return Err(format!(
            "--sm {want} given, but the cubin is for SM{} (its ELF flags {:#x}); drop --sm or pass {}",
            cubin.sm, cubin.flags, cubin.sm
        ));
    }
    Ok(())
}
