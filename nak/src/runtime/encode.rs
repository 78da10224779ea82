//! Support for the generated encoders: operand checks that return errors
//! instead of panicking, shared by every op.

use crate::runtime::instr::Common;
use crate::runtime::operand::{Reg, RegFile, Src, SrcKind};
use crate::runtime::refusal::{EXACT_IMMS, Why, with_flag};
pub use crate::runtime::refusal::{
    Refused, any_align, any_combo, explained, refuse, refused, with_any_combo, with_any_rule,
};
use std::fmt;

/// Why an instruction cannot be encoded as it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError {
    /// Op name as in the spec.
    pub op: &'static str,
    pub message: String,
}

impl EncodeError {
    pub fn new(op: &'static str, message: impl Into<String>) -> Self {
        EncodeError {
            op,
            message: message.into(),
        }
    }
}

/// An op's `Encode::encode_as`: the form [`form_id`] picks, packed by its
/// `encode_fN` (`id: combo_fN => encode_fN`: after its check of the
/// spec's legal combinations; `parts_ok;` first: the part selectors
/// checked); no form is the error naming the sources' kinds.
///
/// [`form_id`]: crate::isa
macro_rules! encode_by_form {
    (@fn [$($parts_ok:ident)?] $($id:literal: $($k:ident)? => $f:ident),*; [$($src:ident),*]) => {
        /// The form [`Self::form_id`] picks, packed.
        #[inline(always)]
        fn encode_as(&self, sm: u32, c: &Common) -> Result<u128, Refused> {
            $(if !self.$parts_ok() {
                return Err(refuse(
                    Self::NAME,
                    format_args!("a part selector names no part of its source's type"),
                ));
            })?
            match self.form_id(sm) {
                $(Some($id) => {
                    $(self.$k(sm)?;)?
                    self.$f(sm, c)
                })*
                _ => Err(no_form(Self::NAME, Self::SMS, sm, &[$(self.$src),*])),
            }
        }
    };
    (parts_ok; $($rest:tt)*) => {
        $crate::runtime::encode::encode_by_form!(@fn [parts_ok] $($rest)*);
    };
    ($($rest:tt)*) => {
        $crate::runtime::encode::encode_by_form!(@fn [] $($rest)*);
    };
}
pub(crate) use encode_by_form;

/// The encoder every generated op implements: its checks and packing
/// (`encode_as`); the wrappers (`encode`, `try_encode` and the error
/// path) are written once here.
pub trait Encode: Sized {
    /// Op name as in the spec (for messages).
    const NAME: &'static str;

    /// The form match on the source kinds, each arm packing its form.
    fn encode_as(&self, sm: u32, c: &Common) -> Result<u128, Refused>;

    /// Encode for `sm`; the guard, control and raw bits come from `c`.
    #[inline]
    fn encode(&self, sm: u32, c: &Common) -> Result<u128, EncodeError> {
        match self.try_encode(sm, c) {
            Some(w) => Ok(w),
            None => Err(explained(Self::NAME, || self.try_encode(sm, c))),
        }
    }

    /// The word, or `None` when the op does not encode on `sm` (no message
    /// is built: for legality trials, which fail often). Never inlined: the
    /// op's one copy of its whole encoder, which `encode` and the error
    /// path call too (inlined into each, the encoders were most of the
    /// release build's time).
    #[inline(never)]
    fn try_encode(&self, sm: u32, c: &Common) -> Option<u128> {
        self.encode_as(sm, c).ok()
    }
}

/// The failure of an encoder's form match: no encoding on `sm` at all, or
/// no form on `sm` takes the sources' kinds.
#[inline(always)]
pub fn no_form(op: &'static str, sms: &[u32], sm: u32, srcs: &[Src]) -> Refused {
    if !sms.contains(&sm) {
        return refuse(op, format_args!("no encoding on SM{sm}"));
    }
    refuse(
        op,
        format_args!(
            "no form on SM{sm} takes sources of kinds {:?}",
            SlotKinds(srcs)
        ),
    )
}

