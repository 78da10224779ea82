//! Support for the generated printers: operands written the way nvdisasm
//! writes them, into one reusable buffer.

use crate::fmt_float;
use crate::operand::{Reg, Src, SrcKind};
use std::fmt::Write as _;

/// How an immediate source is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmStyle {
    /// Unsigned hex (`b32` values): `0xffffffff`.
    Hex,
    /// Signed hex (`u32`/`i32` arithmetic): `-0x1`.
    SignedHex,
    /// f32 bits.
    F32,
    /// High word of an f64.
    F64Hi,
    /// f32 bits as nvdisasm 11.x prints them (every NaN shows as QNAN).
    F32Nvdisasm11,
}

/// The first SM whose reference disassembler is nvdisasm 13; SM50..SM72
/// are checked against nvdisasm 11.8, whose f32 NaN text differs.
pub const FIRST_NVDISASM13_SM: u32 = 75;

impl ImmStyle {
    /// The style for `sm`: the float text of the disassembler that is the
    /// reference for that SM.
    pub const fn for_sm(self, sm: u32) -> ImmStyle {
        match self {
            ImmStyle::F32 if sm < FIRST_NVDISASM13_SM => ImmStyle::F32Nvdisasm11,
            s => s,
        }
    }
}

pub fn write_reg(out: &mut String, r: Reg) {
    let _ = write!(out, "{r}");
}

pub fn write_hex(out: &mut String, v: u64) {
    let _ = write!(out, "{v:#x}");
}

pub fn write_signed_hex(out: &mut String, v: i64) {
    if v < 0 {
        let _ = write!(out, "-{:#x}", v.unsigned_abs());
    } else {
        let _ = write!(out, "{v:#x}");
    }
}

fn write_imm(out: &mut String, v: u32, style: ImmStyle) {
    match style {
        ImmStyle::Hex => write_hex(out, v as u64),
        ImmStyle::SignedHex => write_signed_hex(out, v as i32 as i64),
        ImmStyle::F32 => fmt_float::fmt_f32(v, out),
        ImmStyle::F32Nvdisasm11 => fmt_float::fmt_f32_nvdisasm11(v, out),
        ImmStyle::F64Hi => fmt_float::fmt_f64((v as u64) << 32, out),
    }
}

/// A source with its modifiers: `-|R1|.reuse`, `~R2`, `!P0`, `c[0x0][0x10]`.
/// Modifiers of an immediate print as suffixes (`1.5.NEG`), as nvdisasm
/// writes Maxwell's float immediates.
pub fn write_src(out: &mut String, s: &Src, reuse: bool, style: ImmStyle) {
    if let SrcKind::Imm(v) = s.kind {
        if s.not {
            out.push('~');
        }
        write_imm(out, v, style);
        if s.neg {
            out.push_str(".NEG");
        }
        if s.abs {
            out.push_str(".ABS");
        }
        return;
    }
    if s.not {
        out.push(
            if s.is_reg_file(crate::operand::RegFile::Pred)
                || s.is_reg_file(crate::operand::RegFile::UPred)
            {
                '!'
            } else {
                '~'
            },
        );
    }
    if s.neg {
        out.push('-');
    }
    if s.abs {
        out.push('|');
    }
    match s.kind {
        SrcKind::Reg(r) => write_reg(out, r),
        SrcKind::Imm(v) => write_imm(out, v, style),
        SrcKind::CBuf(c) => {
            let _ = write!(out, "c[{:#x}][", c.index);
            write_signed_hex(out, c.offset as i32 as i64);
            out.push(']');
        }
    }
    if s.abs {
        out.push('|');
    }
    if reuse {
        out.push_str(".reuse");
    }
}

/// `@P0 `, `@!P1 `; nothing for an always-true guard.
pub fn write_guard(out: &mut String, g: &Src) {
    if g.is_zero() {
        return;
    }
    out.push('@');
    write_src(out, g, false, ImmStyle::Hex);
    out.push(' ');
}

/// Collapse blank runs and drop a trailing `;`, as the corpus normalizes.
pub fn normalize_in_place(s: &mut String) {
    let mut out = String::with_capacity(s.len());
    let mut blank = false;
    for ch in s.trim().chars() {
        if ch.is_whitespace() {
            blank = true;
        } else {
            if blank && !out.is_empty() {
                out.push(' ');
            }
            blank = false;
            out.push(ch);
        }
    }
    if out.ends_with(';') {
        out.pop();
        while out.ends_with(' ') {
            out.pop();
        }
    }
    *s = out;
}
