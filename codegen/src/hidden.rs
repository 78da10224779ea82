//! Bits a form's text does not carry, derived from the spec: the value the
//! assembler writes there, under the condition that hides them. The
//! assembly round-trip test replaces them in a sampled word to get the
//! word print -> parse -> encode must give back (`FormInfo::canonical_word`).
//!
//! Four spec facts hide bits:
//! - `x if m` in `[asm]`: when `m` is not as named, `x` is not printed and
//!   the parser gives it its declared `default` (LEA.HI.SX32's `c`);
//! - two adjacent `x?`, `y?` predicate destinations with one default: with
//!   `x` at its default and `y` not, the text shows `y`'s value alone,
//!   which the parser reads as `x` (IADD3 with only the second carry);
//! - `part`: a source read as a 32- or 64-bit type prints no part, so its
//!   selector reads back as 0;
//! - a 16-bit float immediate prints its low half only (the high half
//!   reads back as 0);
//! - a float immediate that is a NaN (each half of a packed pair on its
//!   own) prints its sign and quiet bit only
//!   (nvdisasm 11, the reference on SM50..SM70, not even the quiet bit of
//!   an f32 or f16): the parser writes every payload bit set, as ptxas
//!   does (`FADD R10, R3, -QNAN` is `0xffffffff` in ptxas output).

use isa_spec::model::{
    AsmCond, AsmItem, DefaultValue, Field, FieldTarget, Form, ImmPacking, ModType, Op,
    SlotKindClass, Spec, ValueType, ViewType,
};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::encode::u128_lit;

/// Bits `mask` become `value` when `word & when_mask == when_value`, on `sms`
/// (the form's SMs of one syntax variant or reference nvdisasm: a range).
/// With `when_any`, one of those bits must be set too.
struct Rule {
    sms: Vec<u32>,
    when_mask: u128,
    when_value: u128,
    when_any: u128,
    mask: u128,
    value: u128,
}

