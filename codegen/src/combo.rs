//! The spec's `legal` and `traps` products as code: one boolean expression
//! per form over the modifier values. The decoder matches only legal
//! combinations; the encoder refuses the others and every trap (the
//! legalizer and the assembler go through the encoder, the sampler through
//! both).

use crate::encode::{FormRef, sm_mask};
use crate::names::{enum_type, enum_variant, field};
use isa_spec::model::*;
use proc_macro2::TokenStream;
use quote::quote;

/// Whether the op has any combination rule.
pub(crate) fn has_rules(op: &Op) -> bool {
    !op.legal.is_empty() || !op.traps.is_empty()
}

/// `rule` holds for the modifier values `get(m)` on `sm` (form `f`).
fn product(
    spec: &Spec,
    op: &Op,
    f: &FormRef,
    rule: &Combo,
    get: &dyn Fn(usize) -> TokenStream,
) -> TokenStream {
    let mut conj = Vec::new();
    if !f.form.sms.iter().all(|s| rule.sms.contains(s)) {
        let mask = sm_mask(spec, &rule.sms);
        conj.push(quote!(sm_bit(sm) & #mask != 0));
    }
    for (m, vals) in &rule.mods {
        let v = get(*m);
        conj.push(match op.modifiers[*m].ty {
            ModType::Enum(e) => {
                let en = &spec.enums[e];
                let t = enum_type(&en.name);
                let pats = vals.iter().map(|&i| {
                    let var = enum_variant(&en.values[i as usize].name);
                    quote!(#t::#var)
                });
                if vals.is_empty() {
                    quote!(false)
                } else {
                    quote!(matches!(#v, #(#pats)|*))
                }
            }
            _ => match (vals.contains(&0), vals.contains(&1)) {
                (true, true) => continue,
                (false, true) => quote!(#v),
                (true, false) => quote!(!#v),
                (false, false) => quote!(false),
            },
        });
    }
    if conj.is_empty() {
        quote!(true)
    } else {
        quote!((#(#conj)&&*))
    }
}

/// The `legal` test of form `f` over `get(m)`, or `None` when the op has
/// no `legal` products (every combination exists).
fn legal_expr(
    spec: &Spec,
    op: &Op,
    f: &FormRef,
    get: &dyn Fn(usize) -> TokenStream,
) -> Option<TokenStream> {
    if op.legal.is_empty() {
        return None;
    }
    let alts: Vec<TokenStream> = op
        .legal
        .iter()
        .filter(|r| r.covers(&f.form.name, &f.form.sms))
        .map(|r| product(spec, op, f, r, get))
        .collect();
    Some(if alts.is_empty() {
        quote!(false)
    } else {
        quote!((#(#alts)||*))
    })
}

/// The modifier values of an op struct (`self.x`).
fn self_get(op: &Op) -> impl Fn(usize) -> TokenStream + '_ {
    move |m| {
        let f = field(&op.modifiers[m].name);
        quote!(self.#f)
    }
}

/// The `legal` test of every form as methods, one per distinct test
/// (`legal_fN(&self, sm) -> bool`): the methods, and per form the name of
/// the one it uses (`None`: the op has no `legal` products). The decoder
/// and the encoder's combination check both call them.
pub(crate) fn legal_fns(
    spec: &Spec,
    op: &Op,
    fs: &[FormRef],
) -> (Vec<TokenStream>, Vec<Option<proc_macro2::Ident>>) {
    let get = self_get(op);
    let mut seen: Vec<(String, proc_macro2::Ident)> = Vec::new();
    let mut fns = Vec::new();
    let mut names = Vec::new();
    for f in fs {
        let Some(e) = legal_expr(spec, op, f, &get) else {
            names.push(None);
            continue;
        };
        let key = e.to_string();
        if let Some((_, n)) = seen.iter().find(|(k, _)| *k == key) {
            names.push(Some(n.clone()));
            continue;
        }
        let name = crate::names::ident(&format!("legal_f{}", f.id));
        fns.push(quote! {
            /// Whether the form's modifier values exist on `sm` (the
            /// spec's `legal` products).
            #[inline(always)]
            pub fn #name(&self, sm: u32) -> bool { #e }
        });
        seen.push((key, name.clone()));
        names.push(Some(name));
    }
    (fns, names)
}

/// The combination checks of every form, one function per distinct check
/// (forms whose `legal` and `traps` products read alike share one): the
/// functions, and per form the name of the one it calls.
pub(crate) fn combo_check_fns(
    spec: &Spec,
    op: &Op,
    fs: &[FormRef],
) -> (Vec<TokenStream>, Vec<proc_macro2::Ident>) {
    let (_, legal) = legal_fns(spec, op, fs);
    let mut bodies: Vec<(String, proc_macro2::Ident)> = Vec::new();
    let mut fns = Vec::new();
    let mut names = Vec::new();
    for f in fs {
        let body = combo_checks(spec, op, f, legal[f.id].as_ref());
        let key = body.to_string();
        if let Some((_, n)) = bodies.iter().find(|(k, _)| *k == key) {
            names.push(n.clone());
            continue;
        }
        let name = crate::names::ident(&format!("combo_f{}", f.id));
        fns.push(quote! {
            /// Whether the form's modifier combination exists on `sm` and
            /// is not a trap (`legal` and `traps` in the spec).
            #[inline(always)]
            fn #name(&self, sm: u32) -> Result<(), Refused> {
                #body
                Ok(())
            }
        });
        bodies.push((key, name.clone()));
        names.push(name);
    }
    (fns, names)
}

/// The checks of form `f`: an error when its modifier values do not exist
/// on `sm` (naming them) or a trap covers them (giving its evidence).
fn combo_checks(
    spec: &Spec,
    op: &Op,
    f: &FormRef,
    legal: Option<&proc_macro2::Ident>,
) -> TokenStream {
    let get = self_get(op);
    let mut checks = Vec::new();
    if let Some(legal) = legal {
        let named: Vec<usize> = {
            let mut v: Vec<usize> = op
                .legal
                .iter()
                .flat_map(|r| r.mods.iter().map(|m| m.0))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let fmt = named
            .iter()
            .map(|&m| format!("{}={{}}", op.modifiers[m].name))
            .collect::<Vec<_>>()
            .join(" ");
        let fmt = format!(
            "{fmt} is not a combination that exists on SM{{}} (the spec's `legal` products)"
        );
        let args = named.iter().map(|&m| {
            let v = get(m);
            match op.modifiers[m].ty {
                ModType::Enum(_) => quote!(#v.name()),
                _ => quote!(#v),
            }
        });
        checks.push(
            quote!(if !self.#legal(sm) && !any_combo() { return Err(refuse(Self::NAME, format_args!(#fmt, #(#args,)* sm))); }),
        );
    }
    for t in op
        .traps
        .iter()
        .filter(|r| r.covers(&f.form.name, &f.form.sms))
    {
        let hit = product(spec, op, f, t, &get);
        let msg = format!(
            "{} on SM{{}}: the hardware traps on it ({})",
            t.class, t.evidence
        );
        checks.push(quote!(if #hit && !any_combo() { return Err(refuse(Self::NAME, format_args!(#msg, sm))); }));
    }
    quote!(#(#checks)*)
}
