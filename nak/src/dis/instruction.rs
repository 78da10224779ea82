//! Decoded instructions as data for scripts: `nak dis --json` writes one
//! object per [`Instruction`], and the Python module returns them. The
//! mnemonic, modifiers and operands are the printed text's parts (what
//! nvdisasm shows), so a script sees what a reader of the listing sees.

use crate::dis::listing::instr_text;
use crate::dis::stream::{self, Decoded};
use crate::isa::{Family, family_of};
use crate::runtime::asm::{self, Base};
use crate::runtime::control;
use crate::runtime::operand::RegFile;

/// One instruction of a raw stream or of a cubin's kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The code section's kernel or function name (a cubin's `.text.NAME`);
    /// None for a raw stream.
    pub kernel: Option<String>,
    /// Byte offset in the stream or the code section.
    pub addr: u64,
    /// The word as nvdisasm's `-hex` shows it: 64-bit halves, low first
    /// (one on SM50..SM62, two on SM70+), `0x` and 16 hex digits each.
    pub words: Vec<String>,
    /// The text `nak dis` prints for a raw stream (branch targets as
    /// offsets in the section); None when the spec knows no such encoding.
    pub text: Option<String>,
    /// The guard predicate as printed (`P0`, `!UP1`); None when unguarded.
    pub guard: Option<String>,
    /// The mnemonic's first part (`IMAD` of `IMAD.MOV.U32`); empty when
    /// unknown.
    pub mnemonic: String,
    /// The mnemonic's other dot-separated parts (`MOV`, `U32`).
    pub modifiers: Vec<String>,
    pub operands: Vec<Operand>,
    /// The scheduling control bits: SM70+ from the word, SM50..SM62 from
    /// the bundle's scheduling word.
    pub control: Control,
}

/// One operand as printed, and what kind of thing it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// One of [`OPERAND_KINDS`].
    pub kind: &'static str,
    /// The operand's text, as printed (`-|R2|.reuse`, `c[0x0][0x160]`).
    pub text: String,
}

/// The operand kinds, with what each is: documented for `--json`.
pub const OPERAND_KINDS: &[(&str, &str)] = &[
    ("register", "a general-purpose register, R0..R254 or RZ"),
    ("uniform_register", "a uniform register, UR0..UR62 or URZ"),
    ("predicate", "a predicate, P0..P6 or PT"),
    ("uniform_predicate", "a uniform predicate, UP0..UP6 or UPT"),
    ("barrier", "a convergence barrier register, B0..B15"),
    ("immediate", "a number written in the instruction"),
    ("constant", "a constant-bank operand, c[BANK][OFFSET]"),
    (
        "memory",
        "a memory address in brackets, with a descriptor if any",
    ),
    ("attribute", "an attribute address, a[...]"),
    ("descriptor", "a matrix descriptor, gdesc[UR]"),
    (
        "name",
        "anything else: a special register, a label or a keyword",
    ),
];

/// The scheduling fields of an instruction (see `control::ctrl_text`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    /// Cycles before the next instruction may issue.
    pub stall: u32,
    /// The yield hint as `nak dis --ctrl` shows it (`Y`: the raw bit clear).
    pub yield_hint: bool,
    pub write_barrier: Option<u8>,
    pub read_barrier: Option<u8>,
    /// The scoreboards waited on, ascending.
    pub wait: Vec<u8>,
    /// The raw control value and its `--ctrl` text.
    pub raw: u32,
    pub text: String,
}

/// Every instruction of `bytes`: a cubin's kernels (the SM from its ELF
/// header; `sm`, when given, must match) or a raw stream on `sm`.
pub fn instructions(bytes: &[u8], sm: Option<u32>) -> Result<Vec<Instruction>, String> {
    use crate::cubin::{InputKind, input_kind, refusal};
    let kind = input_kind(&bytes[..bytes.len().min(256)]);
    if let Some(why) = refusal(kind) {
        return Err(why.to_string());
    }
    if kind != InputKind::Elf {
        let sm = sm.ok_or("a raw instruction stream needs an SM (only a cubin names its own)")?;
        return stream_instructions(sm, bytes, None);
    }
    let cubin = crate::cubin::parse_for(bytes, sm)?;
    let mut out = Vec::new();
    for text in &cubin.texts {
        let name = text.name.strip_prefix(".text.").unwrap_or(&text.name);
        let section = stream_instructions(cubin.sm, text.data, Some(name))
            .map_err(|e| format!("section {}: {e}", text.name))?;
        out.extend(section);
    }
    Ok(out)
}