/// The `Hidden` rows of one form as `form_info!` takes them (None when it
/// has none): rules that differ only in their condition are one row with
/// alternative conditions.
pub(crate) fn hidden_rows(spec: &Spec, op: &Op, form: &Form) -> Option<TokenStream> {
    let mut merged: Vec<(Rule, Vec<(u128, u128)>)> = Vec::new();
    for r in rules(spec, op, form) {
        let same = |m: &&mut (Rule, Vec<(u128, u128)>)| {
            (m.0.sms == r.sms && m.0.when_any == r.when_any)
                && (m.0.mask, m.0.value) == (r.mask, r.value)
        };
        match merged.iter_mut().find(same) {
            Some(m) => m.1.push((r.when_mask, r.when_value)),
            None => {
                let when = vec![(r.when_mask, r.when_value)];
                merged.push((r, when));
            }
        }
    }
    let rows = merged.into_iter().map(|(r, when)| {
        let lo = Literal::u32_unsuffixed(*r.sms.iter().min().unwrap_or(&0));
        let hi = Literal::u32_unsuffixed(*r.sms.iter().max().unwrap_or(&0));
        let when = when.into_iter().map(|(m, v)| {
            let (m, v) = (u128_lit(m), u128_lit(v));
            quote!((#m, #v))
        });
        let (any, m, v) = (u128_lit(r.when_any), u128_lit(r.mask), u128_lit(r.value));
        quote!((#lo..=#hi, [#(#when),*], #any, #m, #v))
    });
    let rows: Vec<TokenStream> = rows.collect();
    (!rows.is_empty()).then(|| quote!(#(#rows),*))
}

fn rules(spec: &Spec, op: &Op, form: &Form) -> Vec<Rule> {
    let mut out = Vec::new();
    for (sms, asm_ops) in syntax_groups(op, form) {
        conditional_operands(op, form, &sms, asm_ops, &mut out);
        adjacent_optionals(op, form, &sms, asm_ops, &mut out);
        mem_address(spec, op, form, &sms, asm_ops, &mut out);
    }
    let sms = form.sms.clone();
    for (s, src) in op.srcs.iter().enumerate() {
        if src.type_by.is_empty() {
            continue;
        }
        for (when_mask, when_value, view) in type_combos(spec, op, form, &src.type_by) {
            let wide = view.is_none_or(|v| view_bits(v) >= 32);
            let hide = |mask: u128, value: u128| Rule {
                sms: sms.clone(),
                when_mask,
                when_value,
                when_any: 0,
                mask,
                value,
            };
            // A byte-offset or `.H1` selector is printed for a word too
            // (`R2.B1`, `R0.H1`).
            if let Some(sel) = src.part.and_then(|p| mod_field(form, p))
                && wide
                && !src.part_bytes
                && !src.part_half
            {
                out.push(hide(sel.bits.mask(), 0));
            }
            if let Some(imm) = imm_field(form, s)
                && matches!(view, Some(ViewType::F16 | ViewType::Bf16))
                && imm.bits.width() == 32
            {
                out.push(hide(imm.bits.place(0xffff_0000), 0));
            }
        }
    }
    for (s, src) in op.srcs.iter().enumerate() {
        let Some((imm, packing)) = float_imm_field(form, s) else {
            continue;
        };
        let combos = if src.type_by.is_empty() {
            vec![(0, 0, None)]
        } else {
            type_combos(spec, op, form, &src.type_by)
        };
        for (when_mask, when_value, view) in combos {
            let view = view.or(match src.ty {
                ValueType::F32 => Some(ViewType::F32),
                ValueType::F64 => Some(ViewType::F64),
                _ => None,
            });
            let Some(layout) = view.and_then(nan_layout) else {
                continue;
            };
            // A packed pair's halves are two immediates, each NaN on its own.
            let halves: &[u32] = match view {
                Some(ViewType::F16x2 | ViewType::Bf16x2) => &[0, 16],
                _ => &[0],
            };
            for &half in halves {
                let place = |m: u32| imm.bits.place(packing.pack(m << half));
                let cond = (when_mask, when_value);
                nan_rules(spec, form, cond, layout, &place, &mut out);
            }
        }
    }
    out
}

/// Exponent, quiet bit and fraction masks of a float immediate of this
/// type (an f64 immediate holds the double's high word); whether
/// nvdisasm 11 shows every NaN of it as `QNAN` (f32, f16).
fn nan_layout(view: ViewType) -> Option<(u32, u32, u32, bool)> {
    Some(match view {
        ViewType::F16 | ViewType::F16x2 => (0x7c00, 0x200, 0x3ff, true),
        ViewType::Bf16 | ViewType::Bf16x2 => (0x7f80, 0x40, 0x7f, false),
        ViewType::F32 => (0x7f80_0000, 0x40_0000, 0x7f_ffff, true),
        ViewType::F64 => (0x7ff0_0000, 0x8_0000, 0xf_ffff, false),
        _ => return None,
    })
}

/// A NaN's payload is not printed: every payload bit set is what the
/// parser writes. Where the reference nvdisasm shows no quiet bit either,
/// the whole fraction is.
fn nan_rules(
    spec: &Spec,
    form: &Form,
    (when_mask, when_value): (u128, u128),
    (exp, quiet, frac, v11_hides_quiet): (u32, u32, u32, bool),
    place: &dyn Fn(u32) -> u128,
    out: &mut Vec<Rule>,
) {
    let payload = frac & !quiet;
    let v11 = |sm: &u32| {
        spec.families
            .iter()
            .flat_map(|f| f.reference_nvdisasm.iter())
            .any(|&(s, v)| s == *sm && v == 11)
    };
    let (old, new): (Vec<u32>, Vec<u32>) = form.sms.iter().partition(|sm| v11(sm));
    let mut rule = |sms: &[u32], cond_mask: u32, cond: u32, any: u32, bits: u32| {
        if sms.is_empty() {
            return;
        }
        out.push(Rule {
            sms: sms.to_vec(),
            when_mask: when_mask | place(cond_mask),
            when_value: when_value | place(cond),
            when_any: place(any),
            mask: place(bits),
            value: place(bits),
        });
    };
    let (shows_quiet, hides_quiet) = if v11_hides_quiet {
        (new, old)
    } else {
        ([new, old].concat(), Vec::new())
    };
    rule(&shows_quiet, exp | quiet, exp | quiet, 0, payload);
    rule(&shows_quiet, exp | quiet, exp, payload, payload);
    rule(&hides_quiet, exp, exp, frac, frac);
}

/// The field of a source's float immediate and how it packs the value
/// (Maxwell's imm20 keeps the top 20 of 32 bits, Pascal's imm20h the top
/// 10 of each half).
fn float_imm_field(form: &Form, s: usize) -> Option<(&Field, ImmPacking)> {
    form.fields.iter().find_map(|f| match f.target {
        FieldTarget::SrcImm { idx, packing } if idx == s && !packing.sext => Some((f, packing)),
        _ => None,
    })
}

/// The form's SMs grouped by the `[asm]` syntax nvdisasm prints on them.
fn syntax_groups<'a>(
    op: &'a Op,
    form: &Form,
) -> Vec<(Vec<u32>, &'a [isa_spec::model::AsmOperand])> {
    let mut groups: Vec<(Vec<u32>, &[isa_spec::model::AsmOperand])> = Vec::new();
    for &sm in &form.sms {
        let ops = op
            .asm
            .variants
            .iter()
            .find(|(sms, _)| sms.contains(&sm))
            .map_or(&op.asm.operands[..], |(_, a)| &a.operands[..]);
        match groups.iter_mut().find(|(_, o)| std::ptr::eq(*o, ops)) {
            Some((sms, _)) => sms.push(sm),
            None => groups.push((vec![sm], ops)),
        }
    }
    groups
}

/// `x if m`: when `m` is not as the syntax names it, `x` takes its default
/// (`x? if m`: its bits are written as zero).
fn conditional_operands(
    op: &Op,
    form: &Form,
    sms: &[u32],
    asm_ops: &[isa_spec::model::AsmOperand],
    out: &mut Vec<Rule>,
) {
    for o in asm_ops {
        let (m, flag, zero) = match o.cond {
            AsmCond::If(m, flag) => (m, flag, false),
            // `x? if m`: unused bits, written as zero (as ptxas does).
            AsmCond::IfOptional(m, flag) => (m, flag, true),
            _ => continue,
        };
        let Some((mask, value)) = operand_default(op, form, &o.item) else {
            continue;
        };
        let value = if zero { 0 } else { value };
        let (when_mask, when_value) = match mod_field(form, m) {
            Some(f) => (f.bits.mask(), f.bits.place(u128::from(!flag))),
            // Not encoded: the modifier holds its default in this form.
            None if (op.modifiers[m].default != 0) == flag => continue,
            None => (0, 0),
        };
        if mask != 0 {
            out.push(Rule {
                sms: sms.to_vec(),
                when_mask,
                when_value,
                when_any: 0,
                mask,
                value,
            });
        }
    }
}

/// A memory address `[a.w+u+off] by mode` hides bits two ways: in `reg`
/// mode its uniform register `u` is not printed (the parser gives it URZ,
/// or the `else URn` register),
/// and in `ur` mode an RZ base is left out with its width (`[UR4+0xc]`:
/// the parser writes `.64`, as ptxas does). A scaled address
/// (`[a*scale+u+off]`) instead drops the scale of an RZ base in `reg`
/// mode (`[0x8]`: the parser writes no scale).
fn mem_address(
    spec: &Spec,
    op: &Op,
    form: &Form,
    sms: &[u32],
    asm_ops: &[isa_spec::model::AsmOperand],
    out: &mut Vec<Rule>,
) {
    for o in asm_ops {
        let AsmItem::Mem(m) = &o.item else { continue };
        // The uniform register and the mode field that says whether it is
        // used; a scaled address without one (ATOMS.CAS's `[a*scale+off]`)
        // still drops the scale of an RZ base.
        let (u, mode, mf) = match (m.ur, m.mode) {
            (Some(u), Some(mode)) => match mod_field(form, mode) {
                Some(mf) => (Some(u), mode, Some(mf)),
                None => continue,
            },
            (None, None) if m.scale => (None, 0, None),
            _ => continue,
        };
        let code_of = |f: &Field, mi: usize, pick: &dyn Fn(&isa_spec::model::EnumValue) -> bool| {
            let ModType::Enum(e) = op.modifiers[mi].ty else {
                return None;
            };
            let vi = spec.enums[e].values.iter().position(pick)?;
            match &f.target {
                FieldTarget::Modifier { codes: Some(c), .. } => c.get(vi).copied().flatten(),
                _ => None,
            }
        };
        let by_name = |n: &'static str| move |v: &isa_spec::model::EnumValue| v.name == n;
        let reg_field = |s: usize| {
            form.fields
                .iter()
                .find(|f| matches!(f.target, FieldTarget::SrcReg { idx, .. } if idx == s))
        };
        let zero = |sm: u32, file: SlotKindClass| {
            spec.families
                .iter()
                .find(|f| f.sms.contains(&sm))
                .and_then(|f| f.zero_index(file, sm))
        };
        // Each rule per run of SMs with one zero-register index.
        let per_zero =
            |out: &mut Vec<Rule>, file: SlotKindClass, rule: &dyn Fn(u128) -> Option<Rule>| {
                let mut groups: Vec<(u32, Vec<u32>)> = Vec::new();
                for &sm in sms {
                    let Some(z) = zero(sm, file) else { continue };
                    match groups.iter_mut().find(|g| g.0 == z) {
                        Some(g) => g.1.push(sm),
                        None => groups.push((z, vec![sm])),
                    }
                }
                for (z, g) in groups {
                    if let Some(mut r) = rule(u128::from(z)) {
                        r.sms = g;
                        out.push(r);
                    }
                }
            };
        if let (Some(mf), Some(u)) = (mf, u)
            && let (Some(reg), Some(uf)) = (code_of(mf, mode, &by_name("reg")), reg_field(u))
        {
            let ur_else = m.ur_else;
            per_zero(out, SlotKindClass::Ugpr, &|z| {
                Some(Rule {
                    sms: Vec::new(),
                    when_mask: mf.bits.mask(),
                    when_value: mf.bits.place(u128::from(reg)),
                    when_any: 0,
                    mask: uf.bits.mask(),
                    value: uf.bits.place(ur_else.map_or(z, u128::from)),
                })
            });
        }
        let width = m.width.and_then(|w| mod_field(form, w).map(|f| (w, f)));
        if m.scale {
            // An RZ base without a uniform register drops its scale
            // (`[0x8]`): the assembler writes the default, no scale.
            // In mode `reg`, or always where there is no mode.
            let reg_mode = match mf {
                Some(mf) => code_of(mf, mode, &by_name("reg"))
                    .map(|c| (mf.bits.mask(), mf.bits.place(u128::from(c)))),
                None => Some((0, 0)),
            };
            if let (Some((rm, rv)), Some((w, wf)), Some(bf)) = (reg_mode, width, reg_field(m.base))
            {
                let Some(none) = code_of(wf, w, &|v| v.text.is_empty()) else {
                    continue;
                };
                per_zero(out, SlotKindClass::Gpr, &|z| {
                    Some(Rule {
                        sms: Vec::new(),
                        when_mask: rm | bf.bits.mask(),
                        when_value: rv | bf.bits.place(z),
                        when_any: 0,
                        mask: wf.bits.mask(),
                        value: wf.bits.place(u128::from(none)),
                    })
                });
            }
            continue;
        }
        let Some(mf) = mf else { continue };
        if let (Some(ur), Some((w, wf)), Some(bf)) =
            (code_of(mf, mode, &by_name("ur")), width, reg_field(m.base))
        {
            let Some(c64) = code_of(wf, w, &|v| v.text == ".64") else {
                continue;
            };
            // Where the reference prints the RZ base (`[RZ.U32+UR4]`), its
            // width is shown, not hidden.
            let shown = |sm: &u32| {
                spec.families
                    .iter()
                    .any(|f| f.sms.contains(sm) && f.rz_base_with_ur.contains(sm))
            };
            let mut rules = Vec::new();
            per_zero(&mut rules, SlotKindClass::Gpr, &|z| {
                Some(Rule {
                    sms: Vec::new(),
                    when_mask: mf.bits.mask() | bf.bits.mask(),
                    when_value: mf.bits.place(u128::from(ur)) | bf.bits.place(z),
                    when_any: 0,
                    mask: wf.bits.mask(),
                    value: wf.bits.place(u128::from(c64)),
                })
            });
            for mut r in rules {
                r.sms.retain(|sm| !shown(sm));
                if !r.sms.is_empty() {
                    out.push(r);
                }
            }
        }
    }
}

/// `x?, y?` (predicate destinations, one default: PT, or UPT for uniform
/// ones): `x` at its default and
/// `y` at `p` print as `x` at `p`, `y` at its default.
fn adjacent_optionals(
    op: &Op,
    form: &Form,
    sms: &[u32],
    asm_ops: &[isa_spec::model::AsmOperand],
    out: &mut Vec<Rule>,
) {
    for pair in asm_ops.windows(2) {
        let (AsmItem::Dst(x), AsmItem::Dst(y)) = (&pair[0].item, &pair[1].item) else {
            continue;
        };
        if pair[0].cond != AsmCond::NotDefault || pair[1].cond != AsmCond::NotDefault {
            continue;
        }
        let (Some(fx), Some(fy)) = (pred_dst_field(form, *x), pred_dst_field(form, *y)) else {
            continue;
        };
        let (dx, dy) = (op.dsts[*x].default, op.dsts[*y].default);
        if dx != dy || !matches!(dx, Some(DefaultValue::Zero | DefaultValue::UniformZero)) {
            continue;
        }
        let pt = (1u128 << fx.bits.width()) - 1;
        for p in 0..pt {
            out.push(Rule {
                sms: sms.to_vec(),
                when_mask: fx.bits.mask() | fy.bits.mask(),
                when_value: fx.bits.place(pt) | fy.bits.place(p),
                when_any: 0,
                mask: fx.bits.mask() | fy.bits.mask(),
                value: fx.bits.place(p) | fy.bits.place(pt),
            });
        }
    }
}

/// An operand's bits in the form and the value its default puts there
/// (registers: the zero register, all ones; `!PT`: PT with its not bit).
fn operand_default(op: &Op, form: &Form, item: &AsmItem) -> Option<(u128, u128)> {
    let (idx, is_dst) = match item {
        AsmItem::Dst(i) => (*i, true),
        AsmItem::Src(i) => (*i, false),
        AsmItem::Modifier(m) => return modifier_default(op, form, *m),
        _ => return None,
    };
    let operand = if is_dst { &op.dsts[idx] } else { &op.srcs[idx] };
    let default = operand.default?;
    // An immediate default is no register to write where the text hides it.
    if matches!(default, DefaultValue::Imm(_)) {
        return None;
    }
    let (mut mask, mut value) = (0u128, 0u128);
    for f in &form.fields {
        match &f.target {
            FieldTarget::Dst { idx: i, .. } | FieldTarget::SrcReg { idx: i, .. } if *i == idx => {
                if is_dst != matches!(f.target, FieldTarget::Dst { .. }) {
                    continue;
                }
                mask |= f.bits.mask();
                // A complemented field (`pd.inv`) holds PT as zeros.
                if !matches!(f.target, FieldTarget::Dst { inv: true, .. }) {
                    value |= f.bits.mask();
                }
            }
            FieldTarget::SrcNot(i) if !is_dst && *i == idx => {
                mask |= f.bits.mask();
                if default == DefaultValue::False {
                    value |= f.bits.mask();
                }
            }
            FieldTarget::SrcNeg(i) | FieldTarget::SrcAbs(i) if !is_dst && *i == idx => {
                mask |= f.bits.mask();
            }
            // An immediate or constant in the operand's slot: not a default.
            FieldTarget::SrcImm { idx: i, .. } | FieldTarget::SrcCbuf { idx: i, .. }
                if !is_dst && *i == idx =>
            {
                return None;
            }
            _ => {}
        }
    }
    Some((mask, value))
}

/// A numeric modifier's bits in the form and its default 0 there (an
/// enum or a nonzero default: none).
fn modifier_default(op: &Op, form: &Form, m: usize) -> Option<(u128, u128)> {
    let md = &op.modifiers[m];
    if matches!(md.ty, ModType::Enum(_) | ModType::Bool) || md.default != 0 {
        return None;
    }
    let mask = form
        .fields
        .iter()
        .filter(|f| matches!(f.target, FieldTarget::Modifier { idx, .. } if idx == m))
        .fold(0u128, |acc, f| acc | f.bits.mask());
    (mask != 0).then_some((mask, 0))
}

fn mod_field(form: &Form, m: usize) -> Option<&Field> {
    form.fields
        .iter()
        .find(|f| matches!(f.target, FieldTarget::Modifier { idx, .. } if idx == m))
}

fn imm_field(form: &Form, s: usize) -> Option<&Field> {
    form.fields.iter().find(|f| {
        matches!(f.target, FieldTarget::SrcImm { idx, packing } if idx == s && packing.shift == 0)
    })
}

fn pred_dst_field(form: &Form, d: usize) -> Option<&Field> {
    form.fields.iter().find(
        |f| matches!(f.target, FieldTarget::Dst { idx, kind: SlotKindClass::Pred | SlotKindClass::Upred, inv: false } if idx == d),
    )
}

fn view_bits(v: ViewType) -> u32 {
    match v {
        ViewType::U8 | ViewType::I8 => 8,
        ViewType::U16 | ViewType::I16 | ViewType::F16 | ViewType::Bf16 => 16,
        ViewType::U32 | ViewType::I32 | ViewType::F32 => 32,
        ViewType::F16x2 | ViewType::Bf16x2 => 32,
        ViewType::U64 | ViewType::I64 | ViewType::F64 => 64,
    }
}

/// Every combination of the `type_by` modifiers' values that exists in the
/// form: the condition on the word that selects it, and the type it
/// chooses (`None`: the source's declared type). A modifier the form does
/// not encode holds its default.
fn type_combos(
    spec: &Spec,
    op: &Op,
    form: &Form,
    type_by: &[usize],
) -> Vec<(u128, u128, Option<ViewType>)> {
    let mut combos = vec![(0u128, 0u128, None::<ViewType>)];
    // Walk the modifiers last to first so that the first with a type wins.
    for &m in type_by.iter().rev() {
        let ModType::Enum(e) = op.modifiers[m].ty else {
            continue;
        };
        let values = &spec.enums[e].values;
        let choices: Vec<(u128, u128, Option<ViewType>)> = match mod_field(form, m) {
            Some(f) => {
                let codes = match &f.target {
                    FieldTarget::Modifier { codes: Some(c), .. } => c.clone(),
                    _ => values.iter().map(|v| Some(v.code)).collect(),
                };
                values
                    .iter()
                    .zip(codes)
                    .filter_map(|(v, c)| {
                        Some((f.bits.mask(), f.bits.place(u128::from(c?)), v.view))
                    })
                    .collect()
            }
            None => vec![(0, 0, values[op.modifiers[m].default as usize].view)],
        };
        combos = combos
            .iter()
            .flat_map(|&(cm, cv, later)| {
                choices
                    .iter()
                    .map(move |&(m, v, view)| (cm | m, cv | v, view.or(later)))
            })
            .collect();
    }
    combos
}
