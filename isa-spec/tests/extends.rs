//! An encoding that `extends` another resolves exactly as the encoding
//! written out in full. `tests/fixtures/extends/full/ops/` holds ops as they
//! were written before `extends` existed, `extends/ops/` the same ops
//! written with it; each set is loaded over the real spec and the ops'
//! encodings must be equal, field for field (source locations aside).

use std::path::{Path, PathBuf};

/// A scratch copy of the real spec with `ops_dir`'s files over its ops
/// (each replaces the real op file of its name, in its class folder).
fn spec_with(ops_dir: &Path, tag: &str) -> PathBuf {
    let tmp = std::env::temp_dir().join(format!("isa-spec-extends-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let real = isa_spec::default_spec_dir();
    let mut copied = Vec::new();
    for sub in ["ops", "enums"] {
        copy_tree(&real.join(sub), &tmp.join(sub), &mut copied);
    }
    for file in ["families.toml", "lint.toml"] {
        if real.join(file).exists() {
            std::fs::copy(real.join(file), tmp.join(file)).unwrap();
        }
    }
    for e in std::fs::read_dir(ops_dir).unwrap().flatten() {
        let target = copied
            .iter()
            .find(|p| p.starts_with(tmp.join("ops")) && p.file_name() == Some(&e.file_name()))
            .cloned()
            .unwrap_or_else(|| tmp.join("ops").join(e.file_name()));
        std::fs::copy(e.path(), target).unwrap();
    }
    tmp
}

/// Copy the files of `from` into `to`, folders included, noting each copy.
fn copy_tree(from: &Path, to: &Path, copied: &mut Vec<PathBuf>) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dst = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &dst, copied);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
            copied.push(dst);
        }
    }
}

/// The named ops' encodings as text, without source locations.
fn encodings(dir: &Path, ops: &[String]) -> Vec<String> {
    let loaded = isa_spec::load(dir, "spec");
    let errors: Vec<String> = loaded
        .report
        .diagnostics
        .iter()
        .map(|d| d.short(&loaded.files))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let spec = loaded.spec.unwrap();
    let mut out = Vec::new();
    for name in ops {
        let op = spec.ops.iter().find(|o| &o.name == name).unwrap();
        for e in &op.encodings {
            out.push(format!("{name}: family {} sms {:?}", e.family, e.sms));
            for f in &e.forms {
                let fields: Vec<String> = f
                    .fields
                    .iter()
                    .map(|x| format!("{:?}={:?} slot {:?}", x.bits, x.target, x.slot))
                    .collect();
                out.push(format!(
                    "  {} {:?} kinds {:?} reuse {:?} not_all {:?} tied {:?} {:?}\n    {}",
                    f.name,
                    f.sms,
                    f.src_kinds,
                    f.reuse,
                    f.not_all,
                    f.tied,
                    f.tied_src,
                    fields.join("\n    ")
                ));
            }
        }
    }
    out
}

#[test]
fn extending_encodings_resolve_as_written_out() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extends");
    let ops: Vec<String> = std::fs::read_dir(root.join("extends/ops"))
        .unwrap()
        .flatten()
        .map(|e| e.path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(ops.len() >= 4, "{ops:?}");
    let full_dir = spec_with(&root.join("full/ops"), "full");
    let ext_dir = spec_with(&root.join("extends/ops"), "extends");
    let full = encodings(&full_dir, &ops);
    let ext = encodings(&ext_dir, &ops);
    let _ = std::fs::remove_dir_all(&full_dir);
    let _ = std::fs::remove_dir_all(&ext_dir);
    assert!(!full.is_empty());
    assert_eq!(full.len(), ext.len(), "forms per encoding differ");
    if let Some((a, b)) = full.iter().zip(&ext).find(|(a, b)| a != b) {
        panic!("written out:\n{a}\nwith extends:\n{b}");
    }
    // The fixture's point: the `extends` files are shorter.
    for op in &ops {
        let text =
            |d: &str| std::fs::read_to_string(root.join(d).join(format!("{op}.toml"))).unwrap();
        assert!(text("extends/ops").contains("extends ="), "{op}");
        assert!(text("full/ops").len() > text("extends/ops").len(), "{op}");
    }
}
