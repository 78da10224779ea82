//! A cubin's listing as `nvdisasm -c -hex` prints it: the header, then per
//! code section its directives, labels and `/*ADDR*/ TEXT ;  /* HEX */`
//! lines, then the undefined symbols.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::cubin::elf::{Cubin, Symbol, TextSection};
use crate::cubin::labels::{Labels, SectionFacts};
use crate::cubin::nvinfo::{self, Indirect};
use crate::dis::listing::instr_text;
use crate::dis::stream::{self, Decoded};
use crate::isa::{Family, family_of};
use crate::runtime::control;

/// An address no instruction has: printing an instruction there too shows
/// which part of its text is a branch target.
pub(crate) const SHIFT: u64 = 0x10_0000;

/// `st_other`'s bit for a kernel entry.
pub(super) const STO_CUDA_ENTRY: u8 = 0x10;

/// One instruction of a section, printed but not yet labelled.
pub(super) struct Line {
    pub(super) addr: u64,
    pub(super) word: u128,
    /// The text, and where in it a branch target lies and which.
    text: String,
    target: Option<(std::ops::Range<usize>, u64)>,
    /// Opens (`{`) or closes (`}`) a Maxwell dual-issue pair.
    opens: bool,
    closes: bool,
}

/// One section's instructions and, on Maxwell, its scheduling words.
pub(super) struct Section<'a> {
    pub(super) text: &'a TextSection<'a>,
    /// Relocations of the section: offset and symbol (addend zero only).
    relocs: Vec<(u64, String)>,
    pub(super) lines: Vec<Line>,
    sched: HashMap<u64, u64>,
    pub(super) indirect: Vec<Indirect>,
}

/// A cubin read as its listing needs it (the control-flow graph reuses
/// it, so its blocks and texts are the listing's).
pub(super) struct Read<'a> {
    pub(super) family: Family,
    pub(super) sections: Vec<Section<'a>>,
    pub(super) facts: Vec<SectionFacts>,
    pub(super) labels: Labels,
    pub(super) unknown: usize,
}

/// The listing of `cubin` on its SM; the count of encodings the spec does
/// not know (printed as `<unknown>`).
pub fn listing(cubin: &Cubin) -> Result<(String, usize), String> {
    let Read {
        family,
        sections,
        facts,
        labels,
        unknown,
    } = read(cubin)?;
    let mut out = String::new();
    header(cubin, &mut out);
    for (i, s) in sections.iter().enumerate() {
        print_section(cubin, family, i, s, &facts[i], &labels, &mut out);
    }
    undefined_symbols(cubin, &mut out);
    Ok((out, unknown))
}

/// Decode every code section and number the labels.
pub(super) fn read<'a>(cubin: &'a Cubin<'a>) -> Result<Read<'a>, String> {
    let sm = cubin.sm;
    let family = family_of(sm).ok_or_else(|| format!("SM{sm} is not covered"))?;
    // nvdisasm 13 labels every offset attribute; 11.8 (SM50..SM72) only
    // indirect branches.
    let all_kinds = crate::isa::reference_nvdisasm(sm).is_none_or(|v| v >= 13);
    let mut unknown = 0;
    let mut sections = Vec::new();
    let mut facts = Vec::new();
    for text in &cubin.texts {
        stream::check_length(sm, text.data).map_err(|e| {
            format!(
                "section {}: {} bytes is not whole instructions ({e})",
                text.name,
                text.data.len()
            )
        })?;
        let (s, f) = read_section(cubin, text, family, all_kinds, &mut unknown);
        sections.push(s);
        facts.push(f);
    }
    let index_of: HashMap<usize, usize> = cubin
        .texts
        .iter()
        .enumerate()
        .map(|(i, t)| (t.index, i))
        .collect();
    let ends: Vec<(usize, u64)> = cubin
        .symbols
        .iter()
        .filter(|s| s.kind == object::elf::STT_FUNC)
        .filter_map(|s| Some((*index_of.get(&s.section)?, s.value.wrapping_add(s.size))))
        .collect();
    let labels = Labels::number(&facts, &ends);
    Ok(Read {
        family,
        sections,
        facts,
        labels,
        unknown,
    })
}

