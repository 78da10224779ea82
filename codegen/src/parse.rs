//! Assembly parsers: the printer's syntax read back. A line whose mnemonic
//! and suffixes do not fit the op gives `None` (another op may take it); a
//! line that fits but has bad operands gives an error with its column.

use crate::Error;
use crate::encode::forms;
use crate::names::{enum_type, field, ident};
use crate::print::imm_style;
use crate::shared::{dst_default, lane_texts, mod_default, src_default};
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
    if op.asm.variants.is_empty() {
        // One syntax: `parse` is its parser.
        return parse_fn(spec, op, &op.asm, None);
    }
    let mut fns = vec![parse_fn(spec, op, &op.asm, Some(0))?];
    let mut arms = Vec::new();
    for (i, (sms, a)) in op.asm.variants.iter().enumerate() {
        fns.push(parse_fn(spec, op, a, Some(i + 1))?);
        let pat = crate::encode::sm_pattern(sms);
        let n = ident(&format!("parse_syntax{}", i + 1));
        arms.push(quote!(#pat => Self::#n(line, sm, addr)));
    }
    Ok(quote! {
        /// Parse one tokenized line; `None` when the mnemonic is not this op's.
        pub fn parse(line: &Line, sm: u32, addr: u64) -> Parsed<Self> {
            match sm { #(#arms,)* _ => Self::parse_syntax0(line, sm, addr) }
        }
        #(#fns)*
    })
}

/// One syntax's parser: mnemonic and suffixes, then the operands in
/// order (an [`Operands`] walk), then the op, its `.reuse` marks and raw
/// bits. Each step is a function below. `n`: the syntax's number among
/// several (`None`: the op's only syntax, parsed by `pub fn parse`).
fn parse_fn(spec: &Spec, op: &Op, asm: &Asm, n: Option<usize>) -> Result<TokenStream, Error> {
    let at = crate::shared::spec_line(spec, &asm.loc);
    let (head, syntax_doc) = match n {
        Some(n) => {
            let fname = ident(&format!("parse_syntax{n}"));
            (
                quote!(fn #fname),
                format!(" Parse syntax `{}` ({at}).", asm.mnemonic),
            )
        }
        None => (
            quote!(pub fn parse),
            format!(
                " Parse one tokenized line of syntax `{}` ({at}); `None` when the mnemonic is not this op's.",
                asm.mnemonic
            ),
        ),
    };
    let (cand_arrays, cand_alias) = mnemonic_candidates(op, asm);
    let set_by_alias = alias_set_modifiers(op, asm);
    let suffix_code = suffix_lets(spec, op, asm)?;
    let (required, optional) = operand_counts(spec, op, asm);
    // The byte offset of the next instruction, for branch targets.
    let uses_next = asm.operands.iter().any(
        |o| matches!(o.item, AsmItem::Modifier(i) if matches!(op.modifiers[i].ty, ModType::Rel)),
    );
    let next = uses_next
        .then(|| quote!(let next: i64 = family_of(sm).map_or(16, |f| (f.width() / 8) as i64);));
    let mut assigned: Vec<(AsmItem, TokenStream)> = Vec::new();
    let steps: Vec<TokenStream> = asm
        .operands
        .iter()
        .map(|o| operand_step(spec, op, o, &mut assigned))
        .collect();
    let inits = struct_inits(spec, op, asm, &assigned, &set_by_alias, &cand_alias);
    let narrow = narrow_offset_fixups(op, asm);
    // Which spelling was read matters only when an alias sets a modifier.
    let strip = if set_by_alias.is_empty() {
        quote!(let rest = strip_any_mnemonic(&line.parts, &[#(#cand_arrays),*])?;)
    } else {
        quote!(let (rest, spelled) = strip_which_mnemonic(&line.parts, &[#(#cand_arrays),*])?;)
    };
    let (tail, reads_marks) = parse_tail(op, asm);
    let marks = reads_marks.then(|| quote!(let reuse_marks =));
    let item_names: Vec<String> = asm
        .operands
        .iter()
        .map(|o| item_name(op, &o.item))
        .collect();
    let n_items = Literal::usize_unsuffixed(item_names.len());
    // With no suffixes to read, the mnemonic must be all there is.
    let suffixes = if suffix_code.is_empty() {
        quote!(if !rest.is_empty() {
            return None;
        })
    } else {
        quote! {
            let mut cur = 0usize;
            #(#suffix_code)*
            if cur != rest.len() { return None; }
        }
    };
    Ok(quote! {
        #[doc = #syntax_doc]
        #head(line: &Line, sm: u32, addr: u64) -> Parsed<Self> {
            #strip
            #suffixes
            let mut at = asm_try!(Operands::<#n_items>::start(line, #required, #optional));
            #next
            #(#steps)*
            #marks asm_try!(at.finish(&[#(#item_names),*]));
            let op = Self { #(#inits),* };
            #(#narrow)*
            #tail
        }
    })
}

/// The mnemonic's spellings (the syntax's and each alias's, as parts),
/// longest first: `IMAD.MOV` must not be read as `IMAD` with a `.MOV`
/// suffix. With each, the alias it spells (`None`: the syntax's own).
fn mnemonic_candidates(op: &Op, asm: &Asm) -> (Vec<TokenStream>, Vec<Option<usize>>) {
    let mut cands = vec![(parts(&asm.mnemonic), None)];
    for (i, a) in op.aliases.iter().enumerate() {
        if !cands.iter().any(|c| c.0 == parts(&a.mnemonic)) {
            cands.push((parts(&a.mnemonic), Some(i)));
        }
    }
    cands.sort_by_key(|c| std::cmp::Reverse(c.0.len()));
    let arrays = cands.iter().map(|(c, _)| quote!(&[#(#c),*])).collect();
    (arrays, cands.into_iter().map(|c| c.1).collect())
}

/// Modifiers an alias sets: `MOD == value` conditions on modifiers the
/// syntax does not print (LDG's `space`: the alias `LD` is the generic
/// space's mnemonic), as (alias, modifier, value).
fn alias_set_modifiers(op: &Op, asm: &Asm) -> Vec<(usize, usize, i64)> {
    let printed = |m: usize| {
        asm.suffixes.contains(&m)
            || asm.operands.iter().any(|o| {
                o.item == AsmItem::Modifier(m)
                    || o.item == AsmItem::AttrOff(m)
                    || o.suffixes.contains(&m)
            })
    };
    let mut out = Vec::new();
    for (ai, a) in op.aliases.iter().enumerate() {
        for c in &a.when {
            if let AliasCond::ModEq(m, v, true) = *c
                && !printed(m)
            {
                out.push((ai, m, v));
            }
        }
    }
    out
}

/// `let m = ...;` for each modifier printed as a mnemonic suffix, and
/// `let mut m = default;` for each printed after an operand (`R2.CC`: set
/// while that operand is read). A source's type must be chosen by
/// mnemonic suffixes: they are read before the operands.
fn suffix_lets(spec: &Spec, op: &Op, asm: &Asm) -> Result<Vec<TokenStream>, Error> {
    let mut code = Vec::new();
    for &mi in &asm.suffixes {
        let m = &op.modifiers[mi];
        let f = field(&m.name);
        let t = suffix_type(spec, m);
        let Some(e) = suffix_expr(spec, m, quote!(rest), quote!(cur), None) else {
            return Err(Error {
                message: format!("suffix `{}` of `{}` must be bool or enum", m.name, op.name),
                loc: Some(asm.loc.clone()),
            });
        };
        code.push(quote!(let #f: #t = #e;));
    }
    for o in &asm.operands {
        for &mi in &o.suffixes {
            let m = &op.modifiers[mi];
            let (f, t, d) = (field(&m.name), suffix_type(spec, m), mod_default(spec, m));
            code.push(quote!(let mut #f: #t = #d;));
        }
    }
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
    Ok(code)
}

/// Whether source `i` may be a packed pair (`type_by` choosing `f16x2` or
/// `bf16x2`), whose immediate prints as two tokens.
pub(crate) fn pair_source(spec: &Spec, op: &Op, i: usize) -> bool {
    op.srcs[i]
        .type_by
        .iter()
        .any(|&m| match op.modifiers[m].ty {
            ModType::Enum(e) => spec.enums[e]
                .values
                .iter()
                .any(|v| matches!(v.view, Some(ViewType::F16x2 | ViewType::Bf16x2))),
            _ => false,
        })
}

/// The required operand count (an expression: an item printed only
/// when a bool modifier has some value counts then) and the optional one
/// (a packed pair's immediate counts one more token as optional).
fn operand_counts(spec: &Spec, op: &Op, asm: &Asm) -> (TokenStream, usize) {
    let mut always = 0usize;
    let mut conds = Vec::new();
    let mut optional = asm
        .operands
        .iter()
        .filter(|o| matches!(o.item, AsmItem::Src(i) if pair_source(spec, op, i)))
        .count();
    for o in &asm.operands {
        match &o.cond {
            AsmCond::Always => always += 1,
            AsmCond::If(m, flag) => {
                let f = field(&op.modifiers[*m].name);
                conds.push(quote!(usize::from(#f == #flag)));
            }
            AsmCond::NotDefault | AsmCond::IfOptional(..) => optional += 1,
        }
    }
    let always = Literal::usize_unsuffixed(always);
    (quote!(#always #(+ #conds)*), optional)
}

/// The name of the op's operand an operand item reads (for `.reuse`).
fn item_name(op: &Op, item: &AsmItem) -> String {
    match item {
        AsmItem::Dst(i) => op.dsts[*i].name.clone(),
        AsmItem::Src(i) | AsmItem::Desc(i) => op.srcs[*i].name.clone(),
        AsmItem::Mem(m) => op.srcs[m.base].name.clone(),
        AsmItem::Modifier(i) | AsmItem::AttrOff(i) => op.modifiers[*i].name.clone(),
    }
}

/// How an operand item reads its token `tok`: the conversion, whether it
/// names `tok` once (so the token may be taken inline), and the test that
/// an optional item's token fits it.
struct Conv {
    conv: Box<dyn Fn(TokenStream) -> TokenStream>,
    once: bool,
    fits: TokenStream,
}

/// [`Conv`] of a Volta+ address `[a.w+u+off] by mode`: a tuple of the
/// base, the offset, the width's value, the uniform register (its default
/// when not printed) and the mode's value (`()` for parts the item lacks).
fn mem_addr_conv(spec: &Spec, op: &Op, m: &isa_spec::model::MemItem) -> Conv {
    let n = op.srcs[m.base].name.clone();
    let bits = crate::shared::parsed_offset_bits(op, m.off);
    let width = match m.width {
        Some(w) => match &op.modifiers[w].ty {
            ModType::Enum(e) => {
                let t = enum_type(&spec.enums[*e].name);
                if m.scale {
                    quote!(asm_try!(mem_scale(tok, &p, &#t::ALL, |v| v.text_sm(sm))))
                } else {
                    quote!(asm_try!(mem_width(tok, &p.width, &#t::ALL, |v| v.text_sm(sm))))
                }
            }
            _ => quote!(()),
        },
        None => quote!(()),
    };
    let (ur, mode) = match (m.ur, m.mode) {
        (Some(u), Some(md)) => {
            let def = src_default(&op.srcs[u]).unwrap_or(quote!(Src::reg(Reg::URZ)));
            let mode = match &op.modifiers[md].ty {
                ModType::Enum(e) => {
                    let en = &spec.enums[*e];
                    let t = enum_type(&en.name);
                    let arms = en.values.iter().filter_map(|v| {
                        let var = crate::names::enum_variant(&v.name);
                        let mode = match isa_spec::model::MemMode::from_name(&v.name)? {
                            isa_spec::model::MemMode::Reg => quote!(Reg),
                            isa_spec::model::MemMode::Ur => quote!(Ur),
                            isa_spec::model::MemMode::Desc => quote!(Desc),
                        };
                        Some(quote!(crate::runtime::mem::AddrMode::#mode => #t::#var))
                    });
                    quote!(match p.mode { #(#arms,)* #[allow(unreachable_patterns)] _ => return Some(Err(AsmError { col: tok.col, message: "address form not available".to_string() })) })
                }
                _ => quote!(()),
            };
            // Not printed (mode `reg`): a printed width means the uniform
            // register form, whose field the assembler fills with URZ.
            {
                let hidden = match m.ur_else {
                    Some(n) => quote!(Src::reg(Reg::ugpr(#n))),
                    None => quote!(Src::reg(Reg::URZ)),
                };
                // An address without a width (LDS's scale, LDL's bare
                // base) keeps the field in its register-only form too
                // (where the SM has uniform registers).
                let ur = if m.scale || m.width.is_none() {
                    quote!(p.ur.clone().unwrap_or(if crate::isa::zero_index(sm, RegFile::UGpr).is_some() { #hidden } else { #def }))
                } else {
                    quote!(p.ur.unwrap_or(if p.width.is_some() { #hidden } else { #def }))
                };
                (ur, mode)
            }
        }
        _ => (quote!(()), quote!(())),
    };
    let no_ur = m.ur.is_none().then(|| {
        quote!(if p.mode != crate::runtime::mem::AddrMode::Reg {
            return Some(Err(AsmError {
                col: tok.col,
                message: format!("{} takes no uniform register", #n),
            }));
        })
    });
    Conv {
        conv: Box::new(move |t| {
            quote!({
                let tok = #t;
                let p = asm_try!(mem_addr_operand(tok, #n, #bits, sm));
                #no_ur
                (p.base.clone(), p.off, #width, #ur, #mode)
            })
        }),
        once: false,
        fits: quote!(matches!(
            tok.base,
            Base::Mem(..) | Base::MemOther(..) | Base::Addr(..)
        )),
    }
}

/// [`Conv`] of a destination, a source, a modifier or an address.
fn operand_conv(spec: &Spec, op: &Op, item: &AsmItem) -> Conv {
    let pred_fits = |p: bool| {
        if p {
            quote!(is_pred_token(tok))
        } else {
            quote!(!is_pred_token(tok))
        }
    };
    match item {
        AsmItem::Dst(i) => {
            let d = &op.dsts[*i];
            let (n, pred) = (d.name.clone(), d.ty.is_pred());
            if op.dst_kind(*i) == SlotKindClass::Bar {
                return Conv {
                    conv: Box::new(move |t| quote!(asm_try!(bar_dst_operand(#t, #n)))),
                    once: true,
                    fits: pred_fits(false),
                };
            }
            Conv {
                conv: Box::new(move |t| quote!(asm_try!(dst_operand(#t, #n, #pred)))),
                once: true,
                fits: pred_fits(pred),
            }
        }
        AsmItem::Src(i) => src_conv(spec, op, *i, pred_fits(op.srcs[*i].ty.is_pred())),
        AsmItem::Modifier(i) => modifier_conv(spec, &op.modifiers[*i]),
        AsmItem::Desc(i) => {
            let n = op.srcs[*i].name.clone();
            Conv {
                conv: Box::new(move |t| quote!(asm_try!(desc_operand(#t, #n)))),
                once: true,
                fits: quote!(matches!(tok.base, Base::Desc(..))),
            }
        }
        AsmItem::AttrOff(i) => {
            let n = op.modifiers[*i].name.clone();
            Conv {
                conv: Box::new(move |t| quote!(asm_try!(attr_off_operand(#t, #n)))),
                once: true,
                fits: quote!(matches!(tok.base, Base::Attr(..))),
            }
        }
        AsmItem::Mem(m) if m.bank.is_some() => {
            let n = op.srcs[m.base].name.clone();
            let zero = src_default(&op.srcs[m.base]).unwrap_or(quote!(Src::RZ));
            Conv {
                conv: Box::new(move |t| quote!(asm_try!(cmem_operand(#t, #n, #zero)))),
                once: true,
                fits: quote!(matches!(tok.base, Base::CMem(..) | Base::CBuf(..))),
            }
        }
        AsmItem::Mem(m) if m.width.is_none() && m.ur.is_none() => plain_mem_conv(op, m),
        AsmItem::Mem(m) => mem_addr_conv(spec, op, m),
    }
}

/// `[a+off]`, `[a]` and the attribute addresses `a[a+off]`, `a[a]`: the
/// base register and its offset (none for `[a]`, which rejects one).
fn plain_mem_conv(op: &Op, m: &isa_spec::model::MemItem) -> Conv {
    let n = op.srcs[m.base].name.clone();
    let reg = !op.srcs[m.base].ty.is_pred();
    let bits = crate::shared::parsed_offset_bits(op, m.off);
    let attr = m.attr;
    let call = move |t: TokenStream| {
        if attr {
            quote!(attr_operand(#t, #n, #bits, sm))
        } else {
            quote!(mem_operand(#t, #n, #reg, #bits, sm))
        }
    };
    let no_off = m.off.is_none();
    let name = op.srcs[m.base].name.clone();
    Conv {
        conv: Box::new(move |t| {
            if no_off {
                let c = call(quote!(tok));
                quote!({
                    let tok = #t;
                    let v = asm_try!(#c);
                    if v.1 != 0 {
                        return Some(Err(AsmError {
                            col: tok.col,
                            message: format!("{} takes no offset", #name),
                        }));
                    }
                    v
                })
            } else {
                let c = call(t);
                quote!(asm_try!(#c))
            }
        }),
        once: true,
        fits: if attr {
            quote!(matches!(tok.base, Base::Attr(..)))
        } else {
            quote!(matches!(tok.base, Base::Mem(..) | Base::MemOther(..)))
        },
    }
}

/// The view expression of source `i` whose type modifiers choose, from
/// the parsed modifiers.
fn src_view_of(op: &Op, i: usize) -> TokenStream {
    let s = &op.srcs[i];
    let of = ident(&format!("{}_view_of", s.name));
    let args = s.type_by.iter().map(|&mi| field(&op.modifiers[mi].name));
    quote!(Self::#of(#(#args),*))
}

/// The immediate style expression of source `i`: its type's, or the one
/// its `type_by` modifiers choose (`imm_field` reads a field's bits back
/// on the SMs that print them).
fn src_style(op: &Op, i: usize) -> TokenStream {
    let s = &op.srcs[i];
    let style = if s.imm_field {
        crate::print::src_imm_style(op, i)
    } else {
        imm_style(s.ty)
    };
    if s.type_by.is_empty() || s.imm_declared {
        return style;
    }
    let view = src_view_of(op, i);
    quote!(#view.map_or(#style, View::imm_style))
}

/// [`Conv`] of source `i`: its immediate style is its type's, or the one
/// its `type_by` suffixes choose; with a part selector (`R2.B2`) the
/// suffix sets the selector.
fn src_conv(spec: &Spec, op: &Op, i: usize, fits: TokenStream) -> Conv {
    let s = &op.srcs[i];
    let n = s.name.clone();
    let style = src_style(op, i);
    let fits = optional_src_fits(spec, op, i, fits, &style);
    if s.type_by.is_empty() {
        return Conv {
            conv: Box::new(move |t| quote!(asm_try!(src_operand(#t, #n, #style)))),
            once: true,
            fits,
        };
    }
    let view = src_view_of(op, i);
    if s.part.is_none() && pair_source(spec, op, i) {
        // A packed pair's immediate is two tokens: the second is joined on.
        let conv = move |t: TokenStream| {
            quote!({
                let style = #style;
                let tok = asm_try!(at.join_pair(#t, style));
                asm_try!(src_operand(&tok, #n, style))
            })
        };
        return Conv {
            conv: Box::new(conv),
            once: false,
            fits,
        };
    }
    if s.part.is_none() {
        return Conv {
            conv: Box::new(move |t| quote!(asm_try!(src_operand(#t, #n, #style)))),
            once: true,
            fits,
        };
    }
    let parse_part = if s.part_bytes {
        quote!(parse_byte_part)
    } else if s.part_half {
        quote!(parse_half_part)
    } else {
        quote!(parse_part)
    };
    // A packed pair's immediate (MUFU.EX2.F16x2 on SM103) is two tokens.
    let pair = pair_source(spec, op, i);
    let conv = move |t: TokenStream| {
        let tok = if pair {
            quote!(asm_try!(at.join_pair(#t, #style)))
        } else {
            t.clone()
        };
        quote!({
            let tok = #tok;
            let view = #view;
            let sel: u32 = match (tok.suffixes.as_slice(), view) {
                ([], _) => 0,
                ([p], Some(v)) => match v.#parse_part(p) {
                    Some(sel) => sel,
                    None => return Some(Err(AsmError { col: tok.col, message: format!("`.{}` is not a part of {}'s type", p, #n) })),
                },
                _ => return Some(Err(AsmError { col: tok.col, message: format!("unexpected suffix on {}", #n) })),
            };
            match to_src(&tok.without_suffixes(), #style) {
                Some(s) => (s, sel),
                None => return Some(Err(AsmError { col: tok.col, message: format!("bad operand for {}", #n) })),
            }
        })
    };
    Conv {
        conv: Box::new(conv),
        once: !pair,
        fits,
    }
}

/// When an optional source takes a token: only one it can read, so the
/// token is left to the items after it otherwise (TEX's `b?` leaves the
/// immediate `0x1b` to the handle fields, `u2?` leaves `2D` to the
/// dimension). A source that every form holds in a register takes only a
/// register of those files.
fn optional_src_fits(
    spec: &Spec,
    op: &Op,
    i: usize,
    fits: TokenStream,
    style: &TokenStream,
) -> TokenStream {
    if op.srcs[i].ty.is_pred() || pair_source(spec, op, i) {
        return fits;
    }
    let kinds: Vec<SlotKindClass> = op
        .encodings
        .iter()
        .flat_map(|e| &e.forms)
        .filter_map(|f| f.src_kinds[i])
        .collect();
    let gpr = kinds.contains(&SlotKindClass::Gpr);
    let ugpr = kinds.contains(&SlotKindClass::Ugpr);
    if kinds.is_empty()
        || kinds
            .iter()
            .any(|k| !matches!(k, SlotKindClass::Gpr | SlotKindClass::Ugpr))
    {
        return quote!(#fits && src_token_fits(tok, #style));
    }
    quote!(#fits && matches!(tok.base, Base::Reg(r)
        if (#gpr && r.file == RegFile::Gpr) || (#ugpr && r.file == RegFile::UGpr)))
}

/// [`Conv`] of a modifier printed as an operand (an enum value by its
/// text on the SM).
fn modifier_conv(spec: &Spec, m: &Modifier) -> Conv {
    let n = m.name.clone();
    let conv: Box<dyn Fn(TokenStream) -> TokenStream> = match &m.ty {
        _ if m.lanes.is_some() => {
            let (bits, count, texts) = lane_texts(spec, m);
            Box::new(move |t| {
                quote!(asm_try!(lanes_operand(#t, #n, #bits, #count, &[#(#texts),*])))
            })
        }
        ModType::Int { signed: false, .. } => {
            Box::new(move |t| quote!(asm_try!(uint_operand(#t, #n))))
        }
        ModType::Int { signed: true, .. } => {
            Box::new(move |t| quote!(asm_try!(int_operand(#t, #n))))
        }
        ModType::Rel => Box::new(move |t| quote!(asm_try!(rel_operand(#t, #n, addr, next)))),
        ModType::Abs { signed: false } => Box::new(move |t| quote!(asm_try!(abs_operand(#t, #n)))),
        ModType::Abs { signed: true } => Box::new(move |t| quote!(asm_try!(disp_operand(#t, #n)))),
        ModType::Bool => Box::new(move |t| quote!(asm_try!(bool_operand(#t, #n)))),
        ModType::Enum(e) => {
            let t = enum_type(&spec.enums[*e].name);
            Box::new(move |tok| {
                quote!(asm_try!(enum_operand(#tok, #n, &#t::ALL, |v| v.text_sm(sm), |v| v.text())))
            })
        }
    };
    // An optional number reads only a number: the word or register after
    // it is the next operand's (`R0, gsb0`; LDG.256's `mask?` before `!P0`).
    let fits = match m.ty {
        ModType::Int { .. } | ModType::Abs { .. } if m.lanes.is_none() => {
            quote!(matches!(tok.base, Base::Num(_)))
        }
        _ => quote!(true),
    };
    Conv {
        conv,
        once: true,
        fits,
    }
}

/// `let v_x = ...;` for one operand item: its token taken and converted
/// (operand suffixes read first), or its default when the item is absent;
/// records what it assigns in `assigned`.
fn operand_step(
    spec: &Spec,
    op: &Op,
    o: &AsmOperand,
    assigned: &mut Vec<(AsmItem, TokenStream)>,
) -> TokenStream {
    let name = item_name(op, &o.item);
    let Conv { conv, once, fits } = operand_conv(spec, op, &o.item);
    let v = item_var(op, &o.item, &name);
    let take = if o.suffixes.is_empty() {
        if once {
            conv(quote!(at.take()))
        } else {
            let c = conv(quote!(tok));
            quote!({ let tok = at.take(); #c })
        }
    } else {
        operand_suffixes(spec, op, o, &name, &*conv)
    };
    let default = operand_default(spec, op, &o.item);
    let step = match &o.cond {
        AsmCond::Always => quote!(let #v = #take;),
        AsmCond::If(m, flag) => {
            let f = field(&op.modifiers[*m].name);
            quote!(let #v = if #f == #flag { #take } else { at.skip(); #default };)
        }
        AsmCond::NotDefault => {
            quote!(let #v = if at.optional(|tok| #fits) { #take } else { at.skip(); #default };)
        }
        AsmCond::IfOptional(m, flag) => {
            // Unused bits when the modifier differs: zero (P0), as ptxas
            // writes them, on the SMs that encode the source; elsewhere
            // it must keep its default.
            let f = field(&op.modifiers[*m].name);
            let AsmItem::Src(i) = o.item else {
                unreachable!("resolve allows `x? if m` on sources only")
            };
            let sms = src_sms(op, i).into_iter().map(Literal::u32_unsuffixed);
            let unused = quote!(if matches!(sm, #(#sms)|*) {
                Src::reg(Reg { file: RegFile::Pred, idx: 0 })
            } else {
                #default
            });
            quote!(let #v = if #f != #flag { at.skip(); #unused }
                else if at.optional(|tok| #fits) { #take } else { at.skip(); #default };)
        }
    };
    let part_of = |i: usize| op.srcs[i].part.filter(|_| !op.srcs[i].type_by.is_empty());
    match &o.item {
        AsmItem::Mem(m) => {
            assigned.push((AsmItem::Src(m.base), quote!(#v.0)));
            if let Some(o) = m.off {
                // An unsigned offset (ISBEWR's `[R2+0xffff]`) from the
                // parser's signed one; the encoder checks its range.
                let val = match op.modifiers[o].ty {
                    ModType::Int { signed: false, .. } => quote!(#v.1 as _),
                    _ => quote!(#v.1),
                };
                assigned.push((AsmItem::Modifier(o), val));
            }
            if let Some(b) = m.bank {
                assigned.push((AsmItem::Modifier(b), quote!(#v.2)));
            }
            if let Some(w) = m.width {
                assigned.push((AsmItem::Modifier(w), quote!(#v.2)));
            }
            if let (Some(u), Some(md)) = (m.ur, m.mode) {
                assigned.push((AsmItem::Src(u), quote!(#v.3)));
                assigned.push((AsmItem::Modifier(md), quote!(#v.4)));
            }
        }
        AsmItem::Src(i) if part_of(*i).is_some() => {
            let p = part_of(*i).expect("checked");
            assigned.push((AsmItem::Src(*i), quote!(#v.0)));
            assigned.push((AsmItem::Modifier(p), quote!(#v.1)));
        }
        AsmItem::AttrOff(i) => assigned.push((AsmItem::Modifier(*i), quote!(#v))),
        AsmItem::Desc(i) => assigned.push((AsmItem::Src(*i), quote!(#v))),
        item => assigned.push((item.clone(), quote!(#v))),
    }
    step
}

/// Take a token whose operand carries modifier suffixes (`R2.CC`): set
/// each suffix modifier, reject leftovers, then convert the bare token.
fn operand_suffixes(
    spec: &Spec,
    op: &Op,
    o: &AsmOperand,
    name: &str,
    conv: &dyn Fn(TokenStream) -> TokenStream,
) -> TokenStream {
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
        let e = suffix_expr(spec, m, quote!(&tok.suffixes), quote!(scur), Some(fail))
            .unwrap_or_else(|| quote!(#f));
        quote!(#f = #e;)
    });
    let c = conv(quote!(tok));
    // A packed pair's suffixes follow its second value: join it first.
    let take = match o.item {
        AsmItem::Src(i) if op.srcs[i].part.is_none() && pair_source(spec, op, i) => {
            let style = src_style(op, i);
            quote!(let first = at.take(); let joined = asm_try!(at.join_pair(first, #style)); let tok = &joined;)
        }
        _ => quote!(let tok = at.take();),
    };
    quote!({
        #take
        let mut scur = 0usize;
        #(#sets)*
        if scur != tok.suffixes.len() {
            return Some(Err(AsmError { col: tok.col, message: format!("unexpected suffix `.{}` on {}", tok.suffixes[scur], #name) }));
        }
        let tok = &tok.without_suffixes();
        #c
    })
}

/// The parser's local names, which an operand item's variable must not
/// take.
const PARSER_LOCALS: &[&str] = &[
    "line",
    "sm",
    "addr",
    "rest",
    "cur",
    "ops",
    "required",
    "next",
    "at",
    "tok",
    "scur",
    "op",
    "form",
    "ctrl",
    "raw",
    "guard",
    "reuse_marks",
    "first",
    "joined",
];

/// The variable an operand item's value goes to: the field's own name
/// where it holds the field (so the op is built with `Self { d, a, .. }`),
/// `v_name` for a pair (an address, a source with its part selector) or a
/// name the parser uses itself.
fn item_var(op: &Op, item: &AsmItem, name: &str) -> proc_macro2::Ident {
    let pair = match item {
        AsmItem::Mem(..) => true,
        AsmItem::Src(i) => op.srcs[*i].part.is_some() && !op.srcs[*i].type_by.is_empty(),
        _ => false,
    };
    if pair || PARSER_LOCALS.contains(&name) {
        ident(&format!("v_{name}"))
    } else {
        field(name)
    }
}

/// The value of an absent operand item: its operand's default.
fn operand_default(spec: &Spec, op: &Op, item: &AsmItem) -> TokenStream {
    let part_of = |i: usize| op.srcs[i].part.filter(|_| !op.srcs[i].type_by.is_empty());
    match item {
        AsmItem::Dst(i) => dst_default(&op.dsts[*i]).unwrap_or(quote!(Reg::RZ)),
        AsmItem::Src(i) if part_of(*i).is_some() => {
            let s = src_default(&op.srcs[*i]).unwrap_or(quote!(Src::RZ));
            quote!((#s, 0u32))
        }
        AsmItem::Src(i) | AsmItem::Desc(i) => src_default(&op.srcs[*i]).unwrap_or(quote!(Src::RZ)),
        AsmItem::Modifier(i) | AsmItem::AttrOff(i) => mod_default(spec, &op.modifiers[*i]),
        AsmItem::Mem(m) => {
            let s = src_default(&op.srcs[m.base]).unwrap_or(quote!(Src::RZ));
            let o = m
                .off
                .map_or(quote!(0i64), |o| mod_default(spec, &op.modifiers[o]));
            if let Some(b) = m.bank {
                let b = mod_default(spec, &op.modifiers[b]);
                return quote!((#s, #o, #b));
            }
            if m.width.is_none() && m.ur.is_none() {
                return quote!((#s, #o));
            }
            let w = m
                .width
                .map_or(quote!(()), |w| mod_default(spec, &op.modifiers[w]));
            let (u, md) = match (m.ur, m.mode) {
                (Some(u), Some(md)) => (
                    src_default(&op.srcs[u]).unwrap_or(quote!(Src::reg(Reg::URZ))),
                    mod_default(spec, &op.modifiers[md]),
                ),
                _ => (quote!(()), quote!(())),
            };
            quote!((#s, #o, #w, #u, #md))
        }
    }
}

/// The op's field initializers: each operand as assigned by an item, a
/// suffix modifier as read, else its default.
fn struct_inits(
    spec: &Spec,
    op: &Op,
    asm: &Asm,
    assigned: &[(AsmItem, TokenStream)],
    set_by_alias: &[(usize, usize, i64)],
    cand_alias: &[Option<usize>],
) -> Vec<TokenStream> {
    let find = |item: AsmItem| {
        assigned
            .iter()
            .find(|(it, _)| *it == item)
            .map(|x| x.1.clone())
    };
    // `f: f` is written `f`.
    let init = |f: proc_macro2::Ident, v: TokenStream| {
        if f == v.to_string() {
            quote!(#f)
        } else {
            quote!(#f: #v)
        }
    };
    let mut suffix_names: Vec<usize> = asm.suffixes.clone();
    suffix_names.extend(asm.operands.iter().flat_map(|o| o.suffixes.iter().copied()));
    let mut inits = Vec::new();
    for (i, d) in op.dsts.iter().enumerate() {
        let f = field(&d.name);
        let v = find(AsmItem::Dst(i))
            .or_else(|| dst_default(d))
            .unwrap_or(quote!(Reg::RZ));
        inits.push(init(f, v));
    }
    for (i, s) in op.srcs.iter().enumerate() {
        let f = field(&s.name);
        let v = find(AsmItem::Src(i))
            .or_else(|| src_default(s))
            .unwrap_or(quote!(Src::RZ));
        inits.push(init(f, v));
    }
    for (i, m) in op.modifiers.iter().enumerate() {
        let f = field(&m.name);
        let v = if suffix_names.contains(&i) {
            quote!(#f)
        } else if let Some(v) = alias_value(spec, m, i, set_by_alias, cand_alias) {
            v
        } else {
            find(AsmItem::Modifier(i)).unwrap_or_else(|| mod_default(spec, m))
        };
        inits.push(init(f, v));
    }
    inits
}

/// Modifier `i`'s value as the spelling read sets it (the aliases that
/// set it, by their candidate positions), or `None` when no alias does.
fn alias_value(
    spec: &Spec,
    m: &Modifier,
    i: usize,
    set_by_alias: &[(usize, usize, i64)],
    cand_alias: &[Option<usize>],
) -> Option<TokenStream> {
    let mut chain = mod_default(spec, m);
    let mut any = false;
    for &(ai, mi, v) in set_by_alias.iter().rev() {
        if mi != i {
            continue;
        }
        let Some(pos) = cand_alias.iter().position(|c| *c == Some(ai)) else {
            continue;
        };
        let pos = Literal::usize_unsuffixed(pos);
        let val = match m.ty {
            ModType::Bool => {
                let b = v != 0;
                quote!(#b)
            }
            ModType::Enum(e) => {
                let en = &spec.enums[e];
                let t = crate::names::enum_type(&en.name);
                let var = crate::names::enum_variant(&en.values[v as usize].name);
                quote!(#t::#var)
            }
            _ => return None,
        };
        chain = quote!(if spelled == #pos { #val } else { #chain });
        any = true;
    }
    any.then_some(chain)
}

/// An absolute address read back as its form's field shows it: where
/// forms hold the offset in fields of different widths, the text was read
/// as wide as the type, and a narrower form's value above its sign bit is
/// negative (`[0xf851f7]` in LDG's 24 bits beside LD's 32).
fn narrow_offset_fixups(op: &Op, asm: &Asm) -> Vec<TokenStream> {
    asm.operands
        .iter()
        .filter_map(|o| match &o.item {
            AsmItem::Mem(m) if m.bank.is_none() => {
                let off = m.off?;
                let (ids, nb) = crate::shared::narrow_offset_forms(op, off)?;
                let (b, f) = (field(&op.srcs[m.base].name), field(&op.modifiers[off].name));
                Some(quote! {
                    let op = {
                        let mut op = op;
                        let unsigned = family_of(sm).is_some_and(|f| f.unsigned_absolute());
                        let v = op.#f as i64;
                        if unsigned
                            && matches!(op.#b.kind, SrcKind::Reg(r) if r.is_zero())
                            && v >= 1i64 << (#nb - 1) && v < 1i64 << #nb
                            && matches!(op.form_id(sm), Some(#(#ids)|*))
                        {
                            op.#f = (v - (1i64 << #nb)) as _;
                        }
                        op
                    };
                })
            }
            _ => None,
        })
        .collect()
}

/// The parser's result: the op with its guard, `ctrl` (the `.reuse` marks
/// as the chosen form's control bits) and `raw` (the raw bits as ptxas
/// writes them in that form), both looked up in per-form tables; the form
/// is chosen only when one of them depends on it.
/// Also whether it reads the `.reuse` marks.
fn parse_tail(op: &Op, asm: &Asm) -> (TokenStream, bool) {
    let fs = forms(op);
    let reuse = op.srcs.iter().enumerate().filter_map(|(i, s)| {
        asm.operands.iter().find(|o| {
            o.item == AsmItem::Src(i) || matches!(o.item, AsmItem::Mem(m) if m.base == i)
        })?;
        let bits: Vec<Literal> = fs
            .iter()
            .map(|f| Literal::u8_unsuffixed(f.form.reuse[i].map_or(0, |b| b as u8)))
            .collect();
        bits.iter().any(|b| b.to_string() != "0").then(|| {
            let name = &s.name;
            quote!((#name, &[#(#bits),*]))
        })
    });
    let reuse: Vec<TokenStream> = reuse.collect();
    let ctrl = if reuse.is_empty() {
        None
    } else {
        Some(quote!(let ctrl = reuse_ctrl(&reuse_marks, form, &[#(#reuse),*]);))
    };
    let canon: Vec<u128> = fs.iter().map(|f| f.form.canonical_raw()).collect();
    let raw = match canon.first() {
        _ if canon.iter().all(|&x| x == 0) => None,
        Some(&c) if canon.iter().all(|&x| x == c) => {
            let c = crate::encode::u128_lit(c);
            Some(quote!(let raw = form.map_or(0, |_| #c);))
        }
        _ => {
            let c = canon.iter().map(|&c| crate::encode::u128_lit(c));
            Some(quote!(let raw = form.map_or(0, |f| [#(#c),*][f as usize]);))
        }
    };
    let form = (ctrl.is_some() || raw.is_some()).then(|| quote!(let form = op.form_id(sm);));
    let value = |name: &str, code: &Option<TokenStream>| match code {
        Some(_) => {
            let v = ident(name);
            quote!(#v)
        }
        None => quote!(0),
    };
    let (cv, rv) = (value("ctrl", &ctrl), value("raw", &raw));
    let tail = quote! {
        #form
        #ctrl
        #raw
        parsed(op, line, #cv, #rv)
    };
    (tail, ctrl.is_some())
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
/// no value for the parts and no value with empty text (`None`: the parser
/// returns `None`, not this op's line). `None`: not a bool or enum.
fn suffix_expr(
    spec: &Spec,
    m: &Modifier,
    rest: TokenStream,
    cur: TokenStream,
    fail: Option<TokenStream>,
) -> Option<TokenStream> {
    match &m.ty {
        ModType::Bool => {
            let t = &m.text;
            Some(quote!(take_suffix(#rest, &mut #cur, #t)))
        }
        ModType::Enum(e) => {
            let t = enum_type(&spec.enums[*e].name);
            let take = quote!(take_enum_suffix(#rest, &mut #cur, &#t::ALL, |v| v.text_sm(sm)));
            Some(match fail {
                None => quote!(#take?),
                Some(fail) => quote!(match #take { Some(v) => v, None => #fail }),
            })
        }
        _ => None,
    }
}

/// The SMs on which some form encodes source `i` in a register field.
fn src_sms(op: &Op, i: usize) -> Vec<u32> {
    let mut sms: Vec<u32> = op
        .encodings
        .iter()
        .filter(|e| {
            e.forms.iter().any(|f| {
                f.fields
                    .iter()
                    .any(|x| matches!(x.target, FieldTarget::SrcReg { idx, .. } if idx == i))
            })
        })
        .flat_map(|e| e.sms.iter().copied())
        .collect();
    sms.sort_unstable();
    sms.dedup();
    sms
}
