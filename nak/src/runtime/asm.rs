//! Tokenizer for the assembly syntax nvdisasm prints, and the helpers the
//! generated per-op parsers use to turn tokens into operands.

use crate::runtime::fmt_float;
use crate::runtime::operand::{CBuf, Reg, RegFile, Src, SrcKind};
use crate::runtime::print::ImmStyle;

/// The base of an operand token.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    Reg(Reg),
    CBuf(CBuf),
    /// A number as written (hex, decimal or float text); the op decides.
    Num(String),
    /// Anything else (special register names, labels).
    Word(String),
    /// A memory address `[R4+0x10]` (RZ when only an offset is given).
    Mem(Reg, i64),
    /// A constant-bank address with a register index, `c[0x3][R2+0x10]`
    /// (bank, register, offset); `c[0x3][0x10]` is a [`Base::CBuf`].
    CMem(u8, Reg, i64),
    /// An address whose base is not a register (`[0x75+0x8]`, `[c[0x0][0x8]]`):
    /// IR text before legalization, which copies the base to a register.
    MemOther(Box<Operand>, i64),
    /// A Volta+ address with a width, a uniform register or a descriptor:
    /// `[R2.64+0x10]`, `[R2.U32+UR4]`, `[UR4+0xc]`, `desc[UR4][R2.64]`.
    Addr(Box<MemAddr>),
    /// An attribute address `a[R3+0x4]` (ALD, AST, IPA; RZ when only an
    /// offset is given: `a[0x1f]`).
    Attr(Reg, i64),
    /// A register in a descriptor bracket, `gdesc[UR4]` (the warpgroup
    /// MMAs' matrix descriptors; suffixes follow the bracket).
    Desc(Reg),
}

/// The parts of a Volta+ memory address token.
#[derive(Clone, Debug, PartialEq)]
pub struct MemAddr {
    /// The descriptor of `desc[UR4][...]`.
    pub desc: Option<Reg>,
    /// The base register (RZ when left out: `[UR4+0xc]`).
    pub base: Reg,
    /// The base's width suffix without its dot (`64`, `U32`); a left-out
    /// base reads as `64`, what ptxas writes for `[UR4+0xc]`.
    pub width: Option<String>,
    /// The uniform register added to the address.
    pub ur: Option<Reg>,
    pub off: i64,
    /// The base register was left out (`[UR4+0xc]`).
    pub base_left_out: bool,
}

/// `desc[UR4]` and the terms of `[R2.64+UR4+0x10]`, or None when they
/// are not such an address (the caller then tries `[R+offset]`).
fn parse_mem_addr(desc: Option<Reg>, inner: &str) -> Option<MemAddr> {
    let terms: Vec<&str> = inner.split('+').map(str::trim).collect();
    let mut a = MemAddr {
        desc,
        base: Reg::RZ,
        width: None,
        ur: None,
        off: 0,
        base_left_out: false,
    };
    let (first, rest) = terms.split_first()?;
    let is_ur = |t: &str| parse_reg(t).filter(|r| r.file == RegFile::UGpr);
    let mut rest = rest;
    if let Some(u) = is_ur(first) {
        a.ur = Some(u);
        a.width = Some("64".to_string());
        a.base_left_out = true;
    } else {
        let (b, w) = match first.split_once('.') {
            Some((b, w)) => (b, Some(w.to_string())),
            None => (*first, None),
        };
        a.base = parse_reg(b).filter(|r| r.file == RegFile::Gpr)?;
        a.width = w;
        if let Some((u, r)) = rest.split_first().and_then(|(t, r)| Some((is_ur(t)?, r))) {
            a.ur = Some(u);
            rest = r;
        }
    }
    match rest {
        [] => {}
        [o] => a.off = parse_i64(o)?,
        _ => return None,
    }
    (a.desc.is_some() || a.ur.is_some() || a.width.is_some()).then_some(a)
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub base: Base,
    pub neg: bool,
    pub abs: bool,
    pub not: bool,
    pub reuse: bool,
    /// Dot suffixes after a register, as written: `R2.CC` -> [CC]. Only
    /// operands whose op declares suffixes take them.
    pub suffixes: Vec<String>,
    /// Byte column in the line (0-based), for error messages.
    pub col: usize,
}

impl Operand {
    /// The token without its register suffixes.
    pub fn without_suffixes(&self) -> Operand {
        Operand {
            suffixes: Vec::new(),
            ..self.clone()
        }
    }
}

/// One instruction line split into its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub guard: Src,
    /// Mnemonic split at dots: `IMAD.MOV.U32` -> [IMAD, MOV, U32].
    pub parts: Vec<String>,
    pub operands: Vec<Operand>,
    pub mnemonic_col: usize,
}

/// A syntax error with its 0-based byte column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    pub col: usize,
    pub message: String,
}

fn err(col: usize, m: impl Into<String>) -> AsmError {
    AsmError {
        col,
        message: m.into(),
    }
}

pub fn parse_reg(t: &str) -> Option<Reg> {
    let num = |s: &str| s.parse::<u8>().ok();
    Some(match t {
        "RZ" => Reg::RZ,
        "URZ" => Reg::URZ,
        "PT" => Reg::PT,
        "UPT" => Reg::UPT,
        _ => {
            if let Some(n) = t.strip_prefix("UR") {
                Reg::ugpr(num(n).filter(|&i| i < RegFile::UGpr.zero_index())?)
            } else if let Some(n) = t.strip_prefix("UP") {
                Reg::upred(num(n).filter(|&i| i < RegFile::UPred.zero_index())?)
            } else if let Some(n) = t.strip_prefix('R') {
                Reg::gpr(num(n).filter(|&i| i < RegFile::Gpr.zero_index())?)
            } else if let Some(n) = t.strip_prefix('P') {
                Reg::pred(num(n).filter(|&i| i < RegFile::Pred.zero_index())?)
            } else if let Some(n) = t.strip_prefix('B') {
                // Which exist is the SM's (the encoder checks).
                Reg::bar(num(n).filter(|&i| i < RegFile::Bar.zero_index())?)
            } else {
                return None;
            }
        }
    })
}

