//! Support for the generated printers: operands written the way nvdisasm
//! writes them, into one reusable buffer.

use crate::fmt_float;
use crate::operand::{Reg, Src, SrcKind};

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
    use crate::operand::RegFile;
    let (zero, prefix) = match r.file {
        RegFile::Gpr => ("RZ", "R"),
        RegFile::UGpr => ("URZ", "UR"),
        RegFile::Pred => ("PT", "P"),
        RegFile::UPred => ("UPT", "UP"),
    };
    if r.is_zero() {
        out.push_str(zero);
    } else {
        out.push_str(prefix);
        write_dec(out, r.idx as u64);
    }
}

/// Decimal digits without going through `core::fmt` (hot in `nak dis`).
pub fn write_dec(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    push_ascii(out, &buf[i..]);
}

/// `0x` and lower-case hex digits, no leading zeros (`{:#x}`).
pub fn write_hex(out: &mut String, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut buf = [0u8; 18];
    let mut i = buf.len();
    let mut v = v;
    loop {
        i -= 1;
        buf[i] = DIGITS[(v & 15) as usize];
        v >>= 4;
        if v == 0 {
            break;
        }
    }
    i -= 2;
    buf[i] = b'0';
    buf[i + 1] = b'x';
    push_ascii(out, &buf[i..]);
}

/// Append bytes known to be ASCII (digits and letters built above).
fn push_ascii(out: &mut String, bytes: &[u8]) {
    // Few bytes each call: pushing them one by one beats validating.
    for &b in bytes {
        out.push(b as char);
    }
}

pub fn write_signed_hex(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    write_hex(out, v.unsigned_abs());
}

/// A memory address `[R4+0x10]` as nvdisasm prints it: `[R4]` without an
/// offset, `[0x10]` on RZ, `[RZ]` for both, `[R4+-0x8]` below zero.
pub fn write_mem(out: &mut String, base: &Src, reuse: bool, offset: i64) {
    out.push('[');
    let rz = matches!(base.kind, SrcKind::Reg(r) if r.is_zero());
    if !rz || offset == 0 {
        write_src(out, base, reuse, ImmStyle::Hex);
    }
    if offset != 0 {
        if !rz {
            out.push('+');
        }
        write_signed_hex(out, offset);
    }
    out.push(']');
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
            out.push_str("c[");
            write_hex(out, c.index as u64);
            out.push_str("][");
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
