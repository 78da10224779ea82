//! Spec to formatted Rust for the whole spec (what the build script does
//! after loading). Goal: <=100 ms. `cargo bench -p isa-codegen`.

fn spec() -> isa_spec::model::Spec {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa-spec/spec");
    isa_spec::load(&dir, "isa-spec/spec")
        .spec
        .expect("spec loads")
}

#[divan::bench]
fn load_and_lint() -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../isa-spec/spec");
    isa_spec::load(&dir, "isa-spec/spec")
        .report
        .diagnostics
        .len()
}

#[divan::bench]
fn generate(bencher: divan::Bencher) {
    let spec = spec();
    bencher.bench(|| {
        isa_codegen::generate(divan::black_box(&spec))
            .map(|f| f.len())
            .unwrap_or(0)
    });
}

fn main() {
    divan::main();
}
