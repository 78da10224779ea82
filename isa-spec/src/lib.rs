//! The ISA spec: TOML files that describe every opcode once, and the code
//! that loads, resolves and lints them.
//!
//! `load` reads a spec directory (`families.toml`, `enums/*.toml`, `ops/*.toml`)
//! and returns the resolved [`model::Spec`] together with every diagnostic
//! found; nothing here panics on a bad spec.

pub mod codes;
pub mod diag;
mod extend;
pub mod fold_lint;
pub mod lint;
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
    let mut files = Files::default();
    let mut report = Report::default();
    let mut paths = Vec::new();
    let shown = |name: &str| {
        if display_prefix.is_empty() {
            name.to_string()
        } else {
            format!("{display_prefix}/{name}")
        }
    };
    let mut read = |files: &mut Files, report: &mut Report, rel: &str| -> Option<diag::FileId> {
        let p = dir.join(rel);
        paths.push(p.clone());
        match std::fs::read_to_string(&p) {
            Ok(t) => Some(files.add(shown(rel), t)),
            Err(e) => {
                report.push(Diagnostic::error(
                    Code::S0000,
                    format!("cannot read {}: {e}", shown(rel)),
                ));
                None
            }
        }
    };
    let fam_id = read(&mut files, &mut report, "families.toml");
    // Enums live one file each under `enums/` (so parallel edits do not
    // conflict); a single `enums.toml` is still read when present.
    let mut enum_names: Vec<String> = std::fs::read_dir(dir.join("enums"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".toml"))
                .map(|n| format!("enums/{n}"))
                .collect()
        })
        .unwrap_or_default();
    enum_names.sort();
    if dir.join("enums.toml").exists() || enum_names.is_empty() {
        enum_names.insert(0, "enums.toml".to_string());
    }
    let enum_ids: Vec<diag::FileId> = enum_names
        .iter()
        .filter_map(|n| read(&mut files, &mut report, n))
        .collect();
    let mut op_names: Vec<String> = match std::fs::read_dir(dir.join("ops")) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect(),
        Err(e) => {
            report.push(Diagnostic::error(
                Code::S0000,
                format!("cannot read {}: {e}", dir.join("ops").display()),
            ));
            vec![]
        }
    };
    op_names.sort();
    let op_ids: Vec<diag::FileId> = op_names
        .iter()
        .filter_map(|n| read(&mut files, &mut report, &format!("ops/{n}")))
        .collect();

    // Families and their presets.
    let mut families = Vec::new();
    let mut presets = Vec::new();
    if let Some(id) = fam_id {
        let text = files.get(id).text.clone();
        if let Some(ff) = parse_file::<schema::FamiliesFile>(&files, id, &mut report) {
            {
                let mut cx = resolve::Ctx {
                    report: &mut report,
                    file: id,
                    text: &text,
                };
                for (name, def) in &ff.family {
                    if let Some((f, p)) = resolve::resolve_family(&mut cx, name, def) {
                        families.push(f);
                        presets.push(p);
                    }
                }
            }
        }
    }
    let mut enums: Vec<model::Enum> = Vec::new();
    for id in enum_ids {
        let text = files.get(id).text.clone();
        if let Some(ef) = parse_file::<schema::EnumsFile>(&files, id, &mut report) {
            {
                let mut cx = resolve::Ctx {
                    report: &mut report,
                    file: id,
                    text: &text,
                };
                for (name, def) in &ef.enums {
                    enums.push(resolve::resolve_enum(&mut cx, name, def));
                }
            }
        }
    }
    for (i, a) in enums.iter().enumerate() {
        if let Some(b) = enums[..i].iter().find(|b| b.name == a.name) {
            report.push(
                Diagnostic::error(Code::S0105, format!("enum `{}` is defined twice", a.name))
                    .at(a.loc.clone())
                    .also(b.loc.clone(), "first defined here"),
            );
        }
    }
    // Ops: parse all, resolve all, then cross-op references.
    let mut parsed = Vec::new();
    for &id in &op_ids {
        if let Some(of) = parse_file::<toml::Spanned<schema::OpFile>>(&files, id, &mut report) {
            parsed.push((id, of));
        }
    }
    let names = resolve::Names {
        families: &families,
        presets: &presets,
        enums: &enums,
    };
    let mut ops = Vec::new();
    let mut legal = Vec::new();
    for (id, of) in &parsed {
        let text = files.get(*id).text.clone();
        let path = files.get(*id).path.clone();
        let mut cx = resolve::Ctx {
            report: &mut report,
            file: *id,
            text: &text,
        };
        if let Some((op, _)) = resolve::resolve_op(&mut cx, &path, of, &names) {
            ops.push(op);
            legal.push((*id, of.get_ref().legalize.as_ref()));
        }
    }
    let all_names: Vec<String> = ops.iter().map(|o| o.name.clone()).collect();
    for (op, (id, l)) in ops.iter_mut().zip(legal) {
        if let Some(l) = l {
            let text = files.get(id).text.clone();
            let mut cx = resolve::Ctx {
                report: &mut report,
                file: id,
                text: &text,
            };
            resolve::resolve_legalize(&mut cx, op, l, &all_names);
        }
    }
    // Duplicate op names.
    for (i, a) in ops.iter().enumerate() {
        if let Some(b) = ops[..i].iter().find(|b| b.name == a.name) {
            report.push(
                Diagnostic::error(Code::S0105, format!("op `{}` is defined twice", a.name))
                    .at(a.loc.clone())
                    .also(b.loc.clone(), "first defined here"),
            );
        }
    }
    ops.sort_by(|a, b| a.name.cmp(&b.name));
    // `wide_imm` was resolved against the unsorted list: re-point it.
    let sorted: Vec<String> = ops.iter().map(|o| o.name.clone()).collect();
    for op in &mut ops {
        if let Some(w) = op.legalize.wide_imm {
            op.legalize.wide_imm = sorted.iter().position(|n| *n == all_names[w]);
        }
    }
    let spec = model::Spec {
        files: files.clone(),
        families,
        enums,
        ops,
    };
    lint::run(&spec, &mut report);
    tidy(&files, &mut report);
    for d in &mut report.diagnostics {
        d.level = d.code.info().level;
    }
    if let Ok(text) = std::fs::read_to_string(dir.join("lint.toml")) {
        let id = files.add(shown("lint.toml"), text);
        paths.push(dir.join("lint.toml"));
        apply_levels(&files, id, &mut report);
    }
    report.sort();
    let spec = model::Spec {
        files: files.clone(),
        ..spec
    };
    Loaded {
        spec: Some(spec),
        files,
        report,
        paths,
    }
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
    let file = format!("/ops/{}.toml", entry.op.get_ref());
    let before = report.diagnostics.len();
    report.diagnostics.retain(|d| {
        let in_op = d
            .loc
            .as_ref()
            .is_some_and(|l| files.get(l.file).path.ends_with(&file));
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
