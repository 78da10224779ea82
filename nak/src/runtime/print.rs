//! Support for the generated printers: operands written the way nvdisasm
//! writes them, into a line buffer ([`LineBuf`]).

use crate::runtime::fmt_float;
use crate::runtime::line_buf::LineBuf;
use crate::runtime::mem::AddrMode;
use crate::runtime::operand::{MOD_ABS, MOD_NEG, MOD_NOT, Reg, RegFile, Src, SrcKind};
use crate::runtime::view::{PartStyle, View};

/// How an immediate source is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImmStyle {
    /// Unsigned hex (`b32` values): `0xffffffff`.
    Hex,
    /// Signed hex (`u32`/`i32` arithmetic): `-0x1`.
    SignedHex,
    /// A signed byte in the low 8 bits, in signed hex (the rest is
    /// ignored): a narrow immediate holds its part zero-extended.
    SignedHex8,
    /// A signed half in the low 16 bits, in signed hex (the rest is
    /// ignored): XMAD.U16.S16's `0x8000` prints `-0x8000`.
    SignedHex16,
    /// The low `n` bits in unsigned hex: an immediate stored sign-extended
    /// in an `n`-bit field, shown as the field's bits (`imm_field`: Maxwell
    /// IADD3 prints -0x3fe as `0xffc02`).
    FieldHex(u8),
    /// f32 bits.
    F32,
    /// High word of an f64.
    F64Hi,
    /// f32 bits as nvdisasm 11.x prints them (every NaN shows as QNAN).
    F32Nvdisasm11,
    /// F16 bits as nvdisasm 11.x prints them (every NaN shows as QNAN).
    F16Nvdisasm11,
    /// An F16 in the low half (the high half is ignored).
    F16,
    /// A BF16 in the low half (the high half is ignored).
    Bf16,
    /// Two F16s, the high half first: `-0.5, 2` (HADD2's immediate).
    F16x2,
    /// [`ImmStyle::F16x2`] as nvdisasm 11.x prints it (NaNs as QNAN).
    F16x2Nvdisasm11,
    /// Two BF16s, the high half first (`.BF16_V2`).
    Bf16x2,
}

impl ImmStyle {
    /// Whether the style is a float's (whose infinities and NaNs the
    /// tokenizer reads as words).
    pub const fn is_float(self) -> bool {
        !matches!(
            self,
            ImmStyle::Hex
                | ImmStyle::SignedHex
                | ImmStyle::SignedHex8
                | ImmStyle::SignedHex16
                | ImmStyle::FieldHex(_)
        )
    }

    /// Whether an immediate of this style is two values (`-0.5, 2`): the
    /// parser joins the two tokens they print as.
    pub const fn is_pair(self) -> bool {
        matches!(
            self,
            ImmStyle::F16x2 | ImmStyle::F16x2Nvdisasm11 | ImmStyle::Bf16x2
        )
    }

    /// The style for `sm`: the float text of the disassembler that is the
    /// reference for that SM.
    pub const fn for_sm(self, sm: u32) -> ImmStyle {
        match self {
            ImmStyle::F32 if matches!(crate::isa::reference_nvdisasm(sm), Some(11)) => {
                ImmStyle::F32Nvdisasm11
            }
            ImmStyle::F16 if matches!(crate::isa::reference_nvdisasm(sm), Some(11)) => {
                ImmStyle::F16Nvdisasm11
            }
            ImmStyle::F16x2 if matches!(crate::isa::reference_nvdisasm(sm), Some(11)) => {
                ImmStyle::F16x2Nvdisasm11
            }
            s => s,
        }
    }
}

/// A register name: one 8-byte store from the padded name table.
#[inline(always)]
pub fn write_reg(out: &mut LineBuf, r: Reg) {
    let c = crate::runtime::reg_names::reg_name_chunk(r);
    // Names are at most 5 bytes: the mask (exact) tells the compiler the
    // length fits the chunk, so `push_chunk` needs no clamp.
    out.push_chunk(c, usize::from(c[7] & 7));
}

/// Decimal digits without going through `core::fmt` (hot in `nak dis`).
pub fn write_dec(out: &mut LineBuf, mut v: u64) {
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
    out.push_ascii(&buf[i..]);
}

