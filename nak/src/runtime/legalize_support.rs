//! Support for the generated legalizers: the context that emits copies, and
//! the operand rewrites every op shares.

use crate::isa::Op;
use crate::runtime::encode::Encode;
use crate::runtime::instr::{Common, OperandInfo, ValueType};
use crate::runtime::operand::{Reg, RegFile, Src, SrcKind};
use crate::runtime::view::View;
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

    /// Emit copies of several values into one run of fresh consecutive
    /// registers of `file`: part `(k, src, ty)` at the run's first register
    /// plus k (the first aligned for its type), and return the first. For
    /// a source the SM reads from the register after another's (Maxwell's
    /// CAS swap value). The default says it cannot.
    fn copy_run(
        &mut self,
        parts: &[(u8, Src, ValueType)],
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        let _ = (parts, file);
        Err(LegalizeError::new(
            "copy_run",
            "not supported by this context",
        ))
    }

    /// Emit an instruction that computes `src` *with* its modifiers (neg,
    /// abs, not) into a fresh register, for a slot whose form cannot hold
    /// the modifier (e.g. Maxwell FFMA has no abs bits). The default says
    /// it cannot; the legalizer then tries other rewrites.
    /// `view` is the source's type when a modifier chooses it.
    fn materialize(
        &mut self,
        src: Src,
        ty: ValueType,
        view: Option<View>,
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        let _ = (src, ty, view, file);
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
            // -|x| negates after the absolute value, which stays on the
            // source: the negation cannot go first.
            if s.neg && v != 0 && !s.abs {
                v = v.wrapping_neg();
                s.neg = false;
            }
            s.kind = SrcKind::Imm(v);
        }
    }
}

