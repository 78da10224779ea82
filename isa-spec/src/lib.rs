//! The ISA spec: TOML files that describe every opcode once, and the code
//! that loads, resolves and lints them.
//!
//! `load` reads a spec directory (`families.toml`, `enums.toml`, `ops/*.toml`)
//! and returns the resolved [`model::Spec`] together with every diagnostic
//! found; nothing here panics on a bad spec.

pub mod diag;
pub mod lint;
pub mod model;
mod resolve;
pub mod schema;

pub use resolve::{parse_bits, parse_sms};

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

fn toml_error(files: &Files, file: diag::FileId, e: &toml::de::Error) -> Diagnostic {
    let d = Diagnostic::error("S0001", e.message().trim().to_string());
    match e.span() {
        Some(span) => d.at(diag::Loc { file, span }),
        None => {
            let _ = files;
            d.at(diag::Loc { file, span: 0..0 })
        }
    }
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
                    "S0000",
                    format!("cannot read {}: {e}", p.display()),
                ));
                None
            }
        }
    };
    let fam_id = read(&mut files, &mut report, "families.toml");
    let enum_id = read(&mut files, &mut report, "enums.toml");
    let mut op_names: Vec<String> = match std::fs::read_dir(dir.join("ops")) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect(),
        Err(e) => {
            report.push(Diagnostic::error(
                "S0000",
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
        match toml::from_str::<schema::FamiliesFile>(&text) {
            Ok(ff) => {
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
            Err(e) => report.push(toml_error(&files, id, &e)),
        }
    }
    let mut enums = Vec::new();
    if let Some(id) = enum_id {
        let text = files.get(id).text.clone();
        match toml::from_str::<schema::EnumsFile>(&text) {
            Ok(ef) => {
                let mut cx = resolve::Ctx {
                    report: &mut report,
                    file: id,
                    text: &text,
                };
                for (name, def) in &ef.enums {
                    enums.push(resolve::resolve_enum(&mut cx, name, def));
                }
            }
            Err(e) => report.push(toml_error(&files, id, &e)),
        }
    }
    // Ops: parse all, resolve all, then cross-op references.
    let mut parsed = Vec::new();
    for &id in &op_ids {
        let text = files.get(id).text.clone();
        match toml::from_str::<toml::Spanned<schema::OpFile>>(&text) {
            Ok(of) => parsed.push((id, of)),
            Err(e) => report.push(toml_error(&files, id, &e)),
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
                Diagnostic::error("S0105", format!("op `{}` is defined twice", a.name))
                    .at(a.loc.clone())
                    .also(b.loc.clone(), "first defined here"),
            );
        }
    }
    ops.sort_by(|a, b| a.name.cmp(&b.name));
    let spec = model::Spec {
        files: files.clone(),
        families,
        enums,
        ops,
    };
    lint::run(&spec, &mut report);
    report.sort();
    Loaded {
        spec: Some(spec),
        files,
        report,
        paths,
    }
}
