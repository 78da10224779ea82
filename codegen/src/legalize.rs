//! Legalizers: rewrites tried in order of cost until the op's own encoder
//! accepts it, so legalize and encode share one set of rules by construction.
//!
//! Order: as is; immediates with their modifiers folded in; each commutative
//! swap (with its comparison flip or predicate negation); the wider-immediate
//! op; then copying the fewest sources to registers, with and without swaps.

use crate::Error;
use crate::names::{field, op_type, op_variant};
use crate::ops::{dst_default, mod_default, src_default};
use isa_spec::model::*;
use proc_macro2::TokenStream;
use quote::quote;

fn value_type(t: ValueType) -> TokenStream {
    match t {
        ValueType::U32 => quote!(ValueType::U32),
        ValueType::I32 => quote!(ValueType::I32),
        ValueType::B32 => quote!(ValueType::B32),
        ValueType::F32 => quote!(ValueType::F32),
        ValueType::U64 => quote!(ValueType::U64),
        ValueType::I64 => quote!(ValueType::I64),
        ValueType::F64 => quote!(ValueType::F64),
        ValueType::Pred => quote!(ValueType::Pred),
    }
}

/// `fn to_wide(&self) -> Option<Wide>`: same-named fields carried over; a
/// field the wide op lacks must hold its default.
fn to_wide(spec: &Spec, op: &Op, wide: &Op, fname: &str) -> TokenStream {
    let fname = crate::names::ident(fname);
    let wt = op_type(&wide.name);
    let wv = op_variant(&wide.name);
    let mut checks = Vec::new();
    let mut inits = Vec::new();
    for d in &op.dsts {
        if wide.dst(&d.name).is_none() {
            let f = field(&d.name);
            let def = dst_default(d).unwrap_or(quote!(Reg::RZ));
            checks.push(quote!(if self.#f != #def { return None; }));
        }
    }
    for s in &op.srcs {
        if wide.src(&s.name).is_none() {
            let f = field(&s.name);
            let def = src_default(s).unwrap_or(quote!(Src::RZ));
            checks.push(quote!(if self.#f != #def { return None; }));
        }
    }
    for m in &op.modifiers {
        if wide.modifier(&m.name).is_none() {
            let f = field(&m.name);
            let def = mod_default(spec, m);
            checks.push(quote!(if self.#f != #def { return None; }));
        }
    }
    for d in &wide.dsts {
        let f = field(&d.name);
        let v = if op.dst(&d.name).is_some() {
            quote!(self.#f)
        } else {
            dst_default(d).unwrap_or(quote!(Reg::RZ))
        };
        inits.push(quote!(#f: #v));
    }
    for s in &wide.srcs {
        let f = field(&s.name);
        let v = if op.src(&s.name).is_some() {
            quote!(self.#f)
        } else {
            src_default(s).unwrap_or(quote!(Src::RZ))
        };
        inits.push(quote!(#f: #v));
    }
    for m in &wide.modifiers {
        let f = field(&m.name);
        let v = if op.modifier(&m.name).is_some() {
            quote!(self.#f)
        } else {
            mod_default(spec, m)
        };
        inits.push(quote!(#f: #v));
    }
    quote! {
        /// The same operation as the op with a wider immediate field, if
        /// every field it lacks holds its default.
        pub fn #fname(&self) -> Option<Op> {
            #(#checks)*
            Some(Op::#wv(#wt { #(#inits),* }))
        }
    }
}

pub fn op_legalize(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    let nsrc = op.srcs.len();
    let tys: Vec<TokenStream> = op.srcs.iter().map(|s| value_type(s.ty)).collect();
    // Integer sources that take a negation (see the strip step below).
    let int_neg: Vec<bool> = op
        .srcs
        .iter()
        .map(|s| s.mods.neg && !s.ty.is_float() && !s.ty.is_pred())
        .collect();
    let fold_imms = op.srcs.iter().map(|s| {
        let f = field(&s.name);
        let t = value_type(s.ty);
        if s.type_by.is_empty() {
            quote!(fold_imm_mods(&mut t.#f, #t);)
        } else {
            let view = crate::names::ident(&format!("{}_view", s.name));
            // Without a part selector there is no part to fold.
            let sel = match s.part {
                Some(p) => {
                    let p = field(&op.modifiers[p].name);
                    quote!(&mut t.#p)
                }
                None => quote!(&mut 0u32),
            };
            quote!({ let view = t.#view(); fold_imm_mods_as(&mut t.#f, view, #t, #sel); })
        }
    });
    let swaps = op.legalize.commutative.iter().map(|&(x, y)| {
        let fx = field(&op.srcs[x].name);
        let fy = field(&op.srcs[y].name);
        let flip = op.legalize.swap_flips.map(|m| {
            let f = field(&op.modifiers[m].name);
            quote!(t.#f = t.#f.flip();)
        });
        let negate = op.legalize.swap_negates.map(|s| {
            let f = field(&op.srcs[s].name);
            quote!(t.#f.not = !t.#f.not;)
        });
        quote!({ let mut t = *self; std::mem::swap(&mut t.#fx, &mut t.#fy); #flip #negate v.push(t); })
    });
    let (wide_fn, wide_try) = match op.legalize.wide_imm {
        Some(w) => {
            let f = to_wide(spec, op, &spec.ops[w], "to_wide");
            let t = quote! {
                for cand in &cands {
                    if let Some(w) = cand.to_wide() {
                        if w.try_encode(sm, &c).is_some() { return Ok(Some(w)); }
                    }
                }
            };
            (f, t)
        }
        None => (quote!(), quote!()),
    };
    // The op this one is the wide-immediate form of: fall back to it when
    // an operand does not fit the wide form (a register where only an
    // immediate goes).
    let narrow = spec.ops.iter().find(|o| {
        o.legalize
            .wide_imm
            .is_some_and(|w| spec.ops[w].name == op.name)
    });
    let (narrow_fn, narrow_try) = match narrow {
        Some(n) => (
            to_wide(spec, op, n, "to_narrow"),
            quote! {
                if let Some(mut n) = self.to_narrow() {
                    n.legalize(sm, cx)?;
                    return Ok(Some(n));
                }
            },
        ),
        None => (quote!(), quote!()),
    };
    Ok(quote! {
        #wide_fn
        #narrow_fn

        /// Rewrite until the op encodes on `sm`. Copies go through `cx`; a
        /// returned op replaces this one (a wider-immediate form).
        #[allow(unused_mut, unused_variables, clippy::needless_range_loop)]
        pub fn legalize(&mut self, sm: u32, cx: &mut dyn LegalizeCx) -> Result<Option<Op>, LegalizeError> {
            let c = Common::default();
            if self.try_encode(sm, &c).is_some() { return Ok(None); }
            if !Self::SMS.contains(&sm) {
                return Err(LegalizeError::new(Self::NAME, format!("no encoding on SM{sm}")));
            }
            let mut t = *self;
            // Folding a negation into an immediate keeps the sum but not the
        // carry of Maxwell's adder (a + ~b + 1 vs a + (-b)): not with CC.
        let (reads_cc, writes_cc) = self.cc_use(sm);
        if !(reads_cc || writes_cc) { #(#fold_imms)* }
            let mut cands: Vec<Self> = vec![t];
            cands.extend(t.swapped());
            for cand in &cands {
                if cand.try_encode(sm, &c).is_some() { *self = *cand; return Ok(None); }
            }
            #wide_try
            const TYS: [ValueType; #nsrc] = [#(#tys),*];
            const INT_NEG: [bool; #nsrc] = [#(#int_neg),*];
            let writes_pred = |o: &Self| o.dsts().iter().any(|d| matches!(d.file, RegFile::Pred | RegFile::UPred) && **d != Reg::PT);
            let n = #nsrc;
            // Copy the fewest sources to registers: first keeping their
            // modifiers on the op, then computing them into the copy.
            // Copies go to GPRs/predicates, or failing that (per source, the
            // sources in `umask`) to uniform registers/predicates, for
            // sources only a UGPR or UP form takes.
            for umask in 0u32..(1u32 << n) {
            for k in 1..=n {
                for strip in [false, true] {
                    for cand in &cands {
                        for mask in 0u32..(1u32 << n) {
                            if mask.count_ones() as usize != k || umask & !mask != 0 { continue; }
                            let mut trial = *cand;
                            let mut usable = true;
                            let mut any_stripped = false;
                            for i in 0..n {
                                if mask >> i & 1 == 0 { continue; }
                                let s = *trial.srcs()[i];
                                let st = strip && s.has_mods();
                                // A computed negation keeps the value but not
                                // the carry of the op's adder (a + ~0 + 1
                                // carries, a + 0 does not): not while the op
                                // writes a predicate (a carry).
                                if st && s.neg && INT_NEG[i] && writes_pred(cand) { usable = false; }
                                any_stripped |= st;
                                let s = if st { Src { neg: false, abs: false, not: false, ..s } } else { s };
                                match placeholder_in(&s, copy_file(TYS[i], umask >> i & 1 == 1)) {
                                    Some(p) => *trial.srcs_mut()[i] = p,
                                    None if st => *trial.srcs_mut()[i] = Src { kind: SrcKind::Reg(Reg { file: copy_file(TYS[i], umask >> i & 1 == 1), idx: 0 }), ..s },
                                    None => usable = false,
                                }
                            }
                            if strip && !any_stripped { continue; }
                            if !usable || trial.try_encode(sm, &c).is_none() { continue; }
                            let mut out = *cand;
                            for i in 0..n {
                                if mask >> i & 1 == 0 { continue; }
                                let s = *out.srcs()[i];
                                let file = copy_file(TYS[i], umask >> i & 1 == 1);
                                let new = if strip && s.has_mods() {
                                    Src::reg(cx.materialize(s, TYS[i], file)?)
                                } else {
                                    Src { kind: SrcKind::Reg(cx.copy_to_reg(s, TYS[i], file)?), ..s }
                                };
                                if let Some(m) = out.srcs_mut().into_iter().nth(i) {
                                    *m = new;
                                }
                            }
                            if out.try_encode(sm, &c).is_some() { *self = out; return Ok(None); }
                        }
                    }
                }
            }
            }
            #narrow_try
            Err(LegalizeError::new(Self::NAME, format!("no rewrite makes it encodable on SM{sm}")))
        }

        /// Every variant of the op with one commutative pair swapped.
        #[allow(unused_mut)]
        fn swapped(&self) -> Vec<Self> {
            let mut v = Vec::new();
            #(#swaps)*
            v
        }
    })
}