/// [`fold_imm_mods`] for a source read as the type a modifier chooses
/// (`type_by`) through part selector `sel`: an immediate of a narrow type
/// read through part 0 becomes that part (the immediate form holds no
/// more), an F16 or BF16 part's neg/abs folded into the part's own sign
/// bit (an integer with neg/abs, of any width, is left as it is). One read through another part is left whole, for the copy to a
/// register (which keeps `sel`): an op may read more of the source than
/// the part (XMAD's `.MRG` and `.CBCC` add b's low half shifted up), so
/// only part 0 narrows exactly.
pub fn fold_imm_mods_as(
    s: &mut Src,
    view: Option<crate::runtime::view::View>,
    ty: ValueType,
    sel: &mut u32,
) {
    let (SrcKind::Imm(v), Some(view)) = (s.kind, view) else {
        return fold_imm_mods(s, ty);
    };
    // An integer's negation or absolute value is the op's to apply, in
    // the width it chooses (a part's own, or wider: Maxwell's I2I negates
    // a U32 before it saturates), which the immediate cannot say: left as
    // it is, for the copy to a register that keeps it.
    let float = matches!(
        view,
        View::F16 | View::Bf16 | View::F32 | View::F64 | View::F16x2 | View::Bf16x2
    );
    if !float && (s.neg || s.abs) {
        return;
    }
    // A packed pair's neg/abs act on each lane's own sign bit.
    if matches!(view, View::F16x2 | View::Bf16x2) {
        let mut v = v;
        if s.abs {
            v &= 0x7fff_7fff;
        }
        if s.neg {
            v ^= 0x8000_8000;
        }
        s.kind = SrcKind::Imm(v);
        s.neg = false;
        s.abs = false;
        return;
    }
    if view.part_bits() == 0 {
        return fold_imm_mods(s, ty);
    }
    if *sel != 0 {
        return;
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
/// encodable; None when the source is already a register of that file
/// other than its zero register.
pub fn placeholder(s: &Src, ty: ValueType) -> Option<Src> {
    placeholder_in(s, placeholder_file(ty))
}

/// [`placeholder`] in a given register file.
pub fn placeholder_in(s: &Src, file: RegFile) -> Option<Src> {
    // A zero register is copied too: some slots take no RZ (SM70's
    // ATOMG.CAS compare value).
    if s.is_reg_file(file) && !matches!(s.kind, SrcKind::Reg(r) if r.is_zero()) {
        return None;
    }
    Some(Src {
        kind: SrcKind::Reg(Reg { file, idx: 0 }),
        ..*s
    })
}

/// A generated op's operands by position, for the legalizer: written for
/// every op by [`op_fields!`] from its field lists.
pub trait OpFields {
    /// SMs that have an encoding of the op.
    const SMS: &'static [u32];
    /// The op's sources, in field order (their value types pick the
    /// register file of a copy).
    const SRCS: &'static [OperandInfo];
    /// Source `i` (`i < SRCS.len()`).
    fn src(&self, i: usize) -> Src;
    /// Replace source `i` (`i < SRCS.len()`).
    fn set_src(&mut self, i: usize, s: Src);
    /// Whether the op writes a predicate (a carry, say) other than PT.
    fn writes_pred(&self) -> bool;
}

/// A generated op's operand accessors, one invocation per op with its
/// source and destination fields in spec order: the inherent `srcs`,
/// `srcs_mut`, `dsts`, `dsts_mut` (arrays of references) and the
/// [`OpFields`] impl built on them.
macro_rules! op_fields {
    ($t:ident, [$($s:ident),* $(,)?], [$($d:ident),* $(,)?] $(,)?) => {
        impl $t {
            pub fn srcs(&self) -> [&Src; <[&str]>::len(&[$(stringify!($s)),*])] {
                [$(&self.$s),*]
            }
            pub fn srcs_mut(&mut self) -> [&mut Src; <[&str]>::len(&[$(stringify!($s)),*])] {
                [$(&mut self.$s),*]
            }
            pub fn dsts(&self) -> [&Reg; <[&str]>::len(&[$(stringify!($d)),*])] {
                [$(&self.$d),*]
            }
            pub fn dsts_mut(&mut self) -> [&mut Reg; <[&str]>::len(&[$(stringify!($d)),*])] {
                [$(&mut self.$d),*]
            }
        }
        impl $crate::runtime::legalize_support::OpFields for $t {
            const SMS: &'static [u32] = $t::SMS;
            const SRCS: &'static [$crate::runtime::instr::OperandInfo] = $t::SRCS;
            fn src(&self, i: usize) -> Src {
                *self.srcs()[i]
            }
            fn set_src(&mut self, i: usize, s: Src) {
                *self.srcs_mut()[i] = s;
            }
            fn writes_pred(&self) -> bool {
                self.dsts().iter().any(|d| {
                    matches!(d.file, RegFile::Pred | RegFile::UPred) && **d != Reg::PT
                })
            }
        }
    };
}
pub(crate) use op_fields;

/// A source read from the register `n` above another source's, which
/// holds it in no field of its own (`tied = { c = "b+1" }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub src: usize,
    pub base: usize,
    pub n: u8,
}

/// What the shared legalizer ([`legalize`]) needs from a generated op: its
/// encoder (the judge of every rewrite), its sources by index
/// ([`OpFields`]), and the rewrites its spec allows. Ops without
/// commutative sources or a wider-immediate relative keep the defaults.
pub trait Legalize: Encode + Copy + OpFields {
    /// Whether the op reads and writes Maxwell's CC carry flag on `sm`
    /// (`reads_cc`/`writes_cc` of its fold; most ops never do).
    fn cc_use(&self, sm: u32) -> (bool, bool) {
        let _ = sm;
        (false, false)
    }

    /// Fold each immediate source's modifiers into its value, read as its
    /// type (a source whose type a modifier chooses folds into its part).
    fn fold_imms(&mut self) {
        for (i, info) in Self::SRCS.iter().enumerate() {
            let mut s = self.src(i);
            fold_imm_mods(&mut s, info.ty);
            self.set_src(i, s);
        }
    }
    /// The view of source `i` when a modifier chooses its type (a packed
    /// pair's neg and abs act on each lane).
    fn src_view(&self, i: usize) -> Option<View> {
        let _ = i;
        None
    }
    /// Every variant of the op with one commutative pair swapped (with its
    /// comparison flip or predicate negation).
    fn swapped(&self) -> Vec<Self> {
        Vec::new()
    }
    /// The same operation as the op with a wider immediate field, if every
    /// field that op lacks holds its default.
    fn to_wide(&self) -> Option<Op> {
        None
    }
    /// The op this one is the wide-immediate form of, if every field that
    /// op lacks holds its default (the fallback when an operand does not
    /// fit the wide form: a register where only an immediate goes).
    fn to_narrow(&self) -> Option<Op> {
        None
    }

    /// Sources the SM reads from the register `n` above another source's
    /// (source, base source, n), in some form: copied together, as one run.
    fn runs(&self) -> &'static [Run] {
        &[]
    }

    /// Rewrite until the op encodes on `sm` (see [`legalize`]): `Some`
    /// when another op replaces this one.
    fn legalize(&mut self, sm: u32, cx: &mut dyn LegalizeCx) -> Result<Option<Op>, LegalizeError>
    where
        Self: Into<Op> + TryFrom<Op, Error = Op>,
    {
        let mut op: Op = (*self).into();
        legalize(&mut op, sm, cx)?;
        match Self::try_from(op) {
            Ok(o) => {
                *self = o;
                Ok(None)
            }
            Err(other) => Ok(Some(other)),
        }
    }
}

