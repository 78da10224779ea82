//! Lint a spec directory without building `nak` (quick loop for spec
//! edits): `cargo run -p isa-spec --example lint_spec [DIR]`. Prints the
//! short format; `nak lint` has all formats.

fn main() -> std::process::ExitCode {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(isa_spec::default_spec_dir, std::path::PathBuf::from);
    let loaded = isa_spec::load(&dir, "isa-spec/spec");
    for d in &loaded.report.diagnostics {
        println!("{}", d.short(&loaded.files));
    }
    eprintln!("{} diagnostic(s)", loaded.report.diagnostics.len());
    if loaded.report.has_errors() {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