pub fn parse_u64(t: &str) -> Option<u64> {
    if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

/// `-0x10` or `0x10` as a signed value.
pub fn parse_i64(t: &str) -> Option<i64> {
    match t.strip_prefix('-') {
        Some(r) => parse_u64(r).and_then(|v| i64::try_from(v).ok()).map(|v| -v),
        None => parse_u64(t).and_then(|v| i64::try_from(v).ok()),
    }
}

/// A float immediate (`1.5`, `-2e-05`, `+INF`, `-QNAN `) followed by dot
/// suffixes that start with a letter (`.NEG.H0_H0`): the number and the
/// suffixes in order; `None` without suffixes or for anything else.
fn float_suffixes(t: &str) -> Option<(&str, Vec<&str>)> {
    let mut head = t;
    let mut sfx = Vec::new();
    while let Some((h, w)) = head.rsplit_once('.') {
        if !(w.starts_with(|c: char| c.is_ascii_alphabetic()) && is_suffix_word(w)) {
            break;
        }
        sfx.push(w);
        head = h;
    }
    let num = head.trim_end().trim_start_matches(['-', '+']);
    let float = num.starts_with(|c: char| c.is_ascii_digit()) && !num.starts_with("0x")
        || matches!(num, "INF" | "QNAN" | "SNAN" | "NAN");
    sfx.reverse();
    (float && !sfx.is_empty()).then_some((head, sfx))
}

/// A dot suffix's word (`CC`, `H0_H0`, `B2`).
fn is_suffix_word(p: &str) -> bool {
    !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_operand(text: &str, col: usize) -> Result<Operand, AsmError> {
    let mut t = text.trim();
    let mut op = Operand {
        base: Base::Word(String::new()),
        neg: false,
        abs: false,
        not: false,
        reuse: false,
        suffixes: Vec::new(),
        col,
    };
    // `.reuse` ends a register, or precedes a swizzle suffix printed
    // after it (`R0.reuse.H0_H0`).
    let unreused;
    if let Some(r) = t.strip_suffix(".reuse") {
        op.reuse = true;
        t = r;
    } else if let Some((head, tail)) = t.split_once(".reuse.") {
        op.reuse = true;
        unreused = format!("{head}.{tail}");
        t = &unreused;
    }
    // A float immediate's modifiers and selectors print as suffixes:
    // `1.5.NEG.H0_H0`, `-QNAN .NEG`.
    let float_sfx;
    if let Some((head, sfx)) = float_suffixes(t) {
        for w in sfx {
            match w {
                "NEG" => op.neg = true,
                "ABS" => op.abs = true,
                w => op.suffixes.push(w.to_string()),
            }
        }
        float_sfx = head.trim_end().to_string();
        t = &float_sfx;
    }
    // Immediate modifiers print as suffixes: `1.5.NEG.ABS`.
    if let Some(r) = t.strip_suffix(".ABS") {
        op.abs = true;
        t = r.trim_end();
    }
    if let Some(r) = t.strip_suffix(".NEG") {
        op.neg = true;
        t = r.trim_end();
    }
    if let Some(r) = t.strip_prefix('!').or_else(|| t.strip_prefix('~')) {
        op.not = true;
        t = r;
    }
    // A leading '-' before a register (with or without suffixes: `-R2.H1`),
    // cbuf or |x| is a modifier; before a number it is part of the number.
    if let Some(r) = t.strip_prefix('-') {
        let rest = r.trim_start();
        if rest.starts_with('|')
            || rest.starts_with("c[")
            || rest.starts_with('-')
            || rest.starts_with('+')
            || parse_reg(rest.split('.').next().unwrap_or(rest)).is_some()
        {
            op.neg = true;
            t = rest;
        }
    }
    // Suffixes after an absolute value belong to the register inside:
    // `|R0|.H0_H0`.
    let mut abs_sfx = Vec::new();
    if let Some((inner, sfx)) = t.strip_prefix('|').and_then(|r| r.rsplit_once("|."))
        && sfx.split('.').all(is_suffix_word)
    {
        abs_sfx = sfx.split('.').map(str::to_string).collect();
        op.abs = true;
        t = inner;
    } else if t.starts_with('|') && t.ends_with('|') && t.len() >= 2 {
        op.abs = true;
        t = &t[1..t.len() - 1];
    }
    let t = t.trim();
    if let Some(inner) = t.strip_prefix("a[").and_then(|r| r.strip_suffix(']')) {
        let inner = inner.trim();
        let (r, off) = reg_plus_offset(inner)
            .or_else(|| parse_i64(inner).map(|off| (Reg::RZ, off)))
            .ok_or_else(|| err(col, format!("bad attribute address `{text}`")))?;
        op.base = Base::Attr(r, off);
        return Ok(op);
    }
    if let Some(rest) = t.strip_prefix("gdesc[") {
        let bad = || err(col, format!("bad descriptor `{text}`"));
        let (r, sfx) = rest.split_once(']').ok_or_else(bad)?;
        op.base = Base::Desc(
            parse_reg(r.trim())
                .filter(|r| !r.file.is_pred())
                .ok_or_else(bad)?,
        );
        if !sfx.is_empty() {
            let sfx = sfx
                .strip_prefix('.')
                .filter(|s| s.split('.').all(is_suffix_word));
            op.suffixes = sfx
                .ok_or_else(bad)?
                .split('.')
                .map(str::to_string)
                .collect();
        }
        return Ok(op);
    }
    if let Some(rest) = t.strip_prefix("desc[") {
        let bad = || err(col, format!("bad memory address `{text}`"));
        let (d, rest) = rest.split_once(']').ok_or_else(bad)?;
        let d = parse_reg(d.trim())
            .filter(|r| r.file == RegFile::UGpr)
            .ok_or_else(bad)?;
        let inner = rest
            .trim()
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(bad)?;
        op.base = Base::Addr(Box::new(parse_mem_addr(Some(d), inner).ok_or_else(bad)?));
        return Ok(op);
    }
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let bad = || err(col, format!("bad memory address `{text}`"));
        let inner = inner.trim();
        if let Some(a) = parse_mem_addr(None, inner) {
            op.base = Base::Addr(Box::new(a));
            return Ok(op);
        }
        let (base, off) = match inner.rsplit_once('+') {
            Some((b, o)) => (b.trim(), parse_i64(o.trim()).ok_or_else(bad)?),
            None => match (parse_reg(inner), parse_i64(inner)) {
                (None, Some(off)) => ("RZ", off),
                _ => (inner, 0),
            },
        };
        op.base = match parse_reg(base) {
            Some(r) => Base::Mem(r, off),
            None => Base::MemOther(Box::new(parse_operand(base, col)?), off),
        };
        return Ok(op);
    }
    // A register with dot suffixes: `R2.CC`.
    let reg_sfx = t.split_once('.').and_then(|(b, rest)| {
        let parts: Vec<String> = rest.split('.').map(str::to_string).collect();
        let ok = parts.iter().all(|p| is_suffix_word(p));
        parse_reg(b).filter(|_| ok).map(|r| (r, parts))
    });
    if !abs_sfx.is_empty() {
        // Only a register or a constant takes suffixes after `|...|`.
        if parse_reg(t).is_none() && !t.starts_with("c[") {
            return Err(err(col, format!("bad operand `{text}`")));
        }
        op.suffixes = abs_sfx;
    }
    // A hex immediate with dot suffixes (`0x3f.B2`): the IR prints a part
    // selector after any source, an immediate too.
    let imm_sfx = t.split_once('.').and_then(|(b, rest)| {
        let parts: Vec<String> = rest.split('.').map(str::to_string).collect();
        let hex = b.trim_start_matches(['-', '+']).starts_with("0x");
        (hex && parts.iter().all(|p| is_suffix_word(p))).then(|| (b.to_string(), parts))
    });
    if let Some(r) = parse_reg(t) {
        op.base = Base::Reg(r);
    } else if let Some((num, parts)) = imm_sfx {
        op.base = Base::Num(num);
        op.suffixes = parts;
    } else if let Some((r, parts)) = reg_sfx {
        op.base = Base::Reg(r);
        op.suffixes = parts;
    } else if let Some(rest) = t.strip_prefix("c[") {
        // nvdisasm writes a constant of a narrow type with a blank between
        // the brackets and its part after them: `c[0x0] [0x10].B2`.
        let bad = || err(col, format!("bad constant buffer `{text}`"));
        let (a, rest) = rest.split_once(']').ok_or_else(bad)?;
        let rest = rest.trim_start().strip_prefix('[').ok_or_else(bad)?;
        let (b, part) = rest.split_once(']').ok_or_else(bad)?;
        if !part.is_empty() {
            let parts: Vec<String> = part
                .strip_prefix('.')
                .ok_or_else(bad)?
                .split('.')
                .map(str::to_string)
                .collect();
            op.suffixes = parts;
        }
        let index = parse_u64(a.trim())
            .and_then(|v| u8::try_from(v).ok())
            .ok_or_else(|| err(col, format!("bad constant buffer index `{a}`")))?;
        if let Some((r, off)) = reg_plus_offset(b.trim()) {
            op.base = Base::CMem(index, r, off);
            return Ok(op);
        }
        let offset = parse_i64(b.trim())
            .and_then(|v| {
                i32::try_from(v)
                    .ok()
                    .map(|v| v as u32)
                    .or_else(|| u32::try_from(v).ok())
            })
            .ok_or_else(|| err(col, format!("bad constant buffer offset `{b}`")))?;
        op.base = Base::CBuf(CBuf { index, offset });
    } else if t.is_empty() {
        return Err(err(col, "empty operand"));
    } else if t.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
        op.base = Base::Num(t.to_string());
    } else {
        op.base = Base::Word(t.to_string());
    }
    Ok(op)
}