/// The 8 lower-case hex digits of the little-endian bytes of `v`, two per
/// byte, high nibble first. Branch-free in native 64-bit arithmetic: the
/// bytes are spread into 16-bit lanes and each nibble turned into its ASCII
/// digit with lane-wise adds.
#[inline]
fn hex_digits32(v: u32) -> u64 {
    const LO_NIBBLES: u64 = 0x000f_000f_000f_000f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut x = v as u64;
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    // Lane i: the high nibble of byte i in its low byte, the low one above.
    let n = (x >> 4 & LO_NIBBLES) | (x & LO_NIBBLES) << 8;
    // Digits above 9 need 0x27 more to land on 'a'..'f'.
    let letters = (n + 6 * ONES) >> 4 & ONES;
    n + 0x30 * ONES + 0x27 * letters
}

/// The 16 lower-case hex digits of the little-endian bytes of `v`, two per
/// byte, high nibble first: `hex_digits(v.swap_bytes())` is `v` in hex with
/// leading zeros.
#[inline]
pub fn hex_digits(v: u64) -> [u8; 16] {
    let lo = hex_digits32(v as u32) as u128;
    let hi = hex_digits32((v >> 32) as u32) as u128;
    (lo | hi << 64).to_le_bytes()
}

/// The two lower-case hex digits of every byte.
static HEX2: [[u8; 2]; 256] = {
    let digits = b"0123456789abcdef";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [digits[i >> 4], digits[i & 15]];
        i += 1;
    }
    t
};

/// `0x` and lower-case hex digits, no leading zeros (`{:#x}`).
/// The digits are written as one 16-byte store and the text shortened to
/// the significant ones, so no length-dependent copy is made.
#[inline(always)]
pub fn write_hex(out: &mut LineBuf, v: u64) {
    if v < 0x1_0000 {
        // The common case (offsets, small immediates): two table loads,
        // inlined where it is printed; wider values take a call.
        let [hi, lo] = [HEX2[(v >> 8) as usize], HEX2[(v & 0xff) as usize]];
        let digits = u32::from_le_bytes([hi[0], hi[1], lo[0], lo[1]]);
        let n = 4 - ((v as u16 | 1).leading_zeros() / 4) as usize;
        out.push_ascii(b"0x");
        out.push_chunk(&(digits >> (8 * (4 - n))).to_le_bytes(), n);
        return;
    }
    write_hex_wide(out, v);
}

/// [`write_hex`] of a value of 0x10000 or more.
#[inline(never)]
fn write_hex_wide(out: &mut LineBuf, v: u64) {
    if let Ok(v32) = u32::try_from(v) {
        // Most values (immediates, offsets) fit 32 bits: half the digits.
        let digits = hex_digits32(v32.swap_bytes());
        let n = 8 - ((v32 | 1).leading_zeros() / 4) as usize;
        out.push_ascii(b"0x");
        out.push_chunk(&(digits >> (8 * (8 - n))).to_le_bytes(), n);
        return;
    }
    let digits = hex_digits(v.swap_bytes());
    let n = 16 - ((v | 1).leading_zeros() / 4) as usize;
    out.push_ascii(b"0x");
    // Right-align the significant digits: rotate them to the front.
    let shifted = u128::from_le_bytes(digits) >> (8 * (16 - n));
    out.push_chunk(&shifted.to_le_bytes(), n);
}

/// A modifier printed lane by lane (`lanes = "ENUM"` in the spec): `count`
/// lanes of `bits` bits, the most significant first, lane code `c` as
/// `texts[c]` (FSWZADD's `PPPPPNPP`).
pub fn write_lanes(out: &mut LineBuf, v: u32, bits: u32, count: u32, texts: &[&str]) {
    for i in (0..count).rev() {
        let code = (v >> (i * bits)) & ((1 << bits) - 1);
        out.push_str(texts.get(code as usize).copied().unwrap_or("?"));
    }
}

#[inline]
pub fn write_signed_hex(out: &mut LineBuf, v: i64) {
    if v < 0 {
        out.push_byte(b'-');
    }
    write_hex(out, v.unsigned_abs());
}

