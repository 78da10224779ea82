//! Registers and source operands: the values the generated op structs hold.

use std::fmt;

/// Register file of a register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// General-purpose register; index 255 is RZ.
    Gpr,
    /// Uniform register (SM75+); index 255 is URZ.
    UGpr,
    /// Predicate; index 7 is PT.
    Pred,
    /// Uniform predicate; index 7 is UPT.
    UPred,
    /// Convergence barrier register B0..B15 (Volta and later; BSSY, BSYNC,
    /// BREAK, BMOV). It has no zero register.
    Bar,
}

impl RegFile {
    /// The index by which [`Reg`] names the zero register (RZ, URZ) or the
    /// true predicate, whatever the SM's encoding of it (the hardware's is
    /// the spec's, `isa::zero_index`).
    ///
    /// A barrier register has none: its value, 255, is no index the
    /// hardware names (see [`RegFile::has_zero`]).
    pub const fn zero_index(self) -> u8 {
        match self {
            RegFile::Gpr | RegFile::UGpr | RegFile::Bar => 255,
            RegFile::Pred | RegFile::UPred => 7,
        }
    }
    /// Whether the file has a zero register or true predicate; for the
    /// barrier file, the spec's index (`registers`) is its register count.
    pub const fn has_zero(self) -> bool {
        !matches!(self, RegFile::Bar)
    }
    pub const fn is_pred(self) -> bool {
        matches!(self, RegFile::Pred | RegFile::UPred)
    }
    pub const fn is_uniform(self) -> bool {
        matches!(self, RegFile::UGpr | RegFile::UPred)
    }
}

/// One register (or the first of a pair/vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    pub file: RegFile,
    pub idx: u8,
}

impl Reg {
    pub const RZ: Reg = Reg {
        file: RegFile::Gpr,
        idx: 255,
    };
    pub const URZ: Reg = Reg {
        file: RegFile::UGpr,
        idx: 255,
    };
    pub const PT: Reg = Reg {
        file: RegFile::Pred,
        idx: 7,
    };
    pub const UPT: Reg = Reg {
        file: RegFile::UPred,
        idx: 7,
    };
    pub const fn gpr(idx: u8) -> Reg {
        Reg {
            file: RegFile::Gpr,
            idx,
        }
    }
    pub const fn ugpr(idx: u8) -> Reg {
        Reg {
            file: RegFile::UGpr,
            idx,
        }
    }
    pub const fn pred(idx: u8) -> Reg {
        Reg {
            file: RegFile::Pred,
            idx,
        }
    }
    pub const fn upred(idx: u8) -> Reg {
        Reg {
            file: RegFile::UPred,
            idx,
        }
    }
    pub const fn bar(idx: u8) -> Reg {
        Reg {
            file: RegFile::Bar,
            idx,
        }
    }
    /// RZ, URZ, PT or UPT.
    pub const fn is_zero(self) -> bool {
        self.file.has_zero() && self.idx == self.file.zero_index()
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file, self.is_zero()) {
            (RegFile::Gpr, true) => f.write_str("RZ"),
            (RegFile::Gpr, false) => write!(f, "R{}", self.idx),
            (RegFile::UGpr, true) => f.write_str("URZ"),
            (RegFile::UGpr, false) => write!(f, "UR{}", self.idx),
            (RegFile::Pred, true) => f.write_str("PT"),
            (RegFile::Pred, false) => write!(f, "P{}", self.idx),
            (RegFile::UPred, true) => f.write_str("UPT"),
            (RegFile::UPred, false) => write!(f, "UP{}", self.idx),
            (RegFile::Bar, _) => write!(f, "B{}", self.idx),
        }
    }
}

/// A constant-buffer reference `c[index][offset]`.
///
/// Packed (five bytes, byte-aligned) so that a [`SrcKind`] is 8 bytes, not
/// 12: every op holds several sources, and an encoder reading a program
/// pays for every byte it streams. Read its fields by value (`{ c.offset }` in a
/// format string): a reference to a packed field does not compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, packed)]
pub struct CBuf {
    pub index: u8,
    /// Byte offset.
    pub offset: u32,
}

/// What a source reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcKind {
    Reg(Reg),
    /// A 32-bit immediate (for 64-bit float ops: the high word).
    Imm(u32),
    CBuf(CBuf),
}

/// A source operand with its modifiers.
///
/// Packed, like [`CBuf`]: 11 bytes instead of 12, which with the
/// largest ops' five sources keeps an `Op` at 72 bytes, not 80
/// (an encoder streaming a program pays for every byte; see
/// BENCHMARKS.md). Read `kind` by value (`{ s.kind }` where a reference
/// would be taken).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, packed)]
pub struct Src {
    pub kind: SrcKind,
    pub neg: bool,
    pub abs: bool,
    /// Bitwise not for integers, logical not for predicates.
    pub not: bool,
}

