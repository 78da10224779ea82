//! Sources read as a type that a modifier chooses (`type_by` in the spec):
//! I2F's source is a byte, a half or a word as its `stype` says, F2I's an
//! F16, BF16 or F32, MUFU.RCP64H's the high word of an F64. The type
//! decides how an immediate prints and parses, and which parts a `part`
//! selector (the `.B1`..`.B3` / `.H1` after a register) may pick.

use crate::runtime::print::ImmStyle;

/// How a source's `part` selector names its part (the spec's `part`,
/// `part_bytes`, `part_half`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartStyle {
    /// The part's index: `.B1`..`.B3` of a byte, `.H1` of a half, nothing
    /// for a whole-word type.
    Index,
    /// The part's byte offset, printed for every type (Maxwell's I2I).
    Bytes,
    /// One bit, `.H1`, printed for every type (Maxwell's F2I).
    Half,
}

/// The type a source is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    F64,
    /// Two F16s in one word, the high one printed first (`-0.5, 2`).
    F16x2,
    /// Two BF16s in one word.
    Bf16x2,
}

impl View {
    /// Width of the type in bits.
    pub const fn bits(self) -> u32 {
        match self {
            View::U8 | View::I8 => 8,
            View::U16 | View::I16 | View::F16 | View::Bf16 => 16,
            View::U32 | View::I32 | View::F32 | View::F16x2 | View::Bf16x2 => 32,
            View::U64 | View::I64 | View::F64 => 64,
        }
    }

    /// Width of the parts a selector picks from a 32-bit register or
    /// constant (8 or 16), or 0 for a type that reads the whole of it.
    pub const fn part_bits(self) -> u32 {
        match self.bits() {
            b @ (8 | 16) => b,
            _ => 0,
        }
    }

    /// How an immediate of this type prints (nvdisasm): unsigned types in
    /// hex, signed ones in signed hex (a narrow one from its own width: the
    /// immediate holds it zero-extended), floats as their value (an F64
    /// immediate holds the double's high word).
    pub const fn imm_style(self) -> ImmStyle {
        match self {
            View::U8 | View::U16 | View::U32 | View::U64 => ImmStyle::Hex,
            View::I8 => ImmStyle::SignedHex8,
            View::I16 => ImmStyle::SignedHex16,
            View::I32 | View::I64 => ImmStyle::SignedHex,
            View::F16 => ImmStyle::F16,
            View::Bf16 => ImmStyle::Bf16,
            View::F32 => ImmStyle::F32,
            View::F64 => ImmStyle::F64Hi,
            View::F16x2 => ImmStyle::F16x2,
            View::Bf16x2 => ImmStyle::Bf16x2,
        }
    }

    /// Whether selector value `sel` names a part: below 32 / width for a
    /// narrow type (nvdisasm prints `.INVALID2` for a half's 2 and 3); any
    /// value for a whole-word type, which ignores the selector bits.
    pub const fn part_ok(self, sel: u32) -> bool {
        match self.part_bits() {
            0 => true,
            b => sel < 32 / b,
        }
    }

    /// The part index a byte-offset selector names (`part_bytes` in the
    /// spec: Maxwell's I2I encodes `.H1` as byte 2); `None` when the offset
    /// is not the start of a half. A whole-word type gives the offset back.
    pub const fn part_of_byte(self, byte: u32) -> Option<u32> {
        match self.part_bits() {
            16 if !byte.is_multiple_of(2) => None,
            16 => Some(byte / 2),
            _ => Some(byte),
        }
    }

    /// Whether byte offset `byte` is a selector nvdisasm prints for this
    /// type: any byte of a byte or a word (Maxwell's I2I prints
    /// `R2.B1` for a word too), an even one of a half (1 and 3 print
    /// `.INVALIDSIZE1`, `.INVALIDSIZE3`).
    pub const fn byte_part_ok(self, byte: u32) -> bool {
        byte < 4 && (self.part_bits() != 16 || byte.is_multiple_of(2))
    }

    /// nvdisasm's text for byte-offset selector `byte`: `.H1` for a half's
    /// byte 2, `.B1`..`.B3` for a byte or a word, nothing for 0.
    pub const fn byte_part_text(self, byte: u32) -> &'static str {
        match (self.part_bits(), byte) {
            (16, 2) => ".H1",
            (16, _) => "",
            (_, 1) => ".B1",
            (_, 2) => ".B2",
            (_, 3) => ".B3",
            _ => "",
        }
    }

    /// The byte-offset selector a register suffix (`B2`, `H1`, without the
    /// dot) names for this type; `None` when the type has no such part.
    pub fn parse_byte_part(self, suffix: &str) -> Option<u32> {
        (1..4).find(|&b| self.byte_part_ok(b) && self.byte_part_text(b).get(1..) == Some(suffix))
    }

    /// Whether `sel` is a one-bit `.H1` selector (`part_half`): 0 or 1,
    /// for every type (nvdisasm prints `F2I.U32.F32 R1, R0.H1`).
    pub const fn half_part_ok(self, sel: u32) -> bool {
        sel < 2
    }

    /// nvdisasm's text for a one-bit `.H1` selector (`part_half`).
    pub const fn half_part_text(self, sel: u32) -> &'static str {
        if sel == 1 { ".H1" } else { "" }
    }

    /// The one-bit selector a register suffix (`H1`, without the dot)
    /// names (`part_half`): `H1` is 1 for every type.
    pub fn parse_half_part(self, suffix: &str) -> Option<u32> {
        (suffix == "H1").then_some(1)
    }

    /// nvdisasm's text for part `sel`: nothing for part 0 or a whole-word
    /// type, `.B1`..`.B3` for bytes, `.H1` for the high half.
    pub const fn part_text(self, sel: u32) -> &'static str {
        match (self.part_bits(), sel) {
            (8, 1) => ".B1",
            (8, 2) => ".B2",
            (8, 3) => ".B3",
            (16, 1) => ".H1",
            _ => "",
        }
    }

    /// The selector a register suffix (`B2`, `H1`, without the dot) names
    /// for this type; `None` when the type has no such part.
    pub fn parse_part(self, suffix: &str) -> Option<u32> {
        (1..4).find(|&sel| self.part_ok(sel) && self.part_text(sel).get(1..) == Some(suffix))
    }

    /// The value the source reads from 32-bit `word`: part `sel`
    /// zero-extended (a whole-word type: the word itself), with a float
    /// part's negate and absolute-value modifiers applied to its sign bit.
    pub const fn part_value(self, word: u32, sel: u32, neg: bool, abs: bool) -> u32 {
        let b = self.part_bits();
        if b == 0 {
            return word;
        }
        let mut v = (word >> (sel * b)) & ((1u32 << b) - 1);
        if matches!(self, View::F16 | View::Bf16) {
            let sign = 1u32 << (b - 1);
            if abs {
                v &= !sign;
            }
            if neg {
                v ^= sign;
            }
        }
        v
    }
}
