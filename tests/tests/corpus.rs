//! Every corpus instruction the spec decodes must re-encode bit-exact
//! (control bits included) and print nvdisasm's text, unless
//! `tests/corpus/expected-failures.txt` lists it as an nvdisasm quirk with
//! its evidence; an entry that starts passing fails the test so the list
//! stays true. A line whose mnemonic the spec has but whose form it lacks is
//! coverage, not a failure: the table reports it per SM.

use isa_tests::corpus;
use isa_tests::expected::List;
use nak::tool::{CorpusOutcome, check_corpus_line, covered_mnemonics};
use std::collections::BTreeMap;

/// Counts of one corpus file.
#[derive(Default)]
struct Counts {
    lines: usize,
    covered: usize,
    decoded: usize,
    exact: usize,
    same: usize,
}

/// Why a decoded line fails, or `None` when it passes or is not decoded.
fn failure(out: &CorpusOutcome, text: &str) -> Option<String> {
    match out {
        CorpusOutcome::NotBitExact { got } => Some(format!(
            "re-encodes differently: `{text}` (ours {got:#034x})"
        )),
        CorpusOutcome::TextDiffers { got } => Some(format!("prints `{got}`, nvdisasm `{text}`")),
        _ => None,
    }
}

#[test]
fn corpus_decodes_reencodes_and_prints() {
    let list = List::load("corpus/expected-failures.txt");
    let mut failing: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut tested = std::collections::BTreeSet::new();
    println!(
        "{:<8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9}",
        "corpus", "lines", "covered", "decoded", "bit-exact", "text-same", "coverage"
    );
    for (stem, sm) in corpus::files() {
        let text = corpus::read(&stem).expect("corpus file readable");
        let family = nak::isa::family_of(sm).expect("corpus SM covered by a family");
        let covered = covered_mnemonics(sm);
        let mut n = Counts::default();
        for line in text.lines() {
            let Some((hex, t)) = line.split_once('\t') else {
                continue;
            };
            n.lines += 1;
            let word = nak::stream::parse_word_hex(hex, family).expect("corpus hex well-formed");
            let out = check_corpus_line(sm, word, t, &covered);
            match out {
                CorpusOutcome::NotCovered => continue,
                CorpusOutcome::NotDecoded => {
                    n.covered += 1;
                    continue;
                }
                _ => {}
            }
            n.covered += 1;
            n.decoded += 1;
            n.exact += usize::from(!matches!(out, CorpusOutcome::NotBitExact { .. }));
            n.same += usize::from(out == CorpusOutcome::Ok);
            let key = (stem.clone(), hex.to_string());
            tested.insert(key.clone());
            if let Some(why) = failure(&out, t) {
                failing.insert(key, why);
            }
        }
        println!(
            "{stem:<8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8.2}%",
            n.lines,
            n.covered,
            n.decoded,
            n.exact,
            n.same,
            100.0 * n.decoded as f64 / n.lines.max(1) as f64
        );
    }
    let mut problems = list.check(&failing, &tested);
    for k in list.entries.keys() {
        if !tested.contains(k) {
            problems.push(format!(
                "{} {}: listed in expected-failures.txt but not a decoded corpus line",
                k.0, k.1
            ));
        }
    }
    for p in problems.iter().take(50) {
        println!("{p}");
    }
    assert!(
        problems.is_empty(),
        "{} unexpected corpus results (first 50 above)",
        problems.len()
    );
}