/// The sources' slot kinds, listed as `["reg", "imm"]` (no allocation).
struct SlotKinds<'a>(&'a [Src]);

impl fmt::Debug for SlotKinds<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|s| s.slot_kind().name()))
            .finish()
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot encode {}: {}", self.op, self.message)
    }
}

impl std::error::Error for EncodeError {}

/// The hardware index of `file`'s zero register (or true predicate) on
/// `sm`, from the spec's `registers` tables; None where the SM has none.
#[inline(always)]
pub fn zero_index(sm: u32, file: RegFile) -> Option<u8> {
    crate::isa::zero_index(sm, file)
}

/// The bank index of constant-buffer source `what` (`s`), fitted to
/// `width` bits.
#[inline(always)]
pub fn cbuf_index_field(
    op: &'static str,
    what: &str,
    s: &Src,
    width: u32,
) -> Result<u128, Refused> {
    match s.kind {
        SrcKind::CBuf(c) => fit(op, what, c.index as u128, width),
        _ => Err(refused(op, what, Why::NotCBuf)),
    }
}

/// The byte offset of constant-buffer source `what` (`s`) in units of
/// `scale` bytes (it must be a multiple), fitted to `width` bits (two's
/// complement if `signed`).
#[inline(always)]
pub fn cbuf_offset_field(
    op: &'static str,
    what: &str,
    s: &Src,
    scale: u32,
    width: u32,
    signed: bool,
) -> Result<u128, Refused> {
    let SrcKind::CBuf(c) = s.kind else {
        return Err(refused(op, what, Why::NotCBuf));
    };
    if c.offset % scale != 0 {
        let offset = c.offset;
        return Err(refused(op, what, Why::CBufScale { offset, scale }));
    }
    if signed {
        fit_signed(op, what, (c.offset as i32 / scale as i32) as i64, width)
    } else {
        fit(op, what, (c.offset / scale) as u128, width)
    }
}

/// Encoded index of a register of `file`, checked against the SM's limits.
// Always inlined: its checks fold away against the constants of the
// generated call site.
#[inline(always)]
pub fn reg_index(
    op: &'static str,
    what: &str,
    r: Reg,
    file: RegFile,
    sm: u32,
) -> Result<u128, Refused> {
    if r.file != file {
        return Err(refused(op, what, Why::WrongFile(r, file)));
    }
    let Some(zero) = zero_index(sm, file) else {
        return Err(refused(op, what, Why::NoFile(file, sm)));
    };
    if file.has_zero() && r.idx == file.zero_index() {
        Ok(zero as u128)
    } else if r.idx >= zero {
        Err(refused(op, what, Why::Missing(r, sm)))
    } else {
        Ok(r.idx as u128)
    }
}

/// Field value of a register source: it must be a register of `file`
/// that exists on the SM and fits `width` bits.
#[inline(always)]
pub fn src_field(
    op: &'static str,
    what: &str,
    s: &Src,
    file: RegFile,
    width: u32,
    sm: u32,
) -> Result<u128, Refused> {
    fit(
        op,
        what,
        reg_index(op, what, src_reg(op, what, s)?, file, sm)?,
        width,
    )
}

/// An operand or modifier this form has no field for: it must hold its
/// default (`is_default`), else "`what` is not encodable on SM`sm`".
#[inline(always)]
pub fn only_default(
    op: &'static str,
    what: &str,
    is_default: bool,
    sm: u32,
) -> Result<(), Refused> {
    if is_default {
        return Ok(());
    }
    Err(refused(op, what, Why::NotDefault(sm)))
}