/// Split a line (without any leading `HEX<TAB>`) into guard, mnemonic parts
/// and operands.
pub fn tokenize(line: &str) -> Result<Line, AsmError> {
    let base_col = line.len() - line.trim_start().len();
    let mut rest = line.trim();
    if let Some(r) = rest.strip_suffix(';') {
        rest = r.trim_end();
    }
    let mut col = base_col;
    let mut guard = Src::PT;
    if let Some(g) = rest.strip_prefix('@') {
        let end = g.find(char::is_whitespace).unwrap_or(g.len());
        let (gt, after) = g.split_at(end);
        let (not, name) = match gt.strip_prefix('!') {
            Some(n) => (true, n),
            None => (false, gt),
        };
        let r = parse_reg(name)
            .filter(|r| r.file.is_pred())
            .ok_or_else(|| err(col, format!("bad guard predicate `@{gt}`")))?;
        guard = Src::reg(r).with_not(not);
        let trimmed = after.trim_start();
        col += 1 + end + (after.len() - trimmed.len());
        rest = trimmed;
    }
    if rest.is_empty() {
        return Err(err(col, "missing mnemonic"));
    }
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let (mn, ops) = rest.split_at(end);
    let mnemonic_col = col;
    let parts: Vec<String> = mn.split('.').map(str::to_string).collect();
    if parts.iter().any(String::is_empty) {
        return Err(err(col, format!("bad mnemonic `{mn}`")));
    }
    let mut operands = Vec::new();
    let ops_col = col + end;
    if !ops.trim().is_empty() {
        let mut pos = 0;
        for piece in split_operands(ops) {
            let lead = piece.len() - piece.trim_start().len();
            operands.push(parse_operand(piece, ops_col + pos + lead)?);
            pos += piece.len() + 1;
        }
    }
    Ok(Line {
        guard,
        parts,
        operands,
        mnemonic_col,
    })
}

