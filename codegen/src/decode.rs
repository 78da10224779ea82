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

/// The zero index (RZ, URZ, PT, UPT) `kind` has on every SM of `form`,
/// when they all agree: the decoder then compares a field against that
/// constant (which folds away for a full-width field) instead of looking
/// the SM up per register.
fn form_zero(spec: &Spec, form: &Form, kind: SlotKindClass) -> Option<u32> {
    let mut zeros = form.sms.iter().map(|&sm| {
        let fam = spec.families.iter().find(|f| f.sms.contains(&sm))?;
        fam.zero_index(kind, sm)
    });
    let first = zeros.next()??;
    zeros.all(|z| z == Some(first)).then_some(first)
}

/// The register of `kind` a field names: `reg_below(w, file, lo, width,
/// zero)?` when the form's SMs agree on the file's zero index, else
/// `reg_at(w, file, lo, width, sm)?`, which looks it up.
fn reg_of(spec: &Spec, form: &Form, kind: SlotKindClass, bits: &Bits) -> TokenStream {
    let file = file_tokens(kind);
    let zero = form_zero(spec, form, kind).map(|z| Literal::u8_unsuffixed(z as u8));
    match (bits.ranges.as_slice(), zero) {
        ([(l, h)], Some(z)) => {
            let (lo, wdt) = (Literal::u32_unsuffixed(*l), Literal::u32_unsuffixed(h - l));
            quote!(reg_below(#file, bits(w, #lo, #wdt), #z)?)
        }
        ([(l, h)], None) => {
            let (lo, wdt) = (Literal::u32_unsuffixed(*l), Literal::u32_unsuffixed(h - l));
            quote!(reg_at(w, #file, #lo, #wdt, sm)?)
        }
        (_, Some(z)) => {
            let g = get(bits);
            quote!(reg_below(#file, #g, #z)?)
        }
        (_, None) => {
            let g = get(bits);
            quote!(reg_from_index(#file, #g, sm)?)
        }
    }
}

/// As [`reg_of`] for a field holding the index complemented (`pd.inv`).
fn inv_reg_of(spec: &Spec, form: &Form, kind: SlotKindClass, bits: &Bits) -> TokenStream {
    let file = file_tokens(kind);
    let m = Literal::u128_unsuffixed((1u128 << bits.width()) - 1);
    let g = get(bits);
    match form_zero(spec, form, kind).map(|z| Literal::u8_unsuffixed(z as u8)) {
        Some(z) => quote!(reg_below(#file, (#g) ^ #m, #z)?),
        None => quote!(reg_from_index(#file, (#g) ^ #m, sm)?),
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
fn decode_dsts(spec: &Spec, op: &Op, form: &Form) -> Vec<TokenStream> {
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
                    let FieldTarget::Dst { kind, inv, .. } = f.target else {
                        unreachable!()
                    };
                    let r = if inv {
                        inv_reg_of(spec, form, kind, &f.bits)
                    } else {
                        reg_of(spec, form, kind, &f.bits)
                    };
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
fn decode_src(spec: &Spec, op: &Op, form: &Form, i: usize) -> Option<TokenStream> {
    let k = form.src_kinds[i]?;
    // A source tied to another is that source's value, or the register n
    // above its register (none at or past RZ: nvdisasm prints `???255`).
    if let Some(t) = form.tied_src.iter().find(|t| t.src == i) {
        if t.n == 0 {
            return decode_src(spec, op, form, t.base);
        }
        let f = find(
            form,
            |x| matches!(x, FieldTarget::SrcReg { idx, .. } if *idx == t.base),
        )
        .expect("reg field");
        let g = get(&f.bits);
        let n = Literal::u32_unsuffixed(u32::from(t.n));
        return Some(quote!({
            let r = (#g) as u32 + #n;
            if r >= 255 {
                return None;
            }
            Src::reg(Reg::gpr(r as u8))
        }));
    }
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
            if packing.halves {
                quote!(Src::imm(imm_halves_from_field(#g, #sh)))
            } else {
                quote!(Src::imm(imm_from_field(#g, #wdt, #sh, #sx)))
            }
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
            let r = match f.target {
                FieldTarget::SrcReg { inv: true, .. } => inv_reg_of(spec, form, k, &f.bits),
                _ => reg_of(spec, form, k, &f.bits),
            };
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
fn decode_srcs(spec: &Spec, op: &Op, form: &Form) -> Vec<TokenStream> {
    op.srcs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let fld = field(&s.name);
            let Some(base) = decode_src(spec, op, form, i) else {
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
        (ModType::Int { signed: false, .. }, FieldTarget::Modifier { scale, .. })
            if *scale != 1 =>
        {
            let sc = *scale;
            quote!((#g as u32) * #sc)
        }
        (ModType::Int { signed: false, .. }, _) => quote!(#g as u32),
        (ModType::Int { signed: true, .. }, FieldTarget::Modifier { scale, .. }) if *scale != 1 => {
            let sc = *scale as i64;
            quote!((sext_field(#g, #wdt) * #sc) as i32)
        }
        (ModType::Int { signed: true, .. }, _) => quote!(sext_field(#g, #wdt) as i32),
        (ModType::Rel | ModType::Abs { signed: true }, FieldTarget::Modifier { scale, .. }) => {
            let sc = *scale as i64;
            quote!(sext_field(#g, #wdt).wrapping_mul(#sc))
        }
        (ModType::Rel | ModType::Abs { signed: true }, _) => quote!(sext_field(#g, #wdt)),
        (ModType::Abs { signed: false }, FieldTarget::Modifier { scale, .. }) => {
            let sc = *scale as u64;
            quote!((#g as u64).wrapping_mul(#sc))
        }
        (ModType::Abs { signed: false }, _) => quote!(#g as u64),
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
        find(form, |t| {
            matches!(t, FieldTarget::GuardPred | FieldTarget::GuardUPred)
        }),
        find(form, |t| *t == FieldTarget::GuardNot),
    ) {
        (Some(p), n) => {
            let gp = get(&p.bits);
            let gn = n.map_or(quote!(false), |n| flag_of(&n.bits));
            if p.target == FieldTarget::GuardUPred {
                quote!(uguard_of(#gp, #gn))
            } else {
                quote!(guard_of(#gp, #gn))
            }
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

/// A form's `let` statements, one per operand and modifier.
fn form_lets(spec: &Spec, op: &Op, form: &Form) -> Vec<TokenStream> {
    decode_dsts(spec, op, form)
        .into_iter()
        .chain(decode_srcs(spec, op, form))
        .chain(decode_mods(spec, op, form))
        .collect()
}

/// `let x = e;` or `let x: T = e;` as `o.x = e;`.
fn let_to_set(stmt: &TokenStream) -> TokenStream {
    let t: Vec<proc_macro2::TokenTree> = stmt.clone().into_iter().collect();
    let name = t[1].clone();
    let eq = t
        .iter()
        .position(|x| matches!(x, proc_macro2::TokenTree::Punct(p) if p.as_char() == '='))
        .expect("a let statement has `=`");
    let rest: TokenStream = t[eq + 1..].iter().cloned().collect();
    quote!(o.#name = #rest)
}

/// The name a `let` statement binds (its second token).
fn bound_name(stmt: &TokenStream) -> TokenStream {
    let t: Vec<_> = stmt.clone().into_iter().collect();
    t.get(1).cloned().into_iter().collect()
}

fn form_decode_fn(
    spec: &Spec,
    op: &Op,
    f: &crate::encode::FormRef<'_>,
    lets: Vec<TokenStream>,
    shared: Option<&proc_macro2::Ident>,
) -> TokenStream {
    let (fid, form) = (f.id, f.form);
    let parts = form_fn("parts", fid);
    // With a shared reader, the form's own fields set on what it returns.
    let (lets, build) = match shared {
        Some(_) => {
            let sets: Vec<TokenStream> = lets.iter().map(let_to_set).collect();
            (sets, quote!())
        }
        None => {
            let inits = op
                .dsts
                .iter()
                .map(|d| &d.name)
                .chain(op.srcs.iter().map(|s| &s.name))
                .chain(op.modifiers.iter().map(|m| &m.name))
                .map(|n| field(n));
            (lets, quote!(let o = Self { #(#inits),* };))
        }
    };
    let start = shared.map(|h| quote!(let mut o = Self::#h(w, sm)?;));
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
            #start
            #(#lets)*
            #build
            #parts_check
            #legal
            #common
        }
    }
}

/// The field readers of one encoding's forms: the operands and modifiers
/// every form reads alike move to one helper `fields_eN` that returns
/// them, when that saves code.
fn encoding_decode_fns(
    spec: &Spec,
    op: &Op,
    enc_id: usize,
    fs: &[&crate::encode::FormRef<'_>],
) -> Vec<TokenStream> {
    let stmts: Vec<Vec<TokenStream>> = fs.iter().map(|f| form_lets(spec, op, f.form)).collect();
    let refs: Vec<&[TokenStream]> = stmts.iter().map(|v| v.as_slice()).collect();
    let shared = crate::shared::common_statements(&refs);
    if fs.len() < 2 || shared.len() < 3 {
        return fs
            .iter()
            .zip(stmts)
            .map(|(f, l)| form_decode_fn(spec, op, f, l, None))
            .collect();
    }
    let helper = ident(&format!("fields_e{enc_id}"));
    let moved: Vec<&TokenStream> = stmts[0]
        .iter()
        .filter(|s| shared.contains(&s.to_string()))
        .collect();
    let names: Vec<String> = moved.iter().map(|s| bound_name(s).to_string()).collect();
    let inits = placeholder_inits(spec, op, &names);
    let doc = format!(
        " Fields all forms of {} read alike; each sets the others.",
        crate::shared::spec_line(spec, &fs[0].enc.loc)
    );
    let mut out = vec![quote! {
        #[doc = #doc]
        #[inline(always)]
        fn #helper(w: u128, sm: u32) -> Option<Self> {
            #(#moved)*
            Some(Self { #(#inits),* })
        }
    }];
    for (f, l) in fs.iter().zip(stmts) {
        let rest = l
            .into_iter()
            .filter(|s| !shared.contains(&s.to_string()))
            .collect();
        out.push(form_decode_fn(spec, op, f, rest, Some(&helper)));
    }
    out
}

/// A struct literal's fields: the bound name for those in `names`, a
/// placeholder (the default, or RZ) for the others.
fn placeholder_inits(spec: &Spec, op: &Op, names: &[String]) -> Vec<TokenStream> {
    let bound = |n: &str| names.iter().any(|x| x == n);
    let mut out = Vec::new();
    for d in &op.dsts {
        let f = field(&d.name);
        let v = dst_default(d).unwrap_or(quote!(Reg::RZ));
        out.push(if bound(&f.to_string()) {
            quote!(#f)
        } else {
            quote!(#f: #v)
        });
    }
    for s in &op.srcs {
        let f = field(&s.name);
        let v = src_default(s).unwrap_or(quote!(Src::RZ));
        out.push(if bound(&f.to_string()) {
            quote!(#f)
        } else {
            quote!(#f: #v)
        });
    }
    for m in &op.modifiers {
        let f = field(&m.name);
        let v = mod_default(spec, m);
        out.push(if bound(&f.to_string()) {
            quote!(#f)
        } else {
            quote!(#f: #v)
        });
    }
    out
}

/// The op's per-form field readers (`parts_fN`, in its inherent impl, `.0`)
/// and its `Forms` impl (`.1`): the match from a form number to its
/// reader, and its printer. The table entries that call them
/// (`decode_form`, `print_form`) are the runtime's (`nak/src/runtime/decode.rs`).
pub fn op_decode(spec: &Spec, op: &Op) -> Result<(TokenStream, TokenStream), Error> {
    let fs = forms(op);
    let mut fns = Vec::new();
    for (e, enc) in op.encodings.iter().enumerate() {
        let group: Vec<_> = fs.iter().filter(|f| std::ptr::eq(f.enc, enc)).collect();
        if !group.is_empty() {
            fns.extend(encoding_decode_fns(spec, op, e, &group));
        }
    }
    let arms = fs.iter().map(|f| {
        let id = Literal::u8_unsuffixed(f.id as u8);
        let parts = form_fn("parts", f.id);
        quote!(#id: #parts)
    });
    // The `Forms` impl's field reader; its printer is added by the caller.
    let parts = quote!(parts_by_form!(#(#arms),*););
    Ok((quote!(#(#fns)*), parts))
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
    /// The family function's parameters (the public signature), and how
    /// its body makes the arms' arguments from them.
    outer_params: TokenStream,
    prelude: TokenStream,
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
        quote!(try_form!(#cond => #call);)
    }
    /// The last candidate: its answer is the answer.
    fn last(&self, c: &Candidate) -> TokenStream {
        let (cond, call) = (&c.cond, self.call(c));
        quote!(try_form!(#cond => return #call);)
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
            outer_params: quote!(w: u128, sm: u32),
            prelude: quote!(),
        },
        Dispatch {
            prefix: "print",
            params: quote!(w: u128, sm: u32, at: At, out: &mut LineBuf),
            args: quote!(w, sm, at, out),
            ret: quote!(Option<()>),
            doc: "Decode a {} instruction word at byte address `addr` and print \
                  its text into `out` (`ctrl`: the scheduling bits from its \
                  bundle, where the family has bundles); `None`, with nothing \
                  printed, for a word no op of the spec matches.",
            outer_params: quote!(w: u128, sm: u32, addr: u64, ctrl: u32, out: &mut LineBuf),
            prelude: quote!(let at = At { addr, ctrl };),
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
                // A form with bits fixed on some of its SMs only is one
                // candidate per group of SMs (`Form::dispatch_groups`).
                for (mask, value, sms) in f.form.dispatch_groups() {
                    let pat = sm_pattern(&sms);
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
            let outer_params = &d.outer_params;
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
            let prelude = &d.prelude;
            let body = if tail_ok {
                quote!(#prelude #table[((w >> #lo_l) & #km) as usize](#args))
            } else {
                quote! {
                    #prelude
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
                pub fn #fname(#outer_params) -> #ret {
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
        type PrintArm = fn(u128, u32, At, &mut LineBuf) -> Option<()>;
        /// [`decode_none`] of the printers.
        fn print_none(_: u128, _: u32, _: At, _: &mut LineBuf) -> Option<()> {
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
        Some(SlotKindClass::Bar) => "BAR",
    };
    let c = ident(c);
    quote!(#c)
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
            let hidden = crate::hidden::hidden_rows(spec, op, f.form).map(|rows| quote!(; #rows));
            // Sources tied to another source (one register field for both).
            let same: Vec<_> = f.form.tied_src.iter().filter(|t| t.n == 0).collect();
            let tied = (!same.is_empty()).then(|| {
                let pairs = same.iter().map(|t| {
                    let (a, b) = (t.src, t.base);
                    let (a, b) = (
                        Literal::u8_unsuffixed(a as u8),
                        Literal::u8_unsuffixed(b as u8),
                    );
                    quote!((#a, #b))
                });
                quote!(.with_tied(&[#(#pairs),*]))
            });
            rows.push(quote! {
                form_info!(#name, #form, #id, #fam, [#(#sms),*], #m, #v, #u, #canon, [#(#kinds),*] #hidden) #tied
            });
        }
    }
    quote! {
        /// Every encoding form of every op.
        pub const FORMS: &[FormInfo] = &[#(#rows),*];
    }
}
