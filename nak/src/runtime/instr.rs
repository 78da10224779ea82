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
    /// (source, source) pairs: the first is the second, one register
    /// field read as both (Volta's `BAR.SYNC R3, R3`).
    pub tied: &'static [(u8, u8)],
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
        self.hidden_canonical(sm, (w & !self.unknown) | self.canonical)
    }

    /// `w` with only the bits its hidden rules say nvdisasm's text does
    /// not show at the assembler's values (raw bits as they are): two
    /// words equal under it print the same text, so no assembler can tell
    /// them apart.
    pub fn hidden_canonical(&self, sm: u32, mut w: u128) -> u128 {
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

/// One row of the generated `FORMS` table, positionally: op, form, form
/// number, family, SMs, fixed bits (mask, value), raw bits (mask, the
/// value ptxas writes), the slot kind of each source (`slot` names), then
/// optionally `;` and the [`Hidden`] rows as
/// `(sms, [(mask, value)..], when_any, mask, value)`. A row then reads as
/// one or two lines.
macro_rules! form_info {
    (
        $op:literal, $form:literal, $id:literal, $fam:ident, [$($sm:literal),*],
        $mask:literal, $value:literal, $unknown:literal, $canon:literal, [$($k:ident),*]
        $(; $(($lo:literal..=$hi:literal, [$(($wm:literal, $wv:literal)),*], $any:literal,
            $hm:literal, $hv:literal)),*)?
    ) => {
        $crate::runtime::instr::FormInfo::new(
            $op, $form, $id, $crate::isa::Family::$fam, &[$($sm),*],
        )
        .fixed($mask, $value)
        .raw($unknown, $canon)
        $(.hidden(&[$($crate::runtime::instr::Hidden {
            sms: $lo..=$hi,
            when: &[$(($wm, $wv)),*],
            when_any: $any,
            mask: $hm,
            value: $hv,
        }),*]))?
        .with_srcs(&[$($crate::runtime::instr::slot::$k),*])
    };
}
pub(crate) use form_info;

/// A spec enum's value tables and texts, written once here and invoked
/// once per generated enum (after its `enum` item) with its values in
/// declaration order: `ALL`, `NAMES` (spec names), `TEXTS` (the suffix
/// text nvdisasm prints), their lookups, `text_sm` (the text on one SM:
/// the last argument lists the values whose text differs on some SMs,
/// `{ (Value, 50 | 52) => "TEXT", .. }`) and, for printers, `chunk_sm`
/// (the text padded to `$chunk` bytes; `_`: none, for non-ASCII texts).
macro_rules! enum_tables {
    (
        $t:ident, $chunk:tt, [$($v:ident),* $(,)?], [$($name:literal),* $(,)?],
        [$($text:literal),* $(,)?], $sm_texts:tt $(,)?
    ) => {
        impl $t {
            /// Number of values.
            pub const COUNT: usize = [$($name),*].len();
            pub const ALL: [$t; Self::COUNT] = [$($t::$v),*];
            /// Suffix text of each value as the disassembler prints it.
            pub const TEXTS: [&'static str; Self::COUNT] = [$($text),*];
            /// Spec name of each value.
            pub const NAMES: [&'static str; Self::COUNT] = [$($name),*];
            pub const fn index(self) -> usize {
                self as usize
            }
            pub fn from_index(i: usize) -> Option<Self> {
                Self::ALL.get(i).copied()
            }
            /// Suffix text as the disassembler prints it.
            pub const fn text(self) -> &'static str {
                Self::TEXTS[self as usize]
            }
            pub const fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }
            /// This value's code in an encoding's table (`codes`) for
            /// modifier `what`; the encoder's error where it has none.
            #[inline(always)]
            pub fn code_in(
                self, op: &'static str, what: &str, codes: &[u16], sm: u32,
            ) -> Result<u128, Refused> {
                $crate::runtime::encode::code_in(op, what, self.name(), codes, self as usize, sm)
            }
            $crate::runtime::instr::enum_tables!(@text_sm $t, $sm_texts);
            $crate::runtime::instr::enum_tables!(@chunk_sm $t, $chunk, $sm_texts);
        }
    };
    (@text_sm $t:ident, { $(($sv:ident, $($sm:literal)|+) => $st:literal),* $(,)? }) => {
        /// Suffix text as the disassembler for `sm` prints it.
        pub fn text_sm(self, sm: u32) -> &'static str {
            match (self, sm) {
                $(($t::$sv, $($sm)|+) => $st,)*
                _ => self.text(),
            }
        }
    };
    (@chunk_sm $t:ident, _, $sm_texts:tt) => {};
    (@chunk_sm $t:ident, $n:literal,
        { $(($sv:ident, $($sm:literal)|+) => $st:literal),* $(,)? }) => {
        /// [`Self::text_sm`] padded with zeros, and its length: a
        /// printer writes it as one fixed-size store.
        pub fn chunk_sm(self, sm: u32) -> (&'static [u8; $n], usize) {
            use $crate::runtime::line_buf::text_chunks;
            static CHUNKS: [([u8; $n], usize); $t::COUNT] = text_chunks(&$t::TEXTS);
            match (self, sm) {
                $(($t::$sv, $($sm)|+) => {
                    static ONE: [([u8; $n], usize); 1] = text_chunks(&[$st]);
                    (&ONE[0].0, ONE[0].1)
                })*
                _ => {
                    let (chunk, len) = &CHUNKS[self as usize];
                    (chunk, *len)
                }
            }
        }
    };
}
pub(crate) use enum_tables;