/// A memory address `[R4+0x10]` as nvdisasm prints it: `[R4]` without an
/// offset, `[0x10]` on RZ, `[RZ]` for both, `[R4+-0x8]` below zero. On
/// Maxwell/Pascal an absolute address (RZ base) is the offset field read
/// unsigned (`bits` wide): nvdisasm 11 prints `[0xfffff0]`, not `[-0x10]`.
/// A uniform base keeps URZ beside an offset (`SYNCS.EXCH.64 URZ,
/// [URZ+0x8], UR4`, nvdisasm 13): only RZ makes an address absolute.
#[inline(always)]
pub fn write_mem(out: &mut LineBuf, base: &Src, reuse: bool, offset: i64, bits: u32, sm: u32) {
    let rz = matches!(base.kind, SrcKind::Reg(r) if r.is_zero() && r.file == RegFile::Gpr);
    write_mem_zero(out, base, reuse, offset, bits, sm, rz);
}

/// `write_mem` with the base's zero-ness given: a constant-bank index
/// drops URZ as it drops RZ (`LDCU UR4, c[0x0][0x380]`).
#[inline(always)]
fn write_mem_zero(
    out: &mut LineBuf,
    base: &Src,
    reuse: bool,
    offset: i64,
    bits: u32,
    sm: u32,
    rz: bool,
) {
    out.push('[');
    if !rz || offset == 0 {
        write_src(out, base, reuse, ImmStyle::Hex);
    }
    if offset != 0 {
        if !rz {
            out.push('+');
            write_signed_hex(out, offset);
        } else if bits < 64 && crate::isa::family_of(sm).is_some_and(|f| f.unsigned_absolute()) {
            write_hex(out, offset as u64 & ((1u64 << bits) - 1));
        } else {
            write_signed_hex(out, offset);
        }
    }
    out.push(']');
}

/// A constant-bank address `c[0x3][R2+0x10]` as nvdisasm prints it: the
/// index as `[a+off]` does (`[R2]`, `[R2+-0x4]`, `[0x10]`, `[-0x4]` on RZ,
/// the offset always signed), the zero register without an offset as
/// `[RZ]` from Volta on and `[0x0]` on Maxwell/Pascal (nvdisasm 11.8:
/// SM50 `LDC R16, c[0x3][0x0]`, SM70 `LDC R5, c[0x3][RZ]`).
#[inline(always)]
pub fn write_cmem(out: &mut LineBuf, bank: u64, base: &Src, reuse: bool, offset: i64, sm: u32) {
    out.push_str("c[");
    write_hex(out, bank);
    out.push(']');
    let rz = matches!(base.kind, SrcKind::Reg(r) if r.is_zero());
    let word64 = crate::isa::family_of(sm).is_some_and(|f| f.width() == 64);
    if rz && offset == 0 && word64 {
        out.push_str("[0x0]");
    } else {
        write_mem_zero(out, base, reuse, offset, 64, sm, rz);
    }
}

/// A Volta+ memory address: the base register with its width suffix
/// (`R2.64`, `R2.U32`), then per `mode` the uniform register added
/// (`[R2.64+UR4+0x10]`; an RZ base is left out, `[UR4+0xc]`, but on the
/// SMs whose reference shows it: `[RZ.U32+UR4+0xc]`) or as the
/// descriptor (`desc[UR4][R2.64+0x10]`). With a width, an RZ base is
/// printed (`[RZ.64+0x4]`); without one and without a UR term, as
/// `write_mem`.
#[allow(clippy::too_many_arguments)]
pub fn write_mem_addr(
    out: &mut LineBuf,
    base: &Src,
    reuse: bool,
    width: Option<&str>,
    ur: Option<&Src>,
    mode: AddrMode,
    offset: i64,
    bits: u32,
    sm: u32,
) {
    let ur = ur.filter(|_| mode != AddrMode::Reg);
    // An RZ base beside a uniform register is printed only by an op with
    // a width (`[RZ.U32+UR4]`); LDL, LDSM, STSM print `[UR4+0x10]` on
    // every SM (nvdisasm 13, SM90..SM120).
    let with_width = width.is_some();
    let width = width.unwrap_or("");
    if ur.is_none() && width.is_empty() {
        return write_mem(out, base, reuse, offset, bits, sm);
    }
    if let (AddrMode::Desc, Some(u)) = (mode, ur) {
        out.push_str("desc[");
        write_src(out, u, false, ImmStyle::Hex);
        out.push(']');
    }
    out.push('[');
    let rz = matches!(base.kind, SrcKind::Reg(r) if r.is_zero());
    let added = ur.filter(|_| mode == AddrMode::Ur);
    let show_base = !(rz && added.is_some())
        || with_width && crate::isa::family_of(sm).is_some_and(|f| f.rz_base_with_ur(sm));
    if show_base {
        write_src(out, base, reuse, ImmStyle::Hex);
        out.push_str(width);
    }
    if let Some(u) = added {
        if show_base {
            out.push('+');
        }
        write_src(out, u, false, ImmStyle::Hex);
    }
    if offset != 0 {
        out.push('+');
        write_signed_hex(out, offset);
    }
    out.push(']');
}

