//! Spec to Rust for the whole spec: unformatted (what the build script
//! writes to OUT_DIR) and formatted (the checked-in mirror). Goal: <=100 ms.
//! `cargo bench -p isa-codegen`.

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

/// What the build script does: the unformatted `OUT_DIR` copy.
#[divan::bench]
fn generate_compact(bencher: divan::Bencher) {
    let spec = spec();
    bencher.bench(|| {
        isa_codegen::generate_compact(divan::black_box(&spec))
            .map(|f| f.len())
            .unwrap_or(0)
    });
}

/// The formatted `generated/` mirror.
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