/// The common part of an instruction placed in a word: the guard
/// predicate in bits `guard.0..guard.0 + guard.1`, its `!` at bit `not`,
/// the control bits at `ctrl` (as `guard`; width 0 where the family keeps
/// them out of the word).
#[inline(always)]
pub fn common_fields(
    op: &'static str,
    c: &Common,
    sm: u32,
    guard: (u32, u32),
    not: u32,
    ctrl: (u32, u32),
) -> Result<u128, Refused> {
    let mut w = guard_field(op, &c.guard, guard.1, sm)? << guard.0;
    w |= u128::from(c.guard.not) << not;
    if ctrl.1 > 0 {
        w |= ctrl_field(op, c.ctrl, ctrl.1)? << ctrl.0;
    }
    Ok(w)
}

/// The code of an enum modifier's value in a form: `codes` (a static
/// table, one code per value) at the value's index.
#[inline(always)]
pub fn code_of(codes: &'static [u128], index: usize) -> u128 {
    codes[index]
}

/// In a table from [`codes`]: the value has no code in that encoding.
pub const NO_CODE: u16 = u16::MAX;

/// An enum's codes in one encoding, one per value in the enum's order,
/// from generated text: hex codes separated by blanks, `-` for a value
/// the encoding lacks ([`NO_CODE`]). Evaluated at compile time (a bad
/// table fails the build).
pub const fn codes<const N: usize>(text: &str) -> [u16; N] {
    let b = text.as_bytes();
    let mut out = [NO_CODE; N];
    let (mut i, mut k) = (0, 0);
    while i < b.len() {
        if b[i] == b' ' {
            i += 1;
            continue;
        }
        assert!(k < N, "more codes than values");
        if b[i] == b'-' {
            i += 1;
        } else {
            let mut v: u16 = 0;
            while i < b.len() && b[i] != b' ' {
                let d = match b[i] {
                    b'0'..=b'9' => b[i] - b'0',
                    b'a'..=b'f' => b[i] - b'a' + 10,
                    _ => panic!("a code is not hex"),
                };
                v = v * 16 + d as u16;
                i += 1;
            }
            out[k] = v;
        }
        k += 1;
    }
    assert!(k == N, "fewer codes than values");
    out
}

/// The code at `index` of a table from [`codes`]; the encoder's error
/// where the value (`what` = `name`) has none on `sm`.
#[inline(always)]
pub fn code_in(
    op: &'static str,
    what: &str,
    name: &'static str,
    codes: &[u16],
    index: usize,
    sm: u32,
) -> Result<u128, Refused> {
    match codes[index] {
        NO_CODE => Err(refused(op, what, Why::NoCode(name, sm))),
        c => Ok(u128::from(c)),
    }
}

/// Field value of the guard predicate (`c.guard`): a predicate register
/// that fits `width` bits ([`src_field`] of the slot named "guard").
#[inline(always)]
pub fn guard_field(op: &'static str, guard: &Src, width: u32, sm: u32) -> Result<u128, Refused> {
    src_field(op, "guard", guard, RegFile::Pred, width, sm)
}

/// Field value of a uniform guard predicate (see [`uguard_of`]): the
/// IR's always-true guard PT is UPT here, `!PT` is `!UPT`; any other
/// guard must be a uniform predicate.
///
/// [`uguard_of`]: crate::runtime::decode::uguard_of
#[inline(always)]
pub fn uguard_field(op: &'static str, guard: &Src, width: u32, sm: u32) -> Result<u128, Refused> {
    let g = match guard.kind {
        SrcKind::Reg(r) if r == Reg::PT => Src::reg(Reg::UPT).with_not(guard.not),
        _ => *guard,
    };
    src_field(op, "guard", &g, RegFile::UPred, width, sm)
}

/// Field value of the control bits (`c.ctrl`), fitted to `width` bits.
#[inline(always)]
pub fn ctrl_field(op: &'static str, ctrl: u32, width: u32) -> Result<u128, Refused> {
    fit(op, "control bits", u128::from(ctrl), width)
}

