//! The library a compiler links (`nak`) stays small: its normal
//! dependencies are only those listed here (none today, and `object` for
//! cubins behind a feature that is off by default), so neither the
//! command-line crates (clap) nor JSON (serde_json) nor the spec loader
//! (isa-spec, a build-dependency) reach a compiler that links it. The
//! `nak` command lives in `nak/cli`.

use std::path::Path;

/// Crates `nak` may depend on at run time.
const ALLOWED: &[&str] = &[];
/// Crates `nak` may depend on when a feature asks (`optional`, and no
/// default feature pulls them).
const OPTIONAL: &[&str] = &["object"];

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
    let deps = nak.get("dependencies").and_then(|d| d.as_table());
    let optional = |d: &str| {
        deps.and_then(|t| t.get(d))
            .and_then(|v| v.get("optional"))
            .and_then(|v| v.as_bool())
            == Some(true)
    };
    let extra: Vec<String> = dep_names(&nak, "dependencies")
        .into_iter()
        .filter(|d| !ALLOWED.contains(&d.as_str()))
        .filter(|d| !(OPTIONAL.contains(&d.as_str()) && optional(d)))
        .collect();
    let defaults = nak
        .get("features")
        .and_then(|f| f.get("default"))
        .map(|d| d.to_string())
        .unwrap_or_default();
    assert!(
        defaults.is_empty() || defaults == "[]",
        "nak's default features {defaults} would pull optional crates into every compiler"
    );
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