/// The generated ISA's `Op` enum and its methods, each a match that calls
/// the op struct's method of the same name: written once here, and
/// invoked once by the generated `isa.rs` with the list of ops
/// (`Variant(Type)`, in spec order).
macro_rules! define_ops {
    ($($v:ident($t:ident)),* $(,)?) => {
        /// Every op of the spec (the generated `isa.rs` lists them).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $($v($t)),*
        }

        $(impl From<$t> for Op {
            fn from(o: $t) -> Op {
                Op::$v(o)
            }
        })*

        $(impl TryFrom<Op> for $t {
            /// Another op: given back.
            type Error = Op;
            fn try_from(op: Op) -> Result<$t, Op> {
                match op {
                    Op::$v(o) => Ok(o),
                    other => Err(other),
                }
            }
        })*

        impl Op {
            /// Names of every op, in spec order.
            pub const NAMES: &'static [&'static str] = &[$($t::NAME),*];
            pub const fn name(&self) -> &'static str {
                match self { $(Op::$v(_) => $t::NAME),* }
            }
            pub const fn class(&self) -> &'static str {
                match self { $(Op::$v(_) => $t::CLASS),* }
            }
            pub const fn sms(&self) -> &'static [u32] {
                match self { $(Op::$v(_) => $t::SMS),* }
            }
            pub const fn src_info(&self) -> &'static [OperandInfo] {
                match self { $(Op::$v(_) => $t::SRCS),* }
            }
            pub const fn dst_info(&self) -> &'static [OperandInfo] {
                match self { $(Op::$v(_) => $t::DSTS),* }
            }
            pub fn src(&self, i: usize) -> &Src {
                match self { $(Op::$v(o) => o.srcs()[i]),* }
            }
            pub fn src_mut(&mut self, i: usize) -> &mut Src {
                match self {
                    $(Op::$v(o) => o.srcs_mut().into_iter().nth(i).expect("source index in range")),*
                }
            }
            pub fn dst(&self, i: usize) -> &Reg {
                match self { $(Op::$v(o) => o.dsts()[i]),* }
            }
            pub fn dst_mut(&mut self, i: usize) -> &mut Reg {
                match self {
                    $(Op::$v(o) => o.dsts_mut().into_iter().nth(i).expect("destination index in range")),*
                }
            }
            /// Encode for `sm` with the guard, control and raw bits of `c`.
            /// Inlined into the caller: its jump on the variant calls the
            /// op's encoder directly (no second call and return per op).
            #[inline]
            pub fn encode(&self, sm: u32, c: &Common) -> Result<u128, EncodeError> {
                match self.try_encode(sm, c) {
                    Some(w) => Ok(w),
                    None => Err(self.why_refused(sm, c)),
                }
            }
            /// Why [`Self::encode`] refused (its encoder, run again).
            #[cold]
            #[inline(never)]
            fn why_refused(&self, sm: u32, c: &Common) -> EncodeError {
                $crate::runtime::encode::explained(self.name(), || self.try_encode(sm, c))
            }
            /// [`Self::encode`] without the spec's `legal` and `traps`
            /// products (for tests that show nvdisasm rejects the
            /// combinations they leave out).
            pub fn encode_any_combo(&self, sm: u32, c: &Common) -> Result<u128, EncodeError> {
                $crate::runtime::encode::with_any_combo(|| self.encode(sm, c))
            }
            /// [`Self::encode`] with the rules that keep a program correct
            /// (register alignment, the spec's `legal` and `traps` products)
            /// not enforced: an assembler of existing code takes back every
            /// word nvdisasm prints, and warns where `encode` refuses.
            pub fn encode_lenient(&self, sm: u32, c: &Common) -> Result<u128, EncodeError> {
                $crate::runtime::encode::with_any_rule(|| self.encode(sm, c))
            }
            /// The word, or `None` when the op does not encode on `sm`
            /// (no error message is built: for legality trials). One jump
            /// on the variant into the op's whole encoder.
            #[inline]
            pub fn try_encode(&self, sm: u32, c: &Common) -> Option<u128> {
                match self { $(Op::$v(o) => o.try_encode(sm, c)),* }
            }
            /// Index of the encoding form the op takes on `sm`, if any.
            pub fn form_id(&self, sm: u32) -> Option<u8> {
                match self { $(Op::$v(o) => o.form_id(sm)),* }
            }
            /// Write nvdisasm's text for the instruction at byte address
            /// `addr` into a line buffer (the fast path of `nak dis`).
            pub fn print_line(&self, c: &Common, sm: u32, addr: u64, out: &mut LineBuf) {
                match self { $(Op::$v(o) => o.print_line(c, sm, addr, out)),* }
            }
            /// nvdisasm's text for the instruction at byte address `addr`.
            pub fn text(&self, c: &Common, sm: u32, addr: u64) -> String {
                line_text(|line| self.print_line(c, sm, addr, line))
            }
            /// The memory access of a load or store (`[memory]` in its spec file).
            pub fn mem_access(&self) -> Option<MemAccess> {
                match self { $(Op::$v(o) => o.mem_access()),* }
            }
            /// Where control goes after the op at byte address `addr` on
            /// `sm` (`[flow]` in its spec file).
            pub fn flow(&self, addr: u64, sm: u32) -> crate::runtime::flow::Flow {
                use crate::runtime::flow::FlowOp;
                match self { $(Op::$v(o) => o.flow(addr, sm)),* }
            }
            /// The scoreboard the op waits on and how many of its operations
            /// may stay pending (`[sched]` in its spec file).
            pub fn waits_on(&self) -> Option<(u8, u8)> {
                use crate::runtime::flow::SchedOp;
                match self { $(Op::$v(o) => o.waits_on()),* }
            }
            /// Destinations written at a fixed latency although the op's
            /// other results land under its write barrier (`[sched] early`).
            pub fn early_dsts(&self) -> &'static [usize] {
                use crate::runtime::flow::SchedOp;
                match self { $(Op::$v(o) => o.early_dsts()),* }
            }
            /// The fixed latency of the op's results on `sm`, where the
            /// spec states it (`[sched] latency`).
            pub fn latency(&self, sm: u32) -> Option<u8> {
                use crate::runtime::flow::SchedOp;
                match self { $(Op::$v(o) => o.latency(sm)),* }
            }
            /// When a predicate the op writes may guard a control op on
            /// `sm`, where the spec states it (`[sched] guard_latency`).
            pub fn guard_latency(&self, sm: u32) -> Option<u8> {
                use crate::runtime::flow::SchedOp;
                match self { $(Op::$v(o) => o.guard_latency(sm)),* }
            }
            /// Sources whose low n bits alone decide the low n bits of every
            /// destination (`low_bits` in its spec file).
            pub fn low_bits_srcs(&self) -> &'static [usize] {
                match self { $(Op::$v(_) => $t::LOW_BITS_SRCS),* }
            }
            /// The same memory access with `bytes` bytes, if the op has
            /// such a zero-extending size.
            pub fn with_mem_bytes(&self, bytes: u32) -> Option<Op> {
                match self { $(Op::$v(o) => o.with_mem_bytes(bytes).map(Op::$v)),* }
            }
            /// Whether the memory access may be combined with another one.
            pub fn mem_combinable(&self) -> bool {
                match self { $(Op::$v(o) => o.mem_combinable()),* }
            }
            /// The same memory access at another offset with another data
            /// register.
            pub fn with_mem_at(&self, offset: i64, data: Reg) -> Option<Op> {
                match self { $(Op::$v(o) => o.with_mem_at(offset, data).map(Op::$v)),* }
            }
            /// Compute the destinations from source values (CPU semantics).
            pub fn fold(&self, sm: u32, srcs: &[Value]) -> Result<FoldOut, FoldError> {
                self.fold_cc(sm, srcs, None).map(|x| x.0)
            }
            /// `fold` with Maxwell's carry flag in (`None`: unknown) and out.
            pub fn fold_cc(
                &self,
                sm: u32,
                srcs: &[Value],
                cc_in: Option<bool>,
            ) -> Result<(FoldOut, Option<bool>), FoldError> {
                match self { $(Op::$v(o) => o.fold_cc(sm, srcs, cc_in)),* }
            }
            /// Whether the op reads and writes Maxwell's carry flag on `sm`.
            pub fn cc_use(&self, sm: u32) -> (bool, bool) {
                match self { $(Op::$v(o) => o.cc_use(sm)),* }
            }
            /// Whether the op has fold semantics on `sm`'s family.
            pub fn has_fold(&self, sm: u32) -> bool {
                match self { $(Op::$v(o) => o.has_fold(sm)),* }
            }
            /// How many sources no form of the op on `sm` takes as they
            /// are (a number where every form wants a register): of the
            /// parses of a line no op encodes, the fewest misfits is the
            /// op that printed it (`SEL.64 R0, 0x1, -0x2, P0` is the
            /// immediate form with `a` a number, not the register form).
            pub fn misfit_sources(&self, sm: u32) -> usize {
                let name = self.name();
                let forms = || crate::isa::FORMS.iter().filter(|f| f.op == name && f.sms.contains(&sm));
                (0..self.src_info().len())
                    .filter(|&k| {
                        let kind = Some(self.src(k).slot_kind());
                        let slots = || forms().map(|f| f.srcs.get(k).copied().flatten());
                        slots().any(|s| s.is_some()) && !slots().any(|s| s == kind)
                    })
                    .count()
            }
            /// Rewrite the op until it encodes on `sm`; may replace it
            /// with another op (the shared algorithm, written once for
            /// every op: [`legalize`](crate::runtime::legalize_support::legalize)).
            pub fn legalize(&mut self, sm: u32, cx: &mut dyn LegalizeCx) -> Result<(), LegalizeError> {
                $crate::runtime::legalize_support::legalize(self, sm, cx)
            }
            /// Replace source `i`.
            pub fn set_src(&mut self, i: usize, s: Src) {
                *self.src_mut(i) = s;
            }
            /// Whether the op writes a predicate (a carry, say) other than PT.
            pub fn writes_pred(&self) -> bool {
                match self { $(Op::$v(o) => OpFields::writes_pred(o)),* }
            }
            /// The op with each immediate's modifiers folded into its value.
            pub fn fold_imms(&mut self) {
                match self { $(Op::$v(o) => o.fold_imms()),* }
            }
            /// The view of source `i` when a modifier chooses its type.
            pub fn src_view(&self, i: usize) -> Option<View> {
                match self { $(Op::$v(o) => o.src_view(i)),* }
            }
            /// The op with each commutative pair swapped, one variant each.
            pub fn swapped(&self) -> Vec<Op> {
                match self { $(Op::$v(o) => o.swapped().into_iter().map(Op::$v).collect()),* }
            }
            /// The same operation with a wider immediate field, if any.
            pub fn to_wide(&self) -> Option<Op> {
                match self { $(Op::$v(o) => o.to_wide()),* }
            }
            /// The op this one is the wide-immediate form of, if any.
            pub fn to_narrow(&self) -> Option<Op> {
                match self { $(Op::$v(o) => o.to_narrow()),* }
            }
            /// Sources read from the register above another source's.
            pub fn runs(&self) -> &'static [Run] {
                match self { $(Op::$v(o) => o.runs()),* }
            }
        }

        /// Parse one tokenized line: the first op whose syntax matches and
        /// that encodes on `sm`; else the first that encodes when the rules
        /// that keep programs correct are not enforced
        /// ([`Op::encode_lenient`]: what nvdisasm prints for a misaligned
        /// register); else, of those whose syntax matches (an IR
        /// instruction not legalized yet; encoding it reports why it
        /// cannot be encoded), the one with the fewest misfit sources;
        /// else the error of the best partial match.
        pub fn parse(line: &crate::runtime::asm::Line, sm: u32, addr: u64) -> Result<(Op, Common), AsmError> {
            let mut best: Option<AsmError> = None;
            let mut lenient: Option<(Op, Common)> = None;
            // A line no op encodes is read as an op of `sm` if one
            // parses it (Maxwell's `IMAD R0, RZ, R8, -0x25` is not
            // Volta's IMAD), the one with the fewest misfit sources
            // first, else as the first op that parses it.
            let mut pick: Option<((bool, usize), Op, Common)> = None;
            $(
                match $t::parse(line, sm, addr) {
                    None => {}
                    Some(Ok((o, c))) => {
                        if o.try_encode(sm, &c).is_some() {
                            return Ok((Op::$v(o), c));
                        }
                        let op = Op::$v(o);
                        if lenient.is_none()
                            && $crate::runtime::encode::with_any_rule(|| op.try_encode(sm, &c)).is_some()
                        {
                            lenient = Some((op, c));
                        } else {
                            let key = (!$t::SMS.contains(&sm), op.misfit_sources(sm));
                            if pick.as_ref().is_none_or(|(k, ..)| key < *k) {
                                pick = Some((key, op, c));
                            }
                        }
                    }
                    Some(Err(e)) => {
                        best.get_or_insert(e);
                    }
                }
            )*
            if let Some(found) = lenient {
                return Ok(found);
            }
            if let Some((_, op, c)) = pick {
                return Ok((op, c));
            }
            Err(best.unwrap_or_else(|| AsmError {
                col: line.mnemonic_col,
                message: format!("unknown instruction `{}`", line.parts.join(".")),
            }))
        }
    };
}
pub(crate) use define_ops;