/// Split at commas that are not inside brackets, and at a blank between
/// two operands that nvdisasm writes without a comma (`RET.REL.NODEC R20
/// 0x0`); a blank before `[` or `.` stays inside the operand (`c[0x0]
/// [0x10]`, Maxwell's `-QNAN .NEG`), one before a comma or the end is
/// padding (`-SNAN , P4`).
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            c if c.is_whitespace() && depth == 0 && !s[start..i].trim().is_empty() => {
                let next = s[i..].trim_start().chars().next();
                if next.is_some_and(|n| !matches!(n, ',' | '[' | '.')) {
                    out.push(&s[start..i]);
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// The BF16 with exactly the value of f32 bits `b` (the high half of
/// `b`), if the low half is zero; a NaN keeps its high half.
fn bf16_bits(b: u32) -> Option<u32> {
    (b & 0xffff == 0 || f32::from_bits(b).is_nan()).then_some(b >> 16)
}

/// A signed `bits`-wide immediate (`-0x8000`, or unsigned up to the
/// width's maximum) as the IR holds a narrow immediate: zero-extended.
fn narrow_signed(t: &str, bits: u32) -> Option<u32> {
    let v = parse_i64(t)?;
    let ok = (-(1i64 << (bits - 1))..(1i64 << bits)).contains(&v);
    ok.then(|| (v as u32) & ((1u32 << bits) - 1))
}

/// An `n`-bit field's bits in hex (`0xffc02`), as the IR holds the
/// immediate the field stores sign-extended (`0xfffffc02`).
fn field_bits(t: &str, n: u8) -> Option<u32> {
    let v = parse_i64(t)?;
    let n = u32::from(n);
    if !(0..(1i64 << n)).contains(&v) {
        return None;
    }
    Some(((v << (64 - n)) >> (64 - n)) as u32)
}

/// The bits of immediate text `t` in `style`, if it fits. A packed pair
/// (`-0.5, 2`: the parser joins its two tokens with a comma) is its high
/// half first.
fn imm_value(t: &str, style: ImmStyle) -> Option<u32> {
    let f16 = |t: &str| {
        Some(u32::from(fmt_float::f32_bits_to_f16(
            fmt_float::parse_f32(t)?,
        )?))
    };
    Some(match style {
        ImmStyle::Hex | ImmStyle::SignedHex => {
            let v = parse_i64(t)?;
            if !(-(1i64 << 31)..(1i64 << 32)).contains(&v) {
                return None;
            }
            v as u32
        }
        ImmStyle::SignedHex8 => narrow_signed(t, 8)?,
        ImmStyle::SignedHex16 => narrow_signed(t, 16)?,
        ImmStyle::FieldHex(n) => field_bits(t, n)?,
        ImmStyle::F32 | ImmStyle::F32Nvdisasm11 => fmt_float::parse_f32(t)?,
        ImmStyle::F64Hi => {
            let b = fmt_float::parse_f64(t)?;
            if b as u32 != 0 {
                return None;
            }
            (b >> 32) as u32
        }
        ImmStyle::F16 | ImmStyle::F16Nvdisasm11 => f16(t)?,
        ImmStyle::Bf16 => bf16_bits(fmt_float::parse_f32(t)?)?,
        ImmStyle::F16x2 | ImmStyle::F16x2Nvdisasm11 | ImmStyle::Bf16x2 => {
            let half = match style {
                ImmStyle::Bf16x2 => ImmStyle::Bf16,
                _ => ImmStyle::F16,
            };
            let (hi, lo) = t.split_once(',')?;
            imm_value(hi.trim(), half)? << 16 | imm_value(lo.trim(), half)?
        }
    })
}

/// A source operand token as a [`Src`] of the given style, if it fits.
pub fn to_src(o: &Operand, style: ImmStyle) -> Option<Src> {
    if !o.suffixes.is_empty() {
        return None;
    }
    let kind = match &o.base {
        Base::Reg(r) => SrcKind::Reg(*r),
        Base::CBuf(c) => SrcKind::CBuf(*c),
        Base::Num(t) => SrcKind::Imm(imm_value(t, style)?),
        // Infinities and NaNs are words to the tokenizer.
        Base::Word(w) if style.is_float() => SrcKind::Imm(imm_value(w, style)?),
        Base::Word(_) => return None,
        Base::Mem(..)
        | Base::MemOther(..)
        | Base::CMem(..)
        | Base::Addr(..)
        | Base::Attr(..)
        | Base::Desc(..) => {
            return None;
        }
    };
    Some(Src {
        kind,
        neg: o.neg,
        abs: o.abs,
        not: o.not,
    })
}

/// A destination token as a register of `file`.
pub fn to_dst(o: &Operand, file: RegFile) -> Option<Reg> {
    match o.base {
        Base::Reg(r) if r.file == file && !o.neg && !o.abs && !o.not && o.suffixes.is_empty() => {
            Some(r)
        }
        _ => None,
    }
}

/// Whether a token could fill a source slot of this kind (for skipping
/// omitted optional operands).
pub fn is_pred_token(o: &Operand) -> bool {
    matches!(o.base, Base::Reg(r) if r.file.is_pred())
}

/// The parts after the first of the mnemonic spellings `cands` that
/// `parts` starts with.
pub fn strip_any_mnemonic<'a>(parts: &'a [String], cands: &[&[&str]]) -> Option<&'a [String]> {
    cands.iter().find_map(|c| strip_mnemonic(parts, c))
}