/// Rewrite `op` until it encodes on `sm`, trying rewrites in order of
/// cost: as is; immediates with their modifiers folded in; each
/// commutative swap; the wider-immediate op; then copying the fewest
/// sources to registers (through `cx`), with and without swaps; last the
/// narrow op this one widens (which may replace `op`). Written once for
/// every op: it reads the op through `Op`'s methods.
pub fn legalize(op: &mut Op, sm: u32, cx: &mut dyn LegalizeCx) -> Result<(), LegalizeError> {
    // A rewrite is accepted only when its immediates keep every bit.
    crate::runtime::encode::with_exact_imms(|| legalize_exact(op, sm, cx))
}

/// [`legalize`] with immediates required to encode exactly.
fn legalize_exact(op: &mut Op, sm: u32, cx: &mut dyn LegalizeCx) -> Result<(), LegalizeError> {
    let c = Common::default();
    if op.try_encode(sm, &c).is_some() {
        return Ok(());
    }
    if !op.sms().contains(&sm) {
        return Err(LegalizeError::new(
            op.name(),
            format!("no encoding on SM{sm}"),
        ));
    }
    let mut t = *op;
    // Folding a negation into an immediate keeps the sum but not the
    // carry of Maxwell's adder (a + ~b + 1 vs a + (-b)): not with CC.
    let (reads_cc, writes_cc) = op.cc_use(sm);
    if !(reads_cc || writes_cc) {
        t.fold_imms();
    }
    let mut cands: Vec<Op> = vec![t];
    cands.extend(t.swapped());
    for cand in &cands {
        if cand.try_encode(sm, &c).is_some() {
            *op = *cand;
            return Ok(());
        }
    }
    for cand in &cands {
        if let Some(w) = cand.to_wide()
            && w.try_encode(sm, &c).is_some()
        {
            *op = w;
            return Ok(());
        }
    }
    if let Some(out) = copy_fewest(&cands, sm, &c, cx)? {
        *op = out;
        return Ok(());
    }
    if let Some(mut n) = op.to_narrow() {
        legalize_exact(&mut n, sm, cx)?;
        *op = n;
        return Ok(());
    }
    Err(LegalizeError::new(
        op.name(),
        format!("no rewrite makes it encodable on SM{sm}"),
    ))
}

