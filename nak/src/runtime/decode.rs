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
    /// caller, which then returns nothing through memory (a pair returned
    /// through the stack cost a store-forwarding stall).
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

/// Decode a word of form `F` of op `T` (a decode table's entry).
#[inline(never)]
pub fn decode_form<T: Forms, const F: u8>(w: u128, sm: u32) -> Option<(Op, Common)> {
    let (o, c) = T::parts::<F>(w, sm)?;
    Some((o.into(), c))
}

/// Decode and print a word of form `F` of op `T` in one step (`nak dis`):
/// the fields go from the word to the text without an `Op` in between,
/// and the printer's checks of source kinds fold away against the form's.
#[inline(never)]
pub fn print_form<T: Forms, const F: u8>(
    w: u128,
    sm: u32,
    addr: u64,
    ctrl: u32,
    out: &mut LineBuf,
) -> Option<()> {
    let _ = ctrl;
    let (o, c) = T::parts::<F>(w, sm)?;
    o.print(&c, sm, addr, out);
    Some(())
}

/// [`print_form`] for a family with bundles, which keeps the control bits
/// out of the word: the printer gets them (`ctrl`) from the stream.
#[inline(never)]
pub fn print_form_bundled<T: Forms, const F: u8>(
    w: u128,
    sm: u32,
    addr: u64,
    ctrl: u32,
    out: &mut LineBuf,
) -> Option<()> {
    let (o, mut c) = T::parts::<F>(w, sm)?;
    c.ctrl = ctrl;
    o.print(&c, sm, addr, out);
    Some(())
}