/// Field value of a destination register (see [`src_field`]).
#[inline(always)]
pub fn dst_field(
    op: &'static str,
    what: &str,
    r: Reg,
    file: RegFile,
    width: u32,
    sm: u32,
) -> Result<u128, Refused> {
    fit(op, what, reg_index(op, what, r, file, sm)?, width)
}

/// Field value of an immediate source (see [`imm_field`]).
#[inline(always)]
pub fn imm_src_field(
    op: &'static str,
    what: &str,
    s: &Src,
    width: u32,
    shift: u32,
    sext: bool,
) -> Result<u128, Refused> {
    match s.kind {
        SrcKind::Imm(v) => imm_field(op, what, v, width, shift, sext),
        _ => Err(refused(op, what, Why::NotImm)),
    }
}

/// A packed pair's immediate stored as the top bits of each half (Pascal's
/// `imm20h`: the top 10 of each F16): the low half's bits from `shift` up
/// fill the field's low half, the high half's its high half. A half's
/// dropped bits must be zero, or all set in a NaN (the parser writes every
/// payload bit of a NaN, as ptxas does).
pub fn imm_halves_src_field(
    op: &'static str,
    what: &str,
    s: &Src,
    shift: u32,
) -> Result<u128, Refused> {
    let SrcKind::Imm(v) = s.kind else {
        return Err(refused(op, what, Why::NotImm));
    };
    let low = (1u32 << shift) - 1;
    let half = |h: u32| -> Result<u128, Refused> {
        let nan_payload = h & low == low && h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
        if h & low != 0 && !nan_payload {
            let half = true;
            return Err(refused(op, what, Why::LowBits { v, shift, half }));
        }
        Ok(u128::from(h >> shift))
    };
    Ok(half(v & 0xffff)? | (half(v >> 16)? << (16 - shift)))
}

/// The value of an [`imm_halves_src_field`] field: each half's stored bits
/// back above its `shift` dropped (zero) bits.
pub fn imm_halves_from_field(f: u128, shift: u32) -> u32 {
    let w = 16 - shift;
    let mask = (1u128 << w) - 1;
    let lo = ((f & mask) as u32) << shift;
    let hi = (((f >> w) & mask) as u32) << shift;
    lo | (hi << 16)
}

/// Whether `c` is the general register `n` above `b`'s, neither of them
/// at or past RZ and neither with a modifier (a source tied to another:
/// Maxwell's CAS swap value follows its compare value).
#[inline(always)]
pub fn gpr_follows(b: Src, c: Src, n: u8) -> bool {
    match (b.kind, c.kind) {
        (SrcKind::Reg(rb), SrcKind::Reg(rc)) => {
            rb.file == RegFile::Gpr
                && rc.file == RegFile::Gpr
                && !rb.is_zero()
                && u16::from(rb.idx) + u16::from(n) < 255
                && u16::from(rc.idx) == u16::from(rb.idx) + u16::from(n)
                && !c.has_mods()
        }
        _ => false,
    }
}

/// Source modifiers, as a set for [`forbid_mods`].
pub use crate::runtime::operand::{MOD_ABS, MOD_NEG, MOD_NOT};

/// A form without bits for some modifiers refuses a source that has them.
#[inline(always)]
pub fn forbid_mods(
    op: &'static str,
    what: &str,
    s: &Src,
    forbidden: u8,
    sm: u32,
) -> Result<(), Refused> {
    let bad = s.mods() & forbidden;
    if bad == 0 {
        return Ok(());
    }
    Err(refused(op, what, Why::Mods(bad, sm)))
}

/// The register a decoded index names: the SM's zero index is the zero
/// register (the IR names it by [`RegFile::zero_index`]); higher indices
/// name no register.
#[inline(always)]
pub fn reg_from_index(file: RegFile, idx: u128, sm: u32) -> Option<Reg> {
    crate::runtime::decode::reg_below(file, idx, zero_index(sm, file)?)
}

