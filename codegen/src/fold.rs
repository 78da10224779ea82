//! Folds: the spec's Rust expressions, parsed with syn and spliced into a
//! function that binds every source value (raw and with its modifiers
//! applied), every modifier, and `sm`.

use crate::Error;
use crate::names::{enum_variant, field, ident};
use isa_spec::model::*;
use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn rust_type(t: ValueType) -> TokenStream {
    match t {
        ValueType::U32 | ValueType::B32 => quote!(u32),
        ValueType::I32 => quote!(i32),
        ValueType::F32 => quote!(f32),
        ValueType::U64 => quote!(u64),
        ValueType::I64 => quote!(i64),
        ValueType::F64 => quote!(f64),
        ValueType::Pred => quote!(bool),
    }
}

fn parse_err(e: syn::Error, fe: &FoldExpr) -> Error {
    let start = e.span().byte_range().start.min(fe.text.len());
    let mut loc = fe.loc.clone();
    loc.span = loc.span.start + start..loc.span.start + start + 1;
    Error {
        message: format!("fold expression does not parse: {e}"),
        loc: Some(loc),
    }
}

fn fold_body(op: &Op, fold: &Fold) -> Result<TokenStream, Error> {
    if op.dsts.is_empty() {
        return Ok(quote!(Ok((FoldOut::new(&[]), None))));
    }
    if op
        .dsts
        .iter()
        .zip(&fold.dsts)
        .any(|(d, e)| e.is_none() && !d.unknown)
    {
        let name = &op.name;
        return Ok(quote!(Err(FoldError::new(
            format!("{} has no fold for every destination on SM{}", #name, sm)
        ))));
    }
    let lets = match &fold.lets {
        Some(l) => {
            let block: syn::Block =
                syn::parse_str(&format!("{{{}}}", l.text)).map_err(|e| parse_err(e, l))?;
            let stmts = block.stmts;
            quote!(#(#stmts)*)
        }
        None => quote!(),
    };
    let refuse = match &fold.refuse {
        Some(r) => {
            let expr: syn::Expr = syn::parse_str(&r.text).map_err(|er| parse_err(er, r))?;
            let name = &op.name;
            let text = &r.text;
            quote!(if #expr {
                return Err(FoldError::new(format!("{} has no fold on SM{} when {}", #name, sm, #text)));
            })
        }
        None => quote!(),
    };
    let parse_bool = |fe: &Option<FoldExpr>| -> Result<TokenStream, Error> {
        match fe {
            Some(e) => {
                let x: syn::Expr = syn::parse_str(&e.text).map_err(|er| parse_err(er, e))?;
                Ok(quote!(#x))
            }
            None => Ok(quote!(false)),
        }
    };
    let reads = parse_bool(&fold.reads_cc)?;
    let writes = parse_bool(&fold.writes_cc)?;
    let cc_out = parse_bool(&fold.cc_out)?;
    let name = &op.name;
    let carry_in = if fold.reads_cc.is_some() {
        quote! {
            let cc_in: bool = match (#reads, cc_in) {
                (true, None) => return Err(FoldError::new(format!("{} reads the carry flag, which is not known", #name))),
                (_, c) => c.unwrap_or(false),
            };
        }
    } else if mentions_cc_in(fold) {
        quote!(let cc_in: bool = false;)
    } else {
        quote!()
    };
    let mut outs = Vec::new();
    let mut vals = Vec::new();
    let mut unknown = Vec::new();
    for (d, e) in op.dsts.iter().zip(&fold.dsts) {
        let Some(e) = e else {
            // A result of unknown meaning: fold only while it is PT (its
            // placeholder value is then discarded).
            let f = field(&d.name);
            let why = format!(
                "{} has no fold for its result `{}` unless it is PT",
                op.name, d.name
            );
            unknown.push(
                quote!(if self.#f != Reg::PT { return Err(FoldError::new(#why.to_string())); }),
            );
            vals.push(quote!(true.into_value()));
            continue;
        };
        let expr: syn::Expr = syn::parse_str(&e.text).map_err(|er| parse_err(er, e))?;
        let v = ident(&format!("out_{}", d.name));
        let t = rust_type(d.ty);
        outs.push(quote!(let #v: #t = #expr;));
        vals.push(quote!(#v.into_value()));
    }
    let carry_out = if fold.cc_out.is_some() {
        quote!(if #writes { Some(#cc_out) } else { None })
    } else {
        quote!(None)
    };
    Ok(
        quote!(#(#unknown)* #refuse #carry_in #lets #(#outs)* Ok((FoldOut::new(&[#(#vals),*]), #carry_out))),
    )
}

/// Every expression text of `fold`.
fn texts(fold: &Fold) -> impl Iterator<Item = &str> {
    let exprs = [
        &fold.lets,
        &fold.refuse,
        &fold.reads_cc,
        &fold.writes_cc,
        &fold.cc_out,
    ];
    exprs
        .into_iter()
        .flatten()
        .chain(fold.dsts.iter().flatten())
        .map(|e| e.text.as_str())
}

/// Whether identifier `name` occurs in a text of `folds`: only the names
/// the spec's expressions read are bound.
fn reads<'a>(mut folds: impl Iterator<Item = &'a Fold>, name: &str) -> bool {
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    folds.any(|f| texts(f).any(|t| t.split(|c: char| !ident_char(c)).any(|w| w == name)))
}

/// Every fold of `op`: its default and its per-family ones.
fn all_folds(op: &Op) -> impl Iterator<Item = &Fold> + Clone {
    std::iter::once(&op.fold).chain(op.fold_family.iter().map(|(_, f)| f))
}

/// Whether an expression of `fold` reads the carry `cc_in` (without
/// `reads_cc` it is false, and without a reader it is not bound).
fn mentions_cc_in(fold: &Fold) -> bool {
    reads(std::iter::once(fold), "cc_in")
}

pub fn op_fold(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    let nsrc = op.srcs.len();
    let name = &op.name;
    let mut binds = Vec::new();
    for (i, s) in op.srcs.iter().enumerate() {
        let f = field(&s.name);
        let raw = ident(&format!("{}_raw", s.name));
        let neg = ident(&format!("{}_neg", s.name));
        let abs = ident(&format!("{}_abs", s.name));
        let not = ident(&format!("{}_not", s.name));
        let t = rust_type(s.ty);
        let read = match s.ty {
            ValueType::U32 | ValueType::B32 => quote!(srcs[#i].u32()?),
            ValueType::I32 => quote!(srcs[#i].u32()? as i32),
            ValueType::F32 => quote!(f32::from_bits(srcs[#i].u32()?)),
            ValueType::U64 => quote!(srcs[#i].u64()?),
            ValueType::I64 => quote!(srcs[#i].u64()? as i64),
            ValueType::F64 => quote!(f64::from_bits(srcs[#i].u64()?)),
            ValueType::Pred => quote!(srcs[#i].pred()?),
        };
        let apply = quote!(#raw.with_mods(#neg, #abs, #not));
        // A part selector: the source is the selected byte or half,
        // zero-extended, float modifiers applied at its own sign bit.
        let apply = match s.part {
            Some(p) => {
                let (to_bits, from_bits) = match s.ty {
                    ValueType::F32 => (quote!(#raw.to_bits()), quote!(f32::from_bits)),
                    ValueType::I32 => (quote!(#raw as u32), quote!((|v: u32| v as i32))),
                    ValueType::U32 | ValueType::B32 => (quote!(#raw), quote!((|v: u32| v))),
                    _ => {
                        return Err(Error {
                            message: format!(
                                "`part` of `{}`: only 32-bit sources have parts",
                                s.name
                            ),
                            loc: Some(s.loc.clone()),
                        });
                    }
                };
                let view = ident(&format!("{}_view", s.name));
                let sel = field(&op.modifiers[p].name);
                let sel = if s.part_bytes {
                    quote!(v.part_of_byte(self.#sel).unwrap_or(0))
                } else {
                    quote!(self.#sel)
                };
                quote!(match self.#view() {
                    Some(v) if v.part_bits() != 0 => #from_bits(v.part_value(#to_bits, #sel, #neg, #abs)),
                    _ => #apply,
                })
            }
            None => apply,
        };
        // Without a part selector, and with no expression reading the raw
        // value or the flags apart, one call reads the source.
        let apart = [&raw, &neg, &abs, &not]
            .iter()
            .any(|n| reads(all_folds(op), &n.to_string()));
        if s.part.is_none() && !apart {
            binds.push(quote!(let #f: #t = src_value(srcs, #i, &self.#f)?;));
            continue;
        }
        binds.push(quote! {
            let #raw: #t = #read;
            let (#neg, #abs, #not) = self.#f.flags();
            let #f: #t = #apply;
        });
    }
    for m in op
        .modifiers
        .iter()
        .filter(|m| reads(all_folds(op), &m.name))
    {
        let f = field(&m.name);
        binds.push(quote!(let #f = self.#f;));
    }
    let default = fold_body(op, &op.fold)?;
    let mut arms = Vec::new();
    let mut has_arms = Vec::new();
    for (fi, fold) in &op.fold_family {
        let fam = enum_variant(&spec.families[*fi].name);
        let body = fold_body(op, fold)?;
        arms.push(quote!(Some(Family::#fam) => { #body }));
        let has = !fold.is_empty() || op.dsts.is_empty();
        has_arms.push(quote!(Some(Family::#fam) => #has));
    }
    let default_has = !op.fold.is_empty() || op.dsts.is_empty();
    let has_fold = if has_arms.is_empty() {
        quote!(#default_has)
    } else {
        quote!(match family_of(sm) { #(#has_arms,)* _ => #default_has })
    };
    // One fold for every family: its statements, with no match.
    let body = if arms.is_empty() {
        default
    } else {
        quote!(match family_of(sm) { #(#arms,)* _ => { #default } })
    };
    let spec_doc = crate::shared::spec_doc(spec, &op.loc);
    Ok(quote! {
        fold_via_cc!(sm => #has_fold);

        /// `fold` with Maxwell's CC carry flag: `cc_in` is the carry the op
        /// may read (`None`: unknown); also returns the carry it writes.
        #spec_doc
        pub fn fold_cc(&self, sm: u32, srcs: &[Value], cc_in: Option<bool>) -> FoldCc {
            check_sources(#name, #nsrc, srcs)?;
            #(#binds)*
            #body
        }
    })
}

/// `fn cc_use` of the op's `Legalize` impl: whether it reads and writes
/// Maxwell's CC carry flag on `sm` (`reads_cc`/`writes_cc` of its fold,
/// from the modifiers alone); nothing when it never does (the trait's
/// default says so).
pub fn op_cc_use(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    // Carry use from the modifiers alone (no source values needed).
    let cc_pair = |fold: &Fold| -> Result<TokenStream, Error> {
        let e = |fe: &Option<FoldExpr>| -> Result<TokenStream, Error> {
            match fe {
                Some(x) => {
                    let t: syn::Expr = syn::parse_str(&x.text).map_err(|er| parse_err(er, x))?;
                    Ok(quote!(#t))
                }
                None => Ok(quote!(false)),
            }
        };
        let (r, w) = (e(&fold.reads_cc)?, e(&fold.writes_cc)?);
        Ok(quote!((#r, #w)))
    };
    let mut cc_arms = Vec::new();
    for (fi, fold) in &op.fold_family {
        let fam = enum_variant(&spec.families[*fi].name);
        let p = cc_pair(fold)?;
        cc_arms.push(quote!(Some(Family::#fam) => #p));
    }
    let cc_default = cc_pair(&op.fold)?;
    let mod_binds: Vec<TokenStream> = op
        .modifiers
        .iter()
        .map(|m| {
            let f = field(&m.name);
            quote!(let #f = self.#f;)
        })
        .collect();
    let uses_cc = |f: &Fold| f.reads_cc.is_some() || f.writes_cc.is_some();
    if !uses_cc(&op.fold) && !op.fold_family.iter().any(|(_, f)| uses_cc(f)) {
        return Ok(quote!());
    }
    Ok(quote! {
        fn cc_use(&self, sm: u32) -> (bool, bool) {
            #(#mod_binds)*
            match family_of(sm) { #(#cc_arms,)* _ => #cc_default }
        }
    })
}
