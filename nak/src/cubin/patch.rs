//! `nak asm --cubin`: an edited listing of a cubin put back into it. Each
//! instruction whose text is unchanged keeps its word exactly (control bits
//! and encodings the text does not show survive), so an unedited listing
//! gives the cubin back byte for byte; an edited one is assembled at its
//! address and written over its own bytes (and, on Maxwell, its slot of
//! the scheduling word). Nothing else of the file changes: the listing
//! must have the cubin's code sections with the same instructions at the
//! same addresses.

use std::collections::HashMap;

use crate::cubin::elf::{Cubin, TextSection};
use crate::cubin::listing::{self, SHIFT, target_in};
use crate::cubin::listing_read::{self, ListedInstr, ListedSection};
use crate::dis::listing::{AsmFileError, assemble_at, instr_text};
use crate::dis::stream::{self, Decoded};
use crate::isa::{Family, family_of};
use crate::runtime::control;

/// The patched cubin and what was done.
pub struct Patched {
    pub bytes: Vec<u8>,
    pub sm: u32,
    /// Instructions in the listing, and those written anew (edited text
    /// or a control field given).
    pub instructions: usize,
    pub rewritten: usize,
    /// Instructions only the lenient encoder takes (as `nak asm` warns).
    pub warnings: Vec<AsmFileError>,
}

/// One original instruction: address, word and control value.
struct Orig {
    addr: u64,
    word: u128,
    ctrl: u32,
}

/// Patch `cubin` (the file's bytes) with `listing`. Errors name the
/// listing's line (0: the listing as a whole or the cubin).
pub fn patch(cubin: &[u8], listing_text: &str) -> Result<Patched, Vec<AsmFileError>> {
    patch_with(cubin, listing_text, false)
}

/// [`patch`] that assembles every instruction, edited or not: what a
/// test uses to check that each listed text (labels resolved) assembles
/// back to the cubin's word.
pub fn reassemble_all(cubin: &[u8], listing_text: &str) -> Result<Patched, Vec<AsmFileError>> {
    patch_with(cubin, listing_text, true)
}

