//! Helpers every generator shares: Rust types and default values of spec
//! items, and where an item is in the spec. Below all generators (they
//! and the top-level `ops` import it; it imports none of them).

use crate::names::enum_type;
use crate::names::enum_variant;
use isa_spec::diag::Loc;
use isa_spec::model::*;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// `file:line` of a spec item (the file as the loader shows it, relative
/// to the workspace), for the doc comment of the code generated from it:
/// a compiler error in generated code then leads to the spec line.
pub(crate) fn spec_line(spec: &Spec, loc: &Loc) -> String {
    let file = spec.files.get(loc.file);
    let (line, _) = file.line_col(loc.span.start);
    format!("{}:{line}", file.path)
}

/// A doc attribute `Spec: file:line.` for code generated from a spec item.
pub(crate) fn spec_doc(spec: &Spec, loc: &Loc) -> TokenStream {
    let text = format!(" Spec: {}.", spec_line(spec, loc));
    quote!(#[doc = #text])
}

/// `ValueType::X` for a value type.
pub(crate) fn value_type(t: ValueType) -> TokenStream {
    let v = match t {
        ValueType::U32 => quote!(U32),
        ValueType::I32 => quote!(I32),
        ValueType::B32 => quote!(B32),
        ValueType::F32 => quote!(F32),
        ValueType::U64 => quote!(U64),
        ValueType::I64 => quote!(I64),
        ValueType::F64 => quote!(F64),
        ValueType::Pred => quote!(Pred),
    };
    quote!(ValueType::#v)
}

/// Rust type of a modifier value.
pub(crate) fn mod_type(spec: &Spec, m: &Modifier) -> TokenStream {
    match &m.ty {
        ModType::Bool => quote!(bool),
        ModType::Int { signed: false, .. } => quote!(u32),
        ModType::Int { signed: true, .. } => quote!(i32),
        ModType::Rel => quote!(i64),
        ModType::Abs { signed: false } => quote!(u64),
        ModType::Abs { signed: true } => quote!(i64),
        ModType::Enum(e) => {
            let t = enum_type(&spec.enums[*e].name);
            quote!(#t)
        }
    }
}

/// Expression for a modifier's default value.
pub(crate) fn mod_default(spec: &Spec, m: &Modifier) -> TokenStream {
    match &m.ty {
        ModType::Bool => {
            let b = m.default != 0;
            quote!(#b)
        }
        ModType::Int { signed: false, .. } => {
            let v = Literal::u32_suffixed(m.default as u32);
            quote!(#v)
        }
        ModType::Int { signed: true, .. } => {
            let v = Literal::i32_suffixed(m.default as i32);
            quote!(#v)
        }
        ModType::Rel => {
            let v = Literal::i64_suffixed(m.default);
            quote!(#v)
        }
        ModType::Abs { signed: false } => {
            let v = Literal::u64_suffixed(m.default as u64);
            quote!(#v)
        }
        ModType::Abs { signed: true } => {
            let v = Literal::i64_suffixed(m.default);
            quote!(#v)
        }
        ModType::Enum(e) => {
            let en = &spec.enums[*e];
            let t = enum_type(&en.name);
            let v = enum_variant(&en.values[m.default as usize].name);
            quote!(#t::#v)
        }
    }
}

/// Expression for an operand's default value.
pub(crate) fn src_default(o: &Operand) -> Option<TokenStream> {
    o.default.map(|d| match (d, o.ty.is_pred()) {
        (DefaultValue::Zero, true) => quote!(Src::PT),
        (DefaultValue::Zero, false) => quote!(Src::RZ),
        (DefaultValue::UniformZero, true) => quote!(Src::reg(Reg::UPT)),
        (DefaultValue::UniformZero, false) => quote!(Src::reg(Reg::URZ)),
        (DefaultValue::False, _) => quote!(Src::FALSE),
        (DefaultValue::Imm(v), _) => quote!(Src::imm(#v)),
    })
}

pub(crate) fn dst_default(o: &Operand) -> Option<TokenStream> {
    o.default.map(|d| match (d, o.ty.is_pred()) {
        (DefaultValue::UniformZero, true) => quote!(Reg::UPT),
        (DefaultValue::UniformZero, false) => quote!(Reg::URZ),
        (_, true) => quote!(Reg::PT),
        (_, false) => quote!(Reg::RZ),
    })
}

/// The size every text of `e` is padded to for `chunk_sm` (a printer then
/// writes it as one fixed-size store instead of a copy of run-time length),
/// or `None` when some text is not ASCII or longer than 64 bytes.
pub(crate) fn enum_chunk_size(e: &Enum) -> Option<usize> {
    let mut texts = e
        .values
        .iter()
        .flat_map(|v| std::iter::once(&v.text).chain(v.sm_texts.iter().map(|(_, t)| t)));
    if !texts.clone().all(|t| t.is_ascii()) {
        return None;
    }
    let longest = texts.by_ref().map(|t| t.len()).max().unwrap_or(0);
    [8usize, 16, 32, 64].into_iter().find(|&n| n >= longest)
}

/// `quote!` helper: a doc attribute from text.
pub(crate) fn doc(text: &str) -> TokenStream {
    let lines: Vec<TokenStream> = text
        .lines()
        .map(|l| {
            let l = format!(" {}", l.trim_end());
            quote!(#[doc = #l])
        })
        .collect();
    quote!(#(#lines)*)
}

/// Whether `op` has a `part` selector (its encoder and decoder check it).
pub(crate) fn has_parts(op: &Op) -> bool {
    op.srcs.iter().any(|s| s.part.is_some())
}

/// The statements (compared by their text) that every list has, for code
/// the forms of one encoding share; empty for fewer than two lists.
pub(crate) fn common_statements(lists: &[&[TokenStream]]) -> std::collections::HashSet<String> {
    let Some((first, rest)) = lists.split_first() else {
        return Default::default();
    };
    if rest.is_empty() {
        return Default::default();
    }
    let mut common: std::collections::HashSet<String> =
        first.iter().map(|t| t.to_string()).collect();
    for l in rest {
        let here: std::collections::HashSet<String> = l.iter().map(|t| t.to_string()).collect();
        common.retain(|s| here.contains(s));
    }
    common
}

/// The width of memory offset modifier `off`'s type (64 for others).
pub(crate) fn offset_type_bits(op: &Op, off: usize) -> u32 {
    match op.modifiers[off].ty {
        ModType::Int { bits, .. } => bits,
        _ => 64,
    }
}

/// The signed range, in bits, the assembler reads offset `off` in
/// (63 without one): an unsigned offset's top bit is no sign, so it gets
/// one more (ISBEWR's `[R2+0xffff]`).
pub(crate) fn parsed_offset_bits(op: &Op, off: Option<usize>) -> u32 {
    match off.map(|o| &op.modifiers[o].ty) {
        Some(ModType::Int { bits, signed }) => (*bits + u32::from(!signed)).min(63),
        _ => 63,
    }
}

/// Where an op's forms hold offset `off` in fields of different widths
/// (LD's 32-bit register-only form beside LDG's 24 bits): the forms whose
/// field is narrower than the type, and that width. An absolute address
/// prints as wide as its field, so printer and parser ask the form.
pub(crate) fn narrow_offset_forms(op: &Op, off: usize) -> Option<(Vec<Literal>, u32)> {
    let ty_bits = offset_type_bits(op, off);
    let widths: Vec<(usize, u32)> = crate::encode::forms(op)
        .iter()
        .filter_map(|f| {
            f.form.fields.iter().find_map(|fl| match fl.target {
                // A scaled field (`off:x4`) holds the offset's high bits.
                FieldTarget::Modifier { idx, scale, .. } if idx == off => {
                    Some((f.id, fl.bits.width() + scale.max(1).trailing_zeros()))
                }
                _ => None,
            })
        })
        .collect();
    if widths.iter().all(|w| w.1 < ty_bits) {
        return None;
    }
    let nb = widths.iter().map(|w| w.1).filter(|&b| b < ty_bits).max()?;
    let ids = widths
        .iter()
        .filter(|w| w.1 < ty_bits)
        .map(|w| Literal::u8_unsuffixed(w.0 as u8))
        .collect();
    Some((ids, nb))
}

/// A `lanes` modifier's lane width, lane count and texts by code (the
/// lint has checked that every code has one).
pub(crate) fn lane_texts(spec: &Spec, m: &Modifier) -> (u32, u32, Vec<String>) {
    let Some(l) = m.lanes else {
        return (0, 0, Vec::new());
    };
    let texts = l.texts(spec).into_iter().map(str::to_string).collect();
    (l.bits, l.count, texts)
}
