//! The build script's work as a library function, so it can be tested on a
//! broken spec without running cargo: lint the spec, then generate the code
//! into `out_dir`. A spec error becomes the lint's diagnostics (never a
//! panic); `nak/build.rs` prints the result and exits.

use std::path::{Path, PathBuf};

/// What the build script prints.
#[derive(Debug, Default)]
pub struct BuildOutput {
    /// `cargo::` directives, for stdout.
    pub cargo: Vec<String>,
    /// The human report of every diagnostic, for stderr.
    pub report: String,
}

impl BuildOutput {
    fn error(&mut self, short: String) {
        self.cargo.push(format!("cargo::error={short}"));
    }
}

/// Lint the spec in `spec_dir` (shown as `shown` in diagnostics) and write
/// the generated files to `out_dir`. `Err` carries the output that explains
/// the failure (`cargo::error=path:line:col: ...` lines and the report).
pub fn run(spec_dir: &Path, shown: &str, out_dir: &Path) -> Result<BuildOutput, BuildOutput> {
    let mut out = BuildOutput::default();
    out.cargo
        .push(format!("cargo::rerun-if-changed={}", spec_dir.display()));
    let loaded = isa_spec::load(spec_dir, shown);
    for p in &loaded.paths {
        out.cargo
            .push(format!("cargo::rerun-if-changed={}", p.display()));
    }
    let mut failed = false;
    for d in &loaded.report.diagnostics {
        out.report.push_str(&d.human(&loaded.files));
        let short = d.short(&loaded.files);
        match d.level {
            isa_spec::diag::Level::Error => {
                out.error(short);
                failed = true;
            }
            isa_spec::diag::Level::Warning => out.cargo.push(format!("cargo::warning={short}")),
        }
    }
    let spec = match loaded.spec {
        Some(spec) if !failed => spec,
        _ => {
            if !failed {
                out.error(format!(
                    "the spec in {} cannot be loaded",
                    spec_dir.display()
                ));
            }
            return Err(out);
        }
    };
    // `#[cfg(nak_op = "shf")]` gates backend code on ops the spec has. The
    // allowed values are the spec's ops, so a mistyped name is an
    // `unexpected_cfgs` warning rather than code that silently never builds.
    out.cargo.push(check_cfg_nak_op(&spec));
    for op in &spec.ops {
        out.cargo
            .push(format!("cargo::rustc-cfg=nak_op=\"{}\"", op.name));
    }
    match crate::generate_compact(&spec) {
        Ok(files) => {
            for f in files {
                if let Err(e) = write_if_changed(&out_dir.join(&f.name), &f.contents) {
                    out.error(format!("cannot write {}: {e}", f.name));
                    return Err(out);
                }
            }
            Ok(out)
        }
        Err(e) => {
            let at = e
                .loc
                .as_ref()
                .filter(|l| l.file < loaded.files.files.len())
                .map(|l| {
                    let f = loaded.files.get(l.file);
                    let (line, col) = f.line_col(l.span.start);
                    format!("{}:{line}:{col}: ", f.path)
                })
                .unwrap_or_default();
            out.error(format!("{at}{}", e.message));
            Err(out)
        }
    }
}

/// `cargo::rustc-check-cfg=cfg(nak_op, values("bra", ...))`: every op name.
fn check_cfg_nak_op(spec: &isa_spec::model::Spec) -> String {
    let names: Vec<String> = spec.ops.iter().map(|op| format!("{:?}", op.name)).collect();
    format!(
        "cargo::rustc-check-cfg=cfg(nak_op, values({}))",
        names.join(", ")
    )
}

/// The spec directory the build reads: `$NAK_SPEC_DIR` when set (to try a
/// spec elsewhere), else `isa-spec/spec` next to `manifest_dir`; with the
/// name diagnostics show for it.
pub fn spec_dir(manifest_dir: &Path, env: Option<std::ffi::OsString>) -> (PathBuf, String) {
    match env.filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            let shown = dir.display().to_string();
            (dir, shown)
        }
        None => (
            manifest_dir.join("../isa-spec/spec"),
            "isa-spec/spec".to_string(),
        ),
    }
}

fn write_if_changed(path: &Path, contents: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    std::fs::write(path, contents)
}
