//! Every encoding form the spec claims, on every SM it claims it for, is
//! checked against NVIDIA's disassembler: random valid words per form
//! (registers, immediates and modifiers swept) are decoded, re-encoded
//! exactly and printed by us, and nvdisasm must print the same text.
//!
//! Needs nvdisasm: it is installed into `.oracle/` by
//! `scripts/install-oracle.sh` when missing. `NAK_SKIP_ORACLE=1` skips the
//! test and says so; `NAK_ORACLE_PER_FORM` sets the words per form.

use isa_tests::oracle::{Oracle, address_of};
use nak::isa::{self, FORMS};
use std::collections::BTreeMap;

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

/// (sm, op, form) -> reason, from `tests/oracle-expected-failures.txt`.
fn expected() -> BTreeMap<(u32, String, String), String> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle-expected-failures.txt");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.splitn(4, '\t');
            let sm = it.next()?.parse().ok()?;
            Some((
                (sm, it.next()?.to_string(), it.next()?.to_string()),
                it.next().unwrap_or("").to_string(),
            ))
        })
        .collect()
}

#[test]
fn every_form_matches_nvdisasm() {
    let Some(oracle) = oracle() else { return };
    let per_form: usize = std::env::var("NAK_ORACLE_PER_FORM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24);
    let expected = expected();
    let mut failures = Vec::new();
    let mut total = 0usize;
    let mut rejected_total = 0usize;
    let mut bless = String::new();
    for &sm in isa::ALL_SMS {
        let words = nak::sample::sample_words(sm, &[], per_form, 0x5eed);
        let theirs = oracle.disassemble(sm, &words);
        // (op, form) -> (checked, differing, rejected, example)
        let mut per: BTreeMap<(String, String), (usize, usize, usize, String)> = BTreeMap::new();
        for (i, (w, t)) in words.iter().zip(&theirs).enumerate() {
            let (op, c) = isa::decode(*w, sm).expect("sampled words decode");
            assert_eq!(op.encode(sm, &c), Ok(*w), "re-encode of a sampled word");
            let form = FORMS
                .iter()
                .find(|f| f.op == op.name() && Some(f.id) == op.form_id(sm))
                .map_or("?", |f| f.form);
            let e = per
                .entry((op.name().to_string(), form.to_string()))
                .or_default();
            let mut ours = op.text(&c, sm, address_of(sm, i));
            nak::print::normalize_in_place(&mut ours);
            e.0 += 1;
            total += 1;
            match t {
                Ok(t) if *t == ours => {}
                Ok(t) => {
                    e.1 += 1;
                    if e.3.is_empty() {
                        e.3 = format!("word {w:#034x}: ours `{ours}`, nvdisasm `{t}`");
                    }
                }
                Err(err) => {
                    e.2 += 1;
                    rejected_total += 1;
                    if e.3.is_empty() {
                        e.3 = format!("word {w:#034x} (ours `{ours}`) rejected: {err}");
                    }
                }
            }
        }
        for ((op, form), (n, diff, rej, ex)) in per {
            let listed = expected.contains_key(&(sm, op.clone(), form.clone()));
            let bad = diff > 0 || rej == n;
            if bad {
                let reason = expected
                    .get(&(sm, op.clone(), form.clone()))
                    .cloned()
                    .unwrap_or_else(|| ex.replace(['\t', '\n'], " "));
                bless.push_str(&format!("{sm}\t{op}\t{form}\t{reason}\n"));
            }
            if bad && !listed {
                failures.push(format!(
                    "SM{sm} {op} form {form}: {diff} of {n} differ, {rej} rejected; {ex}"
                ));
            } else if !bad && listed {
                failures.push(format!("SM{sm} {op} form {form}: listed in oracle-expected-failures.txt but passes now; remove the entry"));
            }
        }
    }
    if std::env::var("NAK_BLESS_EXPECTED").is_ok_and(|v| v == "1") {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle-expected-failures.txt");
        let text = format!(
            "# SM<TAB>op<TAB>form<TAB>reason. Regenerate with NAK_BLESS_EXPECTED=1.\n{bless}"
        );
        std::fs::write(path, text).expect("write list");
        return;
    }
    println!(
        "oracle: {total} words checked against nvdisasm over {} SMs ({rejected_total} rejected by nvdisasm)",
        isa::ALL_SMS.len()
    );
    for f in failures.iter().take(60) {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} op forms disagree with nvdisasm (first 60 above)",
        failures.len()
    );
}
