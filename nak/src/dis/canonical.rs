//! Whether a word comes back from its own text: `nak asm` of what `nak dis`
//! prints gives every decodable word back, except bits the text does not
//! carry. Those words are *non-canonical*: nvdisasm prints the same text
//! for them and for the word the assembler writes (`FormInfo::
//! canonical_word`), so no assembler can tell them apart. `nak dis
//! --check-canonical` names them and the bits.

use crate::dis::stream::{self, Decoded};
use crate::isa::{self, family_of};
use crate::runtime::instr::FormInfo;
use crate::runtime::{asm, control};

/// What the round trip text -> word found for one decodable word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The text assembles to the word itself.
    Canonical,
    /// The text assembles to another word with the same text: the bits
    /// that differ are not shown (`why` names them and their values).
    NonCanonical { canonical: u128, why: String },
    /// The text does not assemble to a word with the same text: a bug in
    /// the spec or the tools (`why` says which step failed).
    Broken { why: String },
}

/// The round trip of `d` (a word at its stream address) on `sm`, or None
/// when the spec does not decode the word.
pub fn verdict(sm: u32, d: &Decoded) -> Option<Verdict> {
    let (op, c) = d.instr.as_ref()?;
    let broken = |why: String| Some(Verdict::Broken { why });
    let text = op.text(c, sm, d.addr);
    let line = match asm::tokenize(&text) {
        Ok(l) => l,
        Err(e) => return broken(format!("its text does not tokenize: {}", e.message)),
    };
    let (op2, c2) = match isa::parse(&line, sm, d.addr) {
        Ok(p) => p,
        Err(e) => return broken(format!("its text does not parse: {}", e.message)),
    };
    let again = op2.text(&c2, sm, d.addr);
    if again != text {
        return broken(format!("its text parses back as `{again}`"));
    }
    let got = match op2.encode_lenient(sm, &c2) {
        Ok(w) => w,
        Err(e) => return broken(format!("its text does not encode: {}", e.message)),
    };
    let ctrl = ctrl_mask(sm);
    if (got ^ d.word) & !ctrl == 0 {
        return Some(Verdict::Canonical);
    }
    let form = isa::form_of(sm, op)?;
    let canonical = form.canonical_word(sm, d.word) & !ctrl | d.word & ctrl;
    if (got ^ canonical) & !ctrl == 0 {
        let why = describe(form, d.word, canonical);
        return Some(Verdict::NonCanonical { canonical, why });
    }
    // Two encodings with one text (Maxwell's `ATOMS.CAS.64 ..., RZ, RZ`
    // holds RZ in either register field): the assembler writes its own.
    let got = got & !ctrl | d.word & ctrl;
    let other = isa::decode(got, sm).and_then(|(op3, c3)| {
        let form = isa::form_of(sm, &op3)?;
        (op3.text(&c3, sm, d.addr) == text).then_some(form)
    });
    match other {
        Some(other) => Some(Verdict::NonCanonical {
            canonical: got,
            why: format!(
                "`{}`'s form {} prints the same text, and the assembler writes that (bits {} differ)",
                other.op,
                other.id,
                bit_ranges((got ^ d.word) & !ctrl)
            ),
        }),
        _ => broken(format!(
            "its text assembles to {got:#034x}, not {canonical:#034x}"
        )),
    }
}

/// Every word of a raw stream with its verdict (undecodable words left
/// out). Errors name the byte offset, as [`stream::decode_stream`]'s.
pub fn check_stream(sm: u32, bytes: &[u8]) -> Result<Vec<(Decoded, Verdict)>, String> {
    let words = stream::decode_stream(sm, bytes)?;
    Ok(words
        .into_iter()
        .filter_map(|d| verdict(sm, &d).map(|v| (d, v)))
        .collect())
}

/// Which bits of `word` differ from `canonical`, split into raw fields
/// (the spec keeps them as ptxas writes them) and bits a hidden rule says
/// the text does not show.
fn describe(form: &FormInfo, word: u128, canonical: u128) -> String {
    let diff = word ^ canonical;
    let mut parts = Vec::new();
    for (mask, what) in [
        (diff & form.unknown, "raw bits the spec does not name"),
        (diff & !form.unknown, "bits the text does not show"),
    ] {
        if mask != 0 {
            parts.push(format!(
                "{what} {} are {:#x}, the assembler writes {:#x}",
                bit_ranges(mask),
                pext(word, mask),
                pext(canonical, mask)
            ));
        }
    }
    parts.join("; ")
}

/// The set bits of `mask` as `lo..hi` ranges (inclusive), comma-separated.
pub fn bit_ranges(mask: u128) -> String {
    let mut out = Vec::new();
    let mut b = 0;
    while b < 128 {
        if mask >> b & 1 == 0 {
            b += 1;
            continue;
        }
        let lo = b;
        while b < 128 && mask >> b & 1 == 1 {
            b += 1;
        }
        out.push(if b - 1 == lo {
            format!("{lo}")
        } else {
            format!("{lo}..{}", b - 1)
        });
    }
    out.join(",")
}

/// The bits of `w` under `mask`, packed down (low bit first).
fn pext(w: u128, mask: u128) -> u128 {
    let mut out = 0;
    let mut n = 0;
    for b in 0..128 {
        if mask >> b & 1 == 1 {
            out |= (w >> b & 1) << n;
            n += 1;
        }
    }
    out
}

/// The control bits inside a word (SM70+), which the text does not carry
/// but for `.reuse`; the assembler takes them from a `--ctrl` field.
fn ctrl_mask(sm: u32) -> u128 {
    family_of(sm).map_or(0, control::word_mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_packing() {
        assert_eq!(bit_ranges(0), "");
        assert_eq!(bit_ranges(0b1011_0000), "4..5,7");
        assert_eq!(bit_ranges(1u128 << 127), "127");
        assert_eq!(pext(0b1010_0000, 0b1110_0000), 0b101);
    }
}