/// Decode a section and gather what the label numbering needs.
fn read_section<'a>(
    cubin: &Cubin,
    section: &'a TextSection<'a>,
    family: Family,
    all_kinds: bool,
    unknown: &mut usize,
) -> (Section<'a>, SectionFacts) {
    let sm = cubin.sm;
    let mut lines: Vec<Line> = Vec::new();
    let mut sched = HashMap::new();
    let bundled = family.bundle().is_some();
    let wb = (family.width() / 8) as u64;
    let data = section.data;
    let _ = stream::for_each_word(sm, data, |addr, word, ctrl, _| {
        let d = Decoded {
            addr,
            word,
            instr: stream::decode_with_ctrl(word, sm, ctrl),
        };
        let (text, target) = match instr_text(&d, sm) {
            Some(t) => {
                let shifted = Decoded {
                    addr: addr + SHIFT,
                    ..d.clone()
                };
                let moved = instr_text(&shifted, sm).unwrap_or_default();
                let target = target_in(&t, &moved);
                (t, target)
            }
            None => {
                *unknown += 1;
                ("<unknown>".to_string(), None)
            }
        };
        let opens = bundled
            && ctrl.is_some_and(|c| {
                let f = control::fields(family, c);
                f.stall == 0 && f.yield_bit
            });
        let closes = lines.last().is_some_and(|l| l.opens);
        if bundled && addr % (4 * wb) == wb {
            let g = (addr - wb) as usize;
            let w = data.get(g..g + 8).and_then(|b| b.first_chunk::<8>());
            sched.insert(addr - wb, w.map_or(0, |b| u64::from_le_bytes(*b)));
        }
        lines.push(Line {
            addr,
            word,
            text,
            target,
            opens: opens && !closes,
            closes,
        });
    });
    let (info_offsets, indirect) = nvinfo::label_offsets(cubin.info_of(section), all_kinds);
    let mut hoist = HashMap::new();
    for pair in lines.windows(2) {
        if pair[0].opens {
            hoist.insert(pair[1].addr, pair[0].addr);
        }
    }
    let mut funcs_at = HashMap::new();
    let mut funcs_exact = HashMap::new();
    for f in cubin.functions_in(section.index) {
        funcs_at.insert(func_pos(family, f.value), f.name.clone());
        funcs_exact.insert(f.value, f.name.clone());
    }
    let facts = SectionFacts {
        targets: lines
            .iter()
            .filter_map(|l| Some(l.target.as_ref()?.1))
            .collect(),
        info_offsets,
        funcs_at,
        funcs_exact,
        hoist,
    };
    let relocs = cubin
        .relocs
        .iter()
        .filter(|r| r.section == section.index && r.addend == 0)
        .map(|r| (r.offset, r.symbol.clone()))
        .collect();
    let listed = Section {
        relocs,
        text: section,
        lines,
        sched,
        indirect,
    };
    (listed, facts)
}

/// Where a function at `value` starts for nvdisasm's label bookkeeping:
/// on Maxwell, one at a scheduling word starts at the word's first
/// instruction (so a function ending there gets a label of its own).
fn func_pos(family: Family, value: u64) -> u64 {
    let wb = u64::from(family.width() / 8);
    match family.bundle() {
        Some(n) if value.is_multiple_of(wb * (u64::from(n) + 1)) => value.wrapping_add(wb),
        _ => value,
    }
}

/// Where `text` (printed at its address) and `moved` (printed `SHIFT`
/// bytes later) differ: the branch target, as a byte range of `text` and
/// the address it names (None: no target, or a negative one).
pub(crate) fn target_in(text: &str, moved: &str) -> Option<(std::ops::Range<usize>, u64)> {
    if text == moved {
        return None;
    }
    let (a, b) = (text.as_bytes(), moved.as_bytes());
    let mut start = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let same_tail = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut end = a.len().saturating_sub(same_tail).max(start);
    let part = |c: u8| c.is_ascii_hexdigit() || c == b'x' || c == b'-';
    while start > 0 && part(a[start - 1]) {
        start -= 1;
    }
    while end < a.len() && a[end].is_ascii_hexdigit() {
        end += 1;
    }
    let token = text.get(start..end)?;
    let value = u64::from_str_radix(token.strip_prefix("0x")?, 16).ok()?;
    Some((start..end, value))
}

