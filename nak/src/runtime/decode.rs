//! Support for the generated decoders and one-step printers: the per-form
//! entry points the family dispatch tables call are written once here,
//! generic over the op and its form number.

use crate::isa::Op;
use crate::runtime::instr::Common;
use crate::runtime::line_buf::LineBuf;

/// What the shared per-form decoders need from a generated op: the fields
/// of each of its forms read out of a word, and its printer.
pub trait Forms: Sized + Into<Op> {
    /// The op and common part of a word of form `F`, or `None` when a
    /// field holds a value the encoder could not produce. Always inlined:
    /// the match on `F` folds away and the form's field reads land in its
    /// caller. (Passing the form's `parts_fN` as a function item instead
    /// left the big ones out of line in their `FnOnce` shim: 7 more
    /// instructions per decoded word.)
    fn parts<const F: u8>(w: u128, sm: u32) -> Option<(Self, Common)>;

    /// Write nvdisasm's text (normalized as in the corpus) for the op at
    /// byte address `addr`; always inlined into the one-step printers.
    fn print(&self, c: &Common, sm: u32, addr: u64, out: &mut LineBuf);

    /// [`Self::print`] out of line: `Op::print_line`'s per-op printer.
    #[inline(never)]
    fn print_line(&self, c: &Common, sm: u32, addr: u64, out: &mut LineBuf) {
        self.print(c, sm, addr, out)
    }
}

/// Where a one-step printer prints: the instruction's byte address and
/// the control bits its bundle gives it (families with bundles).
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub addr: u64,
    pub ctrl: u32,
}

/// Decode a word of form `F` of op `T` (a dispatch arm's candidate).
/// Never inlined: one copy per form, each with its field reads inlined.
#[inline(never)]
pub fn decode_form<T: Forms, const F: u8>(w: u128, sm: u32) -> Option<(Op, Common)> {
    let (o, c) = T::parts::<F>(w, sm)?;
    Some((o.into(), c))
}

/// Decode and print a word of one form in one step (`nak dis`): the fields
/// go from the word to the text without an `Op` in between, and the
/// printer's checks of source kinds fold away against the form's.
#[inline(never)]
pub fn print_form<T: Forms, const F: u8>(
    w: u128,
    sm: u32,
    at: At,
    out: &mut LineBuf,
) -> Option<()> {
    let (o, c) = T::parts::<F>(w, sm)?;
    o.print(&c, sm, at.addr, out);
    Some(())
}

/// [`print_form`] for a family with bundles, which keeps the control bits
/// out of the word: the printer gets them (`at.ctrl`) from the stream.
#[inline(never)]
pub fn print_form_bundled<T: Forms, const F: u8>(
    w: u128,
    sm: u32,
    at: At,
    out: &mut LineBuf,
) -> Option<()> {
    let (o, mut c) = T::parts::<F>(w, sm)?;
    c.ctrl = at.ctrl;
    o.print(&c, sm, at.addr, out);
    Some(())
}

/// One candidate of a generated dispatch arm, one line each: when `$cond`
/// (the form's fixed bits and SMs) holds, try the form (`$call`: the
/// decode or print of one form) and return its answer if it has one; the
/// arm goes on to its next candidate otherwise. `=> return $call`: the
/// arm's last candidate, whose answer is the arm's (a tail call).
macro_rules! try_form {
    ($cond:expr => return $call:expr) => {
        if $cond {
            return $call;
        }
    };
    ($cond:expr => $call:expr) => {
        if $cond {
            if let Some(x) = $call {
                return Some(x);
            }
        }
    };
}
pub(crate) use try_form;

/// An op's `Forms::parts`: form `F`'s field reader, from its list of
/// `id: parts_fN` pairs (the match on `F` folds away when inlined).
macro_rules! parts_by_form {
    ($($id:literal: $f:ident),* $(,)?) => {
        #[inline(always)]
        fn parts<const F: u8>(w: u128, sm: u32) -> Option<(Self, Common)> {
            match F {
                $($id => Self::$f(w, sm),)*
                _ => None,
            }
        }
    };
}
pub(crate) use parts_by_form;

