//! What every instruction has besides its op: guard, control bits, raw bits.

use crate::runtime::operand::{Src, SrcKind};

/// The parts of an instruction word that are not the op's operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Common {
    /// Guard predicate (`@P0`, `@!P1`); PT when unguarded.
    pub guard: Src,
    /// Scheduling control: SM70+ bits 105..128 of the word; on SM50..SM62 the
    /// instruction's 21-bit part of the bundle's control word.
    pub ctrl: u32,
    /// Bits the spec keeps raw (`?`), as they were in the decoded word.
    pub raw: u128,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            guard: Src::PT,
            ctrl: 0,
            raw: 0,
        }
    }
}

/// The value type of an operand, as the spec declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    U32,
    I32,
    B32,
    F32,
    U64,
    I64,
    F64,
    Pred,
}

impl ValueType {
    pub const fn is_pred(self) -> bool {
        matches!(self, ValueType::Pred)
    }
    pub const fn is_float(self) -> bool {
        matches!(self, ValueType::F32 | ValueType::F64)
    }
    pub const fn is_int(self) -> bool {
        !self.is_pred() && !self.is_float()
    }
    /// Registers a value of this type occupies.
    pub const fn regs(self) -> u8 {
        match self {
            ValueType::U64 | ValueType::I64 | ValueType::F64 => 2,
            _ => 1,
        }
    }
}

/// Static description of one operand of an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandInfo {
    pub name: &'static str,
    pub ty: ValueType,
    pub neg: bool,
    pub abs: bool,
    pub not: bool,
    /// The value an absent operand holds.
    pub default: Option<Src>,
    /// Register alignment (1 = none).
    pub align: u8,
}

impl OperandInfo {
    /// An operand without source modifiers, default or alignment; the
    /// `with_*` methods add them (the generated tables read as one line
    /// per operand).
    pub const fn new(name: &'static str, ty: ValueType) -> Self {
        OperandInfo {
            name,
            ty,
            neg: false,
            abs: false,
            not: false,
            default: None,
            align: 1,
        }
    }
    pub const fn with_neg(self) -> Self {
        OperandInfo { neg: true, ..self }
    }
    pub const fn with_abs(self) -> Self {
        OperandInfo { abs: true, ..self }
    }
    pub const fn with_not(self) -> Self {
        OperandInfo { not: true, ..self }
    }
    /// The value the operand holds when absent.
    pub const fn with_default(self, default: Src) -> Self {
        OperandInfo {
            default: Some(default),
            ..self
        }
    }
    /// Register alignment in registers.
    pub const fn with_align(self, align: u8) -> Self {
        OperandInfo { align, ..self }
    }
}

/// Static description of one encoding form (for tests and tools).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormInfo {
    pub op: &'static str,
    pub form: &'static str,
    /// Index of the form within its op (as `form_id` returns).
    pub id: u8,
    pub family: crate::isa::Family,
    pub sms: &'static [u32],
    /// Bits fixed by the form, and their values.
    pub mask: u128,
    pub value: u128,
    /// Bits kept raw.
    pub unknown: u128,
    /// The raw bits as ptxas writes them (each raw field's `?=` value):
    /// what the assembler puts there.
    pub canonical: u128,
    /// Bits the text does not carry under a condition (see [`Hidden`]).
    pub hidden: &'static [Hidden],
    /// Per source: the slot kind that holds it in this form (None: absent).
    pub srcs: &'static [Option<crate::runtime::operand::SlotKind>],
}

/// Bits of a form that nvdisasm's text does not carry, on the form's SMs
/// in `sms`, when the word matches one of the `when` (mask, value) pairs
/// (and has one of the `when_any` bits set, when there are any), and the
/// value the assembler writes there. Derived from the spec by codegen
/// (`hidden.rs`; isa-spec/README.md "Bits the text does not carry"): an
/// operand printed only under a modifier (`x if m`), two adjacent optional
/// predicates, a part selector of a 32/64-bit type, the high half of a
/// 16-bit float immediate, the payload of a NaN immediate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hidden {
    pub sms: core::ops::RangeInclusive<u32>,
    pub when: &'static [(u128, u128)],
    pub when_any: u128,
    pub mask: u128,
    pub value: u128,
}

impl FormInfo {
    /// `w` (a word of this form) as the assembler writes the instruction
    /// nvdisasm prints for it on `sm`: raw bits as ptxas writes them, and
    /// every bit the text does not carry at the value the assembler
    /// writes. Control bits are left as they are.
    pub fn canonical_word(&self, sm: u32, w: u128) -> u128 {
        let mut w = (w & !self.unknown) | self.canonical;
        for h in self.hidden {
            let any = h.when_any == 0 || w & h.when_any != 0;
            let when = h.when.iter().any(|&(m, v)| w & m == v);
            if h.sms.contains(&sm) && when && any {
                w = (w & !h.mask) | h.value;
            }
        }
        w
    }
}

impl Src {
    /// Whether the source is a register of a 64-bit pair/vector base.
    pub fn is_imm_zero(&self) -> bool {
        matches!(self.kind, SrcKind::Imm(0))
    }
}

/// A dense lookup table of `N` entries built at compile time from sparse
/// `(index, value)` pairs (the rest are `none`): the generated decoders map
/// the opcode bits to the function that tries that value's forms with it.
pub const fn dense_arms<T: Copy, const N: usize>(entries: &[(u32, T)], none: T) -> [T; N] {
    let mut t = [none; N];
    let mut i = 0;
    while i < entries.len() {
        t[entries[i].0 as usize] = entries[i].1;
        i += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::Common;
    use crate::isa::Op;
    use crate::runtime::operand::Src;
    use std::mem::size_of;

    /// An encoder streaming a program pays for every byte of it (144 -> 96
    /// bytes made encode 7-10% faster, BENCHMARKS.md), so the
    /// instruction's size is a speed budget: a field added to `Src` or a
    /// bigger op should be a decision, not an accident.
    #[test]
    fn an_instruction_takes_96_bytes() {
        assert_eq!(size_of::<Src>(), 11);
        assert_eq!(size_of::<Common>(), 32);
        assert!(size_of::<Op>() <= 64, "Op is {} bytes", size_of::<Op>());
        assert_eq!(size_of::<(Op, Common)>(), 96);
    }
}