/// A scaled shared-memory address (`a*scale` in the spec: LDS, STS): the
/// base register with its scale suffix (`[R2.X4+0x8]`), plus the uniform
/// register in mode `ur` (`[R2.X4+UR4+0x8]`). An RZ base prints as
/// nvdisasm prints it: without a uniform register as `write_mem` does,
/// the scale dropped (`[0x8]`); with one, kept with its scale
/// (`[RZ.X4+UR4+0x8]`) unless the scale prints nothing (`[UR4+0x8]`).
#[allow(clippy::too_many_arguments)]
pub fn write_mem_scaled(
    out: &mut LineBuf,
    base: &Src,
    reuse: bool,
    scale: &str,
    ur: Option<&Src>,
    mode: AddrMode,
    offset: i64,
    bits: u32,
    sm: u32,
) {
    let rz = matches!(base.kind, SrcKind::Reg(r) if r.is_zero());
    let added = ur.filter(|_| mode == AddrMode::Ur);
    let Some(u) = added else {
        if rz || scale.is_empty() {
            return write_mem(out, base, reuse, offset, bits, sm);
        }
        out.push('[');
        write_src(out, base, reuse, ImmStyle::Hex);
        out.push_str(scale);
        push_offset(out, offset);
        return out.push(']');
    };
    out.push('[');
    if !(rz && scale.is_empty()) {
        write_src(out, base, reuse, ImmStyle::Hex);
        out.push_str(scale);
        out.push('+');
    }
    write_src(out, u, false, ImmStyle::Hex);
    push_offset(out, offset);
    out.push(']');
}

/// `+offset` after an address term (`+-0x4` below zero), nothing for 0.
fn push_offset(out: &mut LineBuf, offset: i64) {
    if offset != 0 {
        out.push('+');
        write_signed_hex(out, offset);
    }
}

fn write_imm(out: &mut LineBuf, v: u32, style: ImmStyle) {
    match style {
        ImmStyle::Hex => write_hex(out, v as u64),
        ImmStyle::SignedHex => write_signed_hex(out, v as i32 as i64),
        ImmStyle::SignedHex8 => write_signed_hex(out, v as u8 as i8 as i64),
        ImmStyle::SignedHex16 => write_signed_hex(out, v as u16 as i16 as i64),
        ImmStyle::FieldHex(n) => write_hex(out, v as u64 & ((1u64 << n) - 1)),
        ImmStyle::F32 => fmt_float::fmt_f32(v, out),
        ImmStyle::F32Nvdisasm11 => fmt_float::fmt_f32_nvdisasm11(v, out),
        ImmStyle::F64Hi => fmt_float::fmt_f64((v as u64) << 32, out),
        ImmStyle::F16 => fmt_float::fmt_f32(fmt_float::f16_to_f32_bits(v as u16), out),
        ImmStyle::F16Nvdisasm11 => {
            fmt_float::fmt_f32_nvdisasm11(fmt_float::f16_to_f32_bits(v as u16), out)
        }
        ImmStyle::Bf16 => fmt_float::fmt_f32((v & 0xffff) << 16, out),
        ImmStyle::F16x2 | ImmStyle::F16x2Nvdisasm11 | ImmStyle::Bf16x2 => {
            // nvdisasm keeps a value's trailing blank (`-0.0 , 0`).
            let half = match style {
                ImmStyle::F16x2 => ImmStyle::F16,
                ImmStyle::F16x2Nvdisasm11 => ImmStyle::F16Nvdisasm11,
                _ => ImmStyle::Bf16,
            };
            write_imm(out, v >> 16, half);
            out.push_str(", ");
            write_imm(out, v & 0xffff, half);
        }
    }
}