/// The instructions of one raw stream, named `kernel`.
pub fn stream_instructions(
    sm: u32,
    bytes: &[u8],
    kernel: Option<&str>,
) -> Result<Vec<Instruction>, String> {
    let family = family_of(sm).ok_or_else(|| format!("SM{sm} is not covered"))?;
    let mut out = Vec::new();
    stream::for_each_word(sm, bytes, |addr, word, ctrl, _| {
        let d = Decoded {
            addr,
            word,
            instr: stream::decode_with_ctrl(word, sm, ctrl),
        };
        let ctrl = control::of_instruction(family, word, ctrl);
        out.push(instruction(&d, sm, family, ctrl, kernel));
    })?;
    Ok(out)
}

/// One decoded word as an [`Instruction`].
fn instruction(
    d: &Decoded,
    sm: u32,
    family: Family,
    ctrl: u32,
    kernel: Option<&str>,
) -> Instruction {
    let halves = (family.width() / 64) as usize;
    let words = (0..halves)
        .map(|i| format!("{:#018x}", (d.word >> (64 * i)) as u64))
        .collect();
    let f = control::fields(family, ctrl);
    let control = Control {
        stall: f.stall,
        yield_hint: !f.yield_bit,
        write_barrier: f.write_barrier,
        read_barrier: f.read_barrier,
        wait: (0..8).filter(|i| f.wait >> i & 1 == 1).collect(),
        raw: ctrl,
        text: control::ctrl_text(family, ctrl),
    };
    let text = instr_text(d, sm);
    let mut i = Instruction {
        kernel: kernel.map(str::to_string),
        addr: d.addr,
        words,
        text: text.clone(),
        guard: None,
        mnemonic: String::new(),
        modifiers: Vec::new(),
        operands: Vec::new(),
        control,
    };
    if let Some(t) = &text {
        split_text(t, &mut i);
    }
    i
}

/// Fill the guard, mnemonic, modifiers and operands from printed text.
/// Text the tokenizer does not take keeps its whole text as the mnemonic,
/// so nothing is lost.
fn split_text(text: &str, i: &mut Instruction) {
    let Ok(line) = asm::tokenize(text) else {
        i.mnemonic = text.to_string();
        return;
    };
    if let Some(g) = text.strip_prefix('@') {
        i.guard = g.split_whitespace().next().map(str::to_string);
    }
    let mut parts = line.parts.into_iter();
    i.mnemonic = parts.next().unwrap_or_default();
    i.modifiers = parts.collect();
    let cols: Vec<usize> = line.operands.iter().map(|o| o.col).collect();
    for (k, o) in line.operands.iter().enumerate() {
        let end = cols.get(k + 1).copied().unwrap_or(text.len());
        let piece = text.get(o.col..end).unwrap_or("");
        let piece = piece.trim_end().trim_end_matches(',').trim_end();
        i.operands.push(Operand {
            kind: kind_of(&o.base),
            text: piece.to_string(),
        });
    }
}

/// The kind name of a token's base.
fn kind_of(b: &Base) -> &'static str {
    match b {
        Base::Reg(r) => match r.file {
            RegFile::Gpr => "register",
            RegFile::UGpr => "uniform_register",
            RegFile::Pred => "predicate",
            RegFile::UPred => "uniform_predicate",
            RegFile::Bar => "barrier",
        },
        Base::CBuf(_) | Base::CMem(..) => "constant",
        Base::Num(_) => "immediate",
        Base::Word(_) => "name",
        Base::Mem(..) | Base::MemOther(..) | Base::Addr(_) => "memory",
        Base::Attr(..) => "attribute",
        Base::Desc(_) => "descriptor",
    }
}
