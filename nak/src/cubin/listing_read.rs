//! Reading a cubin's listing back (what `nak dis FILE.cubin` and
//! `nvdisasm -c -hex` print), for `nak asm --cubin`: its code sections,
//! their `/*ADDR*/ [CTRL] TEXT ;` instruction lines and where its labels
//! stand. Hex comments, directives and other comments are skipped: the
//! text is what counts, so an edit needs no new hex.

use crate::dis::listing::AsmFileError;
use crate::isa::Family;
use crate::runtime::control;

/// One code section of a listing.
pub struct ListedSection {
    /// `.text.NAME`, and the 1-based line that opens it.
    pub name: String,
    pub line: usize,
    pub instrs: Vec<ListedInstr>,
    /// Each label with the index of the instruction it stands before
    /// (`instrs.len()`: the section's end).
    pub labels: Vec<(String, usize)>,
}

/// One instruction line.
pub struct ListedInstr {
    /// 1-based line, the address the line gives, and the 1-based column
    /// where `text` starts.
    pub line: usize,
    pub addr: u64,
    pub col: usize,
    /// A `[B------:R-:W-:Y:S04]` field before the text (see
    /// `control::ctrl_text`), parsed.
    pub ctrl: Option<u32>,
    /// The instruction as written: without the dual-issue braces, the
    /// `(*"BRANCH_TARGETS ..."*)` note and the closing `;`.
    pub text: String,
}

