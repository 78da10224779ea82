//! Support for the generated legalizers: the context that emits copies, and
//! the operand rewrites every op shares.

use crate::instr::ValueType;
use crate::operand::{Reg, RegFile, Src, SrcKind};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegalizeError {
    pub op: &'static str,
    pub message: String,
}

impl LegalizeError {
    pub fn new(op: &'static str, message: impl Into<String>) -> Self {
        LegalizeError {
            op,
            message: message.into(),
        }
    }
}

impl fmt::Display for LegalizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot legalize {}: {}", self.op, self.message)
    }
}

impl std::error::Error for LegalizeError {}

/// What a legalizer needs from the pass that drives it.
pub trait LegalizeCx {
    /// Emit, before the instruction, a copy of `src`'s value (without its
    /// modifiers) into a fresh register of `file` (aligned for 64-bit
    /// types), and return that register.
    fn copy_to_reg(&mut self, src: Src, ty: ValueType, file: RegFile)
    -> Result<Reg, LegalizeError>;

    /// Emit an instruction that computes `src` *with* its modifiers (neg,
    /// abs, not) into a fresh register, for a slot whose form cannot hold
    /// the modifier (e.g. Maxwell FFMA has no abs bits). The default says
    /// it cannot; the legalizer then tries other rewrites.
    fn materialize(
        &mut self,
        src: Src,
        ty: ValueType,
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        let _ = (src, ty, file);
        Err(LegalizeError::new(
            "materialize",
            "not supported by this context",
        ))
    }
}

/// Fold neg/abs/not of an immediate into its value where that keeps the
/// meaning exact. An integer negation of 0 stays (its carry-out differs).
pub fn fold_imm_mods(s: &mut Src, ty: ValueType) {
    let SrcKind::Imm(v) = s.kind else { return };
    match ty {
        ValueType::F32 | ValueType::F64 => {
            let mut v = v;
            if s.abs {
                v &= 0x7fff_ffff;
                s.abs = false;
            }
            if s.neg {
                v ^= 0x8000_0000;
                s.neg = false;
            }
            s.kind = SrcKind::Imm(v);
        }
        ValueType::Pred => {}
        // A 32-bit immediate of a 64-bit operand is extended by the op; a
        // negation folded into its low word would change the high word.
        ValueType::U64 | ValueType::I64 => {}
        _ => {
            let mut v = v;
            if s.not {
                v = !v;
                s.not = false;
            }
            if s.neg && v != 0 {
                v = v.wrapping_neg();
                s.neg = false;
            }
            s.kind = SrcKind::Imm(v);
        }
    }
}

/// [`fold_imm_mods`] for a source read as the type a modifier chooses
/// (`type_by`) through part selector `sel`: an immediate of a narrow type
/// becomes its selected part (`sel` 0, which the immediate form needs),
/// an F16 or BF16 part's neg/abs folded into the part's own sign bit.
pub fn fold_imm_mods_as(
    s: &mut Src,
    view: Option<crate::view::View>,
    ty: ValueType,
    sel: &mut u32,
) {
    let (SrcKind::Imm(v), Some(view)) = (s.kind, view) else {
        return fold_imm_mods(s, ty);
    };
    if view.part_bits() == 0 {
        return fold_imm_mods(s, ty);
    }
    s.kind = SrcKind::Imm(view.part_value(v, *sel, s.neg, s.abs));
    s.neg = false;
    s.abs = false;
    *sel = 0;
}

/// The register file a copy of a value of `ty` goes to.
pub fn placeholder_file(ty: ValueType) -> RegFile {
    copy_file(ty, false)
}

/// The register file a copy goes to: GPR or predicate, or with `uniform`
/// their uniform counterparts (for sources only a UGPR/UP form takes).
pub fn copy_file(ty: ValueType, uniform: bool) -> RegFile {
    match (ty.is_pred(), uniform) {
        (true, false) => RegFile::Pred,
        (true, true) => RegFile::UPred,
        (false, false) => RegFile::Gpr,
        (false, true) => RegFile::UGpr,
    }
}

/// A stand-in register for trying whether a copy would make the op
/// encodable; None when the source is already in that file.
pub fn placeholder(s: &Src, ty: ValueType) -> Option<Src> {
    placeholder_in(s, placeholder_file(ty))
}

/// [`placeholder`] in a given register file.
pub fn placeholder_in(s: &Src, file: RegFile) -> Option<Src> {
    if s.is_reg_file(file) {
        return None;
    }
    Some(Src {
        kind: SrcKind::Reg(Reg { file, idx: 0 }),
        ..*s
    })
}

impl crate::isa::Op {
    /// Legalize for `sm` and encode, in one step: an op that is already
    /// legal is encoded once, its legality check giving the word (an
    /// emitter's fast path: `legalize` then `encode` would encode it twice).
    pub fn legalize_encode(
        &mut self,
        sm: u32,
        c: &crate::instr::Common,
        cx: &mut dyn LegalizeCx,
    ) -> Result<u128, LegalizeError> {
        if let Some(w) = self.try_encode(sm, c) {
            return Ok(w);
        }
        self.legalize(sm, cx)?;
        let name = self.name();
        self.encode(sm, c)
            .map_err(|e| LegalizeError::new(name, e.to_string()))
    }
}
