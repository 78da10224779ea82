//! The steps of [`crate::load`]: read the spec's files, resolve families,
//! enums and ops in that order (each may name the ones before it), then
//! lint the whole and apply `lint.toml`'s levels.

use crate::codes::Code;
use crate::diag::{self, Diagnostic, Files, Report};
use crate::{Loaded, apply_levels, lint, model, parse_file, resolve, schema, tidy};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A family's presets by name.
type Presets = BTreeMap<String, resolve::ResolvedPreset>;

/// The state of one load: what has been read and reported so far.
pub(crate) struct Loader<'a> {
    dir: &'a Path,
    display_prefix: &'a str,
    pub(crate) files: Files,
    report: Report,
    paths: Vec<PathBuf>,
}

impl<'a> Loader<'a> {
    pub(crate) fn new(dir: &'a Path, display_prefix: &'a str) -> Self {
        Loader {
            dir,
            display_prefix,
            files: Files::default(),
            report: Report::default(),
            paths: Vec::new(),
        }
    }

    /// A spec-relative path as diagnostics show it.
    fn shown(&self, rel: &str) -> String {
        if self.display_prefix.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.display_prefix)
        }
    }

    /// Read one spec file, or report why it cannot be read.
    pub(crate) fn read(&mut self, rel: &str) -> Option<diag::FileId> {
        let p = self.dir.join(rel);
        self.paths.push(p.clone());
        match std::fs::read_to_string(&p) {
            Ok(t) => Some(self.files.add(self.shown(rel), t)),
            Err(e) => {
                let msg = format!("cannot read {}: {e}", self.shown(rel));
                self.report.push(Diagnostic::error(Code::S0000, msg));
                None
            }
        }
    }

    /// The `.toml` file names in a spec folder, sorted.
    fn toml_names(&mut self, folder: &str, required: bool) -> Vec<String> {
        let mut names: Vec<String> = match std::fs::read_dir(self.dir.join(folder)) {
            Ok(rd) => rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".toml"))
                .collect(),
            Err(e) if required => {
                let msg = format!("cannot read {}: {e}", self.dir.join(folder).display());
                self.report.push(Diagnostic::error(Code::S0000, msg));
                vec![]
            }
            Err(_) => vec![],
        };
        names.sort();
        names
    }

    /// Enums live one file each under `enums/` (so parallel edits do not
    /// conflict); a single `enums.toml` is still read when present.
    pub(crate) fn enum_file_names(&mut self) -> Vec<String> {
        let mut names: Vec<String> = self
            .toml_names("enums", false)
            .into_iter()
            .map(|n| format!("enums/{n}"))
            .collect();
        if self.dir.join("enums.toml").exists() || names.is_empty() {
            names.insert(0, "enums.toml".to_string());
        }
        names
    }

    /// The op files under `ops/` and its class folders (`ops/alu/` ...),
    /// relative to `ops/`, sorted by file name.
    pub(crate) fn op_file_names(&mut self) -> Vec<String> {
        let mut names = self.toml_names("ops", true);
        let folders = std::fs::read_dir(self.dir.join("ops"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned());
        for folder in folders.collect::<Vec<_>>() {
            let inner = self.toml_names(&format!("ops/{folder}"), true);
            names.extend(inner.into_iter().map(|n| format!("{folder}/{n}")));
        }
        names.sort_by(|a, b| {
            a.rsplit('/')
                .next()
                .cmp(&b.rsplit('/').next())
                .then(a.cmp(b))
        });
        names
    }

    /// A resolution context for `file`.
    fn cx<'r>(report: &'r mut Report, file: diag::FileId, text: &'r str) -> resolve::Ctx<'r> {
        resolve::Ctx { report, file, text }
    }

    /// The families of `families.toml` and their presets.
    pub(crate) fn families(&mut self, id: diag::FileId) -> (Vec<model::Family>, Vec<Presets>) {
        let (mut families, mut presets) = (Vec::new(), Vec::new());
        let text = self.files.get(id).text.clone();
        let Some(ff) = parse_file::<schema::FamiliesFile>(&self.files, id, &mut self.report) else {
            return (families, presets);
        };
        let mut cx = Self::cx(&mut self.report, id, &text);
        for (name, def) in &ff.family {
            if let Some((f, p)) = resolve::resolve_family(&mut cx, name, def) {
                families.push(f);
                presets.push(p);
            }
        }
        (families, presets)
    }

    /// Every enum of the enum files; a name defined twice is an error.
    pub(crate) fn enums(&mut self, ids: &[diag::FileId]) -> Vec<model::Enum> {
        let mut enums: Vec<model::Enum> = Vec::new();
        for &id in ids {
            let text = self.files.get(id).text.clone();
            let Some(ef) = parse_file::<schema::EnumsFile>(&self.files, id, &mut self.report)
            else {
                continue;
            };
            let mut cx = Self::cx(&mut self.report, id, &text);
            for (name, def) in &ef.enums {
                enums.push(resolve::resolve_enum(&mut cx, name, def));
            }
        }
        self.defined_twice("enum", enums.iter().map(|e| (&e.name, &e.loc)));
        enums
    }

    /// Report a `what` whose name an earlier one already has.
    fn defined_twice<'n>(
        &mut self,
        what: &str,
        items: impl Iterator<Item = (&'n String, &'n diag::Loc)>,
    ) {
        let items: Vec<_> = items.collect();
        for (i, (name, loc)) in items.iter().enumerate() {
            if let Some((_, first)) = items[..i].iter().find(|(n, _)| n == name) {
                self.report.push(
                    Diagnostic::error(Code::S0105, format!("{what} `{name}` is defined twice"))
                        .at((*loc).clone())
                        .also((*first).clone(), "first defined here"),
                );
            }
        }
    }

    /// Every op, sorted by name: parse all, resolve all, then the
    /// `[legalize]` tables, which may name other ops.
    pub(crate) fn ops(&mut self, ids: &[diag::FileId], names: &resolve::Names) -> Vec<model::Op> {
        let mut parsed = Vec::new();
        for &id in ids {
            let of = parse_file::<toml::Spanned<schema::OpFile>>(&self.files, id, &mut self.report);
            parsed.extend(of.map(|of| (id, of)));
        }
        let mut ops = Vec::new();
        let mut legal = Vec::new();
        for (id, of) in &parsed {
            let (text, path) = (
                self.files.get(*id).text.clone(),
                self.files.get(*id).path.clone(),
            );
            let mut cx = Self::cx(&mut self.report, *id, &text);
            if let Some((op, _)) = resolve::resolve_op(&mut cx, &path, of, names) {
                ops.push(op);
                legal.push((*id, of.get_ref().legalize.as_ref()));
            }
        }
        let all_names: Vec<String> = ops.iter().map(|o| o.name.clone()).collect();
        for (op, (id, l)) in ops.iter_mut().zip(legal) {
            let Some(l) = l else { continue };
            let text = self.files.get(id).text.clone();
            let mut cx = Self::cx(&mut self.report, id, &text);
            resolve::resolve_legalize(&mut cx, op, l, &all_names);
        }
        self.defined_twice("op", ops.iter().map(|o| (&o.name, &o.loc)));
        sort_ops(&mut ops, &all_names);
        ops
    }

    /// Lint the resolved spec, drop follow-on noise, apply `lint.toml`'s
    /// levels and hand everything back.
    pub(crate) fn lint(mut self, spec: model::Spec) -> Loaded {
        lint::run(&spec, &mut self.report);
        tidy(&self.files, &mut self.report);
        for d in &mut self.report.diagnostics {
            d.level = d.code.info().level;
        }
        if let Ok(text) = std::fs::read_to_string(self.dir.join("lint.toml")) {
            let id = self.files.add(self.shown("lint.toml"), text);
            self.paths.push(self.dir.join("lint.toml"));
            apply_levels(&self.files, id, &mut self.report);
        }
        self.report.sort();
        let spec = model::Spec {
            files: self.files.clone(),
            ..spec
        };
        Loaded {
            spec: Some(spec),
            files: self.files,
            report: self.report,
            paths: self.paths,
        }
    }
}

/// Sort ops by name; `wide_imm` (an op index, resolved against the
/// unsorted list `unsorted`) is re-pointed.
fn sort_ops(ops: &mut [model::Op], unsorted: &[String]) {
    ops.sort_by(|a, b| a.name.cmp(&b.name));
    let sorted: Vec<String> = ops.iter().map(|o| o.name.clone()).collect();
    for op in ops.iter_mut() {
        if let Some(w) = op.legalize.wide_imm {
            op.legalize.wide_imm = sorted.iter().position(|n| *n == unsorted[w]);
        }
    }
}
