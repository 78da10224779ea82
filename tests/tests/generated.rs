//! `generated/` is a checked-in, formatted copy of what the build generates from the
//! spec, for review; this test fails when it is stale and says how to
//! refresh it. `NAK_UPDATE_GENERATED=1` rewrites it.

use std::path::PathBuf;

const FIX: &str = "NAK_UPDATE_GENERATED=1 cargo test -p isa-tests --test generated";

#[test]
fn generated_mirror_is_fresh() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let loaded = isa_spec::load(&root.join("isa-spec/spec"), "isa-spec/spec");
    assert!(
        !loaded.report.has_errors(),
        "the spec has errors; run `cargo run -p nak-cli -- lint`"
    );
    let spec = loaded.spec.expect("spec loads");
    let files = match isa_codegen::generate(&spec) {
        Ok(f) => f,
        Err(e) => panic!("code generation failed: {}", e.message),
    };
    let dir = root.join("generated");
    let update = std::env::var("NAK_UPDATE_GENERATED").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    let mut wanted = std::collections::BTreeSet::new();
    for f in &files {
        wanted.insert(f.name.clone());
        let path = dir.join(&f.name);
        let old = std::fs::read_to_string(&path)
            .unwrap_or_default()
            .replace("\r\n", "\n");
        if old != f.contents {
            stale.push(f.name.clone());
            if update {
                std::fs::create_dir_all(&dir).expect("create generated/");
                std::fs::write(&path, &f.contents).expect("write generated file");
            }
        }
    }
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.ends_with(".rs") && !wanted.contains(&n) {
            stale.push(format!("{n} (no longer generated)"));
            if update {
                std::fs::remove_file(e.path()).expect("remove stale generated file");
            }
        }
    }
    if update {
        println!("refreshed {} file(s) in generated/", stale.len());
        return;
    }
    assert!(
        stale.is_empty(),
        "generated/ is stale ({}); refresh it with: {FIX}",
        stale.join(", ")
    );
}