/// Bits `lo..lo + width` of a word: the generated decoders read every
/// field with it, one call per field (always inlined: shift and mask
/// constants).
#[inline(always)]
pub const fn bits(w: u128, lo: u32, width: u32) -> u128 {
    (w >> lo) & ((1u128 << width) - 1)
}

/// Bit `at` of a word: a flag field (a source's `neg`, a bool modifier).
#[inline(always)]
pub const fn bit(w: u128, at: u32) -> bool {
    (w >> at) & 1 != 0
}

/// The register of file `file` whose index is bits `lo..lo + width` of
/// `w` (`None` for an index the SM does not have).
#[inline(always)]
pub fn reg_at(
    w: u128,
    file: crate::runtime::operand::RegFile,
    lo: u32,
    width: u32,
    sm: u32,
) -> Option<crate::runtime::operand::Reg> {
    crate::runtime::encode::reg_from_index(file, bits(w, lo, width), sm)
}

/// The register of file `file` with hardware index `idx`, where the
/// caller knows the file's zero index (`zero`, the same on every SM the
/// form has): the generated decoders' common case, a comparison against a
/// constant that folds away for a field as wide as the file.
#[inline(always)]
pub fn reg_below(
    file: crate::runtime::operand::RegFile,
    idx: u128,
    zero: u8,
) -> Option<crate::runtime::operand::Reg> {
    use crate::runtime::operand::Reg;
    // A file without a zero register (barriers): `zero` is its count.
    if idx == u128::from(zero) && file.has_zero() {
        Some(Reg {
            file,
            idx: file.zero_index(),
        })
    } else if idx < u128::from(zero) {
        Some(Reg {
            file,
            idx: idx as u8,
        })
    } else {
        None
    }
}

/// A guard predicate from its decoded index and `!` flag.
#[inline(always)]
pub fn guard_of(pred: u128, not: bool) -> crate::runtime::operand::Src {
    use crate::runtime::operand::{Reg, Src};
    Src::reg(Reg::pred(pred as u8)).with_not(not)
}

/// A uniform guard predicate (the uniform datapath's ops: `@UP2`,
/// `@!UPT`) from its decoded index and `!` flag. UPT, the unguarded
/// case, is the IR's usual always-true guard PT, so an unguarded
/// uniform op carries the same `Common` as any other op.
#[inline(always)]
pub fn uguard_of(pred: u128, not: bool) -> crate::runtime::operand::Src {
    use crate::runtime::operand::{Reg, RegFile, Src};
    if pred as u8 == RegFile::UPred.zero_index() && !not {
        return Src::PT;
    }
    Src::reg(Reg {
        file: RegFile::UPred,
        idx: pred as u8,
    })
    .with_not(not)
}

/// A constant-buffer source from its decoded index and offset fields:
/// the offset field is `width` bits (sign-extended when `signed`) counting
/// units of `scale` bytes.
#[inline(always)]
pub fn cbuf_at(
    index: u128,
    offset: u128,
    width: u32,
    scale: u32,
    signed: bool,
) -> crate::runtime::operand::Src {
    let units = if signed && width > 0 {
        crate::runtime::encode::sext_field(offset, width) as i32 as u32
    } else {
        offset as u32
    };
    crate::runtime::operand::Src::cbuf(index as u8, units.wrapping_mul(scale))
}

/// A decoded word's [`Common`]: the guard predicate in bits
/// `guard.0..guard.0 + guard.1` with its `!` at bit `not`, the control
/// bits at `ctrl` (as `guard`; width 0 where the family keeps them out of
/// the word), and the bits under `raw` as they were.
#[inline(always)]
pub fn common_at(w: u128, guard: (u32, u32), not: u32, ctrl: (u32, u32), raw: u128) -> Common {
    Common {
        guard: guard_of(bits(w, guard.0, guard.1), bit(w, not)),
        ctrl: bits(w, ctrl.0, ctrl.1) as u32,
        raw: w & raw,
    }
}
