//! Generates the ISA code from the spec into OUT_DIR. A spec error prints
//! the lint's diagnostics and fails the build; it never panics.

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let spec_dir = manifest.join("../isa-spec/spec");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed={}", spec_dir.display());
    let loaded = isa_spec::load(&spec_dir, "isa-spec/spec");
    for p in &loaded.paths {
        println!("cargo::rerun-if-changed={}", p.display());
    }
    let mut failed = false;
    for d in &loaded.report.diagnostics {
        eprintln!("{}", d.human(&loaded.files));
        let short = d.short(&loaded.files);
        match d.level {
            isa_spec::diag::Level::Error => {
                println!("cargo::error={short}");
                failed = true;
            }
            isa_spec::diag::Level::Warning => println!("cargo::warning={short}"),
        }
    }
    if failed {
        std::process::exit(1);
    }
    let Some(spec) = loaded.spec else {
        std::process::exit(1);
    };
    // `#[cfg(nak_op = "shf")]` gates backend code on ops the spec has.
    println!("cargo::rustc-check-cfg=cfg(nak_op, values(any()))");
    for op in &spec.ops {
        println!("cargo::rustc-cfg=nak_op=\"{}\"", op.name);
    }
    match isa_codegen::generate(&spec) {
        Ok(files) => {
            for f in files {
                if let Err(e) = write_if_changed(&out_dir.join(&f.name), &f.contents) {
                    println!("cargo::error=cannot write {}: {e}", f.name);
                    std::process::exit(1);
                }
            }
        }
        Err(e) => {
            let at = e
                .loc
                .as_ref()
                .map(|l| {
                    let f = loaded.files.get(l.file);
                    let (line, col) = f.line_col(l.span.start);
                    format!("{}:{line}:{col}: ", f.path)
                })
                .unwrap_or_default();
            println!("cargo::error={at}{}", e.message);
            std::process::exit(1);
        }
    }
}

fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    std::fs::write(path, contents)
}
