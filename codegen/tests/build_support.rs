//! The build script's logic on broken specs: it must fail with the lint's
//! diagnostics (file:line:col, human report), never panic, and succeed on
//! the real spec.

use std::path::{Path, PathBuf};

static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "isa-build-support-{}-{}-{tag}",
        std::process::id(),
        RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A copy of the real spec with `edit` applied to `ops/<file>`.
fn broken_spec(file: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let dir = scratch("spec");
    copy_dir(&isa_spec::default_spec_dir(), &dir);
    let p = dir.join("ops").join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let new = edit(&text);
    assert_ne!(new, text, "the edit changed nothing");
    std::fs::write(&p, new).unwrap();
    dir
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn a_broken_spec_fails_with_located_diagnostics() {
    let spec = broken_spec("alu/iadd3.toml", |t| {
        t.replacen("\"16..24\" = \"d\"", "\"24..16\" = \"d\"", 1)
    });
    let text = std::fs::read_to_string(spec.join("ops/alu/iadd3.toml")).unwrap();
    let line = line_of(&text, "\"24..16\"");
    let out_dir = scratch("out");
    let res = std::panic::catch_unwind(|| isa_codegen::build_support::run(&spec, "spec", &out_dir));
    let out = match res {
        Ok(Err(out)) => out,
        Ok(Ok(_)) => panic!("a reversed bit range built"),
        Err(_) => panic!("the build logic panicked on a broken spec"),
    };
    let want = format!("cargo::error=spec/ops/alu/iadd3.toml:{line}:1: error[S0101]:");
    assert!(
        out.cargo.iter().any(|l| l.starts_with(&want)),
        "no `{want}` in\n{}",
        out.cargo.join("\n")
    );
    // The human report points at the line, rustc-style.
    assert!(
        out.report
            .contains(&format!("--> spec/ops/alu/iadd3.toml:{line}:1")),
        "{}",
        out.report
    );
    assert!(out.report.contains("error[S0101]"), "{}", out.report);
    // Nothing was generated.
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&spec);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_toml_syntax_error_fails_without_panicking() {
    let spec = broken_spec("alu/iadd3.toml", |t| {
        t.replacen("name = \"iadd3\"", "name = \"iadd3", 1)
    });
    let out_dir = scratch("out");
    let out = isa_codegen::build_support::run(&spec, "spec", &out_dir).unwrap_err();
    assert!(
        out.cargo.iter().any(
            |l| l.starts_with("cargo::error=spec/ops/alu/iadd3.toml:") && l.contains("[S0001]")
        ),
        "{}",
        out.cargo.join("\n")
    );
    let _ = std::fs::remove_dir_all(&spec);
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn a_missing_spec_dir_is_an_error_not_a_panic() {
    let dir = scratch("empty");
    let out = isa_codegen::build_support::run(&dir.join("nope"), "nope", &dir).unwrap_err();
    assert!(
        out.cargo.iter().any(|l| l.starts_with("cargo::error=")),
        "{}",
        out.cargo.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_real_spec_builds() {
    let out_dir = scratch("out");
    let out =
        isa_codegen::build_support::run(&isa_spec::default_spec_dir(), "isa-spec/spec", &out_dir)
            .unwrap_or_else(|o| panic!("{}\n{}", o.cargo.join("\n"), o.report));
    assert!(
        out.cargo
            .iter()
            .any(|l| l == "cargo::rustc-cfg=nak_op=\"iadd3\"")
    );
    // The allowed `nak_op` values are the spec's ops, not `any()`.
    let check = out
        .cargo
        .iter()
        .find(|l| l.starts_with("cargo::rustc-check-cfg=cfg(nak_op"))
        .expect("a check-cfg line for nak_op");
    assert!(
        check.contains("\"iadd3\"") && !check.contains("any()"),
        "{check}"
    );
    // The real spec lints clean: the build prints no warning.
    assert!(
        !out.cargo.iter().any(|l| l.starts_with("cargo::warning=")),
        "{}",
        out.cargo.join("\n")
    );
    assert!(out_dir.join("isa.rs").exists());
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn nak_spec_dir_overrides_the_spec_directory() {
    use isa_codegen::build_support::spec_dir;
    let m = Path::new("/w/nak");
    assert_eq!(spec_dir(m, None).1, "isa-spec/spec");
    assert_eq!(spec_dir(m, Some("".into())).1, "isa-spec/spec");
    assert_eq!(
        spec_dir(m, Some("/tmp/s".into())),
        (PathBuf::from("/tmp/s"), "/tmp/s".into())
    );
}
