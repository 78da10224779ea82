//! Checking a corpus of `HEX<TAB>TEXT` lines (nvdisasm's text of ptxas
//! code) against the spec: each line decodes, re-encodes to the same word
//! and prints the same text, or says which of these fails.

use crate::isa::{self, family_of};
use crate::runtime::print::normalize_in_place;

/// Result of checking one corpus line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorpusOutcome {
    /// Mnemonic not in the spec.
    NotCovered,
    /// Covered mnemonic, but no encoding matched.
    NotDecoded,
    /// Decoded, but re-encoding gave another word.
    NotBitExact {
        got: u128,
    },
    /// Decoded and re-encoded exactly, but printed other text.
    TextDiffers {
        got: String,
    },
    Ok,
}

/// Per-SM coverage counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CorpusStats {
    pub lines: usize,
    pub covered: usize,
    pub decoded: usize,
    pub bit_exact: usize,
    pub text_identical: usize,
}

/// The mnemonics (first part) the spec prints on `sm`.
pub fn covered_mnemonics(sm: u32) -> std::collections::BTreeSet<&'static str> {
    isa::MNEMONICS
        .iter()
        .filter(|(_, sms)| sms.contains(&sm))
        .map(|(m, _)| *m)
        .collect()
}

/// Mnemonic of a corpus text (after any guard), without suffixes.
pub fn text_mnemonic(text: &str) -> &str {
    let t = if text.starts_with('@') {
        text.split_once(' ').map_or("", |x| x.1)
    } else {
        text
    };
    let m = t.split(' ').next().unwrap_or("");
    m.split('.').next().unwrap_or(m)
}

/// Check one corpus instruction (`HEX`, `TEXT`) for `sm`.
pub fn check_corpus_line(
    sm: u32,
    word: u128,
    text: &str,
    covered: &std::collections::BTreeSet<&'static str>,
) -> CorpusOutcome {
    if !covered.contains(text_mnemonic(text)) {
        return CorpusOutcome::NotCovered;
    }
    let Some((op, c)) = isa::decode(word, sm) else {
        return CorpusOutcome::NotDecoded;
    };
    match op.encode(sm, &c) {
        Ok(w) if w == word => {}
        Ok(w) => return CorpusOutcome::NotBitExact { got: w },
        Err(_) => return CorpusOutcome::NotBitExact { got: 0 },
    }
    // Maxwell corpus instructions sit at 0x8, after the scheduling word.
    let addr = if family_of(sm).and_then(|f| f.bundle()).is_some() {
        8
    } else {
        0
    };
    let mut s = op.text(&c, sm, addr);
    normalize_in_place(&mut s);
    if s == text {
        CorpusOutcome::Ok
    } else {
        CorpusOutcome::TextDiffers { got: s }
    }
}