/// Copy the fewest sources to registers: first keeping their modifiers on
/// the op, then computing them into the copy. Copies go to GPRs/predicates,
/// or failing that (per source, the sources in `umask`) to uniform
/// registers/predicates, for sources only a UGPR or UP form takes. Each
/// choice is tried on placeholders first; only the one that encodes emits
/// copies.
fn copy_fewest(
    cands: &[Op],
    sm: u32,
    c: &Common,
    cx: &mut dyn LegalizeCx,
) -> Result<Option<Op>, LegalizeError> {
    let Some(first) = cands.first() else {
        return Ok(None);
    };
    let n = first.src_info().len();
    for umask in 0u32..(1u32 << n) {
        for k in 1..=n {
            for strip in [false, true] {
                for cand in cands {
                    for mask in 0u32..(1u32 << n) {
                        if mask.count_ones() as usize != k || umask & !mask != 0 {
                            continue;
                        }
                        // Plain copies, then each run whose sources are
                        // both copied.
                        let runs = cand
                            .runs()
                            .iter()
                            .filter(|r| mask >> r.src & 1 == 1 && mask >> r.base & 1 == 1);
                        for run in std::iter::once(None).chain(runs.map(Some)) {
                            if !copies_encode(cand, mask, umask, strip, run, sm, c) {
                                continue;
                            }
                            let out = emit_copies(cand, mask, umask, strip, run, cx)?;
                            if out.try_encode(sm, c).is_some() {
                                return Ok(Some(out));
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(None)
}

/// Whether copying the sources in `mask` (to uniform files for those in
/// `umask`; with `strip`, modifiers computed into the copy) would make
/// `cand` encode, tried on placeholder registers (a `run`'s two sources on
/// registers 0 and n, unmodified). A stripping trial that strips nothing
/// is refused (the plain trial covered it).
fn copies_encode(
    cand: &Op,
    mask: u32,
    umask: u32,
    strip: bool,
    run: Option<&Run>,
    sm: u32,
    c: &Common,
) -> bool {
    let mut trial = *cand;
    let mut any_stripped = false;
    for (i, info) in cand.src_info().iter().enumerate() {
        if mask >> i & 1 == 0 {
            continue;
        }
        let s = *trial.src(i);
        if let Some(r) = run.filter(|r| r.src == i || r.base == i) {
            if s.has_mods() {
                return false;
            }
            let idx = if r.src == i { r.n } else { 0 };
            let file = copy_file(info.ty, umask >> i & 1 == 1);
            trial.set_src(i, Src::reg(Reg { file, idx }));
            continue;
        }
        // A predicate's not stays on its copy.
        let st = strip && s.has_mods() && !info.ty.is_pred();
        // A computed negation keeps the value but not the carry of the
        // op's adder (a + ~0 + 1 carries, a + 0 does not): not while the
        // op writes a predicate (a carry).
        let packed = matches!(cand.src_view(i), Some(View::F16x2 | View::Bf16x2));
        let int_neg = info.neg && !info.ty.is_float() && !info.ty.is_pred() && !packed;
        if st && s.neg && int_neg && cand.writes_pred() {
            return false;
        }
        any_stripped |= st;
        let s = if st {
            Src {
                neg: false,
                abs: false,
                not: false,
                ..s
            }
        } else {
            s
        };
        let file = copy_file(info.ty, umask >> i & 1 == 1);
        // Modifiers are computed into vector registers only.
        if st && file != RegFile::Gpr {
            return false;
        }
        match placeholder_in(&s, file) {
            Some(p) => trial.set_src(i, p),
            None if st => trial.set_src(
                i,
                Src {
                    kind: SrcKind::Reg(Reg { file, idx: 0 }),
                    ..s
                },
            ),
            None => return false,
        }
    }
    (!strip || any_stripped) && trial.try_encode(sm, c).is_some()
}

/// `cand` with the sources in `mask` copied to registers through `cx` (see
/// [`copies_encode`]).
fn emit_copies(
    cand: &Op,
    mask: u32,
    umask: u32,
    strip: bool,
    run: Option<&Run>,
    cx: &mut dyn LegalizeCx,
) -> Result<Op, LegalizeError> {
    let mut out = *cand;
    let info = cand.src_info();
    if let Some(r) = run {
        let (b, s) = (info[r.base].ty, info[r.src].ty);
        let file = copy_file(b, umask >> r.base & 1 == 1);
        let first = cx.copy_run(&[(0, *out.src(r.base), b), (r.n, *out.src(r.src), s)], file)?;
        out.set_src(r.base, Src::reg(first));
        let idx = first.idx + r.n;
        out.set_src(r.src, Src::reg(Reg { file, idx }));
    }
    // A value copied once serves every source that holds it (the trial
    // gave them all one placeholder register): a form that reads one
    // register as two sources (Volta's `BAR.SYNC R3, R3`) takes the copy.
    let mut copied: Vec<(SrcKind, ValueType, RegFile, Reg)> = Vec::new();
    for (i, info) in info.iter().enumerate() {
        if mask >> i & 1 == 0 || run.is_some_and(|r| r.src == i || r.base == i) {
            continue;
        }
        let s = *out.src(i);
        let file = copy_file(info.ty, umask >> i & 1 == 1);
        let new = if strip && s.has_mods() && !info.ty.is_pred() {
            Src::reg(cx.materialize(s, info.ty, out.src_view(i), file)?)
        } else {
            let kind = s.kind;
            let r = match copied
                .iter()
                .find(|c| c.0 == kind && c.1 == info.ty && c.2 == file)
            {
                Some(c) => c.3,
                None => {
                    let r = cx.copy_to_reg(s, info.ty, file)?;
                    copied.push((kind, info.ty, file, r));
                    r
                }
            };
            Src {
                kind: SrcKind::Reg(r),
                ..s
            }
        };
        out.set_src(i, new);
    }
    Ok(out)
}

impl crate::isa::Op {
    /// Legalize for `sm` and encode, in one step: an op that is already
    /// legal is encoded once, its legality check giving the word (an
    /// emitter's fast path: `legalize` then `encode` would encode it twice).
    pub fn legalize_encode(
        &mut self,
        sm: u32,
        c: &crate::runtime::instr::Common,
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