/// The parts after the first of the mnemonic spellings `cands` that
/// `parts` starts with, and that spelling's position (an alias may set a
/// modifier: `LD` is LDG's generic space).
pub fn strip_which_mnemonic<'a>(
    parts: &'a [String],
    cands: &[&[&str]],
) -> Option<(&'a [String], usize)> {
    cands
        .iter()
        .enumerate()
        .find_map(|(i, c)| strip_mnemonic(parts, c).map(|r| (r, i)))
}

/// If `parts` starts with the mnemonic `m`, the parts after it.
pub fn strip_mnemonic<'a>(parts: &'a [String], m: &[&str]) -> Option<&'a [String]> {
    if parts.len() < m.len() || parts.iter().zip(m).any(|(a, b)| a != b) {
        return None;
    }
    Some(&parts[m.len()..])
}

/// Consume the suffix `text` (like `.X` or `.W.U32`) at `*cur`, if present.
pub fn take_suffix(rest: &[String], cur: &mut usize, text: &str) -> bool {
    let want = text.split('.').filter(|p| !p.is_empty());
    let mut i = *cur;
    for w in want {
        match rest.get(i) {
            Some(p) if p == w => i += 1,
            _ => return false,
        }
    }
    if i == *cur {
        return false;
    }
    *cur = i;
    true
}

/// Consume the suffix of an enum modifier at `*cur`: the value whose text
/// on the SM (`text(v)`) is the longest one present (so `.W.U32` is not
/// read as `.W`); else the first value whose text is empty (the unprinted
/// default); `None` when neither.
pub fn take_enum_suffix<T: Copy>(
    rest: &[String],
    cur: &mut usize,
    values: &[T],
    text: impl Fn(T) -> &'static str,
) -> Option<T> {
    let mut best: Option<(T, usize, usize)> = None;
    for &v in values {
        let t = text(v);
        let mut at = *cur;
        if !t.is_empty() && take_suffix(rest, &mut at, t) && best.is_none_or(|b| t.len() > b.1) {
            best = Some((v, t.len(), at));
        }
    }
    if let Some((v, _, at)) = best {
        *cur = at;
        return Some(v);
    }
    values.iter().copied().find(|&v| text(v).is_empty())
}

/// An enum modifier written as an operand: the value whose text on the
/// SM (`text_sm`) is the token where that differs from its usual text
/// (`text`), else the value whose usual text it is.
pub fn enum_operand<T: Copy>(
    tok: &Operand,
    what: &str,
    values: &[T],
    text_sm: impl Fn(T) -> &'static str,
    text: impl Fn(T) -> &'static str,
) -> Result<T, AsmError> {
    let bad = || err(tok.col, format!("bad value for {what}"));
    let (Base::Word(w) | Base::Num(w)) = &tok.base else {
        return Err(bad());
    };
    let by_sm = |v: &T| text_sm(*v) == w;
    if values.iter().any(|v| by_sm(v) && text(*v) != w) {
        return values.iter().copied().find(by_sm).ok_or_else(bad);
    }
    values
        .iter()
        .copied()
        .find(|v| text(*v) == w)
        .ok_or_else(bad)
}

/// `?` for the generated parsers, which return `Option<Result<..>>`
/// (`None`: not this op's mnemonic): an error returns `Some(Err(e))`.
macro_rules! asm_try {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        }
    };
}
pub(crate) use asm_try;

/// The line has between `required` and `required + optional` operands.
pub fn check_operand_count(line: &Line, required: usize, optional: usize) -> Result<(), AsmError> {
    let ops = &line.operands;
    if ops.len() >= required && ops.len() <= required + optional {
        return Ok(());
    }
    let col = ops
        .get(required + optional)
        .map_or(line.mnemonic_col, |t| t.col);
    let takes = if optional == 0 {
        required.to_string()
    } else {
        format!("{} to {}", required, required + optional)
    };
    Err(err(
        col,
        format!(
            "`{}` takes {} operands, found {}",
            line.parts.join("."),
            takes,
            ops.len()
        ),
    ))
}

/// Destination `name` written to a barrier register (`BMOV.32 B6, R16`).
pub fn bar_dst_operand(tok: &Operand, name: &str) -> Result<Reg, AsmError> {
    to_dst(tok, RegFile::Bar)
        .ok_or_else(|| err(tok.col, format!("{name} must be a barrier register (B0..)")))
}

/// Destination `name`: a (uniform) predicate register if `pred`, else a
/// (uniform) general register.
pub fn dst_operand(tok: &Operand, name: &str, pred: bool) -> Result<Reg, AsmError> {
    let (file, uniform) = if pred {
        (RegFile::Pred, RegFile::UPred)
    } else {
        (RegFile::Gpr, RegFile::UGpr)
    };
    to_dst(tok, file)
        .or_else(|| to_dst(tok, uniform))
        .ok_or_else(|| err(tok.col, format!("{name} must be a register")))
}

/// Whether `tok` reads as a source (its part suffixes aside): an optional
/// source leaves any other token to the items after it.
pub fn src_token_fits(tok: &Operand, style: ImmStyle) -> bool {
    match tok.base {
        Base::Reg(_) | Base::CBuf(_) => true,
        _ => to_src(&tok.without_suffixes(), style).is_some(),
    }
}

/// Source `name`, its immediate read in `style`.
pub fn src_operand(tok: &Operand, name: &str, style: ImmStyle) -> Result<Src, AsmError> {
    to_src(tok, style).ok_or_else(|| err(tok.col, format!("bad operand for {name}")))
}