/// `.headerflags` (ABI v1) or `.target` (v2), and `.elftype`.
fn header(cubin: &Cubin, out: &mut String) {
    let elftype = match cubin.elf_type {
        object::elf::ET_REL => "ET_REL".to_string(),
        object::elf::ET_EXEC => "ET_EXEC".to_string(),
        object::elf::ET_DYN => "ET_DYN".to_string(),
        t => format!("{t:#x}"),
    };
    if cubin.abi_v2 {
        let _ = write!(out, "\t.target\tsm_{}\n\n", cubin.sm);
    } else {
        let f = cubin.flags;
        let mut parts = Vec::new();
        if f & 0x100 != 0 {
            parts.push("EF_CUDA_TEXMODE_UNIFIED".to_string());
        }
        if f & 0x200 != 0 {
            parts.push("EF_CUDA_TEXMODE_INDEPENDANT".to_string());
        }
        if f & 0x400 != 0 {
            parts.push("EF_CUDA_64BIT_ADDRESS".to_string());
        }
        parts.push(format!("EF_CUDA_SM{}", f & 0xff));
        parts.push(format!(
            "EF_CUDA_VIRTUAL_SM(EF_CUDA_SM{})",
            (f >> 16) & 0xff
        ));
        let _ = writeln!(out, "\t.headerflags\t@\"{}\"", parts.join(" "));
    }
    let _ = write!(out, "\t.elftype\t@\"{elftype}\"\n\n");
}

/// One code section: its directives, then each instruction with the
/// labels and functions at its address.
fn print_section(
    cubin: &Cubin,
    family: Family,
    i: usize,
    s: &Section,
    facts: &SectionFacts,
    labels: &Labels,
    out: &mut String,
) {
    let p = SectionPrinter {
        family,
        i,
        s,
        facts,
        labels,
        funcs: cubin.functions_in(s.text.index).collect(),
    };
    p.header(out);
    for f in p.funcs.iter().filter(|f| f.other & STO_CUDA_ENTRY != 0) {
        p.directives(f.value, out, true);
    }
    let _ = writeln!(out, "{}:", s.text.name);
    p.body(out);
    if let Some(l) = labels.at(i, s.text.data.len() as u64) {
        let _ = writeln!(out, "{l}:");
    }
    out.push('\n');
}

/// What a function's `.size` ends at (see [`SectionPrinter::size_end`]).
pub(super) fn size_end(
    family: Family,
    i: usize,
    facts: &SectionFacts,
    labels: &Labels,
    (value, size): (u64, u64),
    fname: &str,
) -> String {
    let e = value.wrapping_add(size);
    facts
        .funcs_at
        .get(&func_pos(family, e))
        .filter(|n| n.as_str() != fname)
        .cloned()
        .or_else(|| labels.at(i, e))
        .unwrap_or_else(|| format!("{e:#x}"))
}

/// One code section's listing: what its parts need to know.
struct SectionPrinter<'a> {
    family: Family,
    /// The section's index among the code sections (for labels).
    i: usize,
    s: &'a Section<'a>,
    facts: &'a SectionFacts,
    labels: &'a Labels,
    /// The functions defined in it.
    funcs: Vec<&'a Symbol>,
}

