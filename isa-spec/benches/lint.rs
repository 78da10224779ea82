//! Load + lint of the whole spec (the build script's front half). Goal:
//! at most 200 ms. CI only compiles this (`cargo bench --no-run`).

fn main() {
    divan::main();
}

/// Everything `nak lint` and the build script do before code generation:
/// read every file, parse and walk the TOML, resolve, and run every check
/// (overlap witnesses, legalization gaps, fold parsing and typing).
#[divan::bench]
fn load_and_lint_spec() -> usize {
    let loaded = isa_spec::load(&isa_spec::default_spec_dir(), "isa-spec/spec");
    let ops = loaded.spec.as_ref().map_or(0, |s| s.ops.len());
    assert!(
        ops >= 40,
        "the bench must lint the whole real spec, got {ops} ops"
    );
    divan::black_box(loaded.report.diagnostics.len())
}