/// [`FormInfo::with_srcs`] entries: the slot kind of a source in a form
/// (`NONE`: the form has no slot for it), short so a table row of
/// `FORMS` stays on one line.
pub mod slot {
    use crate::runtime::operand::SlotKind;
    pub const GPR: Option<SlotKind> = Some(SlotKind::Gpr);
    pub const UGPR: Option<SlotKind> = Some(SlotKind::UGpr);
    pub const IMM: Option<SlotKind> = Some(SlotKind::Imm);
    pub const CBUF: Option<SlotKind> = Some(SlotKind::CBuf);
    pub const PRED: Option<SlotKind> = Some(SlotKind::Pred);
    pub const UPRED: Option<SlotKind> = Some(SlotKind::UPred);
    pub const BAR: Option<SlotKind> = Some(SlotKind::Bar);
    pub const NONE: Option<SlotKind> = None;
}

/// Builders for the rows of the generated `FORMS` table: one call per
/// property group, so a row reads as a few short lines.
impl FormInfo {
    /// A form with no fixed or raw bits and no sources yet.
    pub const fn new(
        op: &'static str,
        form: &'static str,
        id: u8,
        family: crate::isa::Family,
        sms: &'static [u32],
    ) -> Self {
        FormInfo {
            op,
            form,
            id,
            family,
            sms,
            mask: 0,
            value: 0,
            unknown: 0,
            canonical: 0,
            hidden: &[],
            srcs: &[],
            tied: &[],
        }
    }
    /// The bits the text does not carry, and their canonical values.
    pub const fn hidden(self, hidden: &'static [Hidden]) -> Self {
        FormInfo { hidden, ..self }
    }
    /// The bits the form fixes (`mask`) and their values.
    pub const fn fixed(self, mask: u128, value: u128) -> Self {
        FormInfo {
            mask,
            value,
            ..self
        }
    }
    /// The bits kept raw and the values ptxas writes there.
    pub const fn raw(self, unknown: u128, canonical: u128) -> Self {
        FormInfo {
            unknown,
            canonical,
            ..self
        }
    }
    /// The slot kind of each source (see [`slot`]).
    pub const fn with_srcs(
        self,
        srcs: &'static [Option<crate::runtime::operand::SlotKind>],
    ) -> Self {
        FormInfo { srcs, ..self }
    }
    /// The sources tied to another source (see [`FormInfo::tied`]).
    pub const fn with_tied(self, tied: &'static [(u8, u8)]) -> Self {
        FormInfo { tied, ..self }
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
    /// bigger op should be a decision, not an accident. The decision on
    /// record: the sparse warpgroup MMAs with a in registers (HGMMA.SP,
    /// IGMMA.SP, QGMMA.SP) carry five register sources and a selector,
    /// 68 bytes, so `Op` grew from 64 to 72 bytes rather than leave them
    /// out, and an `(Op, Common)` from 96 to 112 (`Common` aligns to 16).
    #[test]
    fn an_instruction_takes_112_bytes() {
        assert_eq!(size_of::<Src>(), 11);
        assert_eq!(size_of::<Common>(), 32);
        assert!(size_of::<Op>() <= 72, "Op is {} bytes", size_of::<Op>());
        assert_eq!(size_of::<(Op, Common)>(), 112);
    }
}
