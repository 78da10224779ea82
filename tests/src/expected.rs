//! Expected-failure lists hold only nvdisasm's own inconsistencies (two
//! encodings it prints the same way, say), never a defect of ours: each
//! entry names its evidence, and no command writes a list. A test fails on a
//! failure that is not listed, on a listed entry that passes now (so the
//! list stays true, as Mesa's isaspec tests do), on a list longer than
//! [`MAX_ENTRIES`] and on an entry without evidence.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The most entries one list may hold: a longer list is a backlog of
/// defects, not a record of nvdisasm's quirks.
pub const MAX_ENTRIES: usize = 20;

/// One list: `KEY1<TAB>KEY2<TAB>evidence` lines (keys as the list's test
/// defines them), `#` comments.
pub struct List {
    /// The file, relative to `tests/`.
    pub file: &'static str,
    /// Keys -> evidence.
    pub entries: BTreeMap<(String, String), String>,
}

impl List {
    /// Reads `tests/<file>` with two key columns; a missing file is an
    /// empty list.
    pub fn load(file: &'static str) -> List {
        Self::load_keys(file, 2)
    }

    /// Reads `tests/<file>` whose lines start with `keys` key columns (at
    /// least 2): the first is the first key, the others, joined by a space,
    /// the second.
    pub fn load_keys(file: &'static str, keys: usize) -> List {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
        let entries = std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let cols: Vec<&str> = l.splitn(keys + 1, '\t').collect();
                if cols.len() < keys {
                    return None;
                }
                let why = cols.get(keys).copied().unwrap_or("");
                Some((
                    (cols[0].to_string(), cols[1..keys].join(" ")),
                    why.to_string(),
                ))
            })
            .collect();
        List { file, entries }
    }

    /// Whether `key` is listed.
    pub fn contains(&self, key: &(String, String)) -> bool {
        self.entries.contains_key(key)
    }

    /// What is wrong with the list itself: too many entries, or entries
    /// whose evidence does not show nvdisasm's output for a word.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.entries.len() > MAX_ENTRIES {
            out.push(format!(
                "{}: {} entries, at most {MAX_ENTRIES}: only nvdisasm quirks belong here; fix the spec instead",
                self.file,
                self.entries.len()
            ));
        }
        for ((a, b), why) in &self.entries {
            if !has_evidence(why) {
                out.push(format!(
                    "{} {a} {b}: the entry gives no evidence (a word in hex and what nvdisasm prints for it)",
                    self.file
                ));
            }
        }
        out
    }

    /// Failures (key -> message) against the list: the list's own
    /// problems, unlisted failures, and listed keys that were tested and
    /// pass.
    pub fn check(
        &self,
        failures: &BTreeMap<(String, String), String>,
        tested: &BTreeSet<(String, String)>,
    ) -> Vec<String> {
        let mut problems = self.problems();
        for (k, m) in failures {
            if !self.contains(k) {
                problems.push(format!("{} {}: {m}", k.0, k.1));
            }
        }
        for k in self.entries.keys() {
            if tested.contains(k) && !failures.contains_key(k) {
                problems.push(format!(
                    "{} {}: listed in {} but passes now; remove the entry",
                    k.0, k.1, self.file
                ));
            }
        }
        problems
    }
}

/// Evidence names nvdisasm and shows at least one word as hex digits.
fn has_evidence(why: &str) -> bool {
    let hex_word = why
        .split(|c: char| !c.is_ascii_hexdigit() && c != 'x')
        .any(|t| t.trim_start_matches("0x").len() >= 16);
    why.contains("nvdisasm") && hex_word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(n: usize, why: &str) -> List {
        List {
            file: "x.txt",
            entries: (0..n)
                .map(|i| ((i.to_string(), "k".to_string()), why.to_string()))
                .collect(),
        }
    }

    const GOOD: &str = "nvdisasm prints `A` for 0x000fc00000000000000000000000794d and for 0x000fc00000000000000000000000794e";

    #[test]
    fn a_list_over_the_limit_fails() {
        assert!(list(MAX_ENTRIES, GOOD).problems().is_empty());
        assert_eq!(list(MAX_ENTRIES + 1, GOOD).problems().len(), 1);
    }

    #[test]
    fn an_entry_without_evidence_fails() {
        assert_eq!(list(1, "prints `I2F R1, R2`").problems().len(), 1);
        assert_eq!(list(1, "nvdisasm differs").problems().len(), 1);
    }

    #[test]
    fn unlisted_failures_and_passing_entries_fail() {
        let l = list(1, GOOD);
        let key = ("0".to_string(), "k".to_string());
        let other = ("9".to_string(), "k".to_string());
        let tested: BTreeSet<_> = [key.clone(), other.clone()].into();
        // The listed key passes: reported.
        assert_eq!(l.check(&BTreeMap::new(), &tested).len(), 1);
        // The listed key fails, as listed: clean.
        let listed_fails = BTreeMap::from([(key.clone(), "m".to_string())]);
        assert!(l.check(&listed_fails, &tested).is_empty());
        // An unlisted failure: reported.
        let new_fail = BTreeMap::from([(key, "m".to_string()), (other, "m".to_string())]);
        assert_eq!(l.check(&new_fail, &tested).len(), 1);
    }
}