impl SectionPrinter<'_> {
    /// The banner, `.section`, the register count and the alignment.
    fn header(&self, out: &mut String) {
        let name = &self.s.text.name;
        let _ = writeln!(
            out,
            "\n//--------------------- {name:<25} --------------------------"
        );
        let _ = writeln!(out, "\t.section\t{name},\"ax\",@progbits");
        // ptxas keeps the register count in `sh_info`'s top byte up to SM89.
        let info = self.s.text.info;
        if info >> 24 != 0 {
            let _ = writeln!(out, "\t.sectioninfo\t@\"SHI_REGISTERS={}\"", info >> 24);
        }
        let _ = writeln!(out, "\t.align\t{}", self.s.text.align);
    }

    /// What a function's `.size` ends at: the function or label there,
    /// else the address.
    fn size_end(&self, value: u64, size: u64, fname: &str) -> String {
        size_end(
            self.family,
            self.i,
            self.facts,
            self.labels,
            (value, size),
            fname,
        )
    }

    /// The directives of the functions at `value`: entries (at the
    /// section's head) or the others (where they start).
    fn directives(&self, value: u64, out: &mut String, entries: bool) {
        for f in self.funcs.iter().filter(|f| f.value == value) {
            let entry = f.other & STO_CUDA_ENTRY != 0;
            if entry != entries {
                continue;
            }
            match f.bind {
                object::elf::STB_GLOBAL => {
                    let _ = writeln!(out, "        .global         {}", f.name);
                }
                object::elf::STB_WEAK => {
                    let _ = writeln!(out, "        .weak           {}", f.name);
                }
                _ => {}
            }
            let _ = writeln!(out, "        .type           {},@function", f.name);
            let to = self.size_end(f.value, f.size, &f.name);
            let _ = writeln!(
                out,
                "        .size           {},({to} - {})",
                f.name, f.name
            );
            if entry {
                let _ = writeln!(
                    out,
                    "        .other          {},@\"STO_CUDA_ENTRY STV_DEFAULT\"",
                    f.name
                );
            }
            let _ = writeln!(out, "{}:", f.name);
        }
    }

    /// The label and the (non-entry) functions at `pos`.
    fn marks(&self, pos: u64, out: &mut String) {
        if let Some(l) = self.labels.at(self.i, pos) {
            let _ = writeln!(out, "{l}:");
        }
        self.directives(pos, out, false);
    }

    /// The instruction lines, each after its marks.
    fn body(&self, out: &mut String) {
        let wb = u64::from(self.family.width() / 8);
        let bundled = self.family.bundle().is_some();
        // The hex of a `}` line comes after the next instruction's labels.
        let mut pending: Option<String> = None;
        for l in &self.s.lines {
            // On Maxwell a bundle's scheduling word comes first, after the
            // labels of the bundle's address and of its first instruction.
            match self.s.sched.get(&l.addr.wrapping_sub(wb)) {
                Some(sw) if bundled && l.addr % (4 * wb) == wb => {
                    self.marks(l.addr - wb, out);
                    self.marks(l.addr, out);
                    out.push_str(&pending.take().unwrap_or_default());
                    let _ = writeln!(out, "{:>w$}/* {sw:#018x} */", "", w = PAD);
                }
                _ => {
                    self.marks(l.addr, out);
                    out.push_str(&pending.take().unwrap_or_default());
                }
            }
            pending = print_line(self.family, self.i, l, self.s, self.labels, out);
        }
        out.push_str(&pending.take().unwrap_or_default());
    }
}

/// Column of the hex comment (nvdisasm pads to its longest line; the
/// comparison normalizes blanks).
const PAD: usize = 112;