/// The number a modifier operand `name` is written as.
fn number<'a>(tok: &'a Operand, name: &str, what: &str) -> Result<&'a str, AsmError> {
    match &tok.base {
        Base::Num(t) => Ok(t),
        _ => Err(err(tok.col, format!("{name} must be {what}"))),
    }
}

/// An unsigned modifier operand `name`.
pub fn uint_operand(tok: &Operand, name: &str) -> Result<u32, AsmError> {
    let t = number(tok, name, "a number")?;
    parse_u64(t)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| err(tok.col, format!("bad number for {name}")))
}

/// A modifier written lane by lane (`PPPPPNPP`): the word cut into
/// `count` texts of one length, the most significant lane first, each
/// replaced by its code in `texts` (see `write_lanes`).
pub fn lanes_operand(
    tok: &Operand,
    name: &str,
    bits: u32,
    count: u32,
    texts: &[&str],
) -> Result<u32, AsmError> {
    let bad = || {
        let each = texts.join(", ");
        err(
            tok.col,
            format!("bad value for {name}: {count} lanes, each one of {each}"),
        )
    };
    let Base::Word(w) = &tok.base else {
        return Err(bad());
    };
    let len = texts.first().map_or(0, |t| t.len());
    if len == 0 || w.len() != len * count as usize || !w.is_ascii() {
        return Err(bad());
    }
    w.as_bytes().chunks(len).try_fold(0u32, |v, lane| {
        let code = texts
            .iter()
            .position(|t| t.as_bytes() == lane)
            .ok_or_else(bad)?;
        Ok((v << bits) | code as u32)
    })
}

/// An absolute code address `name` (`CALL.ABS 0x1000`): unsigned, 64 bits.
pub fn abs_operand(tok: &Operand, name: &str) -> Result<u64, AsmError> {
    let t = number(tok, name, "an address")?;
    parse_u64(t).ok_or_else(|| err(tok.col, format!("bad address for {name}")))
}

/// A signed displacement `name` added to a register (`RET.ABS.NODEC R2
/// -0x10`), 64 bits.
pub fn disp_operand(tok: &Operand, name: &str) -> Result<i64, AsmError> {
    let t = number(tok, name, "a displacement")?;
    parse_i64(t).ok_or_else(|| err(tok.col, format!("bad displacement for {name}")))
}

/// A signed modifier operand `name`.
pub fn int_operand(tok: &Operand, name: &str) -> Result<i32, AsmError> {
    let t = number(tok, name, "a number")?;
    parse_i64(t)
        .and_then(|v| i32::try_from(v).ok())
        .ok_or_else(|| err(tok.col, format!("bad number for {name}")))
}

/// A branch target `name`, written as an absolute address: the offset from
/// the next instruction (`addr` plus `next` bytes).
pub fn rel_operand(tok: &Operand, name: &str, addr: u64, next: i64) -> Result<i64, AsmError> {
    let t = number(tok, name, "an address")?;
    parse_i64(t)
        .map(|v| v.wrapping_sub(addr as i64).wrapping_sub(next))
        .ok_or_else(|| err(tok.col, format!("bad target for {name}")))
}

/// A flag modifier operand `name`, written 0 or 1.
pub fn bool_operand(tok: &Operand, name: &str) -> Result<bool, AsmError> {
    match &tok.base {
        Base::Num(t) if t == "1" => Ok(true),
        Base::Num(t) if t == "0" => Ok(false),
        _ => Err(err(tok.col, format!("{name} must be 0 or 1"))),
    }
}

/// A memory address `[R+offset]` of source `name` (a register base only if
/// `reg`; `bits`: the offset field's width). Maxwell prints an absolute
/// address (RZ base) unsigned; IR text before legalization may have a base
/// that is not a register.
pub fn mem_operand(
    tok: &Operand,
    name: &str,
    reg: bool,
    bits: u32,
    sm: u32,
) -> Result<(Src, i32), AsmError> {
    match &tok.base {
        Base::Mem(r, off) if (reg && !r.file.is_pred()) => {
            let unsigned = crate::isa::family_of(sm).is_some_and(|f| f.unsigned_absolute());
            let off =
                if r.is_zero() && unsigned && *off >= 1i64 << (bits - 1) && *off < 1i64 << bits {
                    *off - (1i64 << bits)
                } else {
                    *off
                };
            match i32::try_from(off) {
                Ok(off) => Ok((Src::reg(*r), off)),
                Err(_) => Err(err(tok.col, format!("offset of {name} out of range"))),
            }
        }
        Base::MemOther(inner, off) => match (to_src(inner, ImmStyle::Hex), i32::try_from(*off)) {
            (Some(s), Ok(off)) => Ok((s, off)),
            _ => Err(err(tok.col, format!("bad address for {name}"))),
        },
        // A uniform base alone (`[UR4+0x8]`, SYNCS.EXCH's), which the
        // tokenizer reads as a left-out RZ plus a uniform register.
        Base::Addr(a) if reg && a.base_left_out && a.desc.is_none() => {
            match (a.ur, i32::try_from(a.off)) {
                (Some(u), Ok(off)) => Ok((Src::reg(u), off)),
                _ => Err(err(tok.col, format!("bad address for {name}"))),
            }
        }
        _ => Err(err(
            tok.col,
            format!("{name} must be a memory address [R+offset]"),
        )),
    }
}

/// An attribute address `a[R3+0x4]` of source `name`: (register, byte
/// offset), read as [`mem_operand`] reads `[R3+0x4]`.
pub fn attr_operand(tok: &Operand, name: &str, bits: u32, sm: u32) -> Result<(Src, i32), AsmError> {
    match &tok.base {
        Base::Attr(r, off) => {
            let t = Operand {
                base: Base::Mem(*r, *off),
                ..tok.clone()
            };
            mem_operand(&t, name, true, bits, sm)
        }
        _ => Err(err(
            tok.col,
            format!("{name} must be an attribute address a[R+offset]"),
        )),
    }
}