/// Pattern: a source ([`SrcKind`]) that is a register of file `$file`
/// (`reg!(UGpr)`); the generated form matches are written with it.
macro_rules! reg {
    ($file:ident) => {
        $crate::runtime::operand::SrcKind::Reg($crate::runtime::operand::Reg {
            file: $crate::runtime::operand::RegFile::$file,
            ..
        })
    };
}
pub(crate) use reg;

/// Source modifiers as a bit set ([`Src::mods`]): what encoders check
/// against a form's bits and printers branch on, in one byte.
pub const MOD_NEG: u8 = 1;
pub const MOD_ABS: u8 = 2;
pub const MOD_NOT: u8 = 4;

impl Src {
    /// The modifiers that are on, as `MOD_*` bits.
    #[inline(always)]
    pub fn mods(&self) -> u8 {
        (u8::from(self.neg) * MOD_NEG)
            | (u8::from(self.abs) * MOD_ABS)
            | (u8::from(self.not) * MOD_NOT)
    }

    pub const fn new(kind: SrcKind) -> Src {
        Src {
            kind,
            neg: false,
            abs: false,
            not: false,
        }
    }
    pub const fn reg(r: Reg) -> Src {
        Src::new(SrcKind::Reg(r))
    }
    pub const fn imm(v: u32) -> Src {
        Src::new(SrcKind::Imm(v))
    }
    pub const fn cbuf(index: u8, offset: u32) -> Src {
        Src::new(SrcKind::CBuf(CBuf { index, offset }))
    }
    pub const RZ: Src = Src::reg(Reg::RZ);
    pub const PT: Src = Src::reg(Reg::PT);
    /// !PT: constant false.
    pub const FALSE: Src = Src {
        kind: SrcKind::Reg(Reg::PT),
        neg: false,
        abs: false,
        not: true,
    };
    pub const fn with_neg(mut self, v: bool) -> Src {
        self.neg = v;
        self
    }
    pub const fn with_abs(mut self, v: bool) -> Src {
        self.abs = v;
        self
    }
    pub const fn with_not(mut self, v: bool) -> Src {
        self.not = v;
        self
    }
    /// `(neg, abs, not)`, read by value (the struct is packed).
    pub const fn flags(&self) -> (bool, bool, bool) {
        (self.neg, self.abs, self.not)
    }
    pub const fn has_mods(&self) -> bool {
        self.neg || self.abs || self.not
    }
    pub fn as_reg(&self) -> Option<Reg> {
        match self.kind {
            SrcKind::Reg(r) => Some(r),
            _ => None,
        }
    }
    pub fn is_reg_file(&self, file: RegFile) -> bool {
        matches!(self.kind, SrcKind::Reg(r) if r.file == file)
    }
    /// RZ/URZ/PT/UPT with no modifiers.
    pub fn is_zero(&self) -> bool {
        !self.has_mods() && matches!(self.kind, SrcKind::Reg(r) if r.is_zero())
    }
    pub fn is_imm(&self) -> bool {
        matches!(self.kind, SrcKind::Imm(_))
    }
    pub fn is_cbuf(&self) -> bool {
        matches!(self.kind, SrcKind::CBuf(_))
    }
    /// The slot kind this source needs.
    pub fn slot_kind(&self) -> SlotKind {
        match self.kind {
            SrcKind::Reg(r) => match r.file {
                RegFile::Gpr => SlotKind::Gpr,
                RegFile::UGpr => SlotKind::UGpr,
                RegFile::Pred => SlotKind::Pred,
                RegFile::UPred => SlotKind::UPred,
                RegFile::Bar => SlotKind::Bar,
            },
            SrcKind::Imm(_) => SlotKind::Imm,
            SrcKind::CBuf(_) => SlotKind::CBuf,
        }
    }
}

/// The kinds of slot an encoding form offers a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotKind {
    Gpr,
    UGpr,
    Imm,
    CBuf,
    Pred,
    UPred,
    Bar,
}

impl SlotKind {
    pub const fn name(self) -> &'static str {
        match self {
            SlotKind::Gpr => "gpr",
            SlotKind::UGpr => "ugpr",
            SlotKind::Imm => "imm",
            SlotKind::CBuf => "cbuf",
            SlotKind::Pred => "pred",
            SlotKind::UPred => "upred",
            SlotKind::Bar => "bar",
        }
    }
}

impl fmt::Display for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::runtime::line_buf::line_text(|s| {
            crate::runtime::print::write_src(s, self, false, crate::runtime::print::ImmStyle::Hex)
        }))
    }
}
