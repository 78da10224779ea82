//! Load + lint of the whole spec (the build script's front half). Goal:
//! at most 200 ms. CI only compiles this (`cargo bench --no-run`).

fn main() {
    divan::main();
}

#[divan::bench]
fn load_and_lint_spec() -> usize {
    let loaded = isa_spec::load(&isa_spec::default_spec_dir(), "isa-spec/spec");
    divan::black_box(loaded.report.diagnostics.len())
}
