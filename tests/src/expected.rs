//! Expected-failure lists: known gaps kept visible. A test fails on a
//! failure that is not listed, and on a listed entry that passes now (so
//! the list shrinks as the spec grows), as Mesa's isaspec tests do.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Entries of `tests/<file>`: `KEY1<TAB>KEY2<TAB>reason` lines, `#` comments.
pub fn load(file: &str) -> BTreeMap<(String, String), String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.splitn(3, '\t');
            Some((
                (it.next()?.to_string(), it.next()?.to_string()),
                it.next().unwrap_or("").to_string(),
            ))
        })
        .collect()
}

/// Compare failures (key -> first message) with the list in `file`; returns
/// the problems: unlisted failures and listed keys that pass. With
/// `NAK_BLESS_EXPECTED=1` the list is rewritten from the failures instead.
pub fn check(
    file: &str,
    failures: &BTreeMap<(String, String), String>,
    tested: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let listed = load(file);
    if std::env::var("NAK_BLESS_EXPECTED").is_ok_and(|v| v == "1") {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
        let mut out = String::from(
            "# Known failures: KEY<TAB>KEY<TAB>reason. Regenerate with NAK_BLESS_EXPECTED=1.\n",
        );
        for ((a, b), m) in failures {
            let reason = listed
                .get(&(a.clone(), b.clone()))
                .cloned()
                .unwrap_or_else(|| m.replace(['\t', '\n'], " "));
            out.push_str(&format!("{a}\t{b}\t{reason}\n"));
        }
        std::fs::write(path, out).expect("write expected-failure list");
        return Vec::new();
    }
    let mut problems = Vec::new();
    for (k, m) in failures {
        if !listed.contains_key(k) {
            problems.push(format!("{} {}: {m}", k.0, k.1));
        }
    }
    for k in listed.keys() {
        if tested.contains(k) && !failures.contains_key(k) {
            problems.push(format!(
                "{} {}: listed in {file} but passes now; remove the entry",
                k.0, k.1
            ));
        }
    }
    problems
}
