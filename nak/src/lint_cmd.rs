//! `nak lint`: the spec lint, with the output formats CI and editors read.

use isa_spec::diag::{Diagnostic, Files, Level};
use std::path::Path;
use std::process::ExitCode;

fn json_escape(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn json(d: &Diagnostic, files: &Files) -> String {
    let (file, line, col, start, end) = match &d.loc {
        Some(l) => {
            let f = files.get(l.file);
            let (line, col) = f.line_col(l.span.start);
            (f.path.clone(), line, col, l.span.start, l.span.end)
        }
        None => (String::new(), 0, 0, 0, 0),
    };
    format!(
        "{{\"code\":{},\"level\":{},\"message\":{},\"file\":{},\"line\":{line},\"column\":{col},\"byte_start\":{start},\"byte_end\":{end},\"help\":{}}}",
        json_escape(d.code),
        json_escape(d.level.as_str()),
        json_escape(&d.message),
        json_escape(&file),
        d.help.as_deref().map_or("null".to_string(), json_escape)
    )
}

fn github(d: &Diagnostic, files: &Files) -> String {
    let esc = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let prop = |s: &str| esc(s).replace(':', "%3A").replace(',', "%2C");
    let kind = if d.level == Level::Error {
        "error"
    } else {
        "warning"
    };
    match &d.loc {
        Some(l) => {
            let f = files.get(l.file);
            let (line, col) = f.line_col(l.span.start);
            format!(
                "::{kind} file={},line={line},col={col},title={}::{}",
                prop(&f.path),
                prop(d.code),
                esc(&d.message)
            )
        }
        None => format!("::{kind} title={}::{}", prop(d.code), esc(&d.message)),
    }
}

/// Run the lint; exit 0 clean, 1 on errors (or warnings when denied), 2
/// when the spec cannot be read.
pub fn run(dir: Option<&Path>, format: &str, deny_warnings: bool) -> ExitCode {
    let default = isa_spec::default_spec_dir();
    let dir = dir.unwrap_or(&default);
    if !dir.join("families.toml").exists() {
        eprintln!(
            "error: {} is not a spec directory (no families.toml)",
            dir.display()
        );
        return ExitCode::from(2);
    }
    let shown = if dir == default {
        "isa-spec/spec".to_string()
    } else {
        dir.display().to_string()
    };
    let loaded = isa_spec::load(dir, &shown);
    if loaded.report.diagnostics.iter().any(|d| d.code == "S0000") {
        for d in &loaded.report.diagnostics {
            eprintln!("{}", d.short(&loaded.files));
        }
        return ExitCode::from(2);
    }
    let files = &loaded.files;
    let color = {
        use std::io::IsTerminal;
        std::env::var_os("NO_COLOR").is_none()
            && (std::env::var_os("CLICOLOR_FORCE").is_some() || std::io::stdout().is_terminal())
    };
    for d in &loaded.report.diagnostics {
        let text = match format {
            "short" => d.short(files),
            "json" => json(d, files),
            "github" => github(d, files),
            _ => d.human_styled(files, color),
        };
        println!("{text}");
    }
    let errors = loaded
        .report
        .diagnostics
        .iter()
        .filter(|d| d.level == Level::Error)
        .count();
    let warnings = loaded.report.diagnostics.len() - errors;
    if format != "json" {
        eprintln!(
            "lint: {} op(s), {errors} error(s), {warnings} warning(s)",
            loaded.spec.as_ref().map_or(0, |s| s.ops.len())
        );
    }
    if errors > 0 || deny_warnings && warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
