//! The ISA spec: TOML files that describe every opcode once, and the code
//! that loads, resolves and lints them.
//!
//! `load` reads a spec directory (`families.toml`, `enums/*.toml`, `ops/*.toml`)
//! and returns the resolved [`model::Spec`] together with every diagnostic
//! found; nothing here panics on a bad spec.

pub mod codes;
pub mod diag;
mod extend;
mod flow;
pub mod fold_lint;
pub mod lint;
mod load;
pub mod model;
mod resolve;
pub mod schema;
pub mod walk;

pub use resolve::{parse_bits, parse_sms};

use crate::codes::Code;
use diag::{Diagnostic, Files, Report};
use std::path::{Path, PathBuf};

/// The spec directory shipped in this crate.
pub fn default_spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec")
}

/// Result of loading a spec: the model (when it could be built) and all
/// diagnostics (syntax, schema, resolution and lint).
pub struct Loaded {
    pub spec: Option<model::Spec>,
    pub files: Files,
    pub report: Report,
    /// Every file read, for build-script rerun triggers.
    pub paths: Vec<PathBuf>,
}

/// Parse one file with [`walk::parse`], moving its problems into `report`.
/// Returns the value (None when the walk stopped) and the spans of the
/// values that were replaced by placeholders.
fn parse_file<T: serde::de::DeserializeOwned>(
    files: &Files,
    file: diag::FileId,
    report: &mut Report,
) -> Option<T> {
    let (value, problems) = walk::parse::<T>(&files.get(file).text);
    for p in problems {
        report.push(Diagnostic::error(p.code, p.message).at(diag::Loc { file, span: p.span }));
    }
    value
}

/// Load and lint the spec in `dir`. `display_prefix` is prepended to file
/// paths in diagnostics (e.g. `isa-spec/spec`).
pub fn load(dir: &Path, display_prefix: &str) -> Loaded {
    let mut ld = load::Loader::new(dir, display_prefix);
    let fam_id = ld.read("families.toml");
    let enum_ids: Vec<diag::FileId> = ld
        .enum_file_names()
        .iter()
        .filter_map(|n| ld.read(n))
        .collect();
    let op_ids: Vec<diag::FileId> = ld
        .op_file_names()
        .iter()
        .filter_map(|n| ld.read(&format!("ops/{n}")))
        .collect();
    let (families, presets) = fam_id.map(|id| ld.families(id)).unwrap_or_default();
    let enums = ld.enums(&enum_ids);
    let names = resolve::Names {
        families: &families,
        presets: &presets,
        enums: &enums,
    };
    let ops = ld.ops(&op_ids, &names);
    let spec = model::Spec {
        files: ld.files.clone(),
        families,
        enums,
        ops,
    };
    ld.lint(spec)
}

/// Drop follow-on noise: syntax errors on the lines right after another
/// syntax error of the same file (one mistake often derails the parser for
/// a few lines), and diagnostics inside a value that the schema walk
/// already reported and replaced with a placeholder.
fn tidy(files: &Files, report: &mut Report) {
    report.sort();
    let mut keep = Vec::new();
    let mut last_syntax: Option<(diag::FileId, usize)> = None;
    let mut replaced: Vec<diag::Loc> = Vec::new();
    for d in &report.diagnostics {
        if d.code == Code::S0003
            && let Some(l) = &d.loc
        {
            replaced.push(l.clone());
        }
    }
    for d in std::mem::take(&mut report.diagnostics) {
        let Some(loc) = d.loc.clone() else {
            keep.push(d);
            continue;
        };
        if d.code == Code::S0001 {
            let line = files.get(loc.file).line_col(loc.span.start).0;
            let follow = matches!(last_syntax, Some((f, l)) if f == loc.file && line <= l + 1);
            last_syntax = Some((loc.file, line));
            if follow {
                continue;
            }
        } else if d.code > Code::S0004
            && replaced.iter().any(|r| {
                r.file == loc.file && r.span.start <= loc.span.start && loc.span.end <= r.span.end
            })
        {
            continue;
        }
        keep.push(d);
    }
    report.diagnostics = keep;
}

/// Drop the diagnostics `entry` accepts; S0004 when it accepts none.
fn apply_allow(files: &Files, id: diag::FileId, entry: &AllowEntry, report: &mut Report) {
    // The op file, directly in `ops/` or in its class folder.
    let file = format!("/{}.toml", entry.op.get_ref());
    let before = report.diagnostics.len();
    report.diagnostics.retain(|d| {
        let in_op = d.loc.as_ref().is_some_and(|l| {
            let path = &files.get(l.file).path;
            path.ends_with(&file) && path.contains("ops/")
        });
        !(in_op && d.code.as_str() == entry.code.get_ref())
    });
    if report.diagnostics.len() == before {
        report.push(
            Diagnostic::error(
                Code::S0004,
                format!(
                    "nothing to allow: `{}` reports no {} (delete this entry)",
                    entry.op.get_ref(),
                    entry.code.get_ref()
                ),
            )
            .at(diag::Loc {
                file: id,
                span: entry.op.span(),
            }),
        );
    }
}

/// One `[[allow]]` entry of `lint.toml`: a known diagnostic of one op,
/// accepted for the reason given.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AllowEntry {
    code: toml::Spanned<String>,
    op: toml::Spanned<String>,
    #[allow(dead_code)] // Read by people: why the diagnostic is accepted.
    why: String,
}

/// `lint.toml` in the spec directory: `[levels] S1201 = "error"` (or
/// `"warning"`, `"allow"`) overrides a code's level; `[[allow]]` entries
/// accept one code in one op file (`code`, `op`, `why`), and an entry that
/// accepts nothing is an error, so none outlives its defect.
fn apply_levels(files: &Files, id: diag::FileId, report: &mut Report) {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct LintFile {
        #[serde(default)]
        levels: std::collections::BTreeMap<toml::Spanned<String>, toml::Spanned<String>>,
        #[serde(default)]
        allow: Vec<AllowEntry>,
    }
    let Some(cfg) = parse_file::<LintFile>(files, id, report) else {
        return;
    };
    for entry in &cfg.allow {
        apply_allow(files, id, entry, report);
    }
    for (code, level) in &cfg.levels {
        let at = |s: &toml::Spanned<String>| diag::Loc {
            file: id,
            span: s.span(),
        };
        if codes::find(code.get_ref()).is_none() {
            report.push(
                Diagnostic::error(
                    Code::S0004,
                    format!("unknown lint code `{}`", code.get_ref()),
                )
                .at(at(code)),
            );
            continue;
        }
        let new = match level.get_ref().as_str() {
            "error" | "deny" => Some(diag::Level::Error),
            "warning" | "warn" => Some(diag::Level::Warning),
            "allow" => None,
            other => {
                report.push(
                    Diagnostic::error(
                        Code::S0004,
                        format!("unknown level `{other}` (error, warning, allow)"),
                    )
                    .at(at(level)),
                );
                continue;
            }
        };
        report.diagnostics.retain_mut(|d| {
            if d.code.as_str() != code.get_ref() {
                return true;
            }
            match new {
                Some(l) => {
                    d.level = l;
                    true
                }
                None => false,
            }
        });
    }
}