/// `/*ADDR*/ TEXT ;  /* HEX */` (and the upper half on SM70+). A line
/// that closes a dual-issue pair (`}`) returns its hex line instead: it
/// comes after the labels of the next instruction.
fn print_line(
    family: Family,
    i: usize,
    l: &Line,
    s: &Section,
    labels: &Labels,
    out: &mut String,
) -> Option<String> {
    let (guard, mut body, note) = line_parts(family, i, l, s, labels);
    let guard = guard.as_str();
    let field = if l.opens {
        format!("         {{{guard:>8} ")
    } else {
        format!("{guard:>18} ")
    };
    let head = format!("        /*{:04x}*/{field}", l.addr);
    match (&note, l.closes) {
        (Some(n), true) => body = format!("{body} {n} }}"),
        (Some(n), false) => body = format!("{body} {n};"),
        (None, true) => body.push_str(" }"),
        (None, false) => body.push_str(" ;"),
    }
    let line = format!("{head}{body}");
    let lo = l.word as u64;
    if l.closes {
        let _ = writeln!(out, "{line}");
        return Some(format!("{:>w$}/* {lo:#018x} */\n", "", w = PAD));
    }
    // At least one blank before the hex, as nvdisasm's column is past its
    // longest line.
    let _ = writeln!(out, "{line:<w$} /* {lo:#018x} */", w = PAD - 1);
    if family.width() == 128 {
        let hi = (l.word >> 64) as u64;
        let _ = writeln!(out, "{:>w$}/* {hi:#018x} */", "", w = PAD);
    }
    None
}

/// An instruction's guard (empty when none), its text with the label of
/// its target and the symbol of its relocation, and the note of an
/// indirect branch or call (`(*"BRANCH_TARGETS ..."*)`).
pub(super) fn line_parts(
    family: Family,
    i: usize,
    l: &Line,
    s: &Section,
    labels: &Labels,
) -> (String, String, Option<String>) {
    let mut text = l.text.clone();
    if let Some((range, t)) = &l.target
        && let Some(name) = labels.name(i, *t)
    {
        text.replace_range(range.clone(), &format!("`({name})"));
    }
    if let Some(sym) = reloc_at(s, l.addr, u64::from(family.width() / 8)) {
        text = with_symbol(&text, sym);
    }
    let (guard, body) = match text.split_once(' ') {
        Some((g, rest)) if g.starts_with('@') => (g.to_string(), rest.to_string()),
        _ => (String::new(), text.clone()),
    };
    let note = s.indirect.iter().find(|x| x.at == l.addr).map(|x| {
        if x.call {
            "(*\"INDIRECT_CALL\"*)".to_string()
        } else {
            let names: Vec<String> = x
                .targets
                .iter()
                .map(|&t| labels.name(i, t).unwrap_or_else(|| format!("{t:#x}")))
                .collect();
            format!("(*\"BRANCH_TARGETS {}\"*)", names.join(","))
        }
    });
    (guard, body, note)
}

impl Line {
    /// Opens (`{`) or closes (`}`) a Maxwell dual-issue pair.
    pub(super) fn pair(&self) -> (bool, bool) {
        (self.opens, self.closes)
    }
}

/// The symbol a relocation writes into the instruction at `addr`.
fn reloc_at<'s>(s: &'s Section, addr: u64, wb: u64) -> Option<&'s str> {
    s.relocs
        .iter()
        .find(|(o, _)| (addr..addr + wb).contains(o))
        .map(|(_, n)| n.as_str())
}

/// nvdisasm names the symbol a relocation fills an immediate with: the
/// text's last operand, when it is the zero the linker overwrites.
fn with_symbol(text: &str, sym: &str) -> String {
    match text.rsplit_once(' ') {
        Some((head, "0x0")) => format!("{head} `({sym})"),
        _ => text.to_string(),
    }
}

/// The `SYMBOLS` block: undefined objects, textures and surfaces.
fn undefined_symbols(cubin: &Cubin, out: &mut String) {
    let mut body = String::new();
    for s in cubin
        .symbols
        .iter()
        .filter(|s| s.section == 0 && !s.name.is_empty())
    {
        let kind = match s.kind {
            object::elf::STT_OBJECT => "@object",
            10 => "@\"STT_CUDA_TEXTURE\"",
            11 => "@\"STT_CUDA_SAMPLER\"",
            12 => "@\"STT_CUDA_SURFACE\"",
            _ => continue,
        };
        let _ = writeln!(body, "\t.type\t\t{},{kind}", s.name);
        if s.size > 0 {
            let _ = writeln!(body, "\t.size\t\t{},{:#x}", s.name, s.size);
        }
    }
    if !body.is_empty() {
        out.push_str("\n//--------------------- SYMBOLS --------------------------\n\n");
        out.push_str(&body);
    }
}
