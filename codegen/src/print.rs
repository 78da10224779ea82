//! Printers: mnemonic (or alias), suffixes, then operands in the order and
//! with the omissions the spec's `[asm]` table gives, as nvdisasm prints them.

use crate::Error;
use crate::encode::forms;
use crate::names::field;
use crate::shared::{dst_default, lane_texts, mod_default, src_default};
use isa_spec::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

pub(crate) fn imm_style(t: ValueType) -> TokenStream {
    match t {
        ValueType::B32 | ValueType::U64 | ValueType::Pred => quote!(ImmStyle::Hex),
        ValueType::U32 | ValueType::I32 | ValueType::I64 => quote!(ImmStyle::SignedHex),
        ValueType::F32 => quote!(ImmStyle::F32),
        ValueType::F64 => quote!(ImmStyle::F64Hi),
    }
}

/// Print style of source `i`: a `b32` immediate prints as unsigned hex,
/// except on the SMs where a form stores it sign-extended (Maxwell's imm20)
/// or that `imm_signed` names, where nvdisasm prints it signed; with
/// `imm_field` a sign-extended immediate prints as its field's bits
/// instead (Maxwell IADD3's `0xffc02`).
pub(crate) fn src_imm_style(op: &Op, i: usize) -> TokenStream {
    let s = &op.srcs[i];
    let base = imm_style(s.ty);
    if s.ty != ValueType::B32 && !s.imm_field {
        return base;
    }
    let mut sms: Vec<u32> = Vec::new();
    let mut width = 0u32;
    for f in forms(op) {
        for fl in &f.form.fields {
            if matches!(fl.target, FieldTarget::SrcImm { idx, packing } if idx == i && packing.sext)
            {
                sms.extend(f.form.sms.iter().copied());
                width = width.max(fl.bits.width());
            }
        }
    }
    let sext = if s.imm_field {
        let w = Literal::u8_unsuffixed(width.min(32) as u8);
        quote!(ImmStyle::FieldHex(#w))
    } else {
        quote!(ImmStyle::SignedHex)
    };
    if s.imm_signed.is_empty() {
        if sms.is_empty() {
            return base;
        }
        sms.sort_unstable();
        sms.dedup();
        let pat = crate::encode::sm_pattern(&sms);
        return quote!(if matches!(sm, #pat) {
            #sext
        } else {
            #base
        });
    }
    // `imm_signed` SMs print signed too; a field-bits style keeps its SMs.
    let mut signed = s.imm_signed.clone();
    if !s.imm_field {
        signed.append(&mut sms);
    }
    signed.sort_unstable();
    signed.dedup();
    let spat = crate::encode::sm_pattern(&signed);
    let field_arm = (s.imm_field && !sms.is_empty()).then(|| {
        sms.sort_unstable();
        sms.dedup();
        let pat = crate::encode::sm_pattern(&sms);
        quote!(#pat => #sext,)
    });
    quote!(match sm {
        #field_arm
        #spat => ImmStyle::SignedHex,
        _ => #base,
    })
}

pub(crate) fn alias_cond(spec: &Spec, op: &Op, c: &AliasCond) -> TokenStream {
    let _ = spec;
    match c {
        AliasCond::SrcIsZero(i, yes) => {
            let f = field(&op.srcs[*i].name);
            // The zero register, whatever its modifiers (nvdisasm ignores them).
            quote!(matches!({ self.#f.kind }, SrcKind::Reg(r) if r.is_zero()) == #yes)
        }
        AliasCond::SrcKindIs(i, k, yes) => {
            let f = field(&op.srcs[*i].name);
            let kt = crate::encode::kind_tokens(*k);
            quote!((self.#f.slot_kind() == #kt) == #yes)
        }
        AliasCond::SrcImmEq(i, v) => {
            let f = field(&op.srcs[*i].name);
            quote!(self.#f == Src::imm(#v))
        }
        AliasCond::SrcImmPow2(i) => {
            let f = field(&op.srcs[*i].name);
            // A signed source prints 0x80000000 as -0x80000000: not a power of two.
            let max = if op.srcs[*i].ty == ValueType::I32 {
                0x4000_0000u32
            } else {
                0x8000_0000u32
            };
            quote!(!self.#f.has_mods() && matches!({ self.#f.kind }, SrcKind::Imm(v) if v.is_power_of_two() && v <= #max))
        }
        AliasCond::SrcPlain(i) => {
            let f = field(&op.srcs[*i].name);
            quote!(!self.#f.has_mods())
        }
        AliasCond::ModEq(i, v, eq) => {
            let m = &op.modifiers[*i];
            let f = field(&m.name);
            let lhs = match m.ty {
                ModType::Enum(_) => quote!(self.#f.index() as i64),
                _ => quote!(self.#f as i64),
            };
            quote!((#lhs == #v) == #eq)
        }
    }
}

/// Condition for operand `o` of the syntax whose operands are `ops` to
/// be printed (`x? or y`: also when operand `y` is).
pub(crate) fn asm_cond(spec: &Spec, op: &Op, ops: &[AsmOperand], o: &AsmOperand) -> TokenStream {
    let own = own_cond(spec, op, o);
    let own = match o.or_mod {
        Some(m) => {
            let md = &op.modifiers[m];
            let f = field(&md.name);
            let def = mod_default(spec, md);
            quote!((#own || self.#f != #def))
        }
        None => own,
    };
    match o.or_shown.and_then(|i| ops.get(i)) {
        Some(other) => {
            let other = asm_cond(spec, op, ops, other);
            quote!((#own || #other))
        }
        None => own,
    }
}

/// `asm_cond` without `or`.
fn own_cond(spec: &Spec, op: &Op, o: &AsmOperand) -> TokenStream {
    match &o.cond {
        AsmCond::Always => quote!(true),
        AsmCond::If(m, flag) => {
            let f = field(&op.modifiers[*m].name);
            quote!(self.#f == #flag)
        }
        AsmCond::IfOptional(m, flag) => {
            let f = field(&op.modifiers[*m].name);
            let shown = AsmOperand {
                cond: AsmCond::NotDefault,
                or_shown: None,
                or_mod: None,
                ..o.clone()
            };
            let not_default = own_cond(spec, op, &shown);
            quote!(self.#f == #flag && #not_default)
        }
        AsmCond::NotDefault => match &o.item {
            AsmItem::Dst(i) => {
                let d = &op.dsts[*i];
                let f = field(&d.name);
                let def = dst_default(d).unwrap_or(quote!(Reg::RZ));
                quote!(self.#f != #def)
            }
            AsmItem::Src(i) if swizzled(op, o) => {
                // One suffix modifier after a source: a swizzle, placed
                // by the runtime (inside `|...|` but for a GPR).
                swizzled_src(spec, op, o, *i)
            }
            AsmItem::Src(i) => {
                let s = &op.srcs[*i];
                let f = field(&s.name);
                let def = src_default(s).unwrap_or(quote!(Src::RZ));
                quote!(self.#f != #def)
            }
            AsmItem::Modifier(i) => {
                let m = &op.modifiers[*i];
                let f = field(&m.name);
                let def = mod_default(spec, m);
                quote!(self.#f != #def)
            }
            AsmItem::Mem(..) | AsmItem::AttrOff(..) | AsmItem::Desc(..) => quote!(true),
        },
    }
}

/// How wide an absolute address prints (nvdisasm shows an RZ base's
/// offset unsigned, as wide as its field): the offset's type width, or
/// the narrower width of the form the op takes (`narrow_offset_forms`).
fn offset_bits(op: &Op, off: usize) -> TokenStream {
    let ty_bits = crate::shared::offset_type_bits(op, off);
    match crate::shared::narrow_offset_forms(op, off) {
        None => quote!(#ty_bits),
        Some((ids, nb)) => {
            quote!(if matches!(self.form_id(sm), Some(#(#ids)|*)) { #nb } else { #ty_bits })
        }
    }
}

/// Print a memory address: `[a+off]` with `write_mem`, one with a width or
/// a uniform register with `write_mem_addr`, a scaled one (`[a*s+off]`)
/// with `write_mem_scaled`.
fn mem_print(spec: &Spec, op: &Op, m: &isa_spec::model::MemItem) -> TokenStream {
    let s = &op.srcs[m.base];
    let f = field(&s.name);
    let r = crate::names::ident(&format!("reuse_{}", s.name));
    // `[a]` (no offset modifier): printed as `[a+off]` with the offset 0.
    let Some(moff) = m.off else {
        // With offset 0 the width is never used.
        return quote!(write_mem(out, &self.#f, #r, 0i64, 24, sm));
    };
    let off = field(&op.modifiers[moff].name);
    let bits = offset_bits(op, moff);
    if let Some(b) = m.bank {
        let bank = field(&op.modifiers[b].name);
        return quote!(write_cmem(out, self.#bank as u64, &self.#f, #r, self.#off as i64, sm));
    }
    if m.width.is_none() && m.ur.is_none() {
        return quote!(write_mem(out, &self.#f, #r, self.#off as i64, #bits, sm));
    }
    let width = match m.width {
        Some(w) => {
            let wf = field(&op.modifiers[w].name);
            quote!(self.#wf.text_sm(sm))
        }
        None => quote!(""),
    };
    let (ur, mode) = match (m.ur, m.mode) {
        (Some(u), Some(md)) => {
            let uf = field(&op.srcs[u].name);
            match mem_mode_expr(spec, op, md) {
                Ok(mode) => (quote!(Some(&self.#uf)), mode),
                Err(e) => {
                    let msg = e.message;
                    return quote!(compile_error!(#msg));
                }
            }
        }
        _ => (quote!(None), quote!(crate::runtime::mem::AddrMode::Reg)),
    };
    if m.scale {
        return quote!(write_mem_scaled(out, &self.#f, #r, #width, #ur, #mode, self.#off as i64, #bits, sm));
    }
    let width = match m.width {
        Some(_) => quote!(Some(#width)),
        None => quote!(None),
    };
    quote!(write_mem_addr(out, &self.#f, #r, #width, #ur, #mode, self.#off as i64, #bits, sm))
}

/// The runtime `AddrMode` of the op's address-mode modifier `md` (an
/// enum whose values are named `reg`, `ur`, `desc`).
pub(crate) fn mem_mode_expr(spec: &Spec, op: &Op, md: usize) -> Result<TokenStream, Error> {
    let m = &op.modifiers[md];
    let ModType::Enum(e) = m.ty else {
        return Err(Error {
            message: format!("op {}: address mode `{}` is not an enum", op.name, m.name),
            loc: None,
        });
    };
    let en = &spec.enums[e];
    let t = crate::names::enum_type(&en.name);
    let f = field(&m.name);
    let mut arms = Vec::new();
    for v in &en.values {
        let mode = match isa_spec::model::MemMode::from_name(&v.name) {
            Some(isa_spec::model::MemMode::Reg) => quote!(Reg),
            Some(isa_spec::model::MemMode::Ur) => quote!(Ur),
            Some(isa_spec::model::MemMode::Desc) => quote!(Desc),
            None => {
                return Err(Error {
                    message: format!(
                        "op {}: address mode value `{}` of `{}` is not reg, ur or desc",
                        op.name, v.name, en.name
                    ),
                    loc: None,
                });
            }
        };
        let var = crate::names::enum_variant(&v.name);
        arms.push(quote!(#t::#var => crate::runtime::mem::AddrMode::#mode));
    }
    Ok(quote!(match self.#f { #(#arms),* }))
}

/// Print the text of enum `e`'s value `v` on `sm`: one fixed-size store of
/// its padded chunk where the enum has one.
fn enum_text(spec: &Spec, e: usize, v: TokenStream) -> TokenStream {
    match spec.enums.get(e).and_then(crate::shared::enum_chunk_size) {
        Some(_) => quote!(out.push_text_chunk(#v.chunk_sm(sm))),
        None => quote!(out.push_str(#v.text_sm(sm))),
    }
}

pub fn op_print(spec: &Spec, op: &Op) -> Result<TokenStream, Error> {
    let fs = forms(op);
    // `.reuse` flag per source: the control bit for its register field in the chosen form.
    let mut reuse_lets = Vec::new();
    // Every control bit that is some source's reuse flag in some form.
    let mut reuse_mask = 0u32;
    for (i, s) in op.srcs.iter().enumerate() {
        // Forms that keep this source's reuse flag in the same bit share an arm.
        let mut by_bit: std::collections::BTreeMap<u32, Vec<Literal>> = Default::default();
        for f in &fs {
            if let Some(bit) = f.form.reuse[i] {
                reuse_mask |= 1 << bit;
                by_bit
                    .entry(bit)
                    .or_default()
                    .push(Literal::u8_unsuffixed(f.id as u8));
            }
        }
        let arms: Vec<TokenStream> = by_bit
            .into_iter()
            .map(|(bit, ids)| {
                let bit = Literal::u32_unsuffixed(bit);
                quote!((matches!(form, Some(#(#ids)|*)) && c.ctrl >> #bit & 1 != 0))
            })
            .collect();
        let v = crate::names::ident(&format!("reuse_{}", s.name));
        if arms.is_empty() {
            reuse_lets.push(quote!(let #v = false;));
        } else {
            reuse_lets.push(quote!(let #v = #(#arms)||*;));
        }
    }
    // The form is only needed to read reuse flags, and most instructions
    // set none.
    let form = if reuse_mask == 0 {
        quote!()
    } else {
        let mask = Literal::u32_unsuffixed(reuse_mask);
        quote!(let form = if c.ctrl & #mask != 0 { self.form_id(sm) } else { None };)
    };
    let uses_next = op.modifiers.iter().any(|m| matches!(m.ty, ModType::Rel));
    let next = if uses_next {
        quote!(let next: i64 = family_of(sm).map_or(16, |f| (f.width() / 8) as i64);)
    } else {
        quote!()
    };
    let bodies = std::iter::once((None, &op.asm))
        .chain(op.asm.variants.iter().map(|(sms, a)| (Some(sms), a)))
        .map(|(sms, asm)| (sms, print_body(spec, op, asm)))
        .collect::<Vec<_>>();
    let mut arms = Vec::new();
    let mut default = quote!();
    for (sms, body) in bodies {
        match sms {
            Some(sms) => {
                let pat = crate::encode::sm_pattern(sms);
                arms.push(quote!(#pat => { #body }));
            }
            None => default = body,
        }
    }
    // One syntax: its text, with no match on the SM.
    let text = if arms.is_empty() {
        default
    } else {
        quote!(match sm { #(#arms)* _ => { #default } })
    };
    let spec_doc = crate::shared::spec_doc(spec, &op.asm.loc);
    Ok(quote! {
        /// Write nvdisasm's text (normalized as in the corpus) for this op
        /// at byte address `addr` (inlined into each form's one-step
        /// printer and into `print_line`).
        #spec_doc
        #[inline(always)]
        fn print(&self, c: &Common, sm: u32, addr: u64, out: &mut LineBuf) {
            #form
            #next
            #(#reuse_lets)*
            write_guard(out, &c.guard);
            #text
            out.trim_end_spaces();
        }
    })
}

/// `write_src_swizzled(...)` for source `i` with its swizzle suffix `o`.
/// A constant prints with a blank between its brackets (`c[0x0] [0x10]`,
/// as nvdisasm prints HADD2's) where every form that takes the source
/// from a constant has a field for the swizzle; Maxwell IADD3's constant
/// form has none and prints `c[0x2][0x10]`. A one-value enum (PLOP3's
/// `.SIGN`) needs no field and prints with the blank.
fn swizzled_src(spec: &Spec, op: &Op, o: &isa_spec::model::AsmOperand, i: usize) -> TokenStream {
    let s = &op.srcs[i];
    let f = field(&s.name);
    let r = crate::names::ident(&format!("reuse_{}", s.name));
    let style = src_imm_style(op, i);
    let style = if s.type_by.is_empty() {
        quote!(#style.for_sm(sm))
    } else {
        let view = crate::names::ident(&format!("{}_view", s.name));
        quote!(self.#view().map_or(#style, View::imm_style).for_sm(sm))
    };
    let mi = o.suffixes[0];
    let m = &op.modifiers[mi];
    let mf = field(&m.name);
    let swz = match m.ty {
        ModType::Enum(_) => quote!(self.#mf.text_sm(sm)),
        _ => {
            let t = &m.text;
            quote!(if self.#mf { #t } else { "" })
        }
    };
    let one_value = matches!(m.ty, ModType::Enum(e) if spec.enums[e].values.len() == 1);
    // Per family: its forms decide the blank, its reference the bars.
    let mut blank_sms = Vec::new();
    let mut bars_sms = Vec::new();
    for (fi, fam) in spec.families.iter().enumerate() {
        let forms: Vec<_> = op
            .encodings
            .iter()
            .filter(|e| e.family == fi)
            .flat_map(|e| &e.forms)
            .collect();
        if forms.is_empty() {
            continue;
        }
        if fam.swizzle_in_bars {
            bars_sms.extend(fam.sms.iter().copied());
            continue;
        }
        let blank = one_value
            || forms.iter().all(|form| {
                form.src_kinds[i] != Some(SlotKindClass::Cbuf)
                    || form.fields.iter().any(
                        |fl| matches!(fl.target, FieldTarget::Modifier { idx, .. } if idx == mi),
                    )
            });
        if blank {
            blank_sms.extend(fam.sms.iter().copied());
        }
    }
    let on = |sms: &[u32]| {
        if sms.is_empty() {
            quote!(false)
        } else {
            quote!(matches!(sm, #(#sms)|*))
        }
    };
    let (blank, bars) = (on(&blank_sms), on(&bars_sms));
    quote!(write_src_swizzled(out, &self.#f, #r, #style, #swz, #blank, #bars))
}

/// Whether operand `o` is a source with one suffix modifier (a swizzle,
/// `"b+bsel"`), printed by the runtime's `write_src_swizzled`.
fn swizzled(op: &Op, o: &isa_spec::model::AsmOperand) -> bool {
    matches!(o.item, AsmItem::Src(i) if op.srcs[i].part.is_none()) && o.suffixes.len() == 1
}

fn print_body(spec: &Spec, op: &Op, asm: &Asm) -> TokenStream {
    let mnemonic = {
        let base = &asm.mnemonic;
        let mut chain = quote!(#base);
        for a in op.aliases.iter().rev() {
            let conds: Vec<TokenStream> = a.when.iter().map(|c| alias_cond(spec, op, c)).collect();
            let m = &a.mnemonic;
            chain = quote!(if #(#conds)&&* { #m } else { #chain });
        }
        chain
    };
    let suffixes = asm.suffixes.iter().map(|&mi| {
        let m = &op.modifiers[mi];
        let f = field(&m.name);
        match m.ty {
            ModType::Bool => {
                let t = &m.text;
                quote!(if self.#f { out.push_str(#t); })
            }
            ModType::Enum(e) => {
                let e = enum_text(spec, e, quote!(self.#f));
                quote!(#e;)
            }
            _ => {
                let t = &m.text;
                quote!({ out.push_str(#t); let _ = write!(out, "{}", self.#f); })
            }
        }
    });
    // Whether an operand was printed before this one is known at generation
    // time while every earlier operand is unconditional or none was; only
    // after a conditional one does the printer track it at run time.
    #[derive(Clone, Copy, PartialEq)]
    enum Before {
        Nothing,
        Something,
        Unknown,
    }
    let mut before = Before::Nothing;
    let mut runtime_first = false;
    let operands: Vec<TokenStream> = asm.operands.iter().map(|o| {
        let cond = asm_cond(spec, op, &asm.operands, o);
        let always = cond.to_string() == "true";
        let item = match &o.item {
            AsmItem::Dst(i) => {
                let f = field(&op.dsts[*i].name);
                quote!(write_reg(out, self.#f))
            }
            AsmItem::Src(i) if swizzled(op, o) => {
                // One suffix modifier after a source: a swizzle, placed
                // by the runtime (inside `|...|` but for a GPR).
                swizzled_src(spec, op, o, *i)
            }
            AsmItem::Src(i) => {
                let s = &op.srcs[*i];
                let f = field(&s.name);
                let style = src_imm_style(op, *i);
                let r = crate::names::ident(&format!("reuse_{}", s.name));
                if s.type_by.is_empty() {
                    quote!(write_src(out, &self.#f, #r, #style.for_sm(sm)))
                } else {
                    // The type the modifiers choose decides the immediate's
                    // style and the part printed after the register.
                    let view = crate::names::ident(&format!("{}_view", s.name));
                    let sel = match s.part {
                        Some(p) => {
                            let p = field(&op.modifiers[p].name);
                            quote!(self.#p)
                        }
                        None => quote!(0),
                    };
                    let style = if s.imm_declared {
                        quote!(#style.for_sm(sm))
                    } else {
                        quote!(view.map_or(#style, View::imm_style).for_sm(sm))
                    };
                    let part_style = if s.part_bytes {
                        quote!(PartStyle::Bytes)
                    } else if s.part_half {
                        quote!(PartStyle::Half)
                    } else {
                        quote!(PartStyle::Index)
                    };
                    quote!({
                        let view = self.#view();
                        let style = #style;
                        write_src_part(out, &self.#f, #r, style, view, #sel, #part_style)
                    })
                }
            }
            AsmItem::Modifier(i) if op.modifiers[*i].lanes.is_some() => {
                let m = &op.modifiers[*i];
                let f = field(&m.name);
                let (bits, count, texts) = lane_texts(spec, m);
                quote!(write_lanes(out, self.#f, #bits, #count, &[#(#texts),*]))
            }
            AsmItem::Modifier(i) => {
                let m = &op.modifiers[*i];
                let f = field(&m.name);
                match m.ty {
                    ModType::Int { signed: false, .. } => quote!(write_hex(out, self.#f as u64)),
                    ModType::Int { signed: true, .. } => quote!(write_signed_hex(out, self.#f as i64)),
                    ModType::Rel => quote!(write_signed_hex(out, (addr as i64).wrapping_add(next).wrapping_add(self.#f))),
                    ModType::Abs { signed: false } => quote!(write_hex(out, self.#f)),
                    ModType::Abs { signed: true } => quote!(write_signed_hex(out, self.#f)),
                    ModType::Enum(e) => enum_text(spec, e, quote!(self.#f)),
                    ModType::Bool => quote!(out.push_str(if self.#f { "1" } else { "0" })),
                }
            }
            AsmItem::Mem(m) if m.attr => {
                let p = mem_print(spec, op, m);
                let as_offset = op.encodings.iter().any(|e| spec.families[e.family].attr_rz_as_offset);
                match (as_offset, m.off) {
                    // `a[0x0]` where the reference prints RZ without an offset so.
                    (true, Some(moff)) => {
                        let b = field(&op.srcs[m.base].name);
                        let off = field(&op.modifiers[moff].name);
                        quote!({
                            out.push('a');
                            if self.#off == 0 && matches!(self.#b.kind, SrcKind::Reg(r) if r.is_zero()) {
                                out.push_str("[0x0]");
                            } else {
                                #p
                            }
                        })
                    }
                    _ => quote!({ out.push('a'); #p }),
                }
            }
            AsmItem::Mem(m) => mem_print(spec, op, m),
            AsmItem::Desc(i) => {
                let f = field(&op.srcs[*i].name);
                quote!({ out.push_str("gdesc["); write_src(out, &self.#f, false, ImmStyle::Hex); out.push(']') })
            }
            AsmItem::AttrOff(i) => {
                let f = field(&op.modifiers[*i].name);
                quote!({ out.push_str("a["); write_hex(out, self.#f as u64); out.push(']') })
            }
        };
        // Modifiers printed right after the operand (`R2.CC`); a source's
        // swizzle is placed by `write_src_swizzled`.
        let own: &[usize] = if swizzled(op, o) { &[] } else { &o.suffixes };
        let sfx: Vec<TokenStream> = own.iter().map(|&mi| {
            let m = &op.modifiers[mi];
            let f = field(&m.name);
            match m.ty {
                ModType::Enum(e) => {
                    let e = enum_text(spec, e, quote!(self.#f));
                    quote!(#e;)
                }
                _ => {
                    let t = &m.text;
                    quote!(if self.#f { out.push_str(#t); })
                }
            }
        }).collect();
        let item = if sfx.is_empty() {
            item
        } else {
            quote!({ #item; #(#sfx)* })
        };
        let sep = match before {
            _ if o.blank => quote!(out.push_str(" ");),
            Before::Nothing => quote!(out.push_str(" ");),
            Before::Something => quote!(out.push_str(", ");),
            Before::Unknown => quote!(out.push_str(if first { " " } else { ", " });),
        };
        // Once the state is unknown, every printed operand must clear `first`.
        let mark = if before == Before::Unknown || (!always && before == Before::Nothing) {
            runtime_first = true;
            quote!(first = false;)
        } else {
            quote!()
        };
        before = match (before, always) {
            (_, true) => Before::Something,
            (Before::Nothing, false) => Before::Unknown,
            (b, false) => b,
        };
        if always {
            quote!(#sep #mark #item;)
        } else {
            quote!(if #cond { #sep #mark #item; })
        }
    }).collect();
    let first = if runtime_first {
        quote!(let mut first = true;)
    } else {
        quote!()
    };
    quote! {
        out.push_str(#mnemonic);
        #(#suffixes)*
        #first
        #(#operands)*
    }
}
