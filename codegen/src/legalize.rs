//! Legalizers: each op's `Legalize` impl, the data the runtime's search
//! (`nak/src/runtime/legalize_support.rs`) needs beyond its sources by
//! index (`op_fields!`, from the field lists): commutative
//! swaps (with their comparison flip or predicate negation) and the
//! wider/narrower-immediate op. The search tries rewrites in order of cost
//! until the op's own encoder accepts one, so legalize and encode share one
//! set of rules by construction.

use crate::Error;
use crate::names::{field, op_type, op_variant};
use crate::shared::{dst_default, mod_default, src_default};
use isa_spec::model::*;
use proc_macro2::TokenStream;
use quote::quote;

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
        fn #fname(&self) -> Option<Op> {
            #(#checks)*
            Some(Op::#wv(#wt { #(#inits),* }))
        }
    }
}

/// The op's `Legalize` impl: its sources by index, its carry use, and the
/// rewrites its spec allows (swaps, the wide and the narrow op). The search
/// itself is the runtime's (`nak/src/runtime/legalize_support.rs`).
pub fn op_legalize(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    let ty = op_type(&op.name);
    let fold_imms = op.srcs.iter().map(|s| {
        let f = field(&s.name);
        let t = crate::shared::value_type(s.ty);
        if s.type_by.is_empty() {
            quote!(fold_imm_mods(&mut self.#f, #t);)
        } else {
            let view = crate::names::ident(&format!("{}_view", s.name));
            // Without a part selector there is no part to fold.
            let sel = match s.part {
                Some(p) => {
                    let p = field(&op.modifiers[p].name);
                    quote!(&mut self.#p)
                }
                None => quote!(&mut 0u32),
            };
            quote!({ let view = self.#view(); fold_imm_mods_as(&mut self.#f, view, #t, #sel); })
        }
    });
    // Sources whose type a modifier chooses fold into their part, and
    // name their view (a computed modifier acts on it).
    let views = op
        .srcs
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.type_by.is_empty())
        .map(|(i, s)| {
            let view = crate::names::ident(&format!("{}_view", s.name));
            quote!(#i => self.#view(),)
        });
    let fold_imms_fn = if op.srcs.iter().any(|s| !s.type_by.is_empty()) {
        quote! {
            fn fold_imms(&mut self) { #(#fold_imms)* }
            fn src_view(&self, i: usize) -> Option<View> {
                match i { #(#views)* _ => None }
            }
        }
    } else {
        quote!()
    };
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
    let swapped = if op.legalize.commutative.is_empty() {
        quote!()
    } else {
        quote! {
            fn swapped(&self) -> Vec<Self> {
                let mut v = Vec::new();
                #(#swaps)*
                v
            }
        }
    };
    let wide_fn = op
        .legalize
        .wide_imm
        .map(|w| to_wide(spec, op, &spec.ops[w], "to_wide"));
    // The op this one is the wide-immediate form of.
    let narrow = spec.ops.iter().find(|o| {
        o.legalize
            .wide_imm
            .is_some_and(|w| spec.ops[w].name == op.name)
    });
    let narrow_fn = narrow.map(|n| to_wide(spec, op, n, "to_narrow"));
    let runs_fn = runs_fn(op);
    let cc_use = crate::fold::op_cc_use(spec, op)?;
    let impl_doc = crate::shared::spec_doc(spec, &op.loc);
    Ok(quote! {
        #impl_doc
        impl Legalize for #ty {
            #cc_use
            #fold_imms_fn
            #swapped
            #wide_fn
            #narrow_fn
            #runs_fn
        }
    })
}

/// `fn runs`: the sources some form reads from the register n above
/// another source's (`tied = { c = "b+1" }`), which the legalizer copies
/// together.
fn runs_fn(op: &Op) -> TokenStream {
    let mut runs: Vec<(usize, usize, u8)> = Vec::new();
    for f in op.encodings.iter().flat_map(|e| &e.forms) {
        for t in f.tied_src.iter().filter(|t| t.n > 0) {
            if !runs.contains(&(t.src, t.base, t.n)) {
                runs.push((t.src, t.base, t.n));
            }
        }
    }
    if runs.is_empty() {
        return quote!();
    }
    let runs = runs
        .iter()
        .map(|&(src, base, n)| quote!(Run { src: #src, base: #base, n: #n }));
    quote! {
        fn runs(&self) -> &'static [Run] {
            &[#(#runs),*]
        }
    }
}