/// A source with its modifiers: `-|R1|.reuse`, `~R2`, `!P0`, `c[0x0][0x10]`.
/// Modifiers of an immediate print as suffixes (`1.5.NEG`), as nvdisasm
/// writes Maxwell's float immediates.
///
/// Always inlined: where a form's printer knows the kind, only its arm is
/// left (with packed sources LLVM stopped taking an `#[inline]` hint here:
/// `nak dis` went from 336 to 404 instructions per line).
/// The rarer arms are calls that take the source's parts as integers (a
/// `&Src` or a `Src` by value would make every printer build its sources
/// on the stack up front, for calls most lines never make).
#[inline(always)]
pub fn write_src(out: &mut LineBuf, s: &Src, reuse: bool, style: ImmStyle) {
    let mods = s.mods();
    // By value: `Src` is packed, a guard would borrow the field.
    let kind = s.kind;
    match kind {
        // Most sources are plain registers: one table copy.
        SrcKind::Reg(r) if mods == 0 && !reuse => write_reg(out, r),
        SrcKind::Imm(v) if mods == 0 => write_imm(out, v, style),
        SrcKind::Reg(r) => write_reg_with_mods(out, r, mods, reuse),
        SrcKind::Imm(v) => write_imm_with_mods(out, v, mods, style),
        SrcKind::CBuf(c) => write_cbuf(out, c.index, c.offset, mods, reuse),
    }
}

/// A source that reads a part of its register or constant (`type_by` and
/// `part` in the spec): the part text goes right after the register,
/// inside `|...|` (`-|R2.H1|`); a constant of a narrow type prints as
/// nvdisasm writes it, with a blank between its brackets
/// (`c[0x0] [0x10].B2`), and so does any constant of a source whose
/// selector is a byte offset (`PartStyle::Bytes`: Maxwell's I2I prints
/// `|c[0x0] [0x150]|` for a word too, and its selector as `.B1`..`.B3`
/// or `.H1`, see [`View::byte_part_text`]) or one `.H1` bit
/// (`PartStyle::Half`: Maxwell's F2I, `c[0x0] [0x0].H1` for every type).
/// Immediates print in the type's style.
#[inline(never)]
pub fn write_src_part(
    out: &mut LineBuf,
    s: &Src,
    reuse: bool,
    style: ImmStyle,
    view: Option<View>,
    sel: u32,
    part_style: PartStyle,
) {
    let part = match (view, part_style) {
        (Some(v), PartStyle::Bytes) => v.byte_part_text(sel),
        (Some(v), PartStyle::Half) => v.half_part_text(sel),
        (Some(v), PartStyle::Index) => v.part_text(sel),
        (None, _) => "",
    };
    let narrow = part_style != PartStyle::Index || view.is_some_and(|v| v.part_bits() != 0);
    let mods = s.mods();
    let kind = s.kind;
    match kind {
        SrcKind::Reg(r) => {
            write_prefix(out, mods, false);
            write_reg(out, r);
            out.push_str(part);
            write_suffix(out, mods, reuse);
        }
        SrcKind::CBuf(c) if narrow => {
            write_prefix(out, mods, false);
            out.push_str("c[");
            write_hex(out, c.index as u64);
            out.push_str("] [");
            write_signed_hex(out, c.offset as i32 as i64);
            out.push(']');
            out.push_str(part);
            write_suffix(out, mods, reuse);
        }
        _ => write_src(out, s, reuse, style),
    }
}

/// A source with a swizzle suffix `swz` (`.H0_H0`, `[asm]` operand
/// `"b+bsel"`), placed as nvdisasm places it: after a GPR's `|...|` and
/// `.reuse` (`|R7|.reuse.H0_H0`), inside the bars of a uniform register
/// or a constant (`-|UR6.H1_H1|`, `|c[0x0] [0x170].F32|`), whose brackets
/// have a blank between them when `cbuf_blank` (HADD2's, even without a
/// swizzle: `c[0x0] [0x174]`). With `in_bars` (Pascal's reference), a
/// GPR's swizzle goes inside its bars too (`-|R2.H1_H1|`). An immediate
/// prints in `style`.
#[inline(never)]
pub fn write_src_swizzled(
    out: &mut LineBuf,
    s: &Src,
    reuse: bool,
    style: ImmStyle,
    swz: &str,
    cbuf_blank: bool,
    in_bars: bool,
) {
    let mods = s.mods();
    let kind = s.kind;
    match kind {
        SrcKind::Reg(r) if r.file == RegFile::Gpr && !in_bars => {
            write_reg_with_mods(out, r, mods, reuse);
            out.push_str(swz);
        }
        SrcKind::Reg(r) => {
            write_prefix(out, mods, r.file.is_pred());
            write_reg(out, r);
            out.push_str(swz);
            write_suffix(out, mods, reuse);
        }
        SrcKind::CBuf(c) => {
            write_prefix(out, mods, false);
            out.push_str("c[");
            write_hex(out, c.index as u64);
            out.push_str(if cbuf_blank { "] [" } else { "][" });
            write_signed_hex(out, c.offset as i32 as i64);
            out.push(']');
            out.push_str(swz);
            write_suffix(out, mods, reuse);
        }
        SrcKind::Imm(_) => {
            write_src(out, s, reuse, style);
            out.push_str(swz);
        }
    }
}