/// The register a source reads, or an error naming the slot.
// Always inlined: its checks fold away against the constants of the
// generated call site.
#[inline(always)]
pub fn src_reg(op: &'static str, what: &str, s: &Src) -> Result<Reg, Refused> {
    match s.kind {
        SrcKind::Reg(r) => Ok(r),
        _ => Err(refused(op, what, Why::NotRegister)),
    }
}

/// Runs `f` with immediates required to encode every bit. The assembler
/// may drop a NaN's payload (its text does not carry it), but the
/// legalizer must not: the program runs the encoded value, and FCMP or
/// a move hands the bits on (SM50 `FCMP R98, R0, +QNAN, R74` with the
/// IR's 0x7fffffff would run as 0x7ffff000 in the 20-bit field).
pub fn with_exact_imms<R>(f: impl FnOnce() -> R) -> R {
    with_flag(&EXACT_IMMS, f)
}

/// Field value of an immediate: `shift` low bits dropped (must be zero),
/// `width` bits kept; with `sext` the value must sign-extend from the kept bits.
// Always inlined: its checks fold away against the constants of the
// generated call site.
#[inline(always)]
pub fn imm_field(
    op: &'static str,
    what: &str,
    v: u32,
    width: u32,
    shift: u32,
    sext: bool,
) -> Result<u128, Refused> {
    // A NaN's payload is not in its text: the parser writes every payload
    // bit set (as ptxas does), and a truncated float field keeps the top.
    let low = v & ((1u32 << shift.min(31)) - 1);
    let nan_payload = low == (1u32 << shift.min(31)) - 1
        && f32::from_bits(v >> shift << shift).is_nan()
        && !EXACT_IMMS.with(|e| e.get());
    if shift > 0 && low != 0 && !nan_payload {
        let half = false;
        return Err(refused(op, what, Why::LowBits { v, shift, half }));
    }
    let kept = v >> shift;
    let total = width + shift;
    if total < 32 {
        if sext {
            let sv = v as i32;
            let lim = 1i64 << (total - 1);
            if (sv as i64) < -lim || (sv as i64) >= lim {
                let signed = true;
                return Err(refused(op, what, Why::ImmWide { v, total, signed }));
            }
        } else if kept >> width != 0 {
            let signed = false;
            return Err(refused(op, what, Why::ImmWide { v, total, signed }));
        }
    }
    let mask = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    Ok((kept & mask) as u128)
}

/// Inverse of [`imm_field`].
pub fn imm_from_field(f: u128, width: u32, shift: u32, sext: bool) -> u32 {
    let mut v = (f as u32) << shift;
    let total = width + shift;
    if sext && total < 32 {
        let s = 32 - total;
        v = (((v << s) as i32) >> s) as u32;
    }
    v
}

/// Check that a value fits a field of `width` bits.
// Always inlined: its checks fold away against the constants of the
// generated call site.
#[inline(always)]
pub fn fit(op: &'static str, what: &str, v: u128, width: u32) -> Result<u128, Refused> {
    if width < 128 && v >> width != 0 {
        Err(refused(op, what, Why::Wide { v, width }))
    } else {
        Ok(v)
    }
}

/// Signed value into a `width`-bit two's-complement field.
// Always inlined: its checks fold away against the constants of the
// generated call site.
#[inline(always)]
pub fn fit_signed(op: &'static str, what: &str, v: i64, width: u32) -> Result<u128, Refused> {
    let lim = 1i128 << (width - 1);
    if (v as i128) < -lim || (v as i128) >= lim {
        return Err(refused(op, what, Why::WideSigned { v, width }));
    }
    Ok((v as i128 as u128) & ((1u128 << width) - 1))
}

pub fn sext_field(f: u128, width: u32) -> i64 {
    let s = 128 - width;
    (((f << s) as i128) >> s) as i64
}
