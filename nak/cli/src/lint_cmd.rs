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
        json_escape(d.code.as_str()),
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
                prop(d.code.as_str()),
                esc(&d.message)
            )
        }
        None => format!(
            "::{kind} title={}::{}",
            prop(d.code.as_str()),
            esc(&d.message)
        ),
    }
}

/// Whether the human format is coloured: `always`/`never` as given; `auto`
/// only on a terminal, never with `NO_COLOR`, always with `CLICOLOR_FORCE`
/// (so files and CI logs stay plain unless forced).
pub fn use_color(choice: &str, no_color: bool, force: bool, terminal: bool) -> bool {
    match choice {
        "always" => true,
        "never" => false,
        _ => !no_color && (force || terminal),
    }
}

/// Run the lint; exit 0 clean, 1 on errors (or warnings when denied), 2
/// when the spec cannot be read or an option is wrong.
pub fn run(dir: Option<&Path>, format: &str, deny_warnings: bool, color: &str) -> ExitCode {
    if !["human", "short", "json", "github"].contains(&format) {
        eprintln!("error: unknown format `{format}` (human, short, json, github)");
        return ExitCode::from(2);
    }
    if !["auto", "always", "never"].contains(&color) {
        eprintln!("error: unknown colour choice `{color}` (auto, always, never)");
        return ExitCode::from(2);
    }
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
    if loaded
        .report
        .diagnostics
        .iter()
        .any(|d| d.code == isa_spec::codes::Code::S0000)
    {
        for d in &loaded.report.diagnostics {
            eprintln!("{}", d.short(&loaded.files));
        }
        return ExitCode::from(2);
    }
    let files = &loaded.files;
    let color = {
        use std::io::IsTerminal;
        let set = |v: &str| std::env::var_os(v).is_some_and(|v| !v.is_empty() && v != "0");
        use_color(
            color,
            set("NO_COLOR"),
            set("CLICOLOR_FORCE"),
            std::io::stdout().is_terminal(),
        )
    };
    for d in &loaded.report.diagnostics {
        let text = match format {
            "short" => d.short(files),
            "json" => json(d, files),
            "github" => github(d, files),
            _ => d.human_styled(files, color),
        };
        crate::outln!("{text}");
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

#[cfg(test)]
mod tests {
    use super::use_color;

    #[test]
    fn colour_only_on_a_terminal_unless_forced() {
        assert!(use_color("auto", false, false, true));
        assert!(!use_color("auto", false, false, false), "files and CI logs");
        assert!(!use_color("auto", true, false, true), "NO_COLOR");
        assert!(use_color("auto", false, true, false), "CLICOLOR_FORCE");
        assert!(use_color("always", true, false, false));
        assert!(!use_color("never", false, true, true));
    }
}