/// `~1.5.NEG.ABS`: an immediate's modifiers.
#[inline(never)]
fn write_imm_with_mods(out: &mut LineBuf, v: u32, mods: u8, style: ImmStyle) {
    if mods & MOD_NOT != 0 {
        out.push('~');
    }
    write_imm(out, v, style);
    if mods & MOD_NEG != 0 {
        out.push_str(".NEG");
    }
    if mods & MOD_ABS != 0 {
        out.push_str(".ABS");
    }
}

/// The modifiers before a register or constant: `!` (a predicate's not),
/// `~`, `-`, `|`.
#[inline(always)]
fn write_prefix(out: &mut LineBuf, mods: u8, pred: bool) {
    if mods & MOD_NOT != 0 {
        out.push(if pred { '!' } else { '~' });
    }
    if mods & MOD_NEG != 0 {
        out.push('-');
    }
    if mods & MOD_ABS != 0 {
        out.push('|');
    }
}

/// The modifiers after a register or constant: `|`, `.reuse`.
#[inline(always)]
fn write_suffix(out: &mut LineBuf, mods: u8, reuse: bool) {
    if mods & MOD_ABS != 0 {
        out.push('|');
    }
    if reuse {
        out.push_str(".reuse");
    }
}

/// `-|R1|.reuse`, `!P0`: a register with modifiers or `.reuse`.
#[inline(never)]
fn write_reg_with_mods(out: &mut LineBuf, r: Reg, mods: u8, reuse: bool) {
    write_prefix(out, mods, matches!(r.file, RegFile::Pred | RegFile::UPred));
    write_reg(out, r);
    write_suffix(out, mods, reuse);
}

/// `-c[0x0][0x10]`: a constant-buffer source.
#[inline(never)]
fn write_cbuf(out: &mut LineBuf, index: u8, offset: u32, mods: u8, reuse: bool) {
    write_prefix(out, mods, false);
    out.push_str("c[");
    write_hex(out, index as u64);
    out.push_str("][");
    write_signed_hex(out, offset as i32 as i64);
    out.push(']');
    write_suffix(out, mods, reuse);
}

/// `@P0 `, `@!P1 `; nothing for an always-true guard.
#[inline(always)]
pub fn write_guard(out: &mut LineBuf, g: &Src) {
    if g.is_zero() {
        return;
    }
    if let SrcKind::Reg(r) = g.kind
        && matches!(r.file, RegFile::Pred | RegFile::UPred)
        && !(g.neg | g.abs)
    {
        // `@` or `@!` without a branch: both bytes stored, one or two kept.
        out.push_chunk(b"@!", 1 + usize::from(g.not));
        write_reg(out, r);
    } else {
        out.push('@');
        write_src(out, g, false, ImmStyle::Hex);
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::line_buf::line_text;

    #[test]
    fn hex_writers_match_core_fmt() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut vals = vec![0, 1, 9, 10, 15, 16, 0xff, 0x100, u64::MAX, 1 << 63];
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x >> (x % 64));
        }
        for v in vals {
            assert_eq!(line_text(|s| write_hex(s, v)), format!("{v:#x}"));
            assert_eq!(
                line_text(|s| write_signed_hex(s, v as i64)),
                format!(
                    "{}{:#x}",
                    if (v as i64) < 0 { "-" } else { "" },
                    (v as i64).unsigned_abs()
                )
            );
            assert_eq!(line_text(|s| write_dec(s, v)), v.to_string());
            let d = hex_digits(v);
            let want: String = v.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(std::str::from_utf8(&d).unwrap(), want);
        }
    }
}
