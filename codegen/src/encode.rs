//! Encoders: form selection by operand kinds, then one packing function per
//! form. Every check the hardware needs (register limits, immediate widths,
//! alignment, modifiers a form cannot hold) comes from the same fields.

use crate::Error;
use crate::names::{field, ident};
use crate::shared::{common_statements, dst_default, mod_default, src_default};
use isa_spec::model::*;
use proc_macro2::Ident;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

pub(crate) struct FormRef<'a> {
    pub enc: &'a Encoding,
    pub form: &'a Form,
    pub id: usize,
}

/// Every form of the op, numbered in spec order.
pub(crate) fn forms(op: &Op) -> Vec<FormRef<'_>> {
    let mut out = Vec::new();
    for enc in &op.encodings {
        for form in &enc.forms {
            let id = out.len();
            out.push(FormRef { enc, form, id });
        }
    }
    out
}

/// Bit patterns read best in hex: masks and fixed bits are written `0x...`.
pub(crate) fn u128_lit(v: u128) -> Literal {
    if v < 10 {
        return Literal::u128_unsuffixed(v);
    }
    format!("0x{v:x}")
        .parse()
        .unwrap_or_else(|_| Literal::u128_unsuffixed(v))
}

pub(crate) fn sm_pattern(sms: &[u32]) -> TokenStream {
    let s = sms.iter().map(|x| Literal::u32_unsuffixed(*x));
    quote!(#(#s)|*)
}

pub(crate) fn kind_tokens(k: SlotKindClass) -> TokenStream {
    match k {
        SlotKindClass::Gpr => quote!(SlotKind::Gpr),
        SlotKindClass::Ugpr => quote!(SlotKind::UGpr),
        SlotKindClass::Imm => quote!(SlotKind::Imm),
        SlotKindClass::Cbuf => quote!(SlotKind::CBuf),
        SlotKindClass::Pred => quote!(SlotKind::Pred),
        SlotKindClass::Upred => quote!(SlotKind::UPred),
        SlotKindClass::Bar => quote!(SlotKind::Bar),
    }
}

pub(crate) fn file_tokens(k: SlotKindClass) -> TokenStream {
    match k {
        SlotKindClass::Gpr => quote!(RegFile::Gpr),
        SlotKindClass::Ugpr => quote!(RegFile::UGpr),
        SlotKindClass::Pred => quote!(RegFile::Pred),
        SlotKindClass::Upred => quote!(RegFile::UPred),
        SlotKindClass::Bar => quote!(RegFile::Bar),
        // Not register kinds; callers never ask.
        SlotKindClass::Imm | SlotKindClass::Cbuf => quote!(RegFile::Gpr),
    }
}

/// The bit of each SM in the spec's SM sets: its position in the sorted
/// list of every SM the families cover (the generated `sm_bit`).
pub(crate) fn sm_mask(spec: &Spec, sms: &[u32]) -> TokenStream {
    let all = spec.all_sms();
    let m = sms
        .iter()
        .filter_map(|sm| all.iter().position(|x| x == sm))
        .fold(0u64, |m, i| m | 1 << i);
    let m = format!("0x{m:x}")
        .parse()
        .unwrap_or_else(|_| Literal::u64_unsuffixed(m));
    quote!(#m)
}

/// A pattern on `SrcKind` that matches the sources a slot of kind `k`
/// takes (what `Src::slot_kind` maps to `k`).
pub(crate) fn kind_pattern(k: SlotKindClass) -> TokenStream {
    match k {
        SlotKindClass::Imm => quote!(SrcKind::Imm(_)),
        SlotKindClass::Cbuf => quote!(SrcKind::CBuf(_)),
        _ => {
            // `reg!(Gpr)`: the runtime's pattern for a register of a file.
            let file = file_tokens(k);
            let variant = file.into_iter().last();
            quote!(reg!(#variant))
        }
    }
}

/// One arm of the form match (`form_id`, and the encoder's dispatch): the
/// form's source kinds as a pattern on the tuple of `SrcKind`s, its SMs
/// (one AND with `sm_bit`) and the defaults of sources it has no slot for
/// as the guard, `then` as the arm's value.
fn form_arm(spec: &Spec, op: &Op, f: &FormRef, then: TokenStream) -> TokenStream {
    let mask = sm_mask(spec, &f.form.sms);
    let mut guard = vec![quote!(smb & #mask != 0)];
    let mut kinds = Vec::new();
    for (i, s) in op.srcs.iter().enumerate() {
        let fld = field(&s.name);
        match f.form.src_kinds[i] {
            Some(k) => kinds.push(kind_pattern(k)),
            None => {
                kinds.push(quote!(_));
                if let Some(d) = src_default(s) {
                    guard.push(quote!(self.#fld == #d));
                }
            }
        }
    }
    // Another form with these kinds takes other values of some enum
    // modifier (Maxwell's CAS and CAS.64): the values choose.
    for (m, vals) in op.form_value_guards(spec, f.form) {
        let ModType::Enum(e) = op.modifiers[m].ty else {
            continue;
        };
        let en = &spec.enums[e];
        let t = crate::names::enum_type(&en.name);
        let vs = vals.iter().map(|&v| {
            let v = crate::names::enum_variant(&en.values[v].name);
            quote!(#t::#v)
        });
        let fld = field(&op.modifiers[m].name);
        guard.push(quote!(matches!(self.#fld, #(#vs)|*)));
    }
    quote!((#(#kinds,)*) if #(#guard)&&* => #then)
}

/// Code that ORs `v` (an expression of type u128) into `w` at `bits`;
/// `exact` when `v` is known to fit the bits (checked, or a bool), so no
/// mask is needed.
pub(crate) fn place(bits: &Bits, v: TokenStream, exact: bool) -> TokenStream {
    let mut parts = Vec::new();
    let mut shift = 0u32;
    for &(l, h) in &bits.ranges {
        let wdt = h - l;
        let mask = u128_lit((1u128 << wdt) - 1);
        let l = Literal::u32_unsuffixed(l);
        if shift == 0 {
            parts.push(quote!(w |= (v & #mask) << #l;));
        } else {
            let s = Literal::u32_unsuffixed(shift);
            parts.push(quote!(w |= ((v >> #s) & #mask) << #l;));
        }
        shift += wdt;
    }
    if let [(l, h)] = bits.ranges.as_slice() {
        let mask = u128_lit((1u128 << (h - l)) - 1);
        let l = Literal::u32_unsuffixed(*l);
        if exact {
            return quote!(w |= #v << #l;);
        }
        return quote!(w |= (#v & #mask) << #l;);
    }
    quote!({ let v: u128 = #v; #(#parts)* })
}

/// Where a form keeps the common part of an instruction, when it has the
/// usual shape (each field one bit range): the guard predicate field
/// `(lo, width)`, the bit of its `!` and the control bits `(lo, width)`
/// (`(0, 0)`: none in the word). Encoder and decoder then place and read
/// them with one runtime call (`common_fields`, `common_at`).
pub(crate) fn common_layout(form: &Form) -> Option<(TokenStream, TokenStream, TokenStream)> {
    let one = |t: FieldTarget| {
        let f = form.fields.iter().find(|f| f.target == t)?;
        match f.bits.ranges.as_slice() {
            [(l, h)] => Some((*l, h - l)),
            _ => None,
        }
    };
    let (gl, gw) = one(FieldTarget::GuardPred)?;
    let (nl, 1) = one(FieldTarget::GuardNot)? else {
        return None;
    };
    let has_ctrl = form.fields.iter().any(|f| f.target == FieldTarget::Ctrl);
    let (cl, cw) = if has_ctrl {
        one(FieldTarget::Ctrl)?
    } else {
        (0, 0)
    };
    let lit = Literal::u32_unsuffixed;
    let (gl, gw, nl, cl, cw) = (lit(gl), lit(gw), lit(nl), lit(cl), lit(cw));
    Some((quote!((#gl, #gw)), quote!(#nl), quote!((#cl, #cw))))
}

/// The checks before a form packs its fields: tied sources, sources,
/// destinations and modifiers the form has no field for (they must hold
/// their defaults), source modifiers it has no bit for, alignment.
fn encode_checks(spec: &Spec, op: &Op, f: &FormRef) -> Vec<TokenStream> {
    let has = |pred: &dyn Fn(&FieldTarget) -> bool| f.form.fields.iter().any(|x| pred(&x.target));
    let mut checks = Vec::new();
    // A form without a guard field (an unguarded op) encodes only PT.
    if !has(&|t| matches!(t, FieldTarget::GuardPred | FieldTarget::GuardUPred)) {
        checks.push(quote!(only_default(Self::NAME, "guard", c.guard == Src::PT, sm)?;));
    }
    for (i, s) in op.srcs.iter().enumerate() {
        let fld = field(&s.name);
        let sname = &s.name;
        let n = has(&|t| *t == FieldTarget::SrcNeg(i));
        let a = has(&|t| *t == FieldTarget::SrcAbs(i));
        let no = has(&|t| *t == FieldTarget::SrcNot(i));
        let encoded = f.form.tied.iter().any(|&(si, _)| si == i)
            || f.form.tied_src.iter().any(|t| t.src == i)
            || has(
                &|t| matches!(t, FieldTarget::SrcReg { idx, .. } | FieldTarget::SrcImm { idx, .. } | FieldTarget::SrcCbuf { idx, .. } if *idx == i),
            );
        if let Some(&(_, di)) = f.form.tied.iter().find(|&&(si, _)| si == i) {
            let d = field(&op.dsts[di].name);
            let dname = &op.dsts[di].name;
            checks.push(quote!(if { self.#fld.kind } != SrcKind::Reg(self.#d) { return Err(refuse(Self::NAME, format_args!("{} must be the register of {} on SM{}", #sname, #dname, sm))); }));
        }
        if let Some(t) = f.form.tied_src.iter().find(|t| t.src == i) {
            let o = field(&op.srcs[t.base].name);
            let oname = &op.srcs[t.base].name;
            if t.n == 0 {
                checks.push(quote!(if { self.#fld.kind } != { self.#o.kind } { return Err(refuse(Self::NAME, format_args!("{} must be {} on SM{} (one register for both)", #sname, #oname, sm))); }));
            } else {
                // The register n above the base one, neither at or past RZ.
                let n = Literal::u8_unsuffixed(t.n);
                checks.push(quote!(if !gpr_follows(self.#o, self.#fld, #n) { return Err(refuse(Self::NAME, format_args!("{} must be the register {} above {} (neither RZ) on SM{}", #sname, #n, #oname, sm))); }));
            }
        }
        // A source this form does not encode must hold its default
        // (modifiers included).
        if !encoded && let Some(def) = src_default(s) {
            checks.push(quote!(only_default(Self::NAME, #sname, self.#fld == #def, sm)?;));
            continue;
        }
        // Modifiers this form has no bit for must be off.
        let forbid: Vec<TokenStream> = [
            (n, quote!(MOD_NEG)),
            (a, quote!(MOD_ABS)),
            (no, quote!(MOD_NOT)),
        ]
        .into_iter()
        .filter(|(has, _)| !has)
        .map(|(_, t)| t)
        .collect();
        if !forbid.is_empty() {
            checks.push(quote!(forbid_mods(Self::NAME, #sname, &self.#fld, #(#forbid)|*, sm)?;));
        }
        if s.align > 1 {
            let al = Literal::u8_unsuffixed(s.align as u8);
            // A memory base whose width says `.U32` is one register, and so
            // is a Maxwell base without `.E` (`mem_addr_ext` at `a32`).
            let mut narrow = mem_base_width(op, i).map_or(quote!(false), |w| {
                let wf = field(&op.modifiers[w].name);
                quote!((self.#wf.text() == ".U32"))
            });
            if is_mem_base(op, i)
                && let Some(m) = op.modifiers.iter().find(
                    |m| matches!(m.ty, ModType::Enum(e) if spec.enums[e].name == "mem_addr_ext"),
                )
            {
                let ef = field(&m.name);
                narrow = quote!((#narrow || self.#ef.text().is_empty()));
            }
            checks.push(quote!(if let SrcKind::Reg(r) = self.#fld.kind { if r.file == RegFile::Gpr && !r.is_zero() && r.idx % #al != 0 && !#narrow && !any_align() { return Err(refuse(Self::NAME, format_args!("{} must be a register aligned to {}, not {}", #sname, #al, r))); } }));
        }
    }
    for (i, d) in op.dsts.iter().enumerate() {
        let fld = field(&d.name);
        let dname = &d.name;
        let encoded = has(&|t| matches!(t, FieldTarget::Dst { idx, .. } if *idx == i));
        if !encoded && let Some(def) = dst_default(d) {
            {
                checks.push(quote!(only_default(Self::NAME, #dname, self.#fld == #def, sm)?;));
            }
        }
        if d.align > 1 {
            let al = Literal::u8_unsuffixed(d.align as u8);
            checks.push(quote!(if self.#fld.file == RegFile::Gpr && !self.#fld.is_zero() && self.#fld.idx % #al != 0 && !any_align() { return Err(refuse(Self::NAME, format_args!("{} must be a register aligned to {}, not {}", #dname, #al, self.#fld))); }));
        }
    }
    for (i, m) in op.modifiers.iter().enumerate() {
        let encoded = has(&|t| matches!(t, FieldTarget::Modifier { idx, .. } if *idx == i));
        if !encoded {
            let fld = field(&m.name);
            let def = mod_default(spec, m);
            let what = format!("modifier {}", m.name);
            checks.push(quote!(only_default(Self::NAME, #what, self.#fld == #def, sm)?;));
        }
    }
    checks
}

/// The value of modifier `idx`'s field: its bool, its enum value's code
/// (`codes`: per value, `None` where the encoding lacks it), its integer
/// fitted to `wdt` bits, or its branch offset (or a scaled integer,
/// ATOMS's `off:x4`) in units of `scale`.
fn modifier_value(
    op: &Op,
    idx: usize,
    codes: &Option<Vec<Option<u64>>>,
    scale: u32,
    wdt: u32,
) -> TokenStream {
    let m = &op.modifiers[idx];
    let fld = field(&m.name);
    let mname = &m.name;
    match (&m.ty, codes) {
        (ModType::Bool, _) => quote!(u128::from(self.#fld)),
        (ModType::Enum(_), Some(codes))
            if codes.iter().enumerate().all(|(i, c)| *c == Some(i as u64)) =>
        {
            quote!((self.#fld.index() as u128))
        }
        (ModType::Enum(_), Some(codes)) if codes.iter().all(Option::is_some) => {
            // The value's code: a static table indexed by the value.
            let c = codes
                .iter()
                .map(|c| u128_lit(c.unwrap_or_default() as u128));
            quote!(code_of(&[#(#c),*], self.#fld.index()))
        }
        (ModType::Enum(_), Some(codes)) => {
            // Some values do not exist in this encoding: the op's table
            // of codes says which (`code_tables`).
            let table = code_table_name(op, idx, codes);
            quote!(self.#fld.code_in(Self::NAME, #mname, &Self::#table, sm)?)
        }
        (ModType::Int { signed: false, .. }, _) if scale == 1 => {
            quote!(fit(Self::NAME, #mname, self.#fld as u128, #wdt)?)
        }
        (ModType::Int { signed: false, .. }, _) => {
            let sc = scale as u128;
            quote!({
                if self.#fld as u128 % #sc != 0 {
                    return Err(refuse(Self::NAME, format_args!("{} must be a multiple of {}", #mname, #sc)));
                }
                fit(Self::NAME, #mname, self.#fld as u128 / #sc, #wdt)?
            })
        }
        (ModType::Int { signed: true, .. }, _) if scale == 1 => {
            quote!(fit_signed(Self::NAME, #mname, self.#fld as i64, #wdt)?)
        }
        (ModType::Int { signed: true, .. }, _) => {
            let sc = scale as i64;
            quote!({
                if self.#fld as i64 % #sc != 0 {
                    return Err(refuse(Self::NAME, format_args!("{} must be a multiple of {}", #mname, #sc)));
                }
                fit_signed(Self::NAME, #mname, self.#fld as i64 / #sc, #wdt)?
            })
        }
        (ModType::Rel | ModType::Abs { signed: true }, _) => {
            let sc = scale as i64;
            quote!({
                if self.#fld % #sc != 0 {
                    return Err(refuse(Self::NAME, format_args!("{} must be a multiple of {}", #mname, #sc)));
                }
                fit_signed(Self::NAME, #mname, self.#fld / #sc, #wdt)?
            })
        }
        (ModType::Abs { signed: false }, _) => {
            let sc = scale as u64;
            quote!({
                if self.#fld % #sc != 0 {
                    return Err(refuse(Self::NAME, format_args!("{} must be a multiple of {}", #mname, #sc)));
                }
                fit(Self::NAME, #mname, (self.#fld / #sc) as u128, #wdt)?
            })
        }
        (ModType::Enum(_), None) => quote!((self.#fld.index() as u128)),
    }
}

/// A register field's value `v`, stored complemented when `inv` (`.inv`:
/// the index's bitwise complement in a `wdt`-bit field, so 0 is PT).
fn complemented_if(inv: bool, v: TokenStream, wdt: u32) -> TokenStream {
    if inv {
        let m = u128_lit((1u128 << wdt) - 1);
        quote!((#v ^ #m))
    } else {
        v
    }
}

/// The value a form field packs (an expression of type u128 that fails
/// through `E` when the operand does not fit), or `None` for fixed and raw
/// bits.
fn field_value(op: &Op, fl: &Field) -> Option<TokenStream> {
    let wdt = fl.bits.width();
    match &fl.target {
        FieldTarget::Fixed(_) | FieldTarget::Unknown(_) => None,
        FieldTarget::Dst { idx, kind, inv } => {
            let d = &op.dsts[*idx];
            let fld = field(&d.name);
            let dname = &d.name;
            let file = file_tokens(*kind);
            let v = quote!(dst_field(Self::NAME, #dname, self.#fld, #file, #wdt, sm)?);
            Some(complemented_if(*inv, v, wdt))
        }
        FieldTarget::SrcReg { idx, kind, inv } => {
            let s = &op.srcs[*idx];
            let fld = field(&s.name);
            let sname = &s.name;
            let file = file_tokens(*kind);
            let v = quote!(src_field(Self::NAME, #sname, &self.#fld, #file, #wdt, sm)?);
            Some(complemented_if(*inv, v, wdt))
        }
        FieldTarget::SrcImm { idx, packing } => {
            let s = &op.srcs[*idx];
            let fld = field(&s.name);
            let sname = &s.name;
            let shift = packing.shift;
            let sext = packing.sext;
            Some(if packing.halves {
                quote!(imm_halves_src_field(Self::NAME, #sname, &self.#fld, #shift)?)
            } else {
                quote!(imm_src_field(Self::NAME, #sname, &self.#fld, #wdt, #shift, #sext)?)
            })
        }
        FieldTarget::SrcCbuf { idx, part } => {
            let s = &op.srcs[*idx];
            let fld = field(&s.name);
            let sname = &s.name;
            Some(match part {
                CbufPart::Index => {
                    quote!(cbuf_index_field(Self::NAME, #sname, &self.#fld, #wdt)?)
                }
                CbufPart::Offset { scale, signed } => {
                    let sc = *scale;
                    quote!(cbuf_offset_field(Self::NAME, #sname, &self.#fld, #sc, #wdt, #signed)?)
                }
            })
        }
        FieldTarget::SrcNeg(i) => {
            let fld = field(&op.srcs[*i].name);
            Some(quote!(u128::from(self.#fld.neg)))
        }
        FieldTarget::SrcAbs(i) => {
            let fld = field(&op.srcs[*i].name);
            Some(quote!(u128::from(self.#fld.abs)))
        }
        FieldTarget::SrcNot(i) => {
            let fld = field(&op.srcs[*i].name);
            Some(quote!(u128::from(self.#fld.not)))
        }
        FieldTarget::Modifier { idx, codes, scale } => {
            Some(modifier_value(op, *idx, codes, *scale, wdt))
        }
        FieldTarget::GuardPred => Some(quote!(guard_field(Self::NAME, &c.guard, #wdt, sm)?)),
        FieldTarget::GuardUPred => Some(quote!(uguard_field(Self::NAME, &c.guard, #wdt, sm)?)),
        FieldTarget::GuardNot => Some(quote!(u128::from(c.guard.not))),
        FieldTarget::Ctrl => Some(quote!(ctrl_field(Self::NAME, c.ctrl, #wdt)?)),
    }
}

/// A form's packing code in pieces, so that the forms of one encoding can
/// share the pieces they have in common (`encode_eN`).
struct FormCode {
    checks: Vec<TokenStream>,
    /// The fixed bits and the raw bits the text does not carry.
    start: TokenStream,
    body: Vec<TokenStream>,
    not_all: Vec<TokenStream>,
    /// Guard and control bits (`common_fields`), when the form has the
    /// usual layout.
    tail: Option<TokenStream>,
}

fn form_code(spec: &Spec, op: &Op, f: &FormRef) -> FormCode {
    let (_, value) = f.form.fixed();
    let value = u128_lit(value);
    let start = match (f.form.unknown_mask(), f.form.strict.as_slice()) {
        (0, _) => quote!(#value),
        (m, []) => {
            let m = u128_lit(m);
            quote!(#value | (c.raw & #m))
        }
        // Raw bits fixed on some SMs (`ignored_on`) take their canonical
        // value there, whatever `c.raw` holds: only that value decodes.
        (m, strict) => {
            let m = u128_lit(m);
            let canon = u128_lit(f.form.canonical_raw());
            let arms = strict.iter().map(|s| {
                let pat = sm_pattern(&s.sms);
                let mask = u128_lit(s.mask);
                quote!(#pat => #mask,)
            });
            quote!({
                let strict: u128 = match sm { #(#arms)* _ => 0 };
                #value | (c.raw & #m & !strict) | (#canon & strict)
            })
        }
    };
    let checks = encode_checks(spec, op, f);
    let mut body = Vec::new();
    let common = common_layout(f.form);
    for fl in &f.form.fields {
        if common.is_some()
            && matches!(
                fl.target,
                FieldTarget::GuardPred | FieldTarget::GuardNot | FieldTarget::Ctrl
            )
        {
            continue;
        }
        if let Some(v) = field_value(op, fl) {
            // Everything but a raw enum index was fitted to the width above
            // (enum codes are checked against their bits by the lint).
            let exact = match &fl.target {
                FieldTarget::Modifier {
                    idx, codes: None, ..
                } => !matches!(op.modifiers[*idx].ty, ModType::Enum(_)),
                _ => true,
            };
            body.push(place(&fl.bits, v, exact));
        }
    }
    let tail = common.map(|(g, n, c)| quote!(common_fields(Self::NAME, c, sm, #g, #n, #c)?));
    let not_all = f
        .form
        .not_all
        .iter()
        .map(|n| {
            let m = u128_lit(n.mask);
            // A conditional entry holds only while other bits have a value.
            let when = (n.when_mask != 0).then(|| {
                let (wm, wv) = (u128_lit(n.when_mask), u128_lit(n.when_value));
                quote!(&& w & #wm == #wv)
            });
            quote!(if w & #m == #m #when { return Err(refuse(Self::NAME, format_args!("this combination of modifiers is not encodable on SM{}", sm))); })
        })
        .collect();
    FormCode {
        checks,
        start,
        body,
        not_all,
        tail,
    }
}

/// `Ok(w)` with `tail` (guard and control bits) added last: with no
/// combination check after them, in the returned value itself.
fn finish(
    body: &mut Vec<TokenStream>,
    not_all: &[TokenStream],
    tail: Option<TokenStream>,
) -> TokenStream {
    match tail {
        Some(t) if not_all.is_empty() => quote!(Ok(w | #t)),
        Some(t) => {
            body.push(quote!(w |= #t;));
            quote!(Ok(w))
        }
        None => quote!(Ok(w)),
    }
}

/// The packing function of one form; `shared` names the encoding's
/// helper that packs what all its forms pack alike (already removed from
/// `code`).
fn form_encode_fn(
    spec: &Spec,
    f: &FormRef,
    mut code: FormCode,
    shared: Option<&Ident>,
) -> TokenStream {
    let name = ident(&format!("encode_f{}", f.id));
    let start = &code.start;
    let start = match shared {
        Some(h) => quote!(#start | self.#h(sm, c)?),
        None => quote!(#start),
    };
    let result = finish(&mut code.body, &code.not_all, code.tail.take());
    let FormCode {
        checks,
        body,
        not_all,
        ..
    } = code;
    let form_name = format!(
        " Form `{}` on SM {:?} ({}; form at {}).",
        f.form.name,
        f.form.sms,
        crate::shared::spec_line(spec, &f.enc.loc),
        crate::shared::spec_line(spec, &f.form.loc)
    );
    quote! {
        #[doc = #form_name]
        #[inline(always)]
        fn #name(&self, sm: u32, c: &Common) -> Result<u128, Refused> {
            #(#checks)*
            let mut w: u128 = #start;
            #(#body)*
            #(#not_all)*
            #result
        }
    }
}

/// The packing functions of one encoding's forms: what every form packs
/// alike (checks, fields, guard and control bits) moves to one helper
/// `encode_eN` that each form's function calls, when that saves code.
fn encoding_encode_fns(spec: &Spec, op: &Op, enc_id: usize, fs: &[&FormRef]) -> Vec<TokenStream> {
    let mut codes: Vec<FormCode> = fs.iter().map(|f| form_code(spec, op, f)).collect();
    let checks: Vec<&[TokenStream]> = codes.iter().map(|c| c.checks.as_slice()).collect();
    let bodies: Vec<&[TokenStream]> = codes.iter().map(|c| c.body.as_slice()).collect();
    let (sc, sb) = (common_statements(&checks), common_statements(&bodies));
    let tail_text = |c: &FormCode| c.tail.as_ref().map(|t| t.to_string());
    let same_tail =
        codes[0].tail.is_some() && codes.iter().all(|c| tail_text(c) == tail_text(&codes[0]));
    let moved = sc.len() + sb.len() + usize::from(same_tail);
    if fs.len() < 2 || moved < 2 {
        return fs
            .iter()
            .zip(codes)
            .map(|(f, c)| form_encode_fn(spec, f, c, None))
            .collect();
    }
    let helper = ident(&format!("encode_e{enc_id}"));
    let keep = |v: &mut Vec<TokenStream>, shared: &std::collections::HashSet<String>| {
        let (mut out, mut rest) = (Vec::new(), Vec::new());
        for t in v.drain(..) {
            if shared.contains(&t.to_string()) {
                out.push(t)
            } else {
                rest.push(t)
            }
        }
        *v = rest;
        out
    };
    let mut shared_checks = Vec::new();
    let mut shared_body = Vec::new();
    let mut tail = None;
    for (i, c) in codes.iter_mut().enumerate() {
        let (k, b) = (keep(&mut c.checks, &sc), keep(&mut c.body, &sb));
        let t = if same_tail { c.tail.take() } else { None };
        if i == 0 {
            (shared_checks, shared_body, tail) = (k, b, t);
        }
    }
    let result = match tail {
        Some(t) => quote!(Ok(w | #t)),
        None => quote!(Ok(w)),
    };
    let doc = format!(
        " What all forms of {} pack alike.",
        crate::shared::spec_line(spec, &fs[0].enc.loc)
    );
    let mut out = vec![quote! {
        #[doc = #doc]
        #[inline(always)]
        fn #helper(&self, sm: u32, c: &Common) -> Result<u128, Refused> {
            #(#shared_checks)*
            let mut w: u128 = 0;
            #(#shared_body)*
            #result
        }
    }];
    out.extend(
        fs.iter()
            .zip(codes)
            .map(|(f, c)| form_encode_fn(spec, f, c, Some(&helper))),
    );
    out
}

/// The packing functions of all the op's forms, encoding by encoding.
fn encode_fns(spec: &Spec, op: &Op, fs: &[FormRef]) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for (e, enc) in op.encodings.iter().enumerate() {
        let group: Vec<&FormRef> = fs.iter().filter(|f| std::ptr::eq(f.enc, enc)).collect();
        if !group.is_empty() {
            out.extend(encoding_encode_fns(spec, op, e, &group));
        }
    }
    out
}

/// The op's encoder: `form_id` and one packing function per form (in the
/// op's inherent impl, `.0`) and its `Encode` impl (`.1`), whose
/// `encode_as` matches the source kinds once and calls the form's packing.
/// The wrappers (`encode`, `try_encode`, the error path) are the runtime's
/// (`nak/src/runtime/encode.rs`).
pub fn op_encode(spec: &Spec, op: &Op) -> Result<(TokenStream, TokenStream), Error> {
    let ty = crate::names::op_type(&op.name);
    let fs = forms(op);
    let form_arms = fs.iter().map(|f| {
        let id = Literal::u8_unsuffixed(f.id as u8);
        form_arm(spec, op, f, quote!(Some(#id)))
    });
    let rules = crate::combo::has_rules(op);
    let (combo_fns, combo_names) = if rules {
        crate::combo::combo_check_fns(spec, op, &fs)
    } else {
        (Vec::new(), Vec::new())
    };
    let (legal_fns, _) = crate::combo::legal_fns(spec, op, &fs);
    // `encode_as` picks the form with `form_id` and packs it.
    let arms = fs.iter().map(|f| {
        let n = ident(&format!("encode_f{}", f.id));
        let id = Literal::u8_unsuffixed(f.id as u8);
        if rules {
            let k = &combo_names[f.id];
            quote!(#id: #k => #n)
        } else {
            quote!(#id: => #n)
        }
    });
    let fns = encode_fns(spec, op, &fs);
    // `encode_any_combo` runs `encode` with these checks passing.
    let any_combo = quote!(#(#combo_fns)*);
    let src_fields: Vec<_> = op.srcs.iter().map(|s| field(&s.name)).collect();
    let parts_check = crate::shared::has_parts(op).then(|| quote!(parts_ok;));
    let tables = code_tables(spec, op);
    let inherent = quote! {
        #(#tables)*
        /// The encoding form that takes the current operand kinds on `sm`:
        /// the first in spec order whose slots fit (one decision tree on
        /// the kinds, not a test per form).
        pub fn form_id(&self, sm: u32) -> Option<u8> {
            let smb = sm_bit(sm);
            match (#(self.#src_fields.kind,)*) {
                #(#form_arms,)*
                _ => None,
            }
        }
        #any_combo
        #(#legal_fns)*
        #(#fns)*
    };
    let name = &op.name;
    let impl_doc = crate::shared::spec_doc(spec, &op.loc);
    let trait_impl = quote! {
        #impl_doc
        impl Encode for #ty {
            const NAME: &'static str = #name;
            encode_by_form!(#parts_check #(#arms),*; [#(#src_fields),*]);
        }
    };
    Ok((inherent, trait_impl))
}

/// Every distinct table of an enum modifier's codes in which some value
/// has no code, in the order of the op's encodings: (modifier, codes).
fn partial_code_tables(op: &Op) -> Vec<(usize, &[Option<u64>])> {
    let mut tables: Vec<(usize, &[Option<u64>])> = Vec::new();
    for e in &op.encodings {
        for form in &e.forms {
            for f in &form.fields {
                if let FieldTarget::Modifier {
                    idx,
                    codes: Some(codes),
                    ..
                } = &f.target
                {
                    let entry = (*idx, codes.as_slice());
                    let partial = codes.iter().any(Option::is_none);
                    if partial
                        && matches!(op.modifiers[*idx].ty, ModType::Enum(_))
                        && !tables.contains(&entry)
                    {
                        tables.push(entry);
                    }
                }
            }
        }
    }
    tables
}

/// The name of the op's constant holding modifier `idx`'s `codes`
/// (`SEM_CODES1`: the second distinct table of `sem`).
fn code_table_name(op: &Op, idx: usize, codes: &[Option<u64>]) -> Ident {
    let n = partial_code_tables(op)
        .iter()
        .filter(|t| t.0 == idx)
        .position(|t| t.1 == codes)
        .unwrap_or(0);
    ident(&format!(
        "{}_CODES{n}",
        op.modifiers[idx].name.to_uppercase()
    ))
}

/// The op's tables of enum codes where some value has none, one
/// constant each, written as `codes("4 0 1 - 3")` (`-`: no code).
fn code_tables(spec: &Spec, op: &Op) -> Vec<TokenStream> {
    partial_code_tables(op)
        .into_iter()
        .map(|(idx, codes)| {
            let m = &op.modifiers[idx];
            let ModType::Enum(e) = m.ty else {
                return quote!();
            };
            let t = crate::names::enum_type(&spec.enums[e].name);
            let name = code_table_name(op, idx, codes);
            if codes.iter().flatten().any(|&c| c >= 0xffff) {
                let msg = format!(
                    "op {}: a code of `{}` does not fit 16 bits",
                    op.name, m.name
                );
                return quote!(compile_error!(#msg););
            }
            let text: Vec<String> = codes
                .iter()
                .map(|c| c.map_or("-".to_string(), |c| format!("{c:x}")))
                .collect();
            let text = text.join(" ");
            let doc = format!(
                " Codes of `{}`'s values, in hex (`-`: none; {}).",
                m.name,
                crate::shared::spec_line(spec, &m.loc)
            );
            quote! {
                #[doc = #doc]
                const #name: [u16; #t::COUNT] = codes(#text);
            }
        })
        .collect()
}

/// Whether source `i` is the base register of a memory operand.
fn is_mem_base(op: &Op, i: usize) -> bool {
    op.asm
        .operands
        .iter()
        .any(|o| matches!(&o.item, AsmItem::Mem(m) if m.base == i))
}

/// The width modifier of the memory address whose base is source `i`.
fn mem_base_width(op: &Op, i: usize) -> Option<usize> {
    op.asm.operands.iter().find_map(|o| match &o.item {
        AsmItem::Mem(m) if m.base == i => m.width,
        _ => None,
    })
}
