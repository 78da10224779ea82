//! Assembly parsers: the printer's syntax read back. A line whose mnemonic
//! and suffixes do not fit the op gives `None` (another op may take it); a
//! line that fits but has bad operands gives an error with its column.

use crate::Error;
use crate::encode::forms;
use crate::names::{enum_type, enum_variant, field, ident};
use crate::print::imm_style;
use crate::shared::{dst_default, mod_default, src_default};
use isa_spec::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

fn parts(s: &str) -> Vec<String> {
    s.split('.')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

pub fn op_parse(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    let mut fns = vec![parse_fn(spec, op, &op.asm, 0)?];
    let mut arms = Vec::new();
    for (i, (sms, a)) in op.asm.variants.iter().enumerate() {
        fns.push(parse_fn(spec, op, a, i + 1)?);
        let pat = crate::encode::sm_pattern(sms);
        let n = ident(&format!("parse_syntax{}", i + 1));
        arms.push(quote!(#pat => Self::#n(line, sm, addr)));
    }
    Ok(quote! {
        /// Parse one tokenized line; `None` when the mnemonic is not this op's.
        pub fn parse(line: &Line, sm: u32, addr: u64) -> Option<Result<(Self, Common), AsmError>> {
            match sm { #(#arms,)* _ => Self::parse_syntax0(line, sm, addr) }
        }
        #(#fns)*
    })
}

fn parse_fn(spec: &Spec, op: &Op, asm: &Asm, n: usize) -> Result<TokenStream, Error> {
    let fname = ident(&format!("parse_syntax{n}"));
    let syntax_doc = format!(
        " Parse syntax `{}` ({}).",
        asm.mnemonic,
        crate::shared::spec_line(spec, &asm.loc)
    );
    // Mnemonic candidates: the base and each alias.
    let mut cands = vec![parts(&asm.mnemonic)];
    for a in &op.aliases {
        cands.push(parts(&a.mnemonic));
    }
    // Longest first: `IMAD.MOV` must not be read as `IMAD` with a `.MOV` suffix.
    cands.sort_by_key(|c| std::cmp::Reverse(c.len()));
    cands.dedup();
    let cand_arrays = cands.iter().map(|c| quote!(&[#(#c),*]));
    let mut suffix_code = Vec::new();
    for &mi in &asm.suffixes {
        let m = &op.modifiers[mi];
        let f = field(&m.name);
        let t = suffix_type(spec, m);
        let Some(e) = suffix_expr(spec, m, quote!(rest), quote!(cur), quote!(return None)) else {
            let mname = &m.name;
            return Err(Error {
                message: format!("suffix `{mname}` of `{}` must be bool or enum", op.name),
                loc: Some(asm.loc.clone()),
            });
        };
        suffix_code.push(quote!(let #f: #t = #e;));
    }
    // Modifiers printed after an operand (`R2.CC`): set while that operand is read.
    for o in &asm.operands {
        for &mi in &o.suffixes {
            let m = &op.modifiers[mi];
            let f = field(&m.name);
            let t = suffix_type(spec, m);
            let d = mod_default(spec, m);
            suffix_code.push(quote!(let mut #f: #t = #d;));
        }
    }
    // A source's type is known once the suffixes are read.
    for s in &op.srcs {
        if let Some(&mi) = s.type_by.iter().find(|mi| !asm.suffixes.contains(mi)) {
            return Err(Error {
                message: format!(
                    "`type_by` of `{}`: `{}` must be printed as a suffix of `{}`",
                    s.name, op.modifiers[mi].name, op.name
                ),
                loc: Some(asm.loc.clone()),
            });
        }
    }
    let mut suffix_names: Vec<usize> = asm.suffixes.clone();
    suffix_names.extend(asm.operands.iter().flat_map(|o| o.suffixes.iter().copied()));
    // Operand assignment.
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for o in &asm.operands {
        match &o.cond {
            AsmCond::Always => required.push(quote!(1usize)),
            AsmCond::If(m, flag) => {
                let f = field(&op.modifiers[*m].name);
                required.push(quote!(((#f == #flag) as usize)));
            }
            AsmCond::NotDefault => optional.push(quote!(1usize)),
        }
    }
    let mut assigned: Vec<(AsmItem, TokenStream)> = Vec::new();
    let mut steps = Vec::new();
    for o in &asm.operands {
        let (name, conv, compatible) = match &o.item {
            AsmItem::Dst(i) => {
                let d = &op.dsts[*i];
                let n = &d.name;
                let pred = d.ty.is_pred();
                (
                    d.name.clone(),
                    quote!(asm_try!(dst_operand(tok, #n, #pred))),
                    if d.ty.is_pred() {
                        quote!(is_pred_token(tok))
                    } else {
                        quote!(!is_pred_token(tok))
                    },
                )
            }
            AsmItem::Src(i) => {
                let s = &op.srcs[*i];
                let style = imm_style(s.ty);
                let n = &s.name;
                let bad = quote!(
                    return Some(Err(AsmError {
                        col: tok.col,
                        message: format!("bad operand for {}", #n)
                    }))
                );
                let conv = if s.type_by.is_empty() {
                    quote!(asm_try!(src_operand(tok, #n, #style)))
                } else {
                    // The suffixes were read first: they choose the type.
                    let of = ident(&format!("{}_view_of", s.name));
                    let args = s.type_by.iter().map(|&mi| field(&op.modifiers[mi].name));
                    let view = quote!(Self::#of(#(#args),*));
                    let style = quote!(#view.map_or(#style, View::imm_style));
                    match s.part {
                        None => quote!(asm_try!(src_operand(tok, #n, #style))),
                        // `R2.B2`: the part suffix sets the selector.
                        Some(_) => quote!({
                            let view = #view;
                            let sel: u32 = match (tok.suffixes.as_slice(), view) {
                                ([], _) => 0,
                                ([p], Some(v)) => match v.parse_part(p) {
                                    Some(sel) => sel,
                                    None => return Some(Err(AsmError { col: tok.col, message: format!("`.{}` is not a part of {}'s type", p, #n) })),
                                },
                                _ => return Some(Err(AsmError { col: tok.col, message: format!("unexpected suffix on {}", #n) })),
                            };
                            match to_src(&tok.without_suffixes(), #style) { Some(s) => (s, sel), None => #bad }
                        }),
                    }
                };
                (
                    s.name.clone(),
                    conv,
                    if s.ty.is_pred() {
                        quote!(is_pred_token(tok))
                    } else {
                        quote!(!is_pred_token(tok))
                    },
                )
            }
            AsmItem::Modifier(i) => {
                let m = &op.modifiers[*i];
                let n = &m.name;
                let conv = match &m.ty {
                    ModType::Int { signed: false, .. } => quote!(asm_try!(uint_operand(tok, #n))),
                    ModType::Int { signed: true, .. } => quote!(asm_try!(int_operand(tok, #n))),
                    ModType::Rel => quote!(asm_try!(rel_operand(tok, #n, addr, next))),
                    ModType::Enum(e) => {
                        let en = &spec.enums[*e];
                        let t = enum_type(&en.name);
                        let arms = en.values.iter().map(|v| {
                            let var = enum_variant(&v.name);
                            let txt = &v.text;
                            quote!(#txt => #t::#var)
                        });
                        quote!(match &tok.base { Base::Word(w) | Base::Num(w) => match w.as_str() { w if #t::ALL.iter().any(|v| v.text_sm(sm) == w && v.text() != w) => *#t::ALL.iter().find(|v| v.text_sm(sm) == w).unwrap(), #(#arms,)* _ => return Some(Err(AsmError { col: tok.col, message: format!("bad value for {}", #n) })) }, _ => return Some(Err(AsmError { col: tok.col, message: format!("bad value for {}", #n) })) })
                    }
                    ModType::Bool => quote!(asm_try!(bool_operand(tok, #n))),
                };
                (m.name.clone(), conv, quote!(true))
            }
            AsmItem::Mem(a, o) => {
                let n = &op.srcs[*a].name;
                let reg = if op.srcs[*a].ty.is_pred() {
                    quote!(false)
                } else {
                    quote!(true)
                };
                let bits = match op.modifiers[*o].ty {
                    ModType::Int { bits, .. } => bits.min(63),
                    _ => 63,
                };
                (
                    n.clone(),
                    quote!(asm_try!(mem_operand(tok, #n, #reg, #bits, sm))),
                    quote!(matches!(tok.base, Base::Mem(..) | Base::MemOther(..))),
                )
            }
        };
        let v = ident(&format!("v_{name}"));
        let take = if o.suffixes.is_empty() {
            quote!({ let tok = next_operand(ops, &mut it); #conv })
        } else {
            let sets = o.suffixes.iter().map(|&mi| {
                let m = &op.modifiers[mi];
                let f = field(&m.name);
                let mname = &m.name;
                let fail = quote!(
                    return Some(Err(AsmError {
                        col: tok.col,
                        message: format!("bad suffix for {}", #mname)
                    }))
                );
                let e = suffix_expr(spec, m, quote!(&tok.suffixes), quote!(scur), fail)
                    .unwrap_or_else(|| quote!(#f));
                quote!(#f = #e;)
            });
            quote!({
                let tok = &ops[it];
                it += 1;
                let mut scur = 0usize;
                #(#sets)*
                if scur != tok.suffixes.len() {
                    return Some(Err(AsmError { col: tok.col, message: format!("unexpected suffix `.{}` on {}", tok.suffixes[scur], #name) }));
                }
                let tok = &tok.without_suffixes();
                #conv
            })
        };
        let part_of = |i: usize| op.srcs[i].part.filter(|_| !op.srcs[i].type_by.is_empty());
        let default = match &o.item {
            AsmItem::Dst(i) => dst_default(&op.dsts[*i]).unwrap_or(quote!(Reg::RZ)),
            AsmItem::Src(i) if part_of(*i).is_some() => {
                let s = src_default(&op.srcs[*i]).unwrap_or(quote!(Src::RZ));
                quote!((#s, 0u32))
            }
            AsmItem::Src(i) => src_default(&op.srcs[*i]).unwrap_or(quote!(Src::RZ)),
            AsmItem::Modifier(i) => mod_default(spec, &op.modifiers[*i]),
            AsmItem::Mem(a, o) => {
                let s = src_default(&op.srcs[*a]).unwrap_or(quote!(Src::RZ));
                let m = mod_default(spec, &op.modifiers[*o]);
                quote!((#s, #m))
            }
        };
        let step = match &o.cond {
            AsmCond::Always => quote!(let #v = #take;),
            AsmCond::If(m, flag) => {
                let f = field(&op.modifiers[*m].name);
                quote!(let #v = if #f == #flag { #take } else { #default };)
            }
            AsmCond::NotDefault => {
                quote!(let #v = if extra > 0 && it < ops.len() && { let tok = &ops[it]; #compatible } { extra -= 1; #take } else { #default };)
            }
        };
        steps.push(step);
        match &o.item {
            AsmItem::Mem(a, m) => {
                assigned.push((AsmItem::Src(*a), quote!(#v.0)));
                assigned.push((AsmItem::Modifier(*m), quote!(#v.1)));
            }
            AsmItem::Src(i) if part_of(*i).is_some() => {
                let p = part_of(*i).expect("checked");
                assigned.push((AsmItem::Src(*i), quote!(#v.0)));
                assigned.push((AsmItem::Modifier(p), quote!(#v.1)));
            }
            item => assigned.push((item.clone(), quote!(#v))),
        }
    }
    // Struct initializers: assigned operands, else defaults.
    let mut inits = Vec::new();
    for (i, d) in op.dsts.iter().enumerate() {
        let f = field(&d.name);
        let v = assigned
            .iter()
            .find(|(it, _)| *it == AsmItem::Dst(i))
            .map(|x| x.1.clone())
            .or_else(|| dst_default(d))
            .unwrap_or(quote!(Reg::RZ));
        inits.push(quote!(#f: #v));
    }
    for (i, s) in op.srcs.iter().enumerate() {
        let f = field(&s.name);
        let v = assigned
            .iter()
            .find(|(it, _)| *it == AsmItem::Src(i))
            .map(|x| x.1.clone())
            .or_else(|| src_default(s))
            .unwrap_or(quote!(Src::RZ));
        inits.push(quote!(#f: #v));
    }
    for (i, m) in op.modifiers.iter().enumerate() {
        let f = field(&m.name);
        let v = if suffix_names.contains(&i) {
            quote!(#f)
        } else {
            assigned
                .iter()
                .find(|(it, _)| *it == AsmItem::Modifier(i))
                .map(|x| x.1.clone())
                .unwrap_or_else(|| mod_default(spec, m))
        };
        inits.push(quote!(#f: #v));
    }
    // .reuse marks go to the control bits of the chosen form.
    let fs = forms(op);
    let canon_arms: Vec<TokenStream> = fs
        .iter()
        .filter(|f| f.form.canonical_raw() != 0)
        .map(|f| {
            let id = Literal::u8_unsuffixed(f.id as u8);
            let v = crate::encode::u128_lit(f.form.canonical_raw());
            quote!(Some(#id) => #v)
        })
        .collect();
    let mut reuse = Vec::new();
    for (i, s) in op.srcs.iter().enumerate() {
        let Some(pos) = asm.operands.iter().position(|o| {
            o.item == AsmItem::Src(i) || matches!(o.item, AsmItem::Mem(a, _) if a == i)
        }) else {
            continue;
        };
        let _ = pos;
        let v = ident(&format!("reuse_{}", s.name));
        let arms: Vec<TokenStream> = fs
            .iter()
            .filter_map(|f| {
                let bit = f.form.reuse[i]?;
                let id = Literal::u8_unsuffixed(f.id as u8);
                let bit = Literal::u32_unsuffixed(bit);
                Some(quote!(Some(#id) => ctrl |= 1u32 << #bit))
            })
            .collect();
        reuse.push(quote!(if #v { match form { #(#arms,)* _ => {} } }));
    }
    // Which tokens carried `.reuse`: track per source while assigning.
    let reuse_lets = op.srcs.iter().map(|s| {
        let v = ident(&format!("reuse_{}", s.name));
        let pos = asm.operands.iter().position(|o| {
            let si = op.src(&s.name).unwrap_or(usize::MAX);
            o.item == AsmItem::Src(si) || matches!(o.item, AsmItem::Mem(a, _) if a == si)
        });
        match pos {
            Some(_) => {
                let name = &s.name;
                quote!(let #v = reuse_marks.iter().any(|n| *n == #name);)
            }
            None => quote!(let #v = false;),
        }
    });
    // Record reuse marks by operand name as tokens are consumed: rebuild
    // from positions after assignment (tokens are consumed in order).
    let item_names: Vec<TokenStream> = asm
        .operands
        .iter()
        .map(|o| {
            let n = match &o.item {
                AsmItem::Dst(i) => op.dsts[*i].name.clone(),
                AsmItem::Src(i) => op.srcs[*i].name.clone(),
                AsmItem::Modifier(i) => op.modifiers[*i].name.clone(),
                AsmItem::Mem(a, _) => op.srcs[*a].name.clone(),
            };
            quote!(#n)
        })
        .collect();
    let n_items = item_names.len();
    Ok(quote! {
        #[doc = #syntax_doc]
        #[allow(unused_variables, unused_mut, unused_assignments, unused_parens, clippy::nonminimal_bool, clippy::needless_late_init)]
        fn #fname(line: &Line, sm: u32, addr: u64) -> Option<Result<(Self, Common), AsmError>> {
            const CANDS: &[&[&str]] = &[#(#cand_arrays),*];
            let rest: &[String] = CANDS.iter().find_map(|c| strip_mnemonic(&line.parts, c))?;
            let mut cur = 0usize;
            #(#suffix_code)*
            if cur != rest.len() { return None; }
            let ops = &line.operands;
            let required: usize = 0 #(+ #required)*;
            let optional: usize = 0 #(+ #optional)*;
            asm_try!(check_operand_count(line, required, optional));
            let next: i64 = family_of(sm).map_or(16, |f| (f.width() / 8) as i64);
            let mut extra = ops.len() - required;
            let mut it = 0usize;
            let mut taken: [usize; #n_items] = [usize::MAX; #n_items];
            let names: [&str; #n_items] = [#(#item_names),*];
            let mut k = 0usize;
            #(
                let before = it;
                #steps
                mark_taken(&mut taken, &mut k, before, it);
            )*
            let _ = (&mut taken, &mut k);
            let reuse_marks = reuse_marks(&names, &taken, ops);
            let op = Self { #(#inits),* };
            let form = op.form_id(sm);
            let mut ctrl = 0u32;
            #(#reuse_lets)*
            #(#reuse)*
            // Raw bits as ptxas writes them in the chosen form.
            let raw = match form { #(#canon_arms,)* _ => 0 };
            Some(Ok((op, Common { guard: line.guard, ctrl, raw })))
        }
    })
}

/// The Rust type of a suffix modifier.
fn suffix_type(spec: &Spec, m: &Modifier) -> TokenStream {
    match &m.ty {
        ModType::Enum(e) => {
            let t = enum_type(&spec.enums[*e].name);
            quote!(#t)
        }
        _ => quote!(bool),
    }
}

/// An expression reading bool or enum modifier `m` as a suffix from the
/// parts `rest` at index `cur` (advanced past it); `fail` when an enum has
/// no value for the parts and no value with empty text. `None`: not a bool
/// or enum.
fn suffix_expr(
    spec: &Spec,
    m: &Modifier,
    rest: TokenStream,
    cur: TokenStream,
    fail: TokenStream,
) -> Option<TokenStream> {
    match &m.ty {
        ModType::Bool => {
            let t = &m.text;
            Some(quote!(take_suffix(#rest, &mut #cur, #t)))
        }
        ModType::Enum(e) => {
            let en = &spec.enums[*e];
            let t = enum_type(&en.name);
            // Longest texts first so `.LTU` is not read as `.LT`.
            let mut order: Vec<usize> = (0..en.values.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(en.values[i].text.len()));
            // Texts may differ per SM (`sm_text`): match each value's
            // text for this SM; an empty text is the fallback.
            let tries = order.iter().map(|&i| {
                let v = enum_variant(&en.values[i].name);
                quote!(if !#t::#v.text_sm(sm).is_empty() && take_suffix(#rest, &mut #cur, #t::#v.text_sm(sm)) { #t::#v } else)
            });
            let empties: Vec<TokenStream> = en
                .values
                .iter()
                .map(|v| {
                    let v = enum_variant(&v.name);
                    quote!(if #t::#v.text_sm(sm).is_empty() { #t::#v } else)
                })
                .collect();
            Some(quote!(#(#tries)* #(#empties)* { #fail; }))
        }
        _ => None,
    }
}
