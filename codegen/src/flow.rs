//! `FlowOp` and `SchedOp` for each op: where control goes after it
//! (`[flow]`), and the scoreboard wait it makes (`[sched]`).

use crate::names::{field, op_type};
use crate::shared::{spec_doc, src_default};
use isa_spec::model::{FlowKind, ModType, Op, Spec};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

/// `impl FlowOp`: the trait's default (on to the next instruction) for an
/// op without `[flow]`, else the kind, target and conditions it states.
pub(crate) fn op_flow(spec: &Spec, op: &Op) -> TokenStream {
    let ty = op_type(&op.name);
    let Some(f) = &op.flow else {
        return quote!(impl FlowOp for #ty {});
    };
    let kind = format_ident!(
        "{}",
        match f.kind {
            FlowKind::Branch => "Branch",
            FlowKind::Exit => "Exit",
            FlowKind::Call => "Call",
            FlowKind::Return => "Return",
            FlowKind::Indirect => "Indirect",
        }
    );
    let target = match f
        .target
        .map(|i| (field(&op.modifiers[i].name), &op.modifiers[i].ty))
    {
        Some((t, ModType::Rel)) => quote! {
            Some(addr.wrapping_add(family_of(sm).map_or(16, |f| u64::from(f.width() / 8))).wrapping_add(self.#t as u64))
        },
        Some((t, ModType::Abs { signed: false })) => quote!(Some(self.#t as u64)),
        _ => quote!(None),
    };
    let srcs = f.when_srcs.iter().map(|&i| {
        let s = field(&op.srcs[i].name);
        let default = src_default(&op.srcs[i]).unwrap_or_else(|| quote!(Src::PT));
        quote!(self.#s != #default)
    });
    let mods = f.when_mods.iter().map(|&i| {
        let m = field(&op.modifiers[i].name);
        quote!(self.#m != Default::default())
    });
    let values = f.when_values.iter().map(|&(i, v)| {
        let m = field(&op.modifiers[i].name);
        match op.modifiers[i].ty {
            ModType::Bool => {
                let v = v == 1;
                quote!(self.#m == #v)
            }
            _ => {
                let v = Literal::usize_unsuffixed(v);
                quote!(self.#m.index() == #v)
            }
        }
    });
    let doc = spec_doc(spec, &f.loc);
    let conditional = match f.decided_by.is_empty() {
        true => quote!(false #(|| #srcs)* #(|| #mods)* #(|| #values)*),
        false => quote!(true),
    };
    quote! {
        #doc
        impl FlowOp for #ty {
            fn flow(&self, addr: u64, sm: u32) -> Flow {
                Flow {
                    kind: FlowKind::#kind,
                    target: #target,
                    conditional: #conditional,
                }
            }
        }
    }
}

/// `impl SchedOp`: the trait's defaults (no wait, no early results) for
/// an op without `[sched]`, else the scoreboard wait and the destinations
/// written early that it names.
pub(crate) fn op_sched(spec: &Spec, op: &Op) -> TokenStream {
    let ty = op_type(&op.name);
    let Some(s) = &op.sched else {
        return quote!(impl SchedOp for #ty {});
    };
    let waits = s.wait.map(|(b, p)| {
        let (b, p) = (field(&op.modifiers[b].name), field(&op.modifiers[p].name));
        quote! {
            fn waits_on(&self) -> Option<(u8, u8)> {
                Some((self.#b.index() as u8, self.#p as u8))
            }
        }
    });
    let early = (!s.early.is_empty()).then(|| {
        let e = &s.early;
        quote! {
            fn early_dsts(&self) -> &'static [usize] { &[#(#e),*] }
        }
    });
    let latency = latency_fn(quote!(latency), &s.latency);
    let guard_latency = latency_fn(quote!(guard_latency), &s.guard_latency);
    let doc = spec_doc(spec, &s.loc);
    quote! {
        #doc
        impl SchedOp for #ty { #waits #early #latency #guard_latency }
    }
}

/// `fn NAME(&self, sm) -> Option<u8>`: the table's cycles on `sm` (one
/// match arm per value), or nothing for an empty table.
fn latency_fn(name: TokenStream, table: &[(u32, u32)]) -> Option<TokenStream> {
    if table.is_empty() {
        return None;
    }
    let mut by_value: Vec<(u32, Vec<u32>)> = Vec::new();
    for &(sm, c) in table {
        match by_value.iter_mut().find(|(v, _)| *v == c) {
            Some((_, sms)) => sms.push(sm),
            None => by_value.push((c, vec![sm])),
        }
    }
    let arms = by_value.iter().map(|(c, sms)| {
        let c = Literal::u8_unsuffixed(*c as u8);
        let sms = sms.iter().map(|s| Literal::u32_unsuffixed(*s));
        quote!(#(#sms)|* => Some(#c))
    });
    Some(quote! {
        fn #name(&self, sm: u32) -> Option<u8> {
            match sm { #(#arms,)* _ => None }
        }
    })
}
