//! One diagnostic model for every problem found in a spec, and the line/column
//! arithmetic that every output format shares.

use std::fmt::Write as _;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// A source file of the spec, kept so spans can be turned into lines.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as shown to the user (relative to the workspace when possible).
    pub path: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: String, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceFile {
            path,
            text,
            line_starts,
        }
    }

    /// 1-based line and 1-based column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count());
        (line + 1, col + 1)
    }
}

/// Index of a file in [`Files`].
pub type FileId = usize;

#[derive(Clone, Debug, Default)]
pub struct Files {
    pub files: Vec<SourceFile>,
}

impl Files {
    pub fn add(&mut self, path: String, text: String) -> FileId {
        self.files.push(SourceFile::new(path, text));
        self.files.len() - 1
    }
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id]
    }
}

/// A place in a spec file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: FileId,
    pub span: Range<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub loc: Loc,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Stable code, e.g. `S0001`.
    pub code: &'static str,
    pub level: Level,
    pub message: String,
    pub loc: Option<Loc>,
    /// Label under the primary span.
    pub label: Option<String>,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            level: Level::Error,
            message: message.into(),
            loc: None,
            label: None,
            secondary: Vec::new(),
            help: None,
        }
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            level: Level::Warning,
            ..Self::error(code, message)
        }
    }
    pub fn at(mut self, loc: Loc) -> Self {
        self.loc = Some(loc);
        self
    }
    pub fn at_opt(mut self, loc: Option<Loc>) -> Self {
        self.loc = loc;
        self
    }
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    pub fn also(mut self, loc: Loc, message: impl Into<String>) -> Self {
        self.secondary.push(Label {
            loc,
            message: message.into(),
        });
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// `path:line:col: error[CODE]: message`
    pub fn short(&self, files: &Files) -> String {
        match &self.loc {
            Some(loc) => {
                let f = files.get(loc.file);
                let (l, c) = f.line_col(loc.span.start);
                format!(
                    "{}:{}:{}: {}[{}]: {}",
                    f.path,
                    l,
                    c,
                    self.level.as_str(),
                    self.code,
                    self.message
                )
            }
            None => format!("{}[{}]: {}", self.level.as_str(), self.code, self.message),
        }
    }

    /// A rustc-like report: the source line with a caret under the span.
    pub fn human(&self, files: &Files) -> String {
        self.human_styled(files, false)
    }

    /// [`Self::human`], with ANSI colour on the header when `color`.
    pub fn human_styled(&self, files: &Files, color: bool) -> String {
        let head = format!("{}[{}]", self.level.as_str(), self.code);
        let head = match (color, self.level) {
            (false, _) => head,
            (true, Level::Error) => format!("\x1b[1;31m{head}\x1b[0m\x1b[1m"),
            (true, Level::Warning) => format!("\x1b[1;33m{head}\x1b[0m\x1b[1m"),
        };
        let reset = if color { "\x1b[0m" } else { "" };
        let mut out = format!("{head}: {}{reset}\n", self.message);
        if let Some(loc) = &self.loc {
            render_snippet(&mut out, files, loc, self.label.as_deref().unwrap_or(""));
        }
        for s in &self.secondary {
            render_snippet(&mut out, files, &s.loc, &s.message);
        }
        if let Some(h) = &self.help {
            let _ = writeln!(out, "  = help: {h}");
        }
        out
    }
}

fn render_snippet(out: &mut String, files: &Files, loc: &Loc, label: &str) {
    let f = files.get(loc.file);
    let (line, col) = f.line_col(loc.span.start);
    let (end_line, end_col) = f.line_col(loc.span.end.max(loc.span.start));
    let text = f.text.lines().nth(line - 1).unwrap_or("");
    let width = line.to_string().len();
    let _ = writeln!(out, "{:width$}--> {}:{}:{}", "", f.path, line, col);
    let _ = writeln!(out, "{:width$} |", "");
    let _ = writeln!(out, "{line} | {text}");
    let carets = if end_line == line {
        (end_col.saturating_sub(col)).max(1)
    } else {
        text.chars().count().saturating_sub(col - 1).max(1)
    };
    let _ = writeln!(
        out,
        "{:width$} | {}{} {}",
        "",
        " ".repeat(col - 1),
        "^".repeat(carets),
        label
    );
}

/// Everything a load or lint found, with the files needed to show it.
#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn push(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.level == Level::Error)
    }
    /// Sort by file and position so output is stable.
    pub fn sort(&mut self) {
        let key = |d: &Diagnostic| {
            let (f, s, e) = d
                .loc
                .as_ref()
                .map_or((usize::MAX, 0, 0), |l| (l.file, l.span.start, l.span.end));
            (f, s, e, d.code, d.message.clone())
        };
        self.diagnostics.sort_by_key(key);
        self.diagnostics.dedup();
    }
}