/// An attribute address without a base register, `a[0x1f]`: its offset.
pub fn attr_off_operand(tok: &Operand, name: &str) -> Result<u32, AsmError> {
    match &tok.base {
        Base::Attr(r, off) if r.is_zero() => {
            u32::try_from(*off).map_err(|_| err(tok.col, format!("bad offset for {name}")))
        }
        _ => Err(err(
            tok.col,
            format!("{name} must be an attribute address a[offset]"),
        )),
    }
}

/// A descriptor operand `gdesc[UR4]` (its suffixes already taken): the
/// register as a source.
pub fn desc_operand(tok: &Operand, name: &str) -> Result<Src, AsmError> {
    match tok.base {
        Base::Desc(r) if !tok.neg && !tok.abs && !tok.not && !tok.reuse => Ok(Src::reg(r)),
        _ => Err(err(
            tok.col,
            format!("{name} must be a descriptor gdesc[URn]"),
        )),
    }
}

/// `R2+0x10`, `R2+-0x4` or `R2`: a register index and its byte offset.
fn reg_plus_offset(t: &str) -> Option<(Reg, i64)> {
    let (r, off) = match t.split_once('+') {
        Some((r, o)) => (r.trim(), parse_i64(o.trim())?),
        None => (t, 0),
    };
    parse_reg(r).filter(|r| !r.file.is_pred()).map(|r| (r, off))
}

/// A constant-bank address `c[bank][R+offset]` of source `name`:
/// (index register, signed byte offset, bank). `c[0x3][0x10]` (a
/// [`Base::CBuf`]) is `zero`, the source's default (URZ for LDCU's
/// uniform index, else RZ), plus the offset.
pub fn cmem_operand(tok: &Operand, name: &str, zero: Src) -> Result<(Src, i32, u32), AsmError> {
    let (bank, index, off) = match &tok.base {
        Base::CMem(b, r, off) => (*b, Src::reg(*r), *off),
        Base::CBuf(c) => (c.index, zero, c.offset as i32 as i64),
        _ => {
            return Err(err(
                tok.col,
                format!("{name} must be a constant address c[BANK][R+offset]"),
            ));
        }
    };
    match i32::try_from(off) {
        Ok(off) => Ok((index, off, bank as u32)),
        Err(_) => Err(err(tok.col, format!("offset of {name} out of range"))),
    }
}

/// A memory address operand as the generated parser of a `[a.w+u+off] by
/// mode` item reads it.
pub struct MemParsed {
    pub base: Src,
    pub off: i32,
    /// The width suffix without its dot; None: none printed.
    pub width: Option<String>,
    pub ur: Option<Src>,
    pub mode: crate::runtime::mem::AddrMode,
    /// The base register was left out (`[UR4+0xc]`).
    pub base_left_out: bool,
}

/// A Volta+ memory address of source `name` (`[R2.64+0x10]`,
/// `[R2.U32+UR4]`, `desc[UR4][R2.64]`, or a plain `[R2+0x10]`).
pub fn mem_addr_operand(
    tok: &Operand,
    name: &str,
    bits: u32,
    sm: u32,
) -> Result<MemParsed, AsmError> {
    use crate::runtime::mem::AddrMode;
    let a = match &tok.base {
        Base::Addr(a) => (**a).clone(),
        Base::Mem(..) | Base::MemOther(..) => {
            let (base, off) = mem_operand(tok, name, true, bits, sm)?;
            return Ok(MemParsed {
                base,
                off,
                width: None,
                ur: None,
                mode: AddrMode::Reg,
                base_left_out: false,
            });
        }
        _ => {
            return Err(err(
                tok.col,
                format!("{name} must be a memory address [R+offset]"),
            ));
        }
    };
    let off =
        i32::try_from(a.off).map_err(|_| err(tok.col, format!("offset of {name} out of range")))?;
    let (ur, mode) = match (a.desc, a.ur) {
        (Some(d), None) => (Some(Src::reg(d)), AddrMode::Desc),
        (None, Some(u)) => (Some(Src::reg(u)), AddrMode::Ur),
        (None, None) => (None, AddrMode::Reg),
        (Some(_), Some(_)) => return Err(err(tok.col, format!("bad address for {name}"))),
    };
    Ok(MemParsed {
        base: Src::reg(a.base),
        off,
        width: a.width,
        ur,
        mode,
        base_left_out: a.base_left_out,
    })
}

/// The value of a width enum whose text (on `sm`) is `.` + `width`, or
/// empty for no width.
pub fn mem_width<T: Copy>(
    tok: &Operand,
    width: &Option<String>,
    all: &[T],
    text: impl Fn(T) -> &'static str,
) -> Result<T, AsmError> {
    let want = width.as_deref().map_or(String::new(), |w| format!(".{w}"));
    all.iter()
        .copied()
        .find(|&v| text(v) == want)
        .ok_or_else(|| err(tok.col, format!("bad address width `{want}`")))
}

/// The value of a scale enum (`[a*scale+u+off]`) whose text (on `sm`) is
/// `.` + `scale`, or empty for none; a left-out base (`[UR4+0x8]`) has
/// none (nvdisasm prints an RZ base with a scale: `[RZ.X4+UR4+0x8]`).
pub fn mem_scale<T: Copy>(
    tok: &Operand,
    p: &MemParsed,
    all: &[T],
    text: impl Fn(T) -> &'static str,
) -> Result<T, AsmError> {
    let none = None;
    mem_width(
        tok,
        if p.base_left_out { &none } else { &p.width },
        all,
        text,
    )
}

