//! Decoders: a match on the family's dispatch bits picks candidate forms, a
//! mask compare confirms one, and its fields are read back. A word whose
//! fields hold values the encoder could not produce decodes to `None`.

use crate::Error;
use crate::encode::{file_tokens, forms, sm_pattern, u128_lit};
use crate::names::{enum_type, enum_variant, field, ident, op_type};
use crate::shared::{dst_default, mod_default, src_default};
use isa_spec::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Expression reading `bits` of `w` as a u128: one runtime `bits` call
/// per bit range (the runtime's `bits` is always inlined).
pub(crate) fn get(bits: &Bits) -> TokenStream {
    let mut parts = Vec::new();
    let mut shift = 0u32;
    for &(l, h) in &bits.ranges {
        let wdt = Literal::u32_unsuffixed(h - l);
        let lo = Literal::u32_unsuffixed(l);
        if shift == 0 {
            parts.push(quote!(bits(w, #lo, #wdt)));
        } else {
            let s = Literal::u32_unsuffixed(shift);
            parts.push(quote!(bits(w, #lo, #wdt) << #s));
        }
        shift += h - l;
    }
    match parts.as_slice() {
        [one] => one.clone(),
        _ => quote!((#(#parts)|*)),
    }
}

/// A one-bit flag field as a bool (`bit(w, 72)`).
fn flag_of(bits: &Bits) -> TokenStream {
    match bits.ranges.as_slice() {
        [(l, h)] if h - l == 1 => {
            let l = Literal::u32_unsuffixed(*l);
            quote!(bit(w, #l))
        }
        _ => {
            let g = get(bits);
            quote!(#g != 0)
        }
    }
}

/// The register of `file` a field names: `reg_at(w, file, lo, width, sm)?`
/// for a field of one range.
fn reg_of(file: TokenStream, bits: &Bits) -> TokenStream {
    match bits.ranges.as_slice() {
        [(l, h)] => {
            let (lo, wdt) = (Literal::u32_unsuffixed(*l), Literal::u32_unsuffixed(h - l));
            quote!(reg_at(w, #file, #lo, #wdt, sm)?)
        }
        _ => {
            let g = get(bits);
            quote!(reg_from_index(#file, #g, sm)?)
        }
    }
}

fn find(form: &Form, pred: impl Fn(&FieldTarget) -> bool) -> Option<&Field> {
    form.fields.iter().find(|f| pred(&f.target))
}

/// A form's function of one kind: `decode_f3`, `print_f3`, `parts_f3`.
fn form_fn(kind: &str, id: usize) -> proc_macro2::Ident {
    ident(&format!("{kind}_f{id}"))
}

/// `let d = ...;` for each destination: its register field, or the
/// default when the form has none.
fn decode_dsts(op: &Op, form: &Form) -> Vec<TokenStream> {
    op.dsts
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let fld = field(&d.name);
            let f = find(
                form,
                |t| matches!(t, FieldTarget::Dst { idx, .. } if *idx == i),
            );
            match f {
                Some(f) => {
                    let FieldTarget::Dst { kind, .. } = f.target else {
                        unreachable!()
                    };
                    let r = reg_of(file_tokens(kind), &f.bits);
                    quote!(let #fld = #r;)
                }
                None => {
                    let v = dst_default(d).unwrap_or(quote!(Reg::RZ));
                    quote!(let #fld: Reg = #v;)
                }
            }
        })
        .collect()
}

/// The unmodified source `i` of `form` (`Src::reg(...)`, `Src::imm(...)`,
/// a constant-buffer `Src::new(...)`), or `None` when the form has no
/// slot for it.
fn decode_src(op: &Op, form: &Form, i: usize) -> Option<TokenStream> {
    let k = form.src_kinds[i]?;
    Some(match k {
        SlotKindClass::Imm => {
            let f = find(
                form,
                |t| matches!(t, FieldTarget::SrcImm { idx, .. } if *idx == i),
            )
            .expect("imm field");
            let FieldTarget::SrcImm { packing, .. } = f.target else {
                unreachable!()
            };
            let g = get(&f.bits);
            let wdt = f.bits.width();
            let (sh, sx) = (packing.shift, packing.sext);
            quote!(Src::imm(imm_from_field(#g, #wdt, #sh, #sx)))
        }
        SlotKindClass::Cbuf => decode_cbuf(form, i),
        _ if form.tied.iter().any(|&(si, _)| si == i) => {
            let di = form
                .tied
                .iter()
                .find(|&&(si, _)| si == i)
                .map_or(0, |t| t.1);
            let d = field(&op.dsts[di].name);
            quote!(Src::reg(#d))
        }
        k => {
            let f = find(
                form,
                |t| matches!(t, FieldTarget::SrcReg { idx, .. } if *idx == i),
            )
            .expect("reg field");
            let r = reg_of(file_tokens(k), &f.bits);
            quote!(Src::reg(#r))
        }
    })
}

/// A constant-buffer source: its index and (scaled) offset fields.
fn decode_cbuf(form: &Form, i: usize) -> TokenStream {
    let fi = find(
        form,
        |t| matches!(t, FieldTarget::SrcCbuf { idx, part: CbufPart::Index } if *idx == i),
    );
    let fo = find(
        form,
        |t| matches!(t, FieldTarget::SrcCbuf { idx, part: CbufPart::Offset { .. } } if *idx == i),
    );
    let index = fi.map_or(quote!(0), |f| get(&f.bits));
    fo.map_or(quote!(cbuf_at(#index, 0, 0, 1, false)), |f| {
        let FieldTarget::SrcCbuf {
            part: CbufPart::Offset { scale, signed },
            ..
        } = f.target
        else {
            unreachable!()
        };
        let (g, wdt) = (get(&f.bits), Literal::u32_unsuffixed(f.bits.width()));
        let scale = Literal::u32_unsuffixed(scale);
        quote!(cbuf_at(#index, #g, #wdt, #scale, #signed))
    })
}

/// `let a = ...;` for each source: `Src::new(kind)` and a `with_neg` /
/// `with_abs` / `with_not` per modifier field the form has.
fn decode_srcs(op: &Op, form: &Form) -> Vec<TokenStream> {
    op.srcs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let fld = field(&s.name);
            let Some(base) = decode_src(op, form, i) else {
                let v = src_default(s).unwrap_or(quote!(Src::RZ));
                return quote!(let #fld: Src = #v;);
            };
            let mods = [
                (FieldTarget::SrcNeg(i), "with_neg"),
                (FieldTarget::SrcAbs(i), "with_abs"),
                (FieldTarget::SrcNot(i), "with_not"),
            ]
            .into_iter()
            .filter_map(|(t, m)| {
                let f = find(form, |x| *x == t)?;
                let (m, v) = (ident(m), flag_of(&f.bits));
                Some(quote!(.#m(#v)))
            });
            quote!(let #fld = #base #(#mods)*;)
        })
        .collect()
}

/// `let m: T = ...;` for each modifier: its field decoded, or the default
/// when the form has none (an enum code the encoding lacks does not
/// decode).
fn decode_mods(spec: &Spec, op: &Op, form: &Form) -> Vec<TokenStream> {
    let mut lets = Vec::new();
    for (i, m) in op.modifiers.iter().enumerate() {
        let fld = field(&m.name);
        let f = find(
            form,
            |t| matches!(t, FieldTarget::Modifier { idx, .. } if *idx == i),
        );
        let v = match f {
            None => mod_default(spec, m),
            Some(f) => decode_mod_field(spec, m, f),
        };
        let t = crate::shared::mod_type(spec, m);
        lets.push(quote!(let #fld: #t = #v;));
    }
    lets
}

/// The value of modifier `m` from its field `f`.
fn decode_mod_field(spec: &Spec, m: &Modifier, f: &Field) -> TokenStream {
    let g = get(&f.bits);
    let wdt = f.bits.width();
    match (&m.ty, &f.target) {
        (ModType::Bool, _) => flag_of(&f.bits),
        (ModType::Int { signed: false, .. }, _) => quote!(#g as u32),
        (ModType::Int { signed: true, .. }, _) => quote!(sext_field(#g, #wdt) as i32),
        (ModType::Rel, FieldTarget::Modifier { scale, .. }) => {
            let sc = *scale as i64;
            quote!(sext_field(#g, #wdt).wrapping_mul(#sc))
        }
        (ModType::Rel, _) => quote!(sext_field(#g, #wdt)),
        (ModType::Enum(e), FieldTarget::Modifier { codes, .. }) => {
            let en = &spec.enums[*e];
            let t = enum_type(&en.name);
            let codes: Vec<Option<u64>> = codes
                .clone()
                .unwrap_or_else(|| (0..en.values.len() as u64).map(Some).collect());
            // Codes that are the values' positions: the enum's table.
            if codes.iter().enumerate().all(|(i, c)| *c == Some(i as u64)) {
                return quote!(#t::from_index(#g as usize)?);
            }
            // Values absent from this encoding never decode.
            let arms = en.values.iter().zip(&codes).filter_map(|(v, c)| {
                let var = enum_variant(&v.name);
                let c = u128_lit((*c)? as u128);
                Some(quote!(#c => #t::#var))
            });
            quote!(match #g { #(#arms,)* _ => return None })
        }
        _ => unreachable!(),
    }
}

/// The form's `Common` (the value the decoder returns with the op): one
/// `common_at` call where the form has the usual layout.
fn decode_common(form: &Form) -> TokenStream {
    let unknown = u128_lit(form.unknown_mask());
    if let Some((g, n, c)) = crate::encode::common_layout(form) {
        return quote!(Some((o, common_at(w, #g, #n, #c, #unknown))));
    }
    let guard = match (
        find(form, |t| *t == FieldTarget::GuardPred),
        find(form, |t| *t == FieldTarget::GuardNot),
    ) {
        (Some(p), n) => {
            let gp = get(&p.bits);
            let gn = n.map_or(quote!(false), |n| flag_of(&n.bits));
            quote!(guard_of(#gp, #gn))
        }
        _ => quote!(Src::PT),
    };
    let ctrl = match find(form, |t| *t == FieldTarget::Ctrl) {
        Some(f) => {
            let g = get(&f.bits);
            quote!(#g as u32)
        }
        None => quote!(0),
    };
    quote! {
        let guard = #guard;
        let ctrl = #ctrl;
        let raw = w & #unknown;
        Some((o, Common { guard, ctrl, raw }))
    }
}

fn form_decode_fn(spec: &Spec, op: &Op, f: &crate::encode::FormRef<'_>) -> TokenStream {
    let (fid, form) = (f.id, f.form);
    let parts = form_fn("parts", fid);
    let lets = decode_dsts(op, form)
        .into_iter()
        .chain(decode_srcs(op, form))
        .chain(decode_mods(spec, op, form));
    let inits = op
        .dsts
        .iter()
        .map(|d| &d.name)
        .chain(op.srcs.iter().map(|s| &s.name))
        .chain(op.modifiers.iter().map(|m| &m.name))
        .map(|n| field(n));
    let common = decode_common(form);
    let not_all = form.not_all.iter().map(|n| {
        let (m, wm, wv) = (
            u128_lit(n.mask),
            u128_lit(n.when_mask),
            u128_lit(n.when_value),
        );
        quote!(if w & #m == #m && w & #wm == #wv { return None; })
    });
    let parts_check = if crate::shared::has_parts(op) {
        quote!(if !o.parts_ok() {
            return None;
        })
    } else {
        quote!()
    };
    let form_doc = format!(
        " Form `{}`'s fields ({}; form at {}).",
        form.name,
        crate::shared::spec_line(spec, &f.enc.loc),
        crate::shared::spec_line(spec, &form.loc)
    );
    // Combinations the spec's `legal` products leave out do not decode.
    let (_, legal_names) = crate::combo::legal_fns(spec, op, &crate::encode::forms(op));
    let legal = legal_names[f.id]
        .as_ref()
        .map(|n| quote!(if !o.#n(sm) { return None; }));
    quote! {
        #[doc = #form_doc]
        #[inline(always)]
        fn #parts(w: u128, sm: u32) -> Option<(Self, Common)> {
            #(#not_all)*
            #(#lets)*
            let o = Self { #(#inits),* };
            #parts_check
            #legal
            #common
        }
    }
}

/// The op's per-form field readers (`parts_fN`, in its inherent impl, `.0`)
/// and its `Forms` impl (`.1`): the match from a form number to its
/// reader, and its printer. The table entries that call them
/// (`decode_form`, `print_form`) are the runtime's (`nak/src/runtime/decode.rs`).
pub fn op_decode(spec: &Spec, op: &Op) -> Result<(TokenStream, TokenStream), Error> {
    let fs = forms(op);
    let fns = fs.iter().map(|f| form_decode_fn(spec, op, f));
    let arms = fs.iter().map(|f| {
        let id = Literal::u8_unsuffixed(f.id as u8);
        let parts = form_fn("parts", f.id);
        quote!(#id => Self::#parts(w, sm))
    });
    let ty = op_type(&op.name);
    let impl_doc = crate::shared::spec_doc(spec, &op.loc);
    let forms_impl = quote! {
        #impl_doc
        impl Forms for #ty {
            #[inline(always)]
            fn parts<const F: u8>(w: u128, sm: u32) -> Option<(Self, Common)> {
                match F { #(#arms,)* _ => None }
            }
            #[inline(always)]
            fn print(&self, c: &Common, sm: u32, addr: u64, out: &mut LineBuf) {
                self.print_body(c, sm, addr, out)
            }
        }
    };
    Ok((quote!(#(#fns)*), forms_impl))
}

/// A form the dispatch may try: its fixed bits and SMs, and its type and
/// form number (the call depends on the dispatch: decode, or print).
struct Candidate {
    cond: TokenStream,
    ty: proc_macro2::Ident,
    id: usize,
    /// Whether the form's family has bundles (its printer takes the
    /// control bits from the stream).
    bundled: bool,
}

/// What a family's dispatch does with the form it finds: build the `Op`,
/// or print the line straight from the word. Both share the dispatch bits,
/// candidate order and fall-through rules; only the call differs.
struct Dispatch {
    /// `decode` or `print`: names the family function (`decode_sm70`),
    /// its arms, its table (`DECODE_SM70`), its arm type (`DecodeArm`),
    /// its empty arm (`decode_none`) and the per-form functions
    /// (`decode_f3`).
    prefix: &'static str,
    params: TokenStream,
    args: TokenStream,
    ret: TokenStream,
    doc: &'static str,
}

impl Dispatch {
    fn call(&self, c: &Candidate) -> TokenStream {
        let (ty, args) = (&c.ty, &self.args);
        let id = Literal::u8_unsuffixed(c.id as u8);
        let f = match (self.prefix, c.bundled) {
            ("print", true) => ident("print_form_bundled"),
            (p, _) => ident(&format!("{p}_form")),
        };
        quote!(#f::<#ty, #id>(#args))
    }
    /// Try the form; if it does not decode, go on to the next candidate.
    fn try_then_next(&self, c: &Candidate) -> TokenStream {
        let (cond, call) = (&c.cond, self.call(c));
        quote!(if #cond { if let Some(x) = #call { return Some(x); } })
    }
    /// The last candidate: its answer is the answer.
    fn last(&self, c: &Candidate) -> TokenStream {
        let (cond, call) = (&c.cond, self.call(c));
        quote!(if #cond { return #call; })
    }
}

/// The two dispatches of every family.
fn dispatches() -> [Dispatch; 2] {
    [
        Dispatch {
            prefix: "decode",
            params: quote!(w: u128, sm: u32),
            args: quote!(w, sm),
            ret: quote!(Option<(Op, Common)>),
            doc: "Decode a {} instruction word.",
        },
        Dispatch {
            prefix: "print",
            params: quote!(w: u128, sm: u32, addr: u64, ctrl: u32, out: &mut LineBuf),
            args: quote!(w, sm, addr, ctrl, out),
            ret: quote!(Option<()>),
            doc: "Decode a {} instruction word at byte address `addr` and print \
                  its text into `out` (`ctrl`: the scheduling bits from its \
                  bundle, where the family has bundles); `None`, with nothing \
                  printed, for a word no op of the spec matches.",
        },
    ]
}

/// One decoder and one printer per family, dispatching on the family's
/// dispatch bits.
pub fn family_decoders(spec: &Spec) -> Result<TokenStream, Error> {
    let mut out = Vec::new();
    for (fi, fam) in spec.families.iter().enumerate() {
        let (lo, hi) = match fam.dispatch.ranges.as_slice() {
            [(l, h)] => (*l, *h),
            _ => {
                return Err(Error {
                    message: format!("family {}: dispatch must be one bit range", fam.name),
                    loc: Some(fam.loc.clone()),
                });
            }
        };
        let dmask: u128 = ((1u128 << (hi - lo)) - 1) << lo;
        // key -> candidates (most fixed bits first)
        // Candidates by index; buckets and arms refer to them by index, so
        // their tokens are built once per arm, not once per dispatch value.
        let mut cands: Vec<Candidate> = Vec::new();
        let mut buckets: std::collections::BTreeMap<u32, Vec<(u32, usize)>> = Default::default();
        let mut fallback: Vec<(u32, usize)> = Vec::new();
        for op in &spec.ops {
            for f in forms(op) {
                if f.enc.family != fi {
                    continue;
                }
                let (mask, value) = f.form.fixed();
                let pat = sm_pattern(&f.form.sms);
                let (m, v) = (u128_lit(mask), u128_lit(value));
                let cand = Candidate {
                    cond: quote!(w & #m == #v && matches!(sm, #pat)),
                    ty: op_type(&op.name),
                    id: f.id,
                    bundled: fam.bundle.is_some(),
                };
                let ci = cands.len();
                cands.push(cand);
                let nfixed = mask.count_ones();
                let free = dmask & !mask;
                if free.count_ones() > 10 {
                    fallback.push((nfixed, ci));
                    continue;
                }
                let free_bits: Vec<u32> = (lo..hi).filter(|b| free >> b & 1 == 1).collect();
                let base = ((value & mask & dmask) >> lo) as u32;
                for combo in 0..(1u32 << free_bits.len()) {
                    let mut key = base;
                    for (j, b) in free_bits.iter().enumerate() {
                        if combo >> j & 1 == 1 {
                            key |= 1 << (b - lo);
                        }
                    }
                    buckets.entry(key).or_default().push((nfixed, ci));
                }
            }
        }
        fallback.sort_by_key(|x| std::cmp::Reverse(x.0));
        // With no fallback candidates, an arm's last candidate is the only
        // one left: its answer is the answer (a tail call).
        let tail_ok = fallback.is_empty();
        // Dispatch values with the same candidates share one arm function;
        // a dense table maps every value of the dispatch bits to its arm.
        let mut arm_index: std::collections::HashMap<Vec<usize>, usize> = Default::default();
        let mut arm_ids: Vec<Vec<usize>> = Vec::new();
        let mut keys: Vec<(u32, usize)> = Vec::new();
        for (k, mut v) in buckets {
            v.sort_by_key(|x| std::cmp::Reverse(x.0));
            let ids: Vec<usize> = v.iter().map(|x| x.1).collect();
            let idx = *arm_index.entry(ids.clone()).or_insert_with(|| {
                arm_ids.push(ids);
                arm_ids.len() - 1
            });
            keys.push((k, idx));
        }
        let lo_l = Literal::u32_unsuffixed(lo);
        let km = u128_lit((1u128 << (hi - lo)) - 1);
        let size = Literal::usize_unsuffixed(1usize << (hi - lo));
        let fam_doc = crate::shared::spec_doc(spec, &fam.loc);
        for d in &dispatches() {
            let fname = ident(&format!("{}_{}", d.prefix, fam.name));
            let arm_name = |i: usize| ident(&format!("{}_arm{}", fname, i + 1));
            let fb = fallback.iter().map(|x| d.try_then_next(&cands[x.1]));
            let entries = keys.iter().map(|&(k, i)| {
                let k = u128_lit(k as u128);
                let a = arm_name(i);
                quote!((#k, #a))
            });
            let (params, args, ret) = (&d.params, &d.args, &d.ret);
            let arm_fns = arm_ids.iter().enumerate().map(|(i, ids)| {
                let a = arm_name(i);
                let n = ids.len();
                let c = ids.iter().enumerate().map(|(j, &ci)| {
                    if tail_ok && j + 1 == n {
                        d.last(&cands[ci])
                    } else {
                        d.try_then_next(&cands[ci])
                    }
                });
                quote! {
                    fn #a(#params) -> #ret {
                        #(#c)*
                        None
                    }
                }
            });
            let table = ident(&format!("{}_{}", d.prefix, fam.name).to_uppercase());
            let td = format!(
                "The arm of [`{fname}`] (its candidates) for each value of bits {lo}..{hi}."
            );
            let doc = d.doc.replace("{}", &fam.name);
            let arm_type = ident(&format!(
                "{}{}Arm",
                d.prefix[..1].to_uppercase(),
                &d.prefix[1..]
            ));
            let none_fn = ident(&format!("{}_none", d.prefix));
            // One indirect call on the dispatch bits into a small function that
            // tries that value's candidates (a jump table inside one function
            // would make every word pay for the registers its biggest arm saves).
            let body = if tail_ok {
                quote!(#table[((w >> #lo_l) & #km) as usize](#args))
            } else {
                quote! {
                    if let Some(x) = #table[((w >> #lo_l) & #km) as usize](#args) {
                        return Some(x);
                    }
                    #(#fb)*
                    None
                }
            };
            out.push(quote! {
                #[doc = #td]
                static #table: [#arm_type; #size] = dense_arms(&[#(#entries),*], #none_fn);
                #(#arm_fns)*
                #[doc = #doc]
                #fam_doc
                pub fn #fname(#params) -> #ret {
                    #body
                }
            });
        }
    }
    Ok(quote! {
        /// Tries the candidates of one value of a family's dispatch bits.
        type DecodeArm = fn(u128, u32) -> Option<(Op, Common)>;
        /// The arm of dispatch values no form has.
        fn decode_none(_: u128, _: u32) -> Option<(Op, Common)> {
            None
        }
        /// [`DecodeArm`] of the printers.
        type PrintArm = fn(u128, u32, u64, u32, &mut LineBuf) -> Option<()>;
        /// [`decode_none`] of the printers.
        fn print_none(_: u128, _: u32, _: u64, _: u32, _: &mut LineBuf) -> Option<()> {
            None
        }
        #(#out)*
    })
}

/// The runtime's `slot::*` constant of a source slot kind.
fn slot_const(k: Option<SlotKindClass>) -> TokenStream {
    let c = match k {
        None => "NONE",
        Some(SlotKindClass::Gpr) => "GPR",
        Some(SlotKindClass::Ugpr) => "UGPR",
        Some(SlotKindClass::Imm) => "IMM",
        Some(SlotKindClass::Cbuf) => "CBUF",
        Some(SlotKindClass::Pred) => "PRED",
        Some(SlotKindClass::Upred) => "UPRED",
    };
    let c = ident(c);
    quote!(slot::#c)
}

/// Tables of every form (fixed bits, raw bits, SMs) for tests and tools:
/// one builder chain per form (`FormInfo::new(..).fixed(..)`).
pub fn form_tables(spec: &Spec) -> TokenStream {
    let mut rows = Vec::new();
    for op in &spec.ops {
        for f in forms(op) {
            let (mask, value) = f.form.fixed();
            let (m, v) = (u128_lit(mask), u128_lit(value));
            let u = u128_lit(f.form.unknown_mask());
            let canon = u128_lit(f.form.canonical_raw());
            let name = &op.name;
            let form = &f.form.name;
            let fam = enum_variant(&spec.families[f.enc.family].name);
            let sms = f.form.sms.iter().map(|x| Literal::u32_unsuffixed(*x));
            let id = Literal::u8_unsuffixed(f.id as u8);
            let kinds = f.form.src_kinds.iter().map(|k| slot_const(*k));
            let raw = (f.form.unknown_mask() != 0 || f.form.canonical_raw() != 0)
                .then(|| quote!(.raw(#u, #canon)));
            let hidden =
                crate::hidden::hidden_rows(spec, op, f.form).map(|rows| quote!(.hidden(#rows)));
            rows.push(quote! {
                FormInfo::new(#name, #form, #id, Family::#fam, &[#(#sms),*])
                    .fixed(#m, #v)
                    #raw
                    #hidden
                    .with_srcs(&[#(#kinds),*])
            });
        }
    }
    quote! {
        /// Every encoding form of every op.
        pub const FORMS: &[FormInfo] = &[#(#rows),*];
    }
}
