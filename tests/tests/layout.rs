//! The library a compiler links (`nak`) stays small: its normal
//! dependencies are only those listed here (none today), so neither the
//! command-line crates (clap) nor JSON (serde_json) nor the spec loader
//! (isa-spec, a build-dependency) reach a compiler that links it. The
//! `nak` command lives in `nak/cli`.

use std::path::Path;

/// Crates `nak` may depend on at run time.
const ALLOWED: &[&str] = &[];

fn manifest(rel: &str) -> toml::Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn dep_names(t: &toml::Table, section: &str) -> Vec<String> {
    t.get(section)
        .and_then(|d| d.as_table())
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn library_has_only_allowed_runtime_dependencies() {
    let nak = manifest("../nak/Cargo.toml");
    let extra: Vec<String> = dep_names(&nak, "dependencies")
        .into_iter()
        .filter(|d| !ALLOWED.contains(&d.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "nak/Cargo.toml [dependencies] has {extra:?}: the library must not pull them into a compiler; put command-line needs in nak/cli"
    );
    assert!(
        dep_names(&nak, "build-dependencies").contains(&"isa-spec".to_string()),
        "the spec loader is a build-dependency of nak"
    );
}

#[test]
fn the_nak_command_is_its_own_package() {
    let cli = manifest("../nak/cli/Cargo.toml");
    let bins = cli
        .get("bin")
        .and_then(|b| b.as_array())
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = bins
        .iter()
        .filter_map(|b| b.get("name")?.as_str())
        .collect();
    assert_eq!(names, ["nak"], "nak/cli builds the `nak` binary");
    for dep in ["nak", "clap"] {
        assert!(
            dep_names(&cli, "dependencies").iter().any(|d| d == dep),
            "nak-cli depends on {dep}"
        );
    }
}