/// What a generated parser returns: `None` when the line is not its op's,
/// else the op and its common part, or the error in the line.
pub type Parsed<T> = Option<Result<(T, crate::runtime::instr::Common), AsmError>>;

/// A generated parser's success: `op` under `line`'s guard, with the
/// control bits its `.reuse` marks set and the raw bits ptxas writes.
pub fn parsed<T>(op: T, line: &Line, ctrl: u32, raw: u128) -> Parsed<T> {
    let guard = line.guard;
    Some(Ok((op, crate::runtime::instr::Common { guard, ctrl, raw })))
}

/// A generated parser's walk over a line's operands: the operand items
/// of its syntax (`N` of them) take tokens in order, an optional item only
/// while the line has more tokens than the required items need; which
/// token each item took is kept for the `.reuse` marks.
pub struct Operands<'a, const N: usize> {
    ops: &'a [Operand],
    /// The next token.
    it: usize,
    /// Tokens beyond the required items, for optional items to take.
    extra: usize,
    /// The token each item took (`usize::MAX`: none).
    taken: [usize; N],
    /// The next item.
    k: usize,
}

impl<'a, const N: usize> Operands<'a, N> {
    /// The walk over `ops`, of which `required` are taken by required
    /// items (the count was checked).
    pub fn new(ops: &'a [Operand], required: usize) -> Self {
        Operands {
            ops,
            it: 0,
            extra: ops.len().saturating_sub(required),
            taken: [usize::MAX; N],
            k: 0,
        }
    }

    /// The walk over a line that must have between `required` and
    /// `required + optional` operands.
    pub fn start(line: &'a Line, required: usize, optional: usize) -> Result<Self, AsmError> {
        check_operand_count(line, required, optional)?;
        Ok(Self::new(&line.operands, required))
    }

    /// The current item takes the next token (past the last one, a token
    /// no operand parser accepts: the count was checked, but a packed
    /// pair takes two).
    pub fn take(&mut self) -> &'a Operand {
        static MISSING: Operand = Operand {
            base: Base::Word(String::new()),
            neg: false,
            abs: false,
            not: false,
            reuse: false,
            suffixes: Vec::new(),
            col: 0,
        };
        let tok = self.ops.get(self.it).unwrap_or(&MISSING);
        self.taken[self.k] = self.it;
        self.it += 1;
        self.k += 1;
        tok
    }

    /// A source token `tok` read in `style`: a packed pair's immediate
    /// (`-0.5, 2`) is two tokens, the second taken here and joined to the
    /// first with a comma (see [`to_src`]); any other token as it is.
    pub fn join_pair(&mut self, tok: &Operand, style: ImmStyle) -> Result<Operand, AsmError> {
        // A joined pair (`1,2`) is taken as it is.
        let first = match &tok.base {
            Base::Num(t) | Base::Word(t)
                if style.is_pair() && !(tok.neg || tok.abs) && !t.contains(',') =>
            {
                t
            }
            _ => return Ok(tok.clone()),
        };
        // The pair's modifiers and selectors print after its second value.
        let (second, o) = match self.ops.get(self.it).map(|o| (&o.base, o)) {
            Some((Base::Num(t) | Base::Word(t), o)) if tok.suffixes.is_empty() => (t, o),
            _ => return Err(err(tok.col, "a packed immediate needs two values (`1, 1`)")),
        };
        // The second value is a token the count gave another operand.
        if self.extra == 0 {
            return Err(err(
                o.col,
                "a packed immediate takes two values (`1, 1`), which leaves too few operands",
            ));
        }
        self.it += 1;
        self.extra -= 1;
        Ok(Operand {
            base: Base::Num(format!("{first},{second}")),
            neg: o.neg,
            abs: o.abs,
            suffixes: o.suffixes.clone(),
            ..tok.clone()
        })
    }

    /// The current item is absent.
    pub fn skip(&mut self) {
        self.k += 1;
    }

    /// Whether an optional item is present: a token is left beyond the
    /// required ones and `fits` it.
    pub fn optional(&mut self, fits: impl Fn(&Operand) -> bool) -> bool {
        let present = self.extra > 0 && self.it < self.ops.len() && fits(&self.ops[self.it]);
        if present {
            self.extra -= 1;
        }
        present
    }

    /// The end of the walk: an error for a token no item took (an
    /// optional item that did not fit it leaves it over), else the
    /// `.reuse` marks ([`Self::reuse_marks`]).
    pub fn finish(&self, names: &[&'static str; N]) -> Result<Vec<&'static str>, AsmError> {
        match self.ops.get(self.it) {
            Some(tok) => Err(err(tok.col, "unexpected operand")),
            None => Ok(self.reuse_marks(names)),
        }
    }

    /// The names (`names[k]`: item k's) of the items whose token carried
    /// `.reuse`.
    pub fn reuse_marks(&self, names: &[&'static str; N]) -> Vec<&'static str> {
        names
            .iter()
            .zip(&self.taken)
            .filter(|(_, t)| **t != usize::MAX && self.ops[**t].reuse)
            .map(|(n, _)| *n)
            .collect()
    }
}

/// The control bits of the `.reuse` marks a line carried (`marks`, by
/// source name) in the chosen form: `bits` gives each source's reuse bit
/// per form number (0: the form has none for it).
pub fn reuse_ctrl(marks: &[&str], form: Option<u8>, bits: &[(&str, &[u8])]) -> u32 {
    let Some(f) = form else {
        return 0;
    };
    bits.iter()
        .filter(|(name, _)| marks.contains(name))
        .filter_map(|(_, per_form)| per_form.get(usize::from(f)).copied())
        .filter(|&bit| bit != 0)
        .fold(0, |ctrl, bit| ctrl | 1u32 << bit)
}
