//! Every encoding form the spec claims, on every SM it claims it for, is
//! checked against NVIDIA's disassembler: random valid words per form
//! (registers, immediates and modifiers swept) are decoded, re-encoded
//! exactly and printed by us, and nvdisasm must print the same text.
//! Each word whose form's `hidden` rules change it (bits the text does not
//! carry: `FormInfo::canonical_word`) is disassembled again with those bits
//! at the assembler's values, and nvdisasm must print the same text for
//! both: the spec's claim that the text does not carry them.
//!
//! Needs nvdisasm: it is installed into `.oracle/` by
//! `scripts/install-oracle.sh` when missing. `NAK_SKIP_ORACLE=1` skips the
//! test and says so; `NAK_ORACLE_PER_FORM` sets the words per form.

use isa_tests::expected::List;
use isa_tests::oracle::{Oracle, address_of};
use nak::isa;
use std::collections::{BTreeMap, BTreeSet};

fn oracle() -> Option<&'static Oracle> {
    if std::env::var("NAK_SKIP_ORACLE").is_ok_and(|v| v == "1") {
        println!("SKIPPED: nvdisasm oracle checks skipped because NAK_SKIP_ORACLE=1");
        return None;
    }
    match Oracle::get() {
        Ok(o) => Some(o),
        Err(e) => panic!(
            "nvdisasm is needed for the oracle test and is missing: {e}\n(set NAK_SKIP_ORACLE=1 to skip it, and say so)"
        ),
    }
}

/// What one (op, form) showed on one SM.
#[derive(Default)]
struct FormResult {
    words: usize,
    /// Words that differ from their canonical word (hidden bits).
    hidden: usize,
    differing: usize,
    rejected: usize,
    /// The first bad word: ours, nvdisasm's text or error.
    example: String,
}

#[test]
fn every_form_matches_nvdisasm() {
    let Some(oracle) = oracle() else { return };
    let per_form: usize = std::env::var("NAK_ORACLE_PER_FORM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    // Keys: (SM, "op form").
    let list = List::load_keys("oracle-expected-failures.txt", 3);
    let mut failing = BTreeMap::new();
    let mut tested = BTreeSet::new();
    let (mut total, mut rejected_total, mut hidden_total) = (0usize, 0usize, 0usize);
    for &sm in isa::ALL_SMS {
        for ((op, form), r) in sweep(oracle, sm, per_form) {
            total += r.words;
            hidden_total += r.hidden;
            rejected_total += r.rejected;
            let key = (sm.to_string(), format!("{op} {form}"));
            tested.insert(key.clone());
            if r.differing + r.rejected > 0 {
                failing.insert(
                    key,
                    format!(
                        "{} of {} differ, {} rejected; {}",
                        r.differing, r.words, r.rejected, r.example
                    ),
                );
            }
        }
    }
    println!(
        "oracle: {total} words checked against nvdisasm over {} SMs ({rejected_total} rejected by nvdisasm); {hidden_total} print as their canonical word",
        isa::ALL_SMS.len()
    );
    let problems = list.check(&failing, &tested);
    for f in problems.iter().take(60) {
        println!("{f}");
    }
    assert!(
        problems.is_empty(),
        "{} op forms disagree with nvdisasm (first 60 above)",
        problems.len()
    );
}

/// Samples `per_form` words of every form on `sm` and compares our text
/// with nvdisasm's, per (op, form).
fn sweep(oracle: &Oracle, sm: u32, per_form: usize) -> BTreeMap<(String, String), FormResult> {
    let words = nak::runtime::sample::sample_words(sm, &[], per_form, 0x5eed);
    let theirs = oracle.disassemble(sm, &words);
    // Same positions (so the same addresses), hidden bits canonical.
    let canon: Vec<u128> = words.iter().map(|&w| canonical_word(sm, w)).collect();
    let theirs_canon = if canon == words {
        theirs.clone()
    } else {
        oracle.disassemble(sm, &canon)
    };
    let mut per: BTreeMap<(String, String), FormResult> = BTreeMap::new();
    for (i, (w, t)) in words.iter().zip(&theirs).enumerate() {
        let (op, c) = isa::decode(*w, sm).expect("sampled words decode");
        assert_eq!(op.encode(sm, &c), Ok(*w), "re-encode of a sampled word");
        let form = isa::form_of(sm, &op).map_or("?", |f| f.form);
        let r = per
            .entry((op.name().to_string(), form.to_string()))
            .or_default();
        let mut ours = op.text(&c, sm, address_of(sm, i));
        nak::runtime::print::normalize_in_place(&mut ours);
        r.words += 1;
        if canon[i] != *w {
            r.hidden += 1;
            if theirs_canon[i] != *t {
                r.differing += 1;
                if r.example.is_empty() {
                    r.example = format!(
                        "word {w:#034x} prints `{t:?}` but its canonical word {:#034x} (hidden bits {:#034x}) prints `{:?}`",
                        canon[i],
                        canon[i] ^ *w,
                        theirs_canon[i]
                    );
                }
            }
        }
        let bad = match t {
            Ok(t) if *t == ours => continue,
            Ok(t) => {
                r.differing += 1;
                format!("word {w:#034x}: ours `{ours}`, nvdisasm `{t}`")
            }
            Err(err) => {
                r.rejected += 1;
                format!("word {w:#034x} (ours `{ours}`) rejected: {err}")
            }
        };
        if r.example.is_empty() {
            r.example = bad;
        }
    }
    per
}

/// `w` with the bits its form's text does not carry at the assembler's values.
fn canonical_word(sm: u32, w: u128) -> u128 {
    let (op, _) = isa::decode(w, sm).expect("sampled words decode");
    isa::form_of(sm, &op).map_or(w, |f| f.canonical_word(sm, w))
}
