//! `nak dis` of a cubin prints nvdisasm's `-c -hex` listing: every
//! instruction line of the cubins in `tests/cubins` (a few per SM, built
//! from ../shared/kernels by `scripts/build-test-cubins.sh`) must match
//! nvdisasm's after blank normalization, but for the kinds of difference
//! `tests/cubins/expected-failures.txt` lists. With ../shared/kernels
//! present, every cubin there is compared too and the counts per SM are
//! printed.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Blank runs collapsed, and none before `;` (nvdisasm writes `NOP;` and
/// `EXIT ;` alike).
fn norm(line: &str) -> String {
    line.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ;", ";")
}

/// A listing split into instruction lines by (section, address), each
/// with its hex (also when it comes on a later line, after a `}`), and
/// the other non-blank lines in order.
#[derive(Default)]
struct Split {
    instrs: BTreeMap<(String, u64), String>,
    other: Vec<String>,
}

fn split(text: &str) -> Split {
    let mut s = Split::default();
    let mut section = String::new();
    let mut open: Option<(String, u64)> = None;
    for line in text.lines() {
        let n = norm(line);
        if let Some(rest) = n.strip_prefix("//--------------------- ") {
            section = rest.split(' ').next().unwrap_or("").to_string();
        }
        if let Some(rest) = n.strip_prefix("/*")
            && let Some((addr, body)) = rest.split_once("*/ ")
            && let Ok(addr) = u64::from_str_radix(addr, 16)
        {
            let key = (section.clone(), addr);
            open = (!body.ends_with("*/")).then(|| key.clone());
            s.instrs.insert(key, body.to_string());
            continue;
        }
        if n.starts_with("/* 0x") {
            if let Some(k) = open.take()
                && let Some(v) = s.instrs.get_mut(&k)
            {
                v.push(' ');
                v.push_str(&n);
            }
            continue;
        }
        if !n.is_empty() {
            s.other.push(n);
        }
    }
    s
}

/// Lines of `b` that match `a` in order (longest common subsequence).
fn common_lines(a: &[String], b: &[String]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut prev = 0;
        for (j, y) in b.iter().enumerate() {
            let keep = row[j + 1];
            row[j + 1] = if x == y {
                prev + 1
            } else {
                row[j + 1].max(row[j])
            };
            prev = keep;
        }
    }
    row[b.len()]
}

/// The documented differences: `(sm_NN/NAME, address)` and the kinds.
struct Expected {
    lines: BTreeMap<(String, u64), String>,
}

impl Expected {
    fn load() -> Expected {
        let path = common::root().join("tests/cubins/expected-failures.txt");
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines = BTreeMap::new();
        for l in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let mut f = l.split_whitespace();
            let (Some(file), Some(addr), Some(kind)) = (f.next(), f.next(), f.next()) else {
                panic!("bad line in {}: {l}", path.display());
            };
            let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16).expect("hex");
            lines.insert((file.to_string(), addr), kind.to_string());
        }
        Expected { lines }
    }
}

/// Counts of one comparison.
#[derive(Default, Debug)]
struct Counts {
    instrs: usize,
    matched: usize,
    expected: usize,
    expected_seen: Vec<(String, u64)>,
    other: usize,
    other_matched: usize,
    failures: Vec<String>,
}

fn compare(name: &str, want: &str, got: &str, expected: &Expected, c: &mut Counts) {
    let (w, g) = (split(want), split(got));
    for ((sec, addr), text) in &w.instrs {
        c.instrs += 1;
        let ours = g.instrs.get(&(sec.clone(), *addr));
        if ours == Some(text) {
            c.matched += 1;
        } else if expected.lines.contains_key(&(name.to_string(), *addr)) {
            c.expected += 1;
            c.expected_seen.push((name.to_string(), *addr));
        } else {
            c.failures.push(format!(
                "{name} {sec} {addr:#06x}\n  nvdisasm: {text}\n  nak:      {}",
                ours.map_or("(none)", |s| s.as_str())
            ));
        }
    }
    c.other += w.other.len();
    c.other_matched += common_lines(&w.other, &g.other);
}

