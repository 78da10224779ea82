//! One diagnostic model for every problem found in a spec, and the line/column
//! arithmetic that every output format shares.

use crate::codes::Code;
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
    pub code: Code,
    pub level: Level,
    pub message: String,
    pub loc: Option<Loc>,
    /// Label under the primary span.
    pub label: Option<String>,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: Code, message: impl Into<String>) -> Self {
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
    pub fn warning(code: Code, message: impl Into<String>) -> Self {
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

    /// A rustc-like report (annotate-snippets): the source line, a caret
    /// under the span with its label, secondary spans, and a help line.
    /// Plain text, for files and CI logs.
    pub fn human(&self, files: &Files) -> String {
        self.human_styled(files, false)
    }

    /// [`Self::human`], with ANSI colour when `color` (a terminal).
    pub fn human_styled(&self, files: &Files, color: bool) -> String {
        use annotate_snippets::{AnnotationKind, Group, Level as L, Renderer, Snippet};
        let level = match self.level {
            Level::Error => L::ERROR,
            Level::Warning => L::WARNING,
        };
        let mut group =
            Group::with_title(level.primary_title(&self.message).id(self.code.as_str()));
        // One snippet per file, the primary span first.
        let mut spans: Vec<(&Loc, &str, bool)> = Vec::new();
        if let Some(loc) = &self.loc {
            spans.push((loc, self.label.as_deref().unwrap_or(""), true));
        }
        for s in &self.secondary {
            spans.push((&s.loc, &s.message, false));
        }
        let mut order: Vec<FileId> = Vec::new();
        for (loc, _, _) in &spans {
            if !order.contains(&loc.file) && loc.file < files.files.len() {
                order.push(loc.file);
            }
        }
        for file in order {
            let f = files.get(file);
            let mut snippet = Snippet::source(f.text.as_str()).path(f.path.as_str());
            for (loc, label, primary) in spans.iter().filter(|(l, _, _)| l.file == file) {
                let kind = if *primary {
                    AnnotationKind::Primary
                } else {
                    AnnotationKind::Context
                };
                let ann = kind.span(f.clamp(&loc.span));
                snippet = snippet.annotation(if label.is_empty() {
                    ann
                } else {
                    ann.label(*label)
                });
            }
            group = group.element(snippet);
        }
        if let Some(h) = &self.help {
            group = group.element(L::HELP.message(h.as_str()));
        }
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let mut out = renderer.render(&[group]);
        out.push('\n');
        out
    }
}

impl SourceFile {
    /// `span` inside the text and on character boundaries, so a stray
    /// span can never make the renderer slice mid-character.
    fn clamp(&self, span: &Range<usize>) -> Range<usize> {
        let fix = |mut i: usize| {
            i = i.min(self.text.len());
            while !self.text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let start = fix(span.start);
        start..fix(span.end).max(start)
    }
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
