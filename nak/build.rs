//! Generates the ISA code from the spec into OUT_DIR. A spec error prints
//! the lint's diagnostics and fails the build; it never panics. The work is
//! `isa_codegen::build_support::run`, tested there on broken specs.
//! `NAK_SPEC_DIR` points the build at another spec directory.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=NAK_SPEC_DIR");
    let (spec_dir, shown) =
        isa_codegen::build_support::spec_dir(&manifest, std::env::var_os("NAK_SPEC_DIR"));
    let (ok, out) = match isa_codegen::build_support::run(&spec_dir, &shown, &out_dir) {
        Ok(out) => (true, out),
        Err(out) => (false, out),
    };
    eprint!("{}", out.report);
    for line in &out.cargo {
        println!("{line}");
    }
    if !ok {
        std::process::exit(1);
    }
}