/// Every `sm_NN/NAME.cubin[.gz]` with its `NAME.sass.gz` under `dir`.
fn cubins(dir: &Path) -> Vec<(u32, String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let Ok(sms) = std::fs::read_dir(dir) else {
        return out;
    };
    for sm_dir in sms.flatten() {
        let sm_name = sm_dir.file_name().to_string_lossy().into_owned();
        let Some(sm) = sm_name.strip_prefix("sm_").and_then(|s| s.parse().ok()) else {
            continue;
        };
        for f in std::fs::read_dir(sm_dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = f.path();
            let file = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let Some(stem) = file
                .strip_suffix(".cubin.gz")
                .or(file.strip_suffix(".cubin"))
            else {
                continue;
            };
            let sass = sm_dir.path().join(format!("{stem}.sass.gz"));
            if sass.exists() {
                out.push((sm, format!("{sm_name}/{stem}"), p, sass));
            }
        }
    }
    out.sort();
    out
}

fn report(title: &str, per_sm: &BTreeMap<u32, Counts>) {
    for (sm, c) in per_sm {
        eprintln!(
            "{title} SM{sm}: instruction lines {}/{} match ({} expected failures), other lines {}/{}",
            c.matched, c.instrs, c.expected, c.other_matched, c.other
        );
    }
}

/// Every instruction line matched or is an expected failure (the first
/// 200 others are shown).
fn assert_no_failures(per_sm: &BTreeMap<u32, Counts>) {
    let failures: Vec<&String> = per_sm.values().flat_map(|c| &c.failures).collect();
    assert!(
        failures.is_empty(),
        "{} lines differ:\n{}",
        failures.len(),
        failures
            .iter()
            .take(200)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn listings_match_nvdisasm_on_the_stored_cubins() {
    let expected = Expected::load();
    let dir = common::root().join("tests/cubins");
    let all = cubins(&dir);
    assert!(
        all.len() >= 40,
        "only {} cubins in {}",
        all.len(),
        dir.display()
    );
    let tmp = std::env::temp_dir().join(format!("nak-cli-cubin-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut per_sm: BTreeMap<u32, Counts> = BTreeMap::new();
    for (sm, name, cubin, sass) in &all {
        // Through the command, as a user runs it.
        let path = tmp.join(name.replace('/', "_") + ".cubin");
        std::fs::write(&path, common::gunzip(cubin)).expect("write cubin");
        let got = common::nak(&["dis", path.to_str().expect("utf-8 path")]);
        let want = String::from_utf8(common::gunzip(sass)).expect("utf-8 listing");
        compare(name, &want, &got, &expected, per_sm.entry(*sm).or_default());
    }
    let _ = std::fs::remove_dir_all(&tmp);
    report("tests/cubins", &per_sm);
    assert_no_failures(&per_sm);
    for (sm, c) in &per_sm {
        // Headers, directives and labels: all but a few lines.
        assert!(c.other_matched * 100 >= c.other * 98, "SM{sm}: {c:?}");
    }
}

/// Every cubin of ../shared/kernels, when it is there (the library, not
/// the command: 415 files).
#[test]
fn listings_match_nvdisasm_on_shared_kernels() {
    let dir = common::root().join("../shared/kernels");
    let all = cubins(&dir);
    if all.is_empty() {
        eprintln!("no {}: skipped", dir.display());
        return;
    }
    let expected = Expected::load();
    let mut per_sm: BTreeMap<u32, Counts> = BTreeMap::new();
    for (sm, name, cubin, sass) in &all {
        let bytes = std::fs::read(cubin).expect("read cubin");
        let (got, _) =
            nak::cubin::disassemble(&bytes, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = String::from_utf8(common::gunzip(sass)).expect("utf-8 listing");
        compare(name, &want, &got, &expected, per_sm.entry(*sm).or_default());
    }
    report("../shared/kernels", &per_sm);
    // Every listed difference still happens (none is stale).
    let seen: Vec<&(String, u64)> = per_sm.values().flat_map(|c| &c.expected_seen).collect();
    for (k, kind) in &expected.lines {
        assert!(
            seen.contains(&k),
            "{} {:#06x} ({kind}) now matches: remove it from expected-failures.txt",
            k.0,
            k.1
        );
    }
    assert_no_failures(&per_sm);
}
