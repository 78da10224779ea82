//! Lint UI tests. Each directory under `tests/fixtures/{pass,fail}/` is a
//! spec (or part of one: `families.toml` and `enums/` default to the
//! real spec's). A `fail` fixture's diagnostics, in short format, must equal
//! its `expected.txt`; a `pass` fixture must have none. Bless new output with
//! `ISA_LINT_BLESS=1 cargo test -p isa-spec --test lint_fixtures`.

use std::path::{Path, PathBuf};

static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(kind);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// Copy the fixture into a scratch spec directory, adding the real
/// families.toml and enums/ when it has none, and lint it (short format, or
/// the human one).
fn lint_as(fixture: &Path, human: bool) -> (String, usize) {
    let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
    let kind = fixture
        .parent()
        .and_then(|p| p.file_name())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let tmp = std::env::temp_dir()
        .join(format!(
            "isa-spec-fixtures-{}-{}",
            std::process::id(),
            RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ))
        .join(&kind)
        .join(&name);
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("ops")).unwrap();
    let real = isa_spec::default_spec_dir();
    let src = if fixture.join("families.toml").exists() {
        fixture.join("families.toml")
    } else {
        real.join("families.toml")
    };
    std::fs::copy(src, tmp.join("families.toml")).unwrap();
    // The real enums, then the fixture's own enum files over them.
    std::fs::create_dir_all(tmp.join("enums")).unwrap();
    for dir in [real.join("enums"), fixture.join("enums")] {
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                std::fs::copy(e.path(), tmp.join("enums").join(e.file_name())).unwrap();
            }
        }
    }
    if fixture.join("lint.toml").exists() {
        std::fs::copy(fixture.join("lint.toml"), tmp.join("lint.toml")).unwrap();
    }
    copy_tree(&fixture.join("ops"), &tmp.join("ops"));
    let loaded = isa_spec::load(&tmp, &format!("{kind}/{name}"));
    let mut out = String::new();
    for d in &loaded.report.diagnostics {
        if human {
            out.push_str(&d.human(&loaded.files));
        } else {
            out.push_str(&d.short(&loaded.files));
            out.push('\n');
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    (out, loaded.report.diagnostics.len())
}

/// Copy the files of `from` into `to`, class folders included.
fn copy_tree(from: &Path, to: &Path) {
    let Ok(rd) = std::fs::read_dir(from) else {
        return;
    };
    for e in rd.flatten() {
        let dst = to.join(e.file_name());
        if e.path().is_dir() {
            std::fs::create_dir_all(&dst).unwrap();
            copy_tree(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn lint(fixture: &Path) -> (String, usize) {
    lint_as(fixture, false)
}

#[test]
fn fail_fixtures_match_their_snapshots() {
    let bless = std::env::var_os("ISA_LINT_BLESS").is_some();
    let mut bad = Vec::new();
    for f in fixtures("fail") {
        let (got, n) = lint(&f);
        let snap = f.join("expected.txt");
        if bless {
            std::fs::write(&snap, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&snap).unwrap_or_default();
        if n == 0 {
            bad.push(format!("{}: no diagnostics", f.display()));
        } else if got != want.replace("\r\n", "\n") {
            bad.push(format!(
                "{}:\n--- expected\n{want}--- got\n{got}",
                f.display()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{}\n(bless with ISA_LINT_BLESS=1)",
        bad.join("\n")
    );
}

#[test]
fn every_fail_fixture_is_named_for_a_code_it_reports() {
    for f in fixtures("fail") {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let code = name.split('-').next().unwrap().to_uppercase();
        if !code.starts_with('S') {
            continue;
        }
        let (got, _) = lint(&f);
        assert!(
            got.contains(&format!("[{code}]")),
            "{name} does not report {code}:\n{got}"
        );
    }
}

#[test]
fn pass_fixtures_are_clean() {
    for f in fixtures("pass") {
        let (got, n) = lint(&f);
        assert_eq!(n, 0, "{}:\n{got}", f.display());
    }
}

#[test]
fn ten_mistakes_in_three_files_in_one_run() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fail/many-ten-mistakes");
    let (got, n) = lint(&f);
    assert_eq!(n, 10, "{got}");
    let files: std::collections::BTreeSet<&str> =
        got.lines().filter_map(|l| l.split(':').next()).collect();
    assert_eq!(files.len(), 3, "{got}");
    // Each diagnostic points at the mistake itself.
    let want = [
        "\"u33\"", "colour", "bogus", "sufixes", "println!", "\"co3\"", "7", "\"inv\"", "a + 1",
        "\"160\"",
    ];
    for (l, w) in got.lines().zip(want) {
        let mut parts = l.splitn(4, ':');
        let (file, line, col) = (
            parts.next().unwrap(),
            parts.next().unwrap(),
            parts.next().unwrap(),
        );
        let path = f.join(file.trim_start_matches("fail/many-ten-mistakes/"));
        let text = std::fs::read_to_string(&path).unwrap();
        let line = text
            .lines()
            .nth(line.parse::<usize>().unwrap() - 1)
            .unwrap();
        let at: String = line
            .chars()
            .skip(col.parse::<usize>().unwrap() - 1)
            .collect();
        assert!(at.starts_with(w), "{l}: points at `{at}`, not `{w}`");
    }
}

/// The real spec lints clean, warnings included, so a new warning shows:
/// a known defect is accepted by name in `lint.toml`'s `[[allow]]`.
#[test]
fn real_spec_lints_without_errors_or_warnings() {
    let loaded = isa_spec::load(&isa_spec::default_spec_dir(), "isa-spec/spec");
    let found: Vec<String> = loaded
        .report
        .diagnostics
        .iter()
        .map(|d| d.short(&loaded.files))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn readme_lists_every_code() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    for c in isa_spec::codes::CODES {
        let row = format!("| {} | {} |", c.code, c.level.as_str());
        assert!(readme.contains(&row), "README.md lacks the row `{row} ...`");
    }
}

#[test]
fn fold_helper_allow_list_matches_fold_fns() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../nak/src/runtime/fold_fns.rs"),
    )
    .unwrap();
    let mut fns: Vec<&str> = src
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub fn "))
        .filter_map(|l| l.split(['(', '<']).next())
        .collect();
    fns.sort_unstable();
    let mut helpers = isa_spec::fold_lint::HELPERS.to_vec();
    helpers.sort_unstable();
    assert_eq!(fns, helpers, "update fold_lint::HELPERS");
}

#[test]
fn every_code_emitted_is_registered() {
    for kind in ["fail", "pass"] {
        for f in fixtures(kind) {
            let (got, _) = lint(&f);
            for l in got.lines() {
                let code = l
                    .split('[')
                    .nth(1)
                    .and_then(|s| s.split(']').next())
                    .unwrap();
                assert!(
                    isa_spec::codes::find(code).is_some(),
                    "{code} not in codes.rs"
                );
            }
        }
    }
}

/// The human format of a few fixtures, kept as snapshots
/// (`expected-human.txt`): rustc-like, plain text when not on a terminal.
#[test]
fn human_format_snapshots() {
    let bless = std::env::var_os("ISA_LINT_BLESS").is_some();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fail");
    for name in ["s1104-same-text", "s0906-fold-names", "s0002-unknown-keys"] {
        let f = root.join(name);
        let (got, _) = lint_as(&f, true);
        assert!(!got.contains('\x1b'), "colour in plain output:\n{got}");
        let snap = f.join("expected-human.txt");
        if bless {
            std::fs::write(&snap, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&snap).unwrap_or_default();
        assert_eq!(
            got,
            want.replace("\r\n", "\n"),
            "{name} (bless with ISA_LINT_BLESS=1)"
        );
    }
}

#[test]
fn human_format_shows_line_caret_label_and_help() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fail");
    let (got, _) = lint_as(&root.join("s1104-same-text"), true);
    assert!(got.starts_with("error[S1104]: "), "{got}");
    assert!(
        got.contains("--> fail/s1104-same-text/ops/iadd3b.toml:37:1"),
        "{got}"
    );
    assert!(got.contains("37 | [asm]"), "{got}");
    assert!(got.contains("^^^^^"), "{got}");
    assert!(got.contains("= help: "), "{got}");
}

#[test]
fn every_code_has_a_fail_fixture() {
    let names: Vec<String> = fixtures("fail")
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().to_uppercase())
        .collect();
    let missing: Vec<&str> = isa_spec::codes::CODES
        .iter()
        .map(|c| c.code.as_str())
        .filter(|c| !names.iter().any(|n| n.starts_with(&format!("{c}-"))))
        .collect();
    assert!(missing.is_empty(), "no fail fixture for {missing:?}");
}

/// The text of `file:line` of a short diagnostic, read from the fixture.
fn line_of(fixture: &Path, short: &str) -> (String, String) {
    let mut parts = short.splitn(3, ':');
    let (file, line) = (parts.next().unwrap(), parts.next().unwrap());
    let rel = file.splitn(3, '/').nth(2).unwrap();
    let text = std::fs::read_to_string(fixture.join(rel)).unwrap();
    let line = text
        .lines()
        .nth(line.parse::<usize>().unwrap() - 1)
        .unwrap();
    (rel.to_string(), line.to_string())
}

/// The mistakes a person makes in an op file are reported in that op
/// file, at the line they typed, not at the preset in families.toml: two
/// real ops given one opcode (lop3's sm70 opcode set to iadd3's), and a real
/// register field one bit short (iadd3's `d` as 16..23).
#[test]
fn op_file_mistakes_point_at_the_op_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fail");
    let cases = [
        ("s0401-same-opcode", "S0401", "opcode = 0x010"),
        ("s0501-short-field", "S0501", "\"16..23\" = \"d\""),
    ];
    for (name, code, want) in cases {
        let f = root.join(name);
        let (got, _) = lint(&f);
        let lines: Vec<&str> = got
            .lines()
            .filter(|l| l.contains(&format!("[{code}]")))
            .collect();
        assert!(!lines.is_empty(), "{name}: no {code}:\n{got}");
        for l in lines {
            let (file, text) = line_of(&f, l);
            assert!(file.starts_with("ops/"), "{l}: not in an op file");
            assert!(text.contains(want), "{l}: points at `{text}`, not `{want}`");
        }
    }
    // Both ops' opcode lines are named: the second in a note.
    let (human, _) = lint_as(&root.join("s0401-same-opcode"), true);
    for op in ["ops/lop3.toml:93", "ops/iadd3.toml:63"] {
        assert!(human.contains(op), "no {op} in:\n{human}");
    }
    assert!(human.contains("families.toml"), "no preset note:\n{human}");
}