impl ListedInstr {
    /// The text with blank runs collapsed, for comparing two listings.
    pub fn norm(&self) -> String {
        self.text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// The code sections of `text`, or an error for each line that cannot be
/// read (an instruction outside a code section, a bad address or control
/// field).
pub fn read(family: Family, text: &str) -> Result<Vec<ListedSection>, Vec<AsmFileError>> {
    let mut sections: Vec<ListedSection> = Vec::new();
    let mut errors = Vec::new();
    // Whether the current `.section` is a code section.
    let mut in_code = false;
    for (n, raw) in text.lines().enumerate() {
        let ln = n + 1;
        let t = raw.trim();
        if let Some(rest) = t.strip_prefix(".section")
            && rest.starts_with(char::is_whitespace)
        {
            let name = rest.trim().split(',').next().unwrap_or("").trim();
            in_code = name.starts_with(".text.");
            if in_code {
                sections.push(ListedSection {
                    name: name.to_string(),
                    line: ln,
                    instrs: Vec::new(),
                    labels: Vec::new(),
                });
            }
            continue;
        }
        if let Some(name) = t.strip_suffix(':')
            && !name.is_empty()
            && !name.contains(char::is_whitespace)
        {
            let current = sections.last().filter(|_| in_code);
            if name.starts_with(".text.") && current.is_none_or(|s| s.name != name) {
                // A listing without `.section` lines opens sections by label.
                in_code = true;
                sections.push(ListedSection {
                    name: name.to_string(),
                    line: ln,
                    instrs: Vec::new(),
                    labels: Vec::new(),
                });
            } else if in_code && let Some(s) = sections.last_mut() {
                s.labels.push((name.to_string(), s.instrs.len()));
            }
            continue;
        }
        let Some((addr, body, at)) = instr_line(raw) else {
            continue;
        };
        let fail = |col: usize, message: String| AsmFileError {
            line: ln,
            col,
            message,
        };
        let Some(s) = sections.last_mut().filter(|_| in_code) else {
            errors.push(fail(
                1,
                "an instruction outside a code section (no `.section .text.NAME` before it)".into(),
            ));
            continue;
        };
        match instr_parts(family, body) {
            Ok((ctrl, start, text)) => s.instrs.push(ListedInstr {
                line: ln,
                addr,
                col: at + start + 1,
                ctrl,
                text,
            }),
            Err((col, m)) => errors.push(fail(at + col + 1, m)),
        }
    }
    if errors.is_empty() {
        Ok(sections)
    } else {
        Err(errors)
    }
}

/// `/*ADDR*/ BODY`: the address, the body and the body's byte offset in
/// the line. A line of hex only (`/* 0x... */`) is no instruction.
fn instr_line(raw: &str) -> Option<(u64, &str, usize)> {
    let lead = raw.len() - raw.trim_start().len();
    let rest = raw[lead..].strip_prefix("/*")?;
    let (hex, body) = rest.split_once("*/")?;
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let addr = u64::from_str_radix(hex, 16).ok()?;
    Some((addr, body, lead + 2 + hex.len() + 2))
}

/// The control field, the text's offset in `body` and the text of an
/// instruction line's body. Errors carry a 0-based column in `body`.
fn instr_parts(
    family: Family,
    body: &str,
) -> Result<(Option<u32>, usize, String), (usize, String)> {
    // The hex comment.
    let mut end = body.len();
    if let Some(i) = body.rfind("/* 0x")
        && body.trim_end().ends_with("*/")
    {
        end = i;
    }
    let mut start = 0;
    let skip_blanks = |start: &mut usize| {
        let b = &body[*start..end];
        *start += b.len() - b.trim_start().len();
    };
    let mut ctrl = None;
    for _ in 0..2 {
        skip_blanks(&mut start);
        let b = &body[start..end];
        if let Some(r) = b.strip_prefix('{') {
            start = end - r.len();
        } else if b.starts_with('[') && ctrl.is_none() {
            let (v, n) = control::parse_ctrl_text(family, b).map_err(|m| (start, m))?;
            ctrl = Some(v);
            start += n;
        }
    }
    skip_blanks(&mut start);
    let mut text = body[start..end].trim_end();
    // A note nvdisasm adds, then the `;` or `}` that closes the line.
    text = text
        .strip_suffix(';')
        .or_else(|| text.strip_suffix('}'))
        .unwrap_or(text)
        .trim_end();
    let mut text = text.to_string();
    if let Some(i) = text.find("(*\"")
        && let Some(j) = text[i..].find("\"*)")
    {
        text.replace_range(i..i + j + 3, "");
    }
    let text = text.trim_end().to_string();
    if text.is_empty() {
        return Err((start, "an instruction line without an instruction".into()));
    }
    Ok((ctrl, start, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sections_labels_and_lines() {
        let family = crate::isa::family_of(90).unwrap();
        let text = "\t.section\t.text.k,\"ax\",@progbits\n.text.k:\n\
            /*0000*/ [B------:R-:W-:Y:S04] MOV R1, c[0x0][0x28] ;  /* 0x00000a00ff017624 */\n\
            \x20     /* 0x000fc40000000f00 */\n.L_x_0:\n\
            /*0010*/ { @P0 BRA `(.L_x_0) }\n\
            /*0020*/ BRX R2 (*\"BRANCH_TARGETS .L_x_0\"*);  /* 0x0 */\n.L_x_1:\n";
        let s = read(family, text).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(s.len(), 1);
        let s = &s[0];
        assert_eq!(s.name, ".text.k");
        let texts: Vec<&str> = s.instrs.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(
            texts,
            ["MOV R1, c[0x0][0x28]", "@P0 BRA `(.L_x_0)", "BRX R2"]
        );
        assert!(s.instrs[0].ctrl.is_some() && s.instrs[1].ctrl.is_none());
        let labels: Vec<(&str, usize)> = s.labels.iter().map(|(n, i)| (n.as_str(), *i)).collect();
        // The section's own label stands at its start.
        assert_eq!(labels, [(".text.k", 0), (".L_x_0", 1), (".L_x_1", 3)]);
    }

    #[test]
    fn an_instruction_outside_a_section_is_an_error() {
        let family = crate::isa::family_of(90).unwrap();
        let e = read(family, "/*0000*/ NOP ;\n").err().unwrap();
        assert_eq!(e[0].line, 1);
    }
}