fn patch_with(cubin: &[u8], listing_text: &str, force: bool) -> Result<Patched, Vec<AsmFileError>> {
    let whole = |message: String| {
        vec![AsmFileError {
            line: 0,
            col: 0,
            message,
        }]
    };
    let parsed = crate::cubin::parse_for(cubin, None).map_err(whole)?;
    let sm = parsed.sm;
    let family = family_of(sm).ok_or_else(|| whole(format!("SM{sm} is not covered")))?;
    let (own, _) = listing::listing(&parsed).map_err(whole)?;
    let originals = listing_read::read(family, &own)
        .map_err(|e| whole(format!("the cubin's own listing does not read back: {e:?}")))?;
    let edited = listing_read::read(family, listing_text)?;
    let mut errors = Vec::new();
    let mut out = cubin.to_vec();
    let mut done = Patched {
        bytes: Vec::new(),
        sm,
        instructions: 0,
        rewritten: 0,
        warnings: Vec::new(),
    };
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for s in &edited {
        if let Some(first) = seen.insert(&s.name, s.line) {
            errors.push(at(
                s.line,
                1,
                format!("section {} is listed twice (first on line {first})", s.name),
            ));
            continue;
        }
        let Some(i) = parsed.texts.iter().position(|t| t.name == s.name) else {
            let have: Vec<&str> = parsed.texts.iter().map(|t| t.name.as_str()).collect();
            errors.push(at(
                s.line,
                1,
                format!(
                    "unknown kernel: the cubin has no section {} (it has {})",
                    s.name,
                    have.join(", ")
                ),
            ));
            continue;
        };
        let text = &parsed.texts[i];
        let Some(own_s) = originals.iter().find(|o| o.name == s.name) else {
            errors.push(at(
                s.line,
                1,
                format!("section {} is not in the cubin's listing", s.name),
            ));
            continue;
        };
        let sec = SectionPatch {
            sm,
            family,
            cubin: &parsed,
            text,
            own: own_s,
            listed: s,
            force,
        };
        match sec.apply(&mut out[..], &mut done) {
            Ok(()) => {}
            Err(e) => errors.extend(e),
        }
    }
    for t in &parsed.texts {
        if !seen.contains_key(t.name.as_str()) {
            errors.push(at(0, 0, format!(
                "the listing has no section {}: list every code section of the cubin (as `nak dis` prints it)",
                t.name
            )));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    done.bytes = out;
    Ok(done)
}

fn at(line: usize, col: usize, message: String) -> AsmFileError {
    AsmFileError { line, col, message }
}

/// One code section and its listed counterpart.
struct SectionPatch<'a> {
    sm: u32,
    family: Family,
    cubin: &'a Cubin<'a>,
    text: &'a TextSection<'a>,
    /// The cubin's own listing of the section, and the edited one.
    own: &'a ListedSection,
    listed: &'a ListedSection,
    /// Assemble unchanged texts too.
    force: bool,
}

impl SectionPatch<'_> {
    /// Check the layout, then write each changed instruction into `out`.
    fn apply(&self, out: &mut [u8], done: &mut Patched) -> Result<(), Vec<AsmFileError>> {
        let origs = self.originals()?;
        let s = self.listed;
        if s.instrs.len() != origs.len() {
            return Err(vec![at(
                s.line,
                1,
                format!(
                    "section {} has {} instructions in the listing but {} in the cubin: instructions can be edited, not added or removed",
                    s.name,
                    s.instrs.len(),
                    origs.len()
                ),
            )]);
        }
        if let Some((n, (l, o))) = s
            .instrs
            .iter()
            .zip(&origs)
            .enumerate()
            .find(|(_, (l, o))| l.addr != o.addr)
        {
            return Err(vec![at(
                l.line,
                1,
                format!(
                    "address {:#06x}: the cubin's section {} has its instruction {} at {:#06x}",
                    l.addr,
                    s.name,
                    n + 1,
                    o.addr
                ),
            )]);
        }
        let targets = self.label_targets(&origs);
        let wb = u64::from(self.family.width() / 8);
        let base = self.text.offset as usize;
        let mut errors = Vec::new();
        done.instructions += origs.len();
        for (n, (l, o)) in s.instrs.iter().zip(&origs).enumerate() {
            let own = self.own.instrs.get(n);
            let same = !self.force && own.is_some_and(|i| i.norm() == l.norm());
            if same && l.ctrl.is_none() {
                continue;
            }
            let reuse = control::reuse_mask(self.family);
            let (word, ctrl) = if same {
                let ctrl = l.ctrl.unwrap_or(o.ctrl) | o.ctrl & reuse;
                (self.with_ctrl(o.word, ctrl), ctrl)
            } else {
                let text = match self.resolve(l, &targets) {
                    Ok(t) => t,
                    Err(e) => {
                        errors.push(e);
                        continue;
                    }
                };
                // Reuse flags nvdisasm does not print (on texture
                // instructions) are bits the text cannot show: they stay
                // when neither text has a `.reuse`.
                let shown =
                    l.text.contains(".reuse") || own.is_some_and(|i| i.text.contains(".reuse"));
                let hidden = if shown { 0 } else { o.ctrl & reuse };
                let res = assemble_at(self.sm, &text, o.addr, |parsed| match l.ctrl {
                    Some(v) => v | parsed & reuse | hidden,
                    None => {
                        control::with_reuse_needs(self.family, o.ctrl & !reuse | parsed & reuse)
                            | hidden
                    }
                });
                match res {
                    Ok(((w, c), warning)) => {
                        if let Some(w) = warning {
                            done.warnings.push(at(l.line, l.col + w.col, w.message));
                        }
                        (w, c)
                    }
                    Err(e) => {
                        errors.push(at(l.line, l.col + e.col, e.message));
                        continue;
                    }
                }
            };
            done.rewritten += 1;
            let at_word = base + o.addr as usize;
            out[at_word..at_word + wb as usize].copy_from_slice(&word.to_le_bytes()[..wb as usize]);
            if let (Some(n), Some(bits)) = (self.family.bundle(), self.family.control_slot_bits()) {
                // The scheduling word before the bundle, and this word's slot.
                let group = wb * (u64::from(n) + 1);
                let slot = (o.addr % group) / wb - 1;
                let g = base + (o.addr - o.addr % group) as usize;
                let mut sw = u64::from_le_bytes(out[g..g + 8].try_into().unwrap_or([0; 8]));
                let mask = ((1u64 << bits) - 1) << (u64::from(bits) * slot);
                sw = sw & !mask | (u64::from(ctrl) << (u64::from(bits) * slot)) & mask;
                out[g..g + 8].copy_from_slice(&sw.to_le_bytes());
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// The section's instructions as the cubin has them.
    fn originals(&self) -> Result<Vec<Orig>, Vec<AsmFileError>> {
        let mut origs = Vec::new();
        let family = self.family;
        stream::for_each_word(self.sm, self.text.data, |addr, word, ctrl, _| {
            let ctrl = control::of_instruction(family, word, ctrl);
            origs.push(Orig { addr, word, ctrl });
        })
        .map_err(|e| {
            vec![at(
                self.listed.line,
                1,
                format!("section {}: {e}", self.text.name),
            )]
        })?;
        Ok(origs)
    }

    /// `word` with its control bits (SM70+) set to `ctrl`; on Maxwell the
    /// word has none (they go to the scheduling word).
    fn with_ctrl(&self, word: u128, ctrl: u32) -> u128 {
        match self.family.control_in_word() {
            Some((lo, _)) => word & !control::word_mask(self.family) | (u128::from(ctrl) << lo),
            None => word,
        }
    }

    /// The exact address each label names in the cubin's own branches
    /// (a label stands at the bundle's start or a dual-issue pair's first
    /// instruction, the branch may name the next word).
    fn label_targets(&self, origs: &[Orig]) -> HashMap<String, u64> {
        let mut map = HashMap::new();
        for (o, l) in origs.iter().zip(&self.own.instrs) {
            let Some(name) = label_in(&l.text) else {
                continue;
            };
            let ctrl = self.family.bundle().map(|_| o.ctrl);
            let d = Decoded {
                addr: o.addr,
                word: o.word,
                instr: stream::decode_with_ctrl(o.word, self.sm, ctrl),
            };
            let (Some(t), Some(moved)) = (
                instr_text(&d, self.sm),
                instr_text(
                    &Decoded {
                        addr: o.addr + SHIFT,
                        ..d.clone()
                    },
                    self.sm,
                ),
            ) else {
                continue;
            };
            if let Some((_, target)) = target_in(&t, &moved) {
                map.entry(name.to_string()).or_insert(target);
            }
        }
        map
    }

    /// The text with each `` `(NAME) `` replaced by the address it names:
    /// a branch's exact target, a function of the section, a label by where
    /// the listing puts it; a relocated symbol goes back to the `0x0` the
    /// linker fills.
    fn resolve(
        &self,
        l: &ListedInstr,
        targets: &HashMap<String, u64>,
    ) -> Result<String, AsmFileError> {
        let mut text = l.text.clone();
        let wb = u64::from(self.family.width() / 8);
        while let Some(i) = text.find("`(") {
            let Some(j) = text[i..].find(')') else {
                return Err(at(l.line, l.col + i, "`( without a closing )".into()));
            };
            let name = &text[i + 2..i + j];
            let addr = targets
                .get(name)
                .copied()
                .or_else(|| {
                    self.cubin
                        .functions_in(self.text.index)
                        .find(|f| f.name == name)
                        .map(|f| f.value)
                })
                .or_else(|| self.label_addr(name));
            let value = match addr {
                Some(a) => format!("{a:#x}"),
                None if self.cubin.relocs.iter().any(|r| {
                    r.section == self.text.index
                        && (l.addr..l.addr + wb).contains(&r.offset)
                        && r.symbol == name
                }) =>
                {
                    "0x0".to_string()
                }
                None => {
                    return Err(at(
                        l.line,
                        l.col + i,
                        format!(
                            "unknown label `{name}`: no label, function or relocation of section {} has that name",
                            self.text.name
                        ),
                    ));
                }
            };
            text.replace_range(i..i + j + 1, &value);
        }
        Ok(text)
    }

    /// Where the listing puts label `name`: the instruction after it (on
    /// Maxwell, a bundle's scheduling word when the instruction is the
    /// bundle's first, as ptxas branches there), or the section's end.
    fn label_addr(&self, name: &str) -> Option<u64> {
        let &(_, idx) = self.listed.labels.iter().find(|(n, _)| n == name)?;
        let Some(next) = self.listed.instrs.get(idx) else {
            return Some(self.text.data.len() as u64);
        };
        let wb = u64::from(self.family.width() / 8);
        Some(match self.family.bundle() {
            Some(n) if next.addr % (wb * (u64::from(n) + 1)) == wb => next.addr - wb,
            _ => next.addr,
        })
    }
}

/// The label or function a `` `(NAME) `` operand names.
fn label_in(text: &str) -> Option<&str> {
    let i = text.find("`(")?;
    let j = text[i..].find(')')?;
    Some(&text[i + 2..i + j])
}
