//! Turns the raw TOML records into the checked [`model`](crate::model):
//! names become indices, bit ranges become numbers, presets become forms.
//!
//! Every problem is reported, not just the first; an item that cannot be
//! resolved is left out and resolution goes on.

use crate::codes::Code;
use crate::diag::{Diagnostic, FileId, Loc, Report};
use crate::model::*;
use crate::schema::{self, S};
use std::collections::BTreeMap;

pub(crate) struct Ctx<'r> {
    pub report: &'r mut Report,
    pub file: FileId,
    pub text: &'r str,
}

impl Ctx<'_> {
    pub fn loc<T>(&self, s: &S<T>) -> Loc {
        Loc {
            file: self.file,
            span: s.span(),
        }
    }
    pub fn err<T>(&mut self, code: Code, at: &S<T>, msg: impl Into<String>) {
        let loc = self.loc(at);
        self.report.push(Diagnostic::error(code, msg).at(loc));
    }
    /// Location of a string's contents (inside its quotes).
    pub fn inner_loc(&self, s: &S<String>) -> Loc {
        let sp = s.span();
        let raw = &self.text[sp.clone()];
        let open = if raw.starts_with("'''") || raw.starts_with("\"\"\"") {
            let mut n = 3;
            if raw[3..].starts_with("\r\n") {
                n += 2;
            } else if raw[3..].starts_with('\n') {
                n += 1;
            }
            n
        } else if raw.starts_with('\'') || raw.starts_with('"') {
            1
        } else {
            0
        };
        Loc {
            file: self.file,
            span: sp.start + open..sp.start + open + s.get_ref().len(),
        }
    }
}

/// Parse `"16..24"`, `"90"` or a split list `"20..39,56"`.
pub fn parse_bits(s: &str) -> Result<Bits, String> {
    let mut ranges = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (l, h) = if let Some((a, b)) = part.split_once("..") {
            let l: u32 = a
                .trim()
                .parse()
                .map_err(|_| format!("bad bit number `{a}`"))?;
            let h: u32 = b
                .trim()
                .parse()
                .map_err(|_| format!("bad bit number `{b}`"))?;
            (l, h)
        } else {
            let l: u32 = part
                .parse()
                .map_err(|_| format!("bad bit number `{part}`"))?;
            (l, l + 1)
        };
        if h <= l {
            return Err(format!("bit range `{part}` is empty or reversed"));
        }
        ranges.push((l, h));
    }
    Ok(Bits { ranges })
}

/// Parse SM ranges (`"75.."`, `"70..89"`, `"..90"`, `"80"`, or a comma list
/// of them: `"100, 103"`, for an SM that lacks an op its neighbours have)
/// against a family's SM list.
pub fn parse_sms(s: &str, family: &[u32]) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let (lo, hi) = parse_sm_range(part)?;
        out.extend(family.iter().copied().filter(|&sm| sm >= lo && sm <= hi));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// One range of an `sms` list: `75..`, `..90`, `80..89`, `90`.
fn parse_sm_range(s: &str) -> Result<(u32, u32), String> {
    let bound = |t: &str, empty: u32| -> Result<u32, String> {
        let t = t.trim();
        if t.is_empty() {
            return Ok(empty);
        }
        t.parse().map_err(|_| format!("bad SM `{t}`"))
    };
    let (lo, hi) = match s.split_once("..") {
        Some((a, b)) => (bound(a, 0)?, bound(b, u32::MAX)?),
        None if s.trim().is_empty() => return Err("empty SM range in a list".to_string()),
        None => {
            let v = bound(s, 0)?;
            (v, v)
        }
    };
    if hi < lo {
        return Err(format!("SM range `{}` is reversed", s.trim()));
    }
    Ok((lo, hi))
}

fn parse_int(s: &str) -> Option<u128> {
    let s = s.trim().replace('_', "");
    if let Some(h) = s.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u128::from_str_radix(b, 2).ok()
    } else {
        s.parse().ok()
    }
}

/// A family file: its shared fields, opcode dispatch bits, register files,
/// presets and reference SMs. `None` only when the dispatch bits do not
/// parse; other mistakes are reported and the entry is skipped.
pub(crate) fn resolve_family(
    cx: &mut Ctx,
    name: &str,
    def: &S<schema::FamilyDef>,
) -> Option<(Family, BTreeMap<String, ResolvedPreset>)> {
    let d = def.get_ref();
    let sms = d.sms.get_ref().clone();
    let common = resolve_common_fields(cx, d);
    let dispatch = match parse_bits(d.dispatch.get_ref()) {
        Ok(b) => b,
        Err(e) => {
            cx.err(Code::S0101, &d.dispatch, e);
            return None;
        }
    };
    let registers = resolve_registers(cx, d);
    let presets = resolve_presets(cx, d, &sms);
    let reference_nvdisasm = resolve_reference(cx, def, &sms);
    let rz_base_with_ur = resolve_rz_base_with_ur(cx, d, &sms);
    Some((
        Family {
            name: name.to_string(),
            doc: d.doc.clone().unwrap_or_default(),
            width: *d.width.get_ref(),
            sms,
            common,
            bundle: d.bundle.as_ref().map(|b| *b.get_ref()),
            dispatch,
            registers,
            reuse: d
                .reuse
                .iter()
                .filter_map(|(k, v)| k.parse().ok().map(|b| (b, *v)))
                .collect(),
            reuse_slots: d
                .reuse
                .iter()
                .filter(|(k, _)| k.parse::<u32>().is_err())
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            reuse_classes: d.reuse_classes.as_ref().map(|cs| {
                cs.iter()
                    .map(|c| {
                        check_class(cx, c);
                        c.get_ref().clone()
                    })
                    .collect()
            }),
            control: d
                .control
                .as_ref()
                .map(|c| resolve_control(cx, c.get_ref()))
                .unwrap_or_default(),
            reference_nvdisasm,
            unsigned_absolute: d
                .reference
                .as_ref()
                .is_some_and(|r| r.get_ref().unsigned_absolute),
            swizzle_in_bars: d
                .reference
                .as_ref()
                .is_some_and(|r| r.get_ref().swizzle_in_bars),
            attr_rz_as_offset: d
                .reference
                .as_ref()
                .is_some_and(|r| r.get_ref().attr_rz_as_offset),
            rz_base_with_ur,
            loc: cx.loc(def),
        },
        presets,
    ))
}

/// The family's `common` fields, shared by every op in it: the guard
/// predicate, control bits, fixed or raw bits. A bad entry is reported
/// (S0101, S0106) and left out.
fn resolve_common_fields(cx: &mut Ctx, d: &schema::FamilyDef) -> Vec<Field> {
    let mut common = Vec::new();
    for (k, v) in &d.common {
        let bits = match parse_bits(k.get_ref()) {
            Ok(b) => b,
            Err(e) => {
                cx.err(Code::S0101, k, e);
                continue;
            }
        };
        let target = match v.get_ref().as_str() {
            "guard" => FieldTarget::GuardPred,
            "guard.not" => FieldTarget::GuardNot,
            "ctrl" => FieldTarget::Ctrl,
            "?" => FieldTarget::Unknown(0),
            t => match t.strip_prefix('=').and_then(parse_int) {
                Some(v) => FieldTarget::Fixed(v),
                None => {
                    cx.err(
                        Code::S0106,
                        v,
                        format!("`{t}` is not a common field (guard, guard.not, ctrl, =N, ?)"),
                    );
                    continue;
                }
            },
        };
        common.push(Field {
            bits,
            target,
            loc: cx.loc(k),
            slot: None,
        });
    }
    common
}

/// The family's presets: an opcode and forms an op's encoding can start
/// from. Field strings stay unparsed here; they resolve against each op
/// that uses the preset.
fn resolve_presets(
    cx: &mut Ctx,
    d: &schema::FamilyDef,
    sms: &[u32],
) -> BTreeMap<String, ResolvedPreset> {
    let mut presets = BTreeMap::new();
    for (pname, p) in &d.preset {
        let opcode = match parse_bits(p.opcode.get_ref()) {
            Ok(b) => b,
            Err(e) => {
                cx.err(Code::S0101, &p.opcode, e);
                continue;
            }
        };
        let forms = p
            .form
            .iter()
            .filter_map(|f| resolve_preset_form(cx, f, sms))
            .collect();
        let mut empty_zero = Vec::new();
        for k in &p.empty_zero {
            if k.get_ref() == "ugpr" {
                empty_zero.push(k.get_ref().clone());
            } else {
                cx.err(
                    Code::S0103,
                    k,
                    format!(
                        "`{}` is not a register kind an empty slot may read as zero (ugpr)",
                        k.get_ref()
                    ),
                );
            }
        }
        presets.insert(
            pname.clone(),
            ResolvedPreset {
                opcode,
                forms,
                empty_zero,
            },
        );
    }
    presets
}

/// One preset form: its SMs (the family's unless it names some) and its
/// fields' bit ranges. `None` when its SMs do not parse (S1001).
fn resolve_preset_form(
    cx: &mut Ctx,
    f: &S<schema::PresetForm>,
    sms: &[u32],
) -> Option<PresetFormR> {
    let fr = f.get_ref();
    let fsms = match &fr.sms {
        Some(s) => match parse_sms(s.get_ref(), sms) {
            Ok(v) => v,
            Err(e) => {
                cx.err(Code::S1001, s, e);
                return None;
            }
        },
        None => sms.to_vec(),
    };
    let mut fields = Vec::new();
    for (k, v) in &fr.fields {
        match parse_bits(k.get_ref()) {
            Ok(b) => fields.push((b, v.get_ref().clone(), cx.loc(k))),
            Err(e) => cx.err(Code::S0101, k, e),
        }
    }
    Some(PresetFormR {
        name: fr.name.get_ref().clone(),
        sms: fsms,
        fields,
        loc: cx.loc(f),
    })
}

/// A family's `registers` table: per register file, (first SM, index of
/// the zero register) pairs, ascending. A key that names no register file
/// or SM, or an index that is not a register index, is S0107 at that key.
fn resolve_registers(cx: &mut Ctx, d: &schema::FamilyDef) -> Vec<(SlotKindClass, Vec<(u32, u32)>)> {
    let mut out = Vec::new();
    for (file, by_sm) in &d.registers {
        let kind = match SlotKindClass::parse(file.get_ref()) {
            Some(
                k @ (SlotKindClass::Gpr
                | SlotKindClass::Ugpr
                | SlotKindClass::Pred
                | SlotKindClass::Upred
                | SlotKindClass::Bar),
            ) => k,
            _ => {
                let msg = format!(
                    "`{}` is not a register file (gpr, ugpr, pred, upred, bar)",
                    file.get_ref()
                );
                cx.err(Code::S0107, file, msg);
                continue;
            }
        };
        let mut pairs = Vec::new();
        for (sm, zero) in by_sm {
            let Ok(first) = sm.get_ref().parse::<u32>() else {
                let msg = format!("`{}` is not an SM number", sm.get_ref());
                cx.err(Code::S0107, sm, msg);
                continue;
            };
            if *zero.get_ref() > 255 {
                let msg = format!("register index {} does not fit a byte", zero.get_ref());
                cx.err(Code::S0107, zero, msg);
                continue;
            }
            pairs.push((first, *zero.get_ref()));
        }
        pairs.sort_unstable();
        out.push((kind, pairs));
    }
    for need in [SlotKindClass::Gpr, SlotKindClass::Pred] {
        if !out.iter().any(|(k, _)| *k == need) {
            let msg = format!("the family's `registers` has no `{}` entry", need.name());
            cx.err(Code::S0107, &d.width, msg);
        }
    }
    out
}

/// A family's `[reference]` table: every SM of the family gets exactly one
/// reference disassembler version.
fn resolve_reference(cx: &mut Ctx, def: &S<schema::FamilyDef>, sms: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    let Some(r) = &def.get_ref().reference else {
        return out;
    };
    for (k, v) in &r.get_ref().nvdisasm {
        match parse_sms(k.get_ref(), sms) {
            Ok(list) => {
                for sm in list {
                    if out.iter().any(|(s, _)| *s == sm) {
                        cx.err(
                            Code::S1001,
                            k,
                            format!("SM {sm} has two reference versions"),
                        );
                    }
                    out.push((sm, *v.get_ref()));
                }
            }
            Err(e) => cx.err(Code::S1001, k, e),
        }
    }
    for sm in sms {
        if !out.iter().any(|(s, _)| s == sm) {
            cx.err(
                Code::S1001,
                r,
                format!("SM {sm} has no reference nvdisasm version"),
            );
        }
    }
    out.sort_unstable();
    out
}

/// `rz_base_with_ur`: the SMs of its range (S1001 for a bad range).
fn resolve_rz_base_with_ur(cx: &mut Ctx, d: &schema::FamilyDef, sms: &[u32]) -> Vec<u32> {
    let Some(k) = d
        .reference
        .as_ref()
        .and_then(|r| r.get_ref().rz_base_with_ur.as_ref())
    else {
        return Vec::new();
    };
    match parse_sms(k.get_ref(), sms) {
        Ok(list) => list,
        Err(e) => {
            cx.err(Code::S1001, k, e);
            Vec::new()
        }
    }
}

/// A family's `[control]` table: fields as (name, low bit, width), each one
/// contiguous range; `reuse_needs` names fields and gives their values.
fn resolve_control(cx: &mut Ctx, c: &schema::ControlDef) -> Control {
    let mut fields = Vec::new();
    for (k, v) in &c.fields {
        match parse_bits(v.get_ref()) {
            Ok(b) if b.ranges.len() == 1 => {
                let (lo, hi) = b.ranges[0];
                fields.push((k.get_ref().clone(), lo, hi - lo));
            }
            Ok(_) => cx.err(Code::S0101, v, "a control field is one range of bits"),
            Err(e) => cx.err(Code::S0101, v, e),
        }
    }
    let mut reuse_needs = Vec::new();
    for (k, v) in &c.reuse_needs {
        let Some(&(_, lo, width)) = fields.iter().find(|f| f.0 == *k.get_ref()) else {
            cx.err(
                Code::S0103,
                k,
                format!("`{}` is not a control field", k.get_ref()),
            );
            continue;
        };
        let range = match v.get_ref().split_once("..") {
            Some((a, b)) => parse_int(a)
                .zip(parse_int(b))
                .map(|(a, b)| (a, b.saturating_sub(1))),
            None => parse_int(v.get_ref()).map(|x| (x, x)),
        };
        match range {
            Some((a, b)) if a <= b && b < 1u128 << width => {
                reuse_needs.push((lo, width, a as u32, b as u32))
            }
            _ => cx.err(
                Code::S0301,
                v,
                format!(
                    "`{}` is not a value or range that fits {width} bits",
                    v.get_ref()
                ),
            ),
        }
    }
    let mut late_reads = Vec::new();
    for f in &c.late_reads {
        match SlotKindClass::parse(f.get_ref()) {
            Some(
                k @ (SlotKindClass::Gpr
                | SlotKindClass::Ugpr
                | SlotKindClass::Pred
                | SlotKindClass::Upred),
            ) => late_reads.push(k),
            _ => cx.err(
                Code::S0103,
                f,
                format!("`{}` is not gpr, ugpr, pred or upred", f.get_ref()),
            ),
        }
    }
    Control {
        slot_bits: c.slot_bits.as_ref().map(|b| *b.get_ref()),
        fields,
        neutral: *c.neutral.get_ref(),
        reuse_needs,
        late_reads,
    }
}

pub(crate) struct ResolvedPreset {
    pub opcode: Bits,
    pub forms: Vec<PresetFormR>,
    /// Register kinds besides gpr an empty slot reads as its zero register.
    pub empty_zero: Vec<String>,
}

pub(crate) struct PresetFormR {
    pub name: String,
    pub sms: Vec<u32>,
    pub fields: Vec<(Bits, String, Loc)>,
    /// Where families.toml declares the form (a note in diagnostics).
    pub loc: Loc,
}

pub(crate) fn resolve_enum(cx: &mut Ctx, name: &str, def: &S<schema::EnumDef>) -> Enum {
    let d = def.get_ref();
    let values: Vec<EnumValue> = d
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| EnumValue {
            name: v.get_ref().name.get_ref().clone(),
            text: v.get_ref().text.get_ref().clone(),
            sm_texts: v
                .get_ref()
                .sm_text
                .iter()
                .filter_map(|(r, t)| {
                    let all: Vec<u32> = (0..1000).collect();
                    match parse_sms(r, &all) {
                        Ok(sms) => Some((sms, t.get_ref().clone())),
                        Err(e) => {
                            cx.err(Code::S1001, t, e);
                            None
                        }
                    }
                })
                .collect(),
            code: v.get_ref().code.as_ref().map_or(i as u64, |c| *c.get_ref()),
            view: v.get_ref().ty.as_ref().and_then(|t| {
                let vt = ViewType::parse(t.get_ref());
                if vt.is_none() {
                    let all: Vec<&str> = ViewType::ALL.iter().map(|t| t.name()).collect();
                    cx.err(
                        Code::S0103,
                        t,
                        format!("unknown type `{}` ({})", t.get_ref(), all.join(", ")),
                    );
                }
                vt
            }),
            loc: cx.loc(v),
        })
        .collect();
    check_enum_values(cx, name, d);
    let flip = if d.flip.is_empty() {
        None
    } else {
        let mut out: Vec<usize> = (0..values.len()).collect();
        for (from, to) in &d.flip {
            let fi = values.iter().position(|v| &v.name == from);
            let ti = values.iter().position(|v| &v.name == to.get_ref());
            match (fi, ti) {
                (Some(f), Some(t)) => out[f] = t,
                _ => cx.err(
                    Code::S0702,
                    to,
                    format!("flip `{from}` -> `{}` names an unknown value", to.get_ref()),
                ),
            }
        }
        Some(out)
    };
    Enum {
        name: name.to_string(),
        doc: d.doc.clone().unwrap_or_default(),
        values,
        flip,
        loc: cx.loc(def),
    }
}

/// The SMs a modifier declares it exists on (`families`, `sms`), or None
/// when it declares neither.
fn modifier_sms(cx: &mut Ctx, r: &schema::ModifierDef, families: &[Family]) -> Option<Vec<u32>> {
    if r.families.is_empty() && r.sms.is_none() {
        return None;
    }
    let mut all: Vec<u32> = families
        .iter()
        .flat_map(|f| f.sms.iter().copied())
        .collect();
    all.sort_unstable();
    let mut on = all.clone();
    if !r.families.is_empty() {
        let mut named = Vec::new();
        for f in &r.families {
            match families.iter().find(|x| &x.name == f.get_ref()) {
                Some(fam) => named.extend(fam.sms.iter().copied()),
                None => cx.err(Code::S1001, f, format!("unknown family `{}`", f.get_ref())),
            }
        }
        on.retain(|s| named.contains(s));
    }
    if let Some(s) = &r.sms {
        match parse_sms(s.get_ref(), &all) {
            Ok(sms) => on.retain(|x| sms.contains(x)),
            Err(e) => cx.err(Code::S1001, s, e),
        }
    }
    Some(on)
}

/// Two values of one enum with the same name (S0105) or code (S0303): the
/// parser could not tell them apart, nor the decoder.
fn check_enum_values(cx: &mut Ctx, name: &str, d: &schema::EnumDef) {
    for (i, v) in d.values.iter().enumerate() {
        let v = v.get_ref();
        let code =
            |i: usize, v: &schema::EnumValue| v.code.as_ref().map_or(i as u64, |c| *c.get_ref());
        let earlier = &d.values[..i];
        if let Some(w) = earlier
            .iter()
            .find(|w| w.get_ref().name.get_ref() == v.name.get_ref())
        {
            let d = Diagnostic::error(
                Code::S0105,
                format!(
                    "enum `{name}` declares the value `{}` twice",
                    v.name.get_ref()
                ),
            )
            .at(cx.loc(&v.name))
            .also(cx.loc(&w.get_ref().name), "first declared here");
            cx.report.push(d);
        }
        let c = code(i, v);
        if let Some((j, w)) = earlier
            .iter()
            .enumerate()
            .find(|(j, w)| code(*j, w.get_ref()) == c)
        {
            let at = v.code.as_ref().map_or(cx.loc(&v.name), |x| cx.loc(x));
            let d = Diagnostic::error(
                Code::S0303,
                format!(
                    "values `{}` and `{}` of enum `{name}` share the code {c}",
                    w.get_ref().name.get_ref(),
                    v.name.get_ref()
                ),
            )
            .at(at)
            .also(cx.loc(&d.values[j]), "the other value");
            cx.report.push(d);
        }
    }
}

/// Names from other files that an op refers to.
pub(crate) struct Names<'a> {
    pub families: &'a [Family],
    pub presets: &'a [BTreeMap<String, ResolvedPreset>],
    pub enums: &'a [Enum],
}

/// One op file as the checked model, with the name of its wide-immediate
/// op (checked once every op is known). `None` when a mistake leaves the
/// op unusable: every problem is reported, and its folds still checked.
pub(crate) fn resolve_op(
    cx: &mut Ctx,
    path: &str,
    f: &S<schema::OpFile>,
    names: &Names,
) -> Option<(Op, Option<S<String>>)> {
    let o = f.get_ref();
    let mut ok = true;
    let dsts = resolve_operands(cx, &o.dst, false, &mut ok);
    let mut srcs = resolve_operands(cx, &o.src, true, &mut ok);
    let modifiers = resolve_modifiers(cx, &o.modifier, names, &mut ok);
    ok &= resolve_src_views(cx, &o.src, &mut srcs, &modifiers, names);
    ok &= check_unique_names(cx, &dsts, &srcs, &modifiers);
    let mut op = new_op(cx, path, o, dsts, srcs, modifiers);
    check_class(cx, &o.class);
    check_class_folder(cx, path, &o.class);
    ok &= resolve_op_asm(cx, &mut op, &o.asm, names);
    ok &= resolve_aliases(cx, &mut op, &o.alias, names.enums);
    if let Some(m) = &o.memory {
        op.memory = resolve_memory(cx, &op, names.enums, m);
        ok &= op.memory.is_some();
    }
    if let Some(lb) = &o.low_bits {
        op.low_bits = resolve_low_bits(cx, &op, lb);
    }
    if let Some(f) = &o.flow {
        op.flow = crate::flow::resolve_flow(cx, &op, names.enums, f);
        ok &= op.flow.is_some();
    }
    op.fold = resolve_fold(cx, &op, &o.fold);
    op.fold_family = resolve_fold_family(cx, &op, &o.fold_family, names.families);
    for e in crate::extend::expand(cx, &o.encoding) {
        match e.and_then(|e| resolve_encoding(cx, &op, &e, names)) {
            Some(enc) => op.encodings.push(enc),
            None => ok = false,
        }
    }
    op.legal = resolve_combos(cx, &op, names.enums, &o.legal, false);
    op.traps = resolve_combos(cx, &op, names.enums, &o.traps, true);
    // After the encodings: latencies name SMs the op has.
    if let Some(s) = &o.sched {
        op.sched = crate::flow::resolve_sched(cx, &op, s);
        ok &= op.sched.is_some();
    }
    if ok {
        crate::flow::check_sched_complete(cx, &op, o);
    }
    if !ok {
        crate::fold_lint::check_op_with(names.enums, &op, cx.report);
        return None;
    }
    let wide = o
        .legalize
        .as_ref()
        .and_then(|l| l.get_ref().wide_imm.clone());
    Some((op, wide))
}

/// `[[dst]]` or `[[src]]` entries; `ok` turns false on an unknown type
/// (the operand is still declared, so later references to its name do
/// not cascade into more errors).
fn resolve_operands(
    cx: &mut Ctx,
    defs: &[S<schema::OperandDef>],
    is_src: bool,
    ok: &mut bool,
) -> Vec<Operand> {
    defs.iter()
        .map(|d| {
            let r = d.get_ref();
            let ty = operand_type(cx, &r.ty);
            *ok &= ty.is_some();
            let ty = ty.unwrap_or(ValueType::U32);
            let mods = source_mods(cx, &r.mods);
            if !is_src && mods != SrcMods::default() {
                cx.err(Code::S0601, d, "a destination cannot have source modifiers");
            }
            let unknown = r.unknown.as_ref().is_some_and(|u| *u.get_ref());
            let default = operand_default(cx, r.default.as_ref());
            if let Some(dv) = r.default.as_ref()
                && matches!(default, Some(DefaultValue::Imm(_)))
                && (!is_src || ty == ValueType::Pred)
            {
                cx.err(
                    Code::S0103,
                    dv,
                    "an integer default is for non-predicate sources (an immediate)",
                );
            }
            if let Some(u) = r.unknown.as_ref().filter(|_| unknown)
                && (is_src || ty != ValueType::Pred || default != Some(DefaultValue::Zero))
            {
                cx.err(
                    Code::S0601,
                    u,
                    "`unknown` is for predicate destinations with default PT",
                );
            }
            Operand {
                name: r.name.get_ref().clone(),
                ty,
                mods,
                default,
                align: r.align.as_ref().map_or(ty.regs(), |a| *a.get_ref()),
                type_by: Vec::new(),
                part: None,
                unknown,
                part_bytes: false,
                part_half: false,
                imm_declared: false,
                imm_field: false,
                imm_signed: Vec::new(),
                doc: r.doc.clone().unwrap_or_default(),
                loc: cx.loc(&r.name),
            }
        })
        .collect()
}

/// An operand's value type; `None` (reported) when unknown.
fn operand_type(cx: &mut Ctx, ty: &S<String>) -> Option<ValueType> {
    let t = ValueType::parse(ty.get_ref());
    if t.is_none() {
        cx.err(
            Code::S0103,
            ty,
            format!(
                "unknown value type `{}` (u32, i32, b32, f32, u64, i64, f64, pred)",
                ty.get_ref()
            ),
        );
    }
    t
}

/// The source modifiers an operand accepts; unknown names are reported
/// and left out.
fn source_mods(cx: &mut Ctx, names: &[S<String>]) -> SrcMods {
    let mut mods = SrcMods::default();
    for m in names {
        match m.get_ref().as_str() {
            "neg" => mods.neg = true,
            "abs" => mods.abs = true,
            "not" => mods.not = true,
            other => cx.err(
                Code::S0103,
                m,
                format!("unknown source modifier `{other}` (neg, abs, not)"),
            ),
        }
    }
    mods
}

/// `0`, `255` or `0xff` as a u32.
fn parse_u32_literal(s: &str) -> Option<u32> {
    match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// The value an absent operand takes: the zero register or true
/// predicate, the false predicate, or an immediate.
fn operand_default(cx: &mut Ctx, default: Option<&S<String>>) -> Option<DefaultValue> {
    let d = default?;
    match d.get_ref().as_str() {
        "RZ" | "PT" => Some(DefaultValue::Zero),
        "URZ" | "UPT" => Some(DefaultValue::UniformZero),
        "!PT" | "!UPT" => Some(DefaultValue::False),
        other if parse_u32_literal(other).is_some() => {
            parse_u32_literal(other).map(DefaultValue::Imm)
        }
        other => {
            cx.err(
                Code::S0103,
                d,
                format!("unknown default `{other}` (RZ, PT, URZ, UPT, !PT, or an integer such as 0 or 0xff)"),
            );
            None
        }
    }
}

/// `[[modifier]]` entries; one of unknown type is left out and turns `ok`
/// false.
fn resolve_modifiers(
    cx: &mut Ctx,
    defs: &[S<schema::ModifierDef>],
    names: &Names,
    ok: &mut bool,
) -> Vec<Modifier> {
    let mut modifiers = Vec::new();
    for m in defs {
        let r = m.get_ref();
        let Some(ty) = modifier_type(cx, &r.ty, names.enums) else {
            *ok = false;
            continue;
        };
        let default = modifier_default(cx, r.default.as_ref(), &ty, names.enums);
        let lanes = r
            .lanes
            .as_ref()
            .and_then(|l| modifier_lanes(cx, l, &ty, names.enums));
        modifiers.push(Modifier {
            name: r.name.get_ref().clone(),
            ty,
            text: r
                .text
                .as_ref()
                .map(|t| t.get_ref().clone())
                .unwrap_or_default(),
            default,
            doc: r.doc.clone().unwrap_or_default(),
            exists_on: modifier_sms(cx, r, names.families),
            exists_loc: r
                .families
                .first()
                .map(|f| cx.loc(f))
                .or_else(|| r.sms.as_ref().map(|s| cx.loc(s)))
                .unwrap_or_else(|| cx.loc(&r.name)),
            lanes,
            loc: cx.loc(&r.name),
        });
    }
    modifiers
}

/// `lanes = "ENUM"` on a modifier of type `ty`: the lane layout, or
/// `None` with S0104/S0109 reported. A lane is as wide as the enum's
/// codes; every code of that width needs a value, all texts one length.
fn modifier_lanes(cx: &mut Ctx, l: &S<String>, ty: &ModType, enums: &[Enum]) -> Option<Lanes> {
    let Some(en) = enums.iter().position(|e| &e.name == l.get_ref()) else {
        cx.err(Code::S0104, l, format!("unknown enum `{}`", l.get_ref()));
        return None;
    };
    let e = &enums[en];
    let ModType::Int {
        bits: total,
        signed: false,
    } = *ty
    else {
        cx.err(
            Code::S0109,
            l,
            "`lanes` needs an unsigned integer modifier (`uN`)",
        );
        return None;
    };
    let codes = e.values.len() as u64;
    let bits = codes.next_power_of_two().trailing_zeros();
    let full = codes.is_power_of_two() && (0..codes).all(|c| e.values.iter().any(|v| v.code == c));
    let len = e.values.first().map_or(0, |v| v.text.len());
    if !full
        || len == 0
        || e.values
            .iter()
            .any(|v| v.text.len() != len || !v.sm_texts.is_empty())
    {
        let msg = format!(
            "enum `{}` must give every code 0..={} one value, all texts non-empty, equally long and the same on every SM",
            e.name,
            (1u64 << bits) - 1
        );
        cx.err(Code::S0109, l, msg);
        return None;
    }
    if bits == 0 || total % bits != 0 {
        let msg = format!("u{total} is not a whole number of {bits}-bit lanes");
        cx.err(Code::S0109, l, msg);
        return None;
    }
    Some(Lanes {
        en,
        bits,
        count: total / bits,
    })
}

/// A modifier's type: `bool`, `rel`, `enum:NAME`, `uN` (1..=32) or `iN`
/// (2..=32); `None` (reported) otherwise.
fn modifier_type(cx: &mut Ctx, ty: &S<String>, enums: &[Enum]) -> Option<ModType> {
    let tys = ty.get_ref().as_str();
    let bits = |prefix: char, min: u32| {
        tys.strip_prefix(prefix)
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| (min..=32).contains(n))
    };
    if tys == "bool" {
        Some(ModType::Bool)
    } else if tys == "rel" {
        Some(ModType::Rel)
    } else if tys == "abs" || tys == "disp" {
        Some(ModType::Abs {
            signed: tys == "disp",
        })
    } else if let Some(e) = tys.strip_prefix("enum:") {
        let found = enums.iter().position(|x| x.name == e).map(ModType::Enum);
        if found.is_none() {
            cx.err(Code::S0104, ty, format!("unknown enum `{e}`"));
        }
        found
    } else if let Some(n) = bits('u', 1) {
        Some(ModType::Int {
            bits: n,
            signed: false,
        })
    } else if let Some(n) = bits('i', 2) {
        Some(ModType::Int {
            bits: n,
            signed: true,
        })
    } else {
        cx.err(
            Code::S0103,
            ty,
            format!("unknown modifier type `{tys}` (bool, uN, iN, rel, abs, disp, enum:NAME)"),
        );
        None
    }
}

/// A modifier's default as its encoded-model value (an enum value's
/// position, a bool as 0/1, an integer); 0 when absent or wrong (reported).
fn modifier_default(
    cx: &mut Ctx,
    default: Option<&S<toml::Value>>,
    ty: &ModType,
    enums: &[Enum],
) -> i64 {
    let Some(v) = default else { return 0 };
    let (value, wrong) = match ty {
        ModType::Enum(e) => match v.get_ref().as_str() {
            Some(s) => match enums[*e].values.iter().position(|x| x.name == s) {
                Some(i) => (Some(i as i64), ""),
                None => {
                    cx.err(Code::S0104, v, format!("`{s}` is not a value of this enum"));
                    return 0;
                }
            },
            None => (None, "an enum default is a value name"),
        },
        ModType::Bool => (
            v.get_ref().as_bool().map(i64::from),
            "a bool default is true or false",
        ),
        _ => (v.get_ref().as_integer(), "an integer default is a number"),
    };
    value.unwrap_or_else(|| {
        cx.err(Code::S0103, v, wrong);
        0
    })
}

/// Operands and modifiers share one namespace (the generated struct's
/// fields, the asm and fold names): a name declared twice is S0105.
fn check_unique_names(
    cx: &mut Ctx,
    dsts: &[Operand],
    srcs: &[Operand],
    modifiers: &[Modifier],
) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    let all = dsts
        .iter()
        .map(|d| (&d.name, &d.loc))
        .chain(srcs.iter().map(|d| (&d.name, &d.loc)))
        .chain(modifiers.iter().map(|d| (&d.name, &d.loc)));
    let mut ok = true;
    for (n, l) in all {
        if !seen.insert(n.as_str()) {
            cx.report.push(
                Diagnostic::error(Code::S0105, format!("`{n}` is declared twice")).at(l.clone()),
            );
            ok = false;
        }
    }
    ok
}

/// The op with its operands and modifiers, every other part empty until
/// its own step fills it.
fn new_op(
    cx: &Ctx,
    path: &str,
    o: &schema::OpFile,
    dsts: Vec<Operand>,
    srcs: Vec<Operand>,
    modifiers: Vec<Modifier>,
) -> Op {
    Op {
        name: o.name.get_ref().clone(),
        doc: o
            .doc
            .as_ref()
            .map(|d| d.get_ref().clone())
            .unwrap_or_default(),
        class: o.class.get_ref().clone(),
        path: path.to_string(),
        loc: cx.loc(&o.name),
        dsts,
        srcs,
        modifiers,
        asm: Asm {
            mnemonic: String::new(),
            suffixes: vec![],
            operands: vec![],
            loc: cx.loc(&o.asm),
            variants: vec![],
        },
        aliases: vec![],
        legalize: Legalize::default(),
        memory: None,
        low_bits: Vec::new(),
        flow: None,
        sched: None,
        fold: Fold::default(),
        fold_family: vec![],
        legal: vec![],
        traps: vec![],
        encodings: vec![],
    }
}

/// An op file under `ops/<folder>/` sits in its class's folder (S0108 at
/// `class` otherwise), so the folders stay an index of the ops by class.
fn check_class_folder(cx: &mut Ctx, path: &str, class: &S<String>) {
    let mut dirs = std::path::Path::new(path)
        .parent()
        .into_iter()
        .flat_map(|p| p.iter().rev().map(|c| c.to_string_lossy().into_owned()));
    let (Some(folder), Some(above)) = (dirs.next(), dirs.next()) else {
        return;
    };
    if folder != "ops" && above == "ops" && folder != *class.get_ref() {
        let msg = format!(
            "the op is in `ops/{folder}/` but its class is `{}`: move the file to `ops/{}/`",
            class.get_ref(),
            class.get_ref()
        );
        cx.err(Code::S0108, class, msg);
    }
}

/// The op's `class` is one the backend knows (S0103 otherwise; the op
/// stays usable).
fn check_class(cx: &mut Ctx, class: &S<String>) {
    const CLASSES: [&str; 5] = ["alu", "move", "control", "system", "memory"];
    if !CLASSES.contains(&class.get_ref().as_str()) {
        cx.err(
            Code::S0103,
            class,
            format!(
                "unknown class `{}` (alu, move, control, system, memory)",
                class.get_ref()
            ),
        );
    }
}

/// `[asm]` and its per-SM `[[asm.variant]]`s (each the base syntax with
/// the keys it sets replaced); false when one cannot be resolved.
fn resolve_op_asm(cx: &mut Ctx, op: &mut Op, asm: &S<schema::AsmDef>, names: &Names) -> bool {
    let a = asm.get_ref();
    let mut ok = true;
    match resolve_asm(cx, op, &a.mnemonic, &a.suffixes, &a.operands, cx.loc(asm)) {
        Some(resolved) => op.asm = resolved,
        None => ok = false,
    }
    let mut all_sms: Vec<u32> = names.families.iter().flat_map(|f| f.sms.clone()).collect();
    all_sms.sort_unstable();
    for var in &a.variant {
        let r = var.get_ref();
        let sms = match parse_sms(r.sms.get_ref(), &all_sms) {
            Ok(v) => v,
            Err(e) => {
                cx.err(Code::S1001, &r.sms, e);
                ok = false;
                continue;
            }
        };
        let mn = r.mnemonic.as_ref().unwrap_or(&a.mnemonic);
        let sf = r.suffixes.as_ref().unwrap_or(&a.suffixes);
        let os = r.operands.as_ref().unwrap_or(&a.operands);
        match resolve_asm(cx, op, mn, sf, os, cx.loc(var)) {
            Some(v) => op.asm.variants.push((sms, v)),
            None => ok = false,
        }
    }
    ok
}

/// `[[alias]]` entries with their conditions parsed; false when a
/// condition does not parse.
fn resolve_aliases(
    cx: &mut Ctx,
    op: &mut Op,
    aliases: &[S<schema::AliasDef>],
    enums: &[Enum],
) -> bool {
    let mut ok = true;
    for al in aliases {
        let r = al.get_ref();
        let mut when = Vec::new();
        for w in &r.when {
            match parse_alias_cond(op, enums, w.get_ref()) {
                Ok(c) => when.push(c),
                Err(e) => {
                    cx.err(Code::S1102, w, e);
                    ok = false;
                }
            }
        }
        op.aliases.push(Alias {
            mnemonic: r.mnemonic.get_ref().clone(),
            when,
            loc: cx.loc(al),
        });
    }
    ok
}

/// `low_bits` as source indices: integer sources only, since a
/// predicate's or a float's low bits mean nothing alone (S1302).
fn resolve_low_bits(cx: &mut Ctx, op: &Op, lb: &S<Vec<S<String>>>) -> Vec<usize> {
    let mut out = Vec::new();
    for n in lb.get_ref() {
        match op.src(n.get_ref()) {
            Some(i) if !op.srcs[i].ty.is_pred() && !op.srcs[i].ty.is_float() => out.push(i),
            Some(_) => cx.err(
                Code::S1302,
                n,
                format!(
                    "`{}` is a predicate or float source: its low bits mean nothing alone",
                    n.get_ref()
                ),
            ),
            None => cx.err(
                Code::S1302,
                n,
                format!("`{}` is not a source of `{}`", n.get_ref(), op.name),
            ),
        }
    }
    out
}

/// A `[fold]` table: its special keys (`let`, `refuse`, carry handling)
/// and one expression per destination. Expressions must be TOML literal
/// strings so a position inside one maps to the file exactly (S0905).
fn resolve_fold(cx: &mut Ctx, op: &Op, t: &BTreeMap<S<String>, S<String>>) -> Fold {
    let mut fold = Fold {
        lets: None,
        refuse: None,
        reads_cc: None,
        writes_cc: None,
        cc_out: None,
        dsts: vec![None; op.dsts.len()],
        inexact: None,
    };
    for (k, v) in t {
        if k.get_ref() == "inexact" {
            fold.inexact = Some(FoldExpr {
                text: v.get_ref().clone(),
                loc: cx.inner_loc(v),
            });
            continue;
        }
        if !cx.text[v.span()].starts_with('\'') {
            cx.err(
                Code::S0905,
                v,
                "fold expressions are TOML literal strings ('...' or '''...''') so positions map exactly",
            );
        }
        let e = FoldExpr {
            text: v.get_ref().clone(),
            loc: cx.inner_loc(v),
        };
        let slot = match k.get_ref().as_str() {
            "let" => &mut fold.lets,
            "refuse" => &mut fold.refuse,
            "reads_cc" => &mut fold.reads_cc,
            "writes_cc" => &mut fold.writes_cc,
            "cc_out" => &mut fold.cc_out,
            name => match op.dst(name) {
                Some(i) => &mut fold.dsts[i],
                None => {
                    cx.err(
                        Code::S0902,
                        k,
                        format!("`{name}` is not a destination of `{}`", op.name),
                    );
                    continue;
                }
            },
        };
        *slot = Some(e);
    }
    fold
}

/// `[fold_family.<family>]` tables, each replacing `[fold]` on its family.
fn resolve_fold_family(
    cx: &mut Ctx,
    op: &Op,
    tables: &BTreeMap<S<String>, BTreeMap<S<String>, S<String>>>,
    families: &[Family],
) -> Vec<(usize, Fold)> {
    let mut out = Vec::new();
    for (fam, t) in tables {
        match families.iter().position(|f| &f.name == fam.get_ref()) {
            Some(fi) => out.push((fi, resolve_fold(cx, op, t))),
            None => cx.err(
                Code::S1001,
                fam,
                format!("unknown family `{}`", fam.get_ref()),
            ),
        }
    }
    out
}

/// `legal` / `traps` products: every name must be a form of the op, a
/// bool or enum modifier and one of its values, on SMs where the op
/// exists (S1401); a trap needs its evidence.
fn resolve_combos(
    cx: &mut Ctx,
    op: &Op,
    enums: &[Enum],
    defs: &[S<schema::ComboDef>],
    trap: bool,
) -> Vec<Combo> {
    let op_sms = op.sms();
    let mut out = Vec::new();
    for d in defs {
        let r = d.get_ref();
        let Some(sms) = combo_sms(cx, op, &op_sms, r) else {
            continue;
        };
        let forms = combo_forms(cx, op, r);
        let mods = combo_mods(cx, op, enums, r);
        let evidence = r
            .evidence
            .as_ref()
            .map(|e| e.get_ref().clone())
            .unwrap_or_default();
        if trap && evidence.is_empty() {
            cx.err(Code::S1401, d, "a `traps` entry needs its `evidence`");
        }
        out.push(Combo {
            class: r
                .class
                .as_ref()
                .map(|c| c.get_ref().clone())
                .unwrap_or_default(),
            sms,
            forms,
            mods,
            evidence,
            loc: cx.loc(d),
        });
    }
    out
}

/// The SMs a combo covers: the op's own unless it names some, which must
/// be SMs of the op. `None` (reported) when they are not.
fn combo_sms(cx: &mut Ctx, op: &Op, op_sms: &[u32], r: &schema::ComboDef) -> Option<Vec<u32>> {
    let Some(s) = &r.sms else {
        return Some(op_sms.to_vec());
    };
    match parse_sms(s.get_ref(), op_sms) {
        Ok(v) if v.is_empty() => {
            cx.err(
                Code::S1401,
                s,
                format!(
                    "`{}` names no SM of `{}` ({op_sms:?})",
                    s.get_ref(),
                    op.name
                ),
            );
            None
        }
        Ok(v) => Some(v),
        Err(e) => {
            cx.err(
                Code::S1401,
                s,
                format!("{e} (SMs of `{}`: {op_sms:?})", op.name),
            );
            None
        }
    }
}

/// The combo's forms: each must be a form of some encoding of the op.
fn combo_forms(cx: &mut Ctx, op: &Op, r: &schema::ComboDef) -> Vec<String> {
    let mut forms = Vec::new();
    for f in &r.forms {
        let known = op
            .encodings
            .iter()
            .flat_map(|e| &e.forms)
            .any(|x| &x.name == f.get_ref());
        if known {
            forms.push(f.get_ref().clone());
        } else {
            cx.err(
                Code::S1401,
                f,
                format!("`{}` is not a form of `{}`", f.get_ref(), op.name),
            );
        }
    }
    forms
}

/// The combo's modifier values as (modifier, value indices): a bool's
/// `true`/`false` as 1/0, an enum's value names as their positions.
fn combo_mods(
    cx: &mut Ctx,
    op: &Op,
    enums: &[Enum],
    r: &schema::ComboDef,
) -> Vec<(usize, Vec<i64>)> {
    let mut mods = Vec::new();
    for (name, vals) in &r.mods {
        let Some(mi) = op.modifier(name.get_ref()) else {
            cx.err(
                Code::S1401,
                name,
                format!("`{}` is not a modifier of `{}`", name.get_ref(), op.name),
            );
            continue;
        };
        let mut idx = Vec::new();
        for v in vals {
            let found = match (&op.modifiers[mi].ty, v.get_ref()) {
                (ModType::Bool, toml::Value::Boolean(b)) => Some(i64::from(*b)),
                (ModType::Enum(e), toml::Value::String(s)) => enums[*e]
                    .values
                    .iter()
                    .position(|x| &x.name == s)
                    .map(|i| i as i64),
                _ => None,
            };
            match found {
                Some(i) => idx.push(i),
                None => cx.err(
                    Code::S1401,
                    v,
                    format!("`{}` is not a value of modifier `{}` (bool: true/false; enum: a value name)", v.get_ref(), name.get_ref()),
                ),
            }
        }
        mods.push((mi, idx));
    }
    mods
}

/// Legalize rules refer to other ops, so they resolve after all ops load.
pub(crate) fn resolve_legalize(
    cx: &mut Ctx,
    op: &mut Op,
    l: &S<schema::LegalizeDef>,
    ops: &[String],
) {
    let r = l.get_ref();
    let mut out = Legalize {
        loc: Some(cx.loc(l)),
        ..Default::default()
    };
    out.commutative_why = r.commutative_why.as_ref().map(|w| cx.loc(w));
    for pair in &r.commutative {
        let [a, b] = pair.get_ref();
        match (op.src(a), op.src(b)) {
            (Some(x), Some(y)) => out.commutative.push((x, y)),
            _ => cx.err(
                Code::S0701,
                pair,
                format!("commutative pair [{a}, {b}] names an unknown source"),
            ),
        }
    }
    if let Some(m) = &r.swap_flips {
        match op.modifier(m.get_ref()) {
            Some(i) => out.swap_flips = Some(i),
            None => cx.err(
                Code::S0702,
                m,
                format!("`{}` is not a modifier", m.get_ref()),
            ),
        }
    }
    if let Some(m) = &r.swap_negates {
        match op.src(m.get_ref()) {
            Some(i) => out.swap_negates = Some(i),
            None => cx.err(Code::S0702, m, format!("`{}` is not a source", m.get_ref())),
        }
    }
    if let Some(w) = &r.wide_imm {
        match ops.iter().position(|n| n == w.get_ref()) {
            Some(i) => out.wide_imm = Some(i),
            None => cx.err(
                Code::S0704,
                w,
                format!("wide_imm names unknown op `{}`", w.get_ref()),
            ),
        }
    }
    op.legalize = out;
}

fn resolve_asm(
    cx: &mut Ctx,
    op: &Op,
    mnemonic: &S<String>,
    suffixes: &[S<String>],
    operands: &[S<String>],
    loc: Loc,
) -> Option<Asm> {
    let mut ok = true;
    let mut asm = Asm {
        mnemonic: mnemonic.get_ref().clone(),
        suffixes: vec![],
        operands: vec![],
        loc,
        variants: vec![],
    };
    for s in suffixes {
        match op.modifier(s.get_ref()) {
            Some(i) => asm.suffixes.push(i),
            None => {
                cx.err(
                    Code::S1101,
                    s,
                    format!("suffix `{}` is not a modifier", s.get_ref()),
                );
                ok = false;
            }
        }
    }
    for s in operands {
        let text = s.get_ref().as_str();
        let (blank, text) = match text.strip_prefix('~') {
            Some(t) => (true, t),
            None => (false, text),
        };
        let (text, or_shown, or_mod) = match text.split_once(" or ") {
            Some((t, other)) if t.ends_with('?') && op.modifier(other.trim()).is_some() => {
                (t, None, op.modifier(other.trim()))
            }
            Some((t, other)) => match or_shown_index(op, &asm.operands, t, other.trim()) {
                Ok(i) => (t, Some(i), None),
                Err(e) => {
                    cx.err(Code::S1101, s, e);
                    ok = false;
                    continue;
                }
            },
            None => (text, None, None),
        };
        match parse_asm_operand(op, text) {
            Ok((item, cond, sfx)) => asm.operands.push(AsmOperand {
                item,
                cond,
                suffixes: sfx,
                blank,
                loc: cx.loc(s),
                or_shown,
                or_mod,
            }),
            Err(e) => {
                cx.err(Code::S1101, s, e);
                ok = false;
            }
        }
    }
    ok.then_some(asm)
}

/// `x? or y`: the index of the earlier operand `y` whose printing also
/// prints `x` (which must be optional).
fn or_shown_index(op: &Op, earlier: &[AsmOperand], x: &str, y: &str) -> Result<usize, String> {
    if !x.ends_with('?') || x.contains(" if ") {
        return Err(format!(
            "`{x} or {y}`: only an optional operand `x?` takes `or`"
        ));
    }
    let named = |o: &AsmOperand| match o.item {
        AsmItem::Dst(i) => op.dsts[i].name == y,
        AsmItem::Src(i) => op.srcs[i].name == y,
        _ => false,
    };
    earlier
        .iter()
        .position(named)
        .ok_or_else(|| format!("`{x} or {y}`: `{y}` is not an earlier operand"))
}

/// An op's `memory` table: what the access reads or writes, where, and how
/// wide, each name checked against the op (S1301). Every mistake is
/// reported; `None` if there was any.
fn resolve_memory(
    cx: &mut Ctx,
    op: &Op,
    enums: &[Enum],
    m: &S<schema::MemoryDef>,
) -> Option<Memory> {
    let r = m.get_ref();
    let mut errs = MemErrs { cx, ok: true };
    let kind = match r.kind.get_ref().as_str() {
        "load" => MemKind::Load,
        "store" => MemKind::Store,
        k => {
            errs.bad(&r.kind, format!("kind `{k}` is not load or store"));
            MemKind::Load
        }
    };
    let space = match &r.space {
        None => MemSpace::Global,
        Some(s) => MemSpace::from_name(s.get_ref()).unwrap_or_else(|| {
            errs.bad(
                s,
                format!(
                    "space `{}` is not global, shared, local or generic",
                    s.get_ref()
                ),
            );
            MemSpace::Global
        }),
    };
    let addr = op.src(r.addr.get_ref()).unwrap_or_else(|| {
        errs.bad(&r.addr, format!("`{}` is not a source", r.addr.get_ref()));
        0
    });
    let offset = match op.modifier(r.offset.get_ref()) {
        Some(i) if matches!(op.modifiers[i].ty, ModType::Int { signed: true, .. }) => i,
        _ => {
            errs.bad(
                &r.offset,
                format!("`{}` is not a signed integer modifier", r.offset.get_ref()),
            );
            0
        }
    };
    let data = memory_data(&mut errs, op, r, kind);
    let size = memory_size(&mut errs, op, enums, r);
    let align = r.align.as_ref().map(|a| *a.get_ref());
    if let Some(a) = &r.align
        && !a.get_ref().is_power_of_two()
    {
        errs.bad(a, "align must be a power of two");
    }
    let mut ordered = Vec::new();
    for n in &r.ordered {
        match op.modifier(n.get_ref()) {
            Some(i) => ordered.push(i),
            None => errs.bad(n, format!("`{}` is not a modifier", n.get_ref())),
        }
    }
    errs.ok.then(|| Memory {
        kind,
        space,
        addr,
        offset,
        data,
        size,
        align,
        ordered,
        loc: errs.cx.loc(m),
    })
}

/// S1301 errors of one `memory` table: every mistake is reported, and
/// `ok` says whether the table resolved cleanly.
struct MemErrs<'a, 'r> {
    cx: &'a mut Ctx<'r>,
    ok: bool,
}

impl MemErrs<'_, '_> {
    fn bad<T>(&mut self, at: &S<T>, msg: impl Into<String>) {
        self.cx.err(Code::S1301, at, msg);
        self.ok = false;
    }
}

/// The operand a load writes (a destination) or a store reads (a source).
fn memory_data(errs: &mut MemErrs, op: &Op, r: &schema::MemoryDef, kind: MemKind) -> usize {
    let found = match kind {
        MemKind::Load => op.dst(r.data.get_ref()),
        MemKind::Store => op.src(r.data.get_ref()),
    };
    found.unwrap_or_else(|| {
        let role = if kind == MemKind::Load {
            "destination"
        } else {
            "source"
        };
        errs.bad(&r.data, format!("`{}` is not a {role}", r.data.get_ref()));
        0
    })
}

/// The access size: a fixed byte count, or an enum modifier whose values
/// `bytes` sizes (and `signed` marks as sign-extending).
fn memory_size(errs: &mut MemErrs, op: &Op, enums: &[Enum], r: &schema::MemoryDef) -> MemSize {
    match r.size.get_ref() {
        toml::Value::Integer(n) if [1, 2, 4, 8, 16].contains(n) => MemSize::Fixed(*n as u32),
        toml::Value::String(name) => match op.modifier(name) {
            Some(i) => match op.modifiers[i].ty {
                ModType::Enum(e) => size_by_modifier(errs, &enums[e], i, r),
                _ => {
                    errs.bad(&r.size, format!("`{name}` is not an enum modifier"));
                    MemSize::Fixed(4)
                }
            },
            None => {
                errs.bad(&r.size, format!("`{name}` is not a modifier"));
                MemSize::Fixed(4)
            }
        },
        _ => {
            errs.bad(&r.size, "size is 1, 2, 4, 8, 16 or an enum modifier's name");
            MemSize::Fixed(4)
        }
    }
}

/// Size chosen by modifier `i` (enum `en`): `bytes` must size every value,
/// and `signed` may only name values of the enum.
fn size_by_modifier(errs: &mut MemErrs, en: &Enum, i: usize, r: &schema::MemoryDef) -> MemSize {
    let mut bytes = Vec::new();
    for v in &en.values {
        match r.bytes.iter().find(|(k, _)| k.get_ref() == &v.name) {
            Some((_, b)) if [1, 2, 4, 8, 16].contains(b.get_ref()) => bytes.push(*b.get_ref()),
            _ => {
                errs.bad(
                    &r.size,
                    format!("`bytes` gives no size (1, 2, 4, 8 or 16) for `{}`", v.name),
                );
                bytes.push(4);
            }
        }
    }
    let mut signed = vec![false; en.values.len()];
    for s in &r.signed {
        match en.values.iter().position(|v| &v.name == s.get_ref()) {
            Some(k) => signed[k] = true,
            None => errs.bad(
                s,
                format!("`{}` is not a value of the size enum", s.get_ref()),
            ),
        }
    }
    MemSize::ByModifier(i, bytes, signed)
}

/// `type_by` and `part` of each source: modifiers that exist, enums whose
/// values give a type for `type_by`, an unsigned integer for `part`.
fn resolve_src_views(
    cx: &mut Ctx,
    defs: &[S<schema::OperandDef>],
    srcs: &mut [Operand],
    modifiers: &[Modifier],
    names: &Names,
) -> bool {
    let mut ok = true;
    for (d, s) in defs.iter().zip(srcs.iter_mut()) {
        let r = d.get_ref();
        for m in &r.type_by {
            let found = modifiers.iter().position(|x| &x.name == m.get_ref());
            match found.map(|i| (i, &modifiers[i].ty)) {
                Some((i, ModType::Enum(e)))
                    if names.enums[*e].values.iter().any(|v| v.view.is_some()) =>
                {
                    s.type_by.push(i)
                }
                Some(_) => {
                    cx.err(
                        Code::S0103,
                        m,
                        format!(
                            "`type_by`: `{}` is not an enum modifier whose values have a `type`",
                            m.get_ref()
                        ),
                    );
                    ok = false;
                }
                None => {
                    cx.err(
                        Code::S0103,
                        m,
                        format!("`type_by`: `{}` is not a modifier", m.get_ref()),
                    );
                    ok = false;
                }
            }
        }
        if let Some(p) = &r.part {
            match modifiers.iter().position(|x| &x.name == p.get_ref()) {
                Some(i)
                    if matches!(modifiers[i].ty, ModType::Int { signed: false, .. })
                        && !s.type_by.is_empty() =>
                {
                    s.part = Some(i)
                }
                _ => {
                    cx.err(Code::S0103, p, format!("`part`: `{}` is not an unsigned integer modifier (and the source needs `type_by`)", p.get_ref()));
                    ok = false;
                }
            }
        }
        s.part_bytes = r.part_bytes && s.part.is_some();
        if r.part_bytes && r.part.is_none() {
            cx.err(
                Code::S0103,
                &r.name,
                "`part_bytes` without a `part` selector",
            );
            ok = false;
        }
        s.part_half = r.part_half && s.part.is_some();
        if r.part_half && (r.part.is_none() || r.part_bytes) {
            cx.err(
                Code::S0103,
                &r.name,
                "`part_half` needs a `part` selector and excludes `part_bytes`",
            );
            ok = false;
        }
        s.imm_declared = r.imm_declared;
        s.imm_field = r.imm_field;
        if let Some(sms) = &r.imm_signed {
            if s.ty != ValueType::B32 {
                cx.err(
                    Code::S0103,
                    sms,
                    "`imm_signed` on a source whose type is not `b32`",
                );
                ok = false;
            }
            let all: Vec<u32> = names
                .families
                .iter()
                .flat_map(|f| f.sms.iter().copied())
                .collect();
            match parse_sms(sms.get_ref(), &all) {
                Ok(v) => s.imm_signed = v,
                Err(e) => {
                    cx.err(Code::S1001, sms, e);
                    ok = false;
                }
            }
        }
    }
    ok
}

/// A memory address operand: `[a+off]`, `[a.w+off]` (enum modifier `w`
/// printed after the base register) or `[a.w+u+off] by mode` (uniform
/// register source `u`, used as `mode`, an enum modifier of type
/// `mem_addr_mode`, says: not printed, added, or the descriptor).
fn parse_mem_item(op: &Op, s: &str) -> Result<MemItem, String> {
    let bad = || {
        format!(
            "memory operand `{s}` is not `[SRC]`, `[SRC+OFFSET]`, `[SRC.WIDTH+OFFSET]`, `[SRC*SCALE+OFFSET]` or `[SRC.WIDTH+UR+OFFSET] by MODE`"
        )
    };
    let (addr, mode) = match s.split_once(" by ") {
        Some((a, m)) => (a.trim(), Some(m.trim())),
        None => (s, None),
    };
    let (mode, ur_else) = match mode.and_then(|m| m.split_once(" else ")) {
        Some((m, e)) => {
            let idx = e
                .trim()
                .strip_prefix("UR")
                .and_then(|n| n.parse::<u8>().ok())
                .ok_or_else(|| format!("`else {e}` is not a uniform register URn"))?;
            (Some(m.trim()), Some(idx))
        }
        None => (mode, None),
    };
    let inner = addr
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(bad)?;
    let parts: Vec<&str> = inner.split('+').map(str::trim).collect();
    let (base, ur, off) = match parts.as_slice() {
        [b] if mode.is_none() => (*b, None, None),
        [b, o] => (*b, None, Some(*o)),
        [b, u, o] => (*b, Some(*u), Some(*o)),
        _ => return Err(bad()),
    };
    let (base, width, scale) = match (base.split_once('.'), base.split_once('*')) {
        (Some((b, w)), _) => (b, Some(w), false),
        (None, Some((b, w))) => (b, Some(w), true),
        (None, None) => (base, None, false),
    };
    let src = |n: &str| {
        op.src(n)
            .ok_or_else(|| format!("`{n}` is not a source of `{}`", op.name))
    };
    let enum_mod = |n: &str| {
        op.modifier(n)
            .filter(|&i| matches!(op.modifiers[i].ty, ModType::Enum(_)))
            .ok_or_else(|| format!("`{n}` is not an enum modifier of `{}`", op.name))
    };
    let item = MemItem {
        base: src(base)?,
        off: off
            .map(|off| {
                op.modifier(off)
                    .filter(|&i| matches!(op.modifiers[i].ty, ModType::Int { .. }))
                    .ok_or_else(|| format!("`{off}` is not an integer modifier of `{}`", op.name))
            })
            .transpose()?,
        width: width.map(enum_mod).transpose()?,
        scale,
        ur: ur.map(src).transpose()?,
        mode: mode.map(enum_mod).transpose()?,
        ur_else,
        bank: None,
        attr: false,
    };
    if item.off.is_none() && item.width.is_some() {
        return Err(bad());
    }
    if item.ur.is_some() != item.mode.is_some() {
        return Err(format!(
            "memory operand `{s}`: a UR term needs `by MODE`, and `by` a UR term"
        ));
    }
    Ok(item)
}

fn parse_asm_operand(op: &Op, s: &str) -> Result<(AsmItem, AsmCond, Vec<usize>), String> {
    // `a[a+off]`, `a[a]`: an attribute address; `a[off]`: one without a
    // base register, the offset an unsigned modifier.
    if let Some(rest) = s.strip_prefix("a[") {
        let inner = rest.strip_suffix(']').unwrap_or(rest).trim();
        if op.src(inner).is_none() && !inner.contains('+') {
            let m = op
                .modifier(inner)
                .filter(|&i| matches!(op.modifiers[i].ty, ModType::Int { signed: false, .. }))
                .ok_or_else(|| {
                    format!(
                        "`{inner}` is not a source or unsigned integer modifier of `{}`",
                        op.name
                    )
                })?;
            return Ok((AsmItem::AttrOff(m), AsmCond::Always, Vec::new()));
        }
        let mut item = parse_mem_item(op, &s[1..])?;
        if item.width.is_some() || item.ur.is_some() {
            return Err(format!(
                "attribute address `{s}` is not `a[SRC+OFFSET]` or `a[SRC]`"
            ));
        }
        item.attr = true;
        return Ok((AsmItem::Mem(item), AsmCond::Always, Vec::new()));
    }
    // `c[bank][a+off]`: a constant-bank address, the bank an unsigned modifier.
    if let Some((bank, rest)) = s.strip_prefix("c[").and_then(|r| r.split_once(']')) {
        let b = op
            .modifier(bank.trim())
            .filter(|&i| matches!(op.modifiers[i].ty, ModType::Int { signed: false, .. }))
            .ok_or_else(|| {
                format!(
                    "`{bank}` is not an unsigned integer modifier of `{}`",
                    op.name
                )
            })?;
        let mut item = parse_mem_item(op, rest)?;
        if item.width.is_some() || item.ur.is_some() || item.off.is_none() {
            return Err(format!(
                "constant address `{s}` is not `c[BANK][SRC+OFFSET]`"
            ));
        }
        item.bank = Some(b);
        return Ok((AsmItem::Mem(item), AsmCond::Always, Vec::new()));
    }
    // `gdesc[a]+m...`: a register source in a descriptor bracket, with
    // suffix modifiers after it.
    if let Some(rest) = s.strip_prefix("gdesc[") {
        let (inner, sfx) = rest
            .split_once(']')
            .ok_or_else(|| format!("descriptor `{s}` is not `gdesc[SRC]`"))?;
        let i = op
            .src(inner.trim())
            .filter(|&i| !op.srcs[i].ty.is_pred())
            .ok_or_else(|| format!("`{inner}` is not a register source of `{}`", op.name))?;
        let mut mods = Vec::new();
        if !sfx.trim().is_empty() {
            let Some(list) = sfx.trim().strip_prefix('+') else {
                return Err(format!(
                    "after `gdesc[{inner}]` only `+MODIFIER` suffixes may follow"
                ));
            };
            for m in list.split('+').map(str::trim) {
                mods.push(suffix_modifier(op, m)?);
            }
        }
        return Ok((AsmItem::Desc(i), AsmCond::Always, mods));
    }
    if s.starts_with('[') {
        return Ok((
            AsmItem::Mem(parse_mem_item(op, s)?),
            AsmCond::Always,
            Vec::new(),
        ));
    }
    let (name, cond) = if let Some((n, c)) = s.split_once(" if ") {
        let c = c.trim();
        let (neg, m) = match c.strip_prefix('!') {
            Some(m) => (true, m),
            None => (false, c),
        };
        let mi = op
            .modifier(m)
            .ok_or_else(|| format!("`{m}` is not a modifier"))?;
        match n.trim().strip_suffix('?') {
            Some(n) => {
                let pred_src = op.src(n).is_some_and(|i| op.srcs[i].ty.is_pred());
                if !pred_src {
                    return Err(format!(
                        "`{n}? if {c}`: only a predicate source may be optional under a condition"
                    ));
                }
                (n, AsmCond::IfOptional(mi, !neg))
            }
            None => (n.trim(), AsmCond::If(mi, !neg)),
        }
    } else if let Some(n) = s.strip_suffix('?') {
        (n, AsmCond::NotDefault)
    } else {
        (s, AsmCond::Always)
    };
    let mut sufs = name.split('+').map(str::trim);
    let name = sufs.next().unwrap_or_default();
    let item = if let Some(i) = op.dst(name) {
        AsmItem::Dst(i)
    } else if let Some(i) = op.src(name) {
        AsmItem::Src(i)
    } else if let Some(i) = op.modifier(name) {
        AsmItem::Modifier(i)
    } else {
        return Err(format!(
            "`{name}` is not an operand or modifier of `{}`",
            op.name
        ));
    };
    let mut sfx = Vec::new();
    for m in sufs {
        let mi = suffix_modifier(op, m)?;
        if !matches!(item, AsmItem::Dst(_) | AsmItem::Src(_)) {
            return Err(format!(
                "`{name}+{m}`: only a register operand takes a suffix"
            ));
        }
        if matches!(cond, AsmCond::NotDefault | AsmCond::IfOptional(..)) {
            return Err(format!(
                "`{name}?` with a suffix: the suffix would be lost when `{name}` is omitted"
            ));
        }
        sfx.push(mi);
    }
    Ok((item, cond, sfx))
}

/// A modifier printed after an operand (`R2.CC`): a bool or an enum.
fn suffix_modifier(op: &Op, m: &str) -> Result<usize, String> {
    let mi = op
        .modifier(m)
        .ok_or_else(|| format!("operand suffix `{m}` is not a modifier"))?;
    if !matches!(op.modifiers[mi].ty, ModType::Bool | ModType::Enum(_)) {
        return Err(format!(
            "operand suffix `{m}` must be a bool or enum modifier"
        ));
    }
    Ok(mi)
}

fn parse_alias_cond(op: &Op, enums: &[Enum], s: &str) -> Result<AliasCond, String> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    if parts.len() != 3 {
        return Err(format!("alias condition `{s}` is not `NAME OP VALUE`"));
    }
    let (name, rel, val) = (parts[0], parts[1], parts[2]);
    if let Some(i) = op.src(name) {
        return match (rel, val) {
            ("==", "RZ") | ("==", "PT") => Ok(AliasCond::SrcIsZero(i, true)),
            ("!=", "RZ") | ("!=", "PT") => Ok(AliasCond::SrcIsZero(i, false)),
            ("==", "imm_pow2") => Ok(AliasCond::SrcImmPow2(i)),
            ("is", "plain") => Ok(AliasCond::SrcPlain(i)),
            ("is", k) | ("isnt", k) => SlotKindClass::parse(k)
                .map(|c| AliasCond::SrcKindIs(i, c, rel == "is"))
                .ok_or_else(|| format!("unknown kind `{k}`")),
            ("==", v) => parse_int(v)
                .map(|v| AliasCond::SrcImmEq(i, v as u32))
                .ok_or_else(|| format!("bad value `{v}`")),
            _ => Err(format!("cannot test source `{name}` with `{rel} {val}`")),
        };
    }
    if let Some(i) = op.modifier(name) {
        let eq = match rel {
            "==" => true,
            "!=" => false,
            _ => return Err(format!("modifiers are tested with == or !=, not `{rel}`")),
        };
        let v = match &op.modifiers[i].ty {
            ModType::Bool => match val {
                "true" => 1,
                "false" => 0,
                _ => return Err(format!("`{val}` is not true/false")),
            },
            ModType::Enum(e) => enums[*e]
                .values
                .iter()
                .position(|x| x.name == val)
                .ok_or_else(|| format!("`{val}` is not a value of `{}`", enums[*e].name))?
                as i64,
            _ => parse_int(val).ok_or_else(|| format!("bad value `{val}`"))? as i64,
        };
        return Ok(AliasCond::ModEq(i, v, eq));
    }
    Err(format!("`{name}` is not a source or modifier"))
}

/// What a field string names, before it is checked against bit widths.
fn parse_target(
    op: &Op,
    enums: &[Enum],
    s: &str,
    value_overrides: &BTreeMap<String, Vec<Option<u64>>>,
) -> Result<FieldTarget, String> {
    if s == "?" {
        return Ok(FieldTarget::Unknown(0));
    }
    if let Some(v) = s.strip_prefix("?=") {
        return parse_int(v)
            .map(FieldTarget::Unknown)
            .ok_or_else(|| format!("bad canonical value `{v}` for raw bits"));
    }
    if s == "guard:upred" {
        return Ok(FieldTarget::GuardUPred);
    }
    if let Some(v) = s.strip_prefix('=') {
        return parse_int(v)
            .map(FieldTarget::Fixed)
            .ok_or_else(|| format!("bad fixed value `{v}`"));
    }
    let (name, kind) = match s.split_once(':') {
        Some((n, k)) => (n, Some(k)),
        None => (s, None),
    };
    let (name, part) = match name.split_once('.') {
        Some((n, p)) => (n, Some(p)),
        None => (name, None),
    };
    let target = TargetName { name, part, kind };
    if let Some(i) = op.dst(name) {
        return dst_target(op, i, &target);
    }
    if let Some(i) = op.src(name) {
        return src_target(op, i, &target);
    }
    if let Some(i) = op.modifier(name) {
        return modifier_target(op, enums, i, &target, value_overrides);
    }
    Err(format!(
        "`{name}` is not an operand or modifier of `{}`",
        op.name
    ))
}

/// A field target written `name.part:kind`, split into its pieces.
struct TargetName<'a> {
    name: &'a str,
    part: Option<&'a str>,
    kind: Option<&'a str>,
}

/// Destination `i`: a register of the written kind, by default the one
/// its type lives in. Destinations have one part, `.inv`: the field holds
/// the predicate's index complemented (`"30..33" = "pd.inv"`); predicate
/// sources take it too.
fn dst_target(op: &Op, i: usize, t: &TargetName) -> Result<FieldTarget, String> {
    let inv = match t.part {
        None => false,
        Some("inv") => true,
        Some(p) => {
            return Err(format!(
                "destination `{}` has no part `{p}` (only `.inv`)",
                t.name
            ));
        }
    };
    let k = match t.kind {
        Some(k) => SlotKindClass::parse(k).ok_or_else(|| format!("unknown kind `{k}`"))?,
        None if op.dsts[i].ty.is_pred() => SlotKindClass::Pred,
        None => SlotKindClass::Gpr,
    };
    if inv && !matches!(k, SlotKindClass::Pred | SlotKindClass::Upred) {
        return Err(format!(
            "`.inv` of `{}`: predicate destinations only",
            t.name
        ));
    }
    Ok(FieldTarget::Dst {
        idx: i,
        kind: k,
        inv,
    })
}

/// Source `i`: a modifier flag it declares (`.neg`, `.abs`, `.not`), or
/// its value in the written slot kind, by default the register its type
/// lives in.
fn src_target(op: &Op, i: usize, t: &TargetName) -> Result<FieldTarget, String> {
    let o = &op.srcs[i];
    match t.part {
        Some("neg") if o.mods.neg => return Ok(FieldTarget::SrcNeg(i)),
        Some("abs") if o.mods.abs => return Ok(FieldTarget::SrcAbs(i)),
        Some("not") if o.mods.not => return Ok(FieldTarget::SrcNot(i)),
        Some(p @ ("neg" | "abs" | "not")) => {
            return Err(format!(
                "source `{}` does not declare modifier `{p}`",
                t.name
            ));
        }
        Some("inv") => {}
        Some(p) => return Err(format!("unknown part `{p}` (neg, abs, not, inv)")),
        None => {}
    }
    let k = t
        .kind
        .unwrap_or(if o.ty.is_pred() { "pred" } else { "gpr" });
    let target = src_slot_target(o, i, k)?;
    if t.part != Some("inv") {
        return Ok(target);
    }
    // `.inv`: the index stored complemented, as a destination's (LDG.256's
    // and HGMMA's trailing predicates: 0 is PT).
    match target {
        FieldTarget::SrcReg { idx, kind, .. }
            if matches!(kind, SlotKindClass::Pred | SlotKindClass::Upred) =>
        {
            Ok(FieldTarget::SrcReg {
                idx,
                kind,
                inv: true,
            })
        }
        _ => Err(format!("`.inv` of `{}`: predicate registers only", t.name)),
    }
}

/// Source `i` (operand `o`) stored as slot kind `k`: an immediate and how
/// it is packed, a constant-bank part, or a register.
fn src_slot_target(o: &Operand, i: usize, k: &str) -> Result<FieldTarget, String> {
    let imm = |shift, sext| FieldTarget::SrcImm {
        idx: i,
        packing: ImmPacking {
            shift,
            sext,
            halves: false,
        },
    };
    let cbuf_offset = |scale, signed| FieldTarget::SrcCbuf {
        idx: i,
        part: CbufPart::Offset { scale, signed },
    };
    match k {
        "imm" => Ok(imm(0, false)),
        "imms" => Ok(imm(0, true)),
        // A float's 20-bit immediate holds its top 20 bits; an integer's
        // is sign-extended.
        "imm20" if o.ty.is_float() => Ok(imm(12, false)),
        "imm20" => Ok(imm(0, true)),
        // A packed pair's 20-bit immediate (Pascal's HADD2): the top 10
        // bits of each half.
        "imm20h" if o.ty == ValueType::B32 => Ok(FieldTarget::SrcImm {
            idx: i,
            packing: ImmPacking {
                shift: 6,
                sext: false,
                halves: true,
            },
        }),
        "cbuf.index" => Ok(FieldTarget::SrcCbuf {
            idx: i,
            part: CbufPart::Index,
        }),
        "cbuf.offset" => Ok(cbuf_offset(1, false)),
        "cbuf.offset4" => Ok(cbuf_offset(4, false)),
        "cbuf.soffset" => Ok(cbuf_offset(1, true)),
        "cbuf.soffset4" => Ok(cbuf_offset(4, true)),
        k => SlotKindClass::parse(k)
            .filter(|k| !matches!(k, SlotKindClass::Imm | SlotKindClass::Cbuf))
            .map(|k| FieldTarget::SrcReg {
                idx: i,
                kind: k,
                inv: false,
            })
            .ok_or_else(|| {
                format!("unknown kind `{k}` (gpr, ugpr, pred, upred, bar, imm, imms, imm20, imm20h, cbuf.index, cbuf.offset, cbuf.offset4, cbuf.soffset, cbuf.soffset4)")
            }),
    }
}

/// Modifier `i`: its codes in this encoding (the enum's own unless
/// `value_overrides` renumbers them) and, for a `rel` offset, the scale
/// it is stored in (`target:x4`: units of 4 bytes; an integer offset
/// too: Maxwell's ATOMS keeps `off:x4`, Volta's IPA its attribute).
fn modifier_target(
    op: &Op,
    enums: &[Enum],
    i: usize,
    t: &TargetName,
    value_overrides: &BTreeMap<String, Vec<Option<u64>>>,
) -> Result<FieldTarget, String> {
    let name = t.name;
    let scale = match (t.kind, &op.modifiers[i].ty) {
        (None, _) => 1,
        (Some(k), ModType::Rel | ModType::Abs { .. } | ModType::Int { .. }) => k
            .strip_prefix('x')
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| n.is_power_of_two())
            .ok_or_else(|| format!("bad scale `{k}` for `{name}` (x2, x4, ...)"))?,
        (Some(_), _) => return Err(format!("modifier `{name}` has no kinds")),
    };
    if t.part.is_some() {
        return Err(format!("modifier `{name}` has no parts"));
    }
    let codes = match (&op.modifiers[i].ty, value_overrides.get(name)) {
        (ModType::Enum(_), Some(v)) => Some(v.clone()),
        (ModType::Enum(e), None) => Some(enums[*e].values.iter().map(|v| Some(v.code)).collect()),
        _ => None,
    };
    Ok(FieldTarget::Modifier {
        idx: i,
        codes,
        scale,
    })
}

/// What one `[[encoding]]` says that every form it expands to shares,
/// resolved once before the forms are built.
struct EncodingParts<'a> {
    op: &'a Op,
    names: &'a Names<'a>,
    family: usize,
    sms: Vec<u32>,
    /// Enum modifier -> the code of each of its values here (`None`: the
    /// value does not exist in this encoding).
    overrides: BTreeMap<String, Vec<Option<u64>>>,
    /// Source -> its `.reuse` control bit, where the family rule does not hold.
    reuse_over: BTreeMap<String, Option<u32>>,
    not_all: Vec<NotAll>,
    tied: Vec<(usize, usize)>,
    tied_src: Vec<TiedSrc>,
    /// The op's own `fields`, and each form's `form.<name>` fields.
    op_fields: Vec<Field>,
    per_form: BTreeMap<String, Vec<Field>>,
}

impl EncodingParts<'_> {
    fn fam(&self) -> &Family {
        &self.names.families[self.family]
    }

    /// A form of this encoding on `sms` with these (complete) fields: the
    /// operand kinds and reuse bits follow from the fields.
    fn form(
        &self,
        name: String,
        sms: Vec<u32>,
        fields: Vec<Field>,
        loc: Loc,
        preset_loc: Option<Loc>,
    ) -> Form {
        Form {
            name,
            sms,
            src_kinds: tie_kinds(
                src_kinds_of(self.op, &fields),
                &fields,
                &self.tied,
                &self.tied_src,
            ),
            reuse: reuse_of(self.op, self.fam(), &fields, &self.reuse_over),
            fields,
            not_all: self.not_all.clone(),
            tied: self.tied.clone(),
            tied_src: self.tied_src.clone(),
            loc,
            preset_loc,
            strict: Vec::new(),
            ignored: 0,
        }
    }
}

/// One `[[encoding]]` (its `extends` already applied) as its forms: the
/// whole layout when it has no preset, else one form per preset form the
/// op has. `None` when a mistake leaves it unusable (reported).
fn resolve_encoding(
    cx: &mut Ctx,
    op: &Op,
    e: &S<schema::EncodingDef>,
    names: &Names,
) -> Option<Encoding> {
    let r = e.get_ref();
    let (family, sms) = encoding_family_sms(cx, r, names)?;
    let overrides = value_overrides(cx, op, &r.values, names.enums);
    let (tied, tied_src) = tied_pairs(cx, op, &r.tied);
    let mut parts = EncodingParts {
        op,
        names,
        family,
        sms,
        overrides,
        reuse_over: reuse_overrides(cx, op, &r.reuse),
        not_all: not_all_masks(cx, &r.not_all),
        tied,
        tied_src,
        op_fields: Vec::new(),
        per_form: BTreeMap::new(),
    };
    if !parse_op_fields(cx, &mut parts, r) {
        return None;
    }
    let mut forms = match &r.preset {
        None => vec![fixed_form(cx, &parts, e)?],
        Some(pname) => preset_forms(cx, &parts, e, pname)?,
    };
    ignore_bits(cx, r, &parts.sms, &mut forms);
    if forms.is_empty() {
        cx.err(
            Code::S1003,
            e,
            format!("encoding for `{}` has no usable form", parts.fam().name),
        );
        return None;
    }
    Some(Encoding {
        family,
        sms: parts.sms,
        forms,
        loc: cx.loc(e),
    })
}

/// `ignored` and `ignored_on`: the fixed bits they name become raw bits
/// with the fixed value, in every form that fixes them; where `ignored_on`
/// names them for some SMs only, they stay fixed on the form's other SMs
/// ([`Form::strict`]), and in a form none of whose SMs ignores them.
fn ignore_bits(cx: &mut Ctx, r: &schema::EncodingDef, sms: &[u32], forms: &mut [Form]) {
    let fixed_somewhere = forms.iter().fold(0, |a, f| a | f.fixed().0);
    let Some((all, some)) = ignored_lists(cx, r, sms, fixed_somewhere) else {
        return;
    };
    for form in forms {
        let raw = some
            .iter()
            .filter(|(on, _)| on.iter().any(|sm| form.sms.contains(sm)))
            .fold(all, |a, (_, m)| a | m);
        let fixed = form.fixed().0;
        if fixed & raw == 0 {
            continue;
        }
        form.strict = strict_groups(form, fixed & raw, all, &some);
        form.ignored = fixed & raw;
        let mut fields = Vec::with_capacity(form.fields.len());
        for f in form.fields.drain(..) {
            match f.target {
                FieldTarget::Fixed(v) if f.bits.mask() & raw != 0 => {
                    fields.extend(split_fixed(&f, v, raw));
                }
                _ => fields.push(f),
            }
        }
        form.fields = fields;
    }
}

/// The encoding's `ignored` bits, and (SMs, bits) per `ignored_on` entry
/// that names some of its SMs; `None` when `ignored` does not parse. A
/// bit no form fixes is S0502.
#[allow(clippy::type_complexity)]
fn ignored_lists(
    cx: &mut Ctx,
    r: &schema::EncodingDef,
    sms: &[u32],
    fixed_somewhere: u128,
) -> Option<(u128, Vec<(Vec<u32>, u128)>)> {
    let stray_check = |cx: &mut Ctx, at: &S<String>, mask: u128| {
        if mask & !fixed_somewhere != 0 {
            let stray = Bits::from_mask(mask & !fixed_somewhere);
            cx.err(
                Code::S0502,
                at,
                format!("`ignored` names bits {stray} that no form of the encoding fixes"),
            );
        }
    };
    let mut all = 0;
    if let Some(ig) = r
        .ignored
        .as_ref()
        .filter(|ig| !ig.get_ref().trim().is_empty())
    {
        match parse_bits(ig.get_ref()) {
            Ok(b) => all = b.mask(),
            Err(m) => {
                cx.err(Code::S0101, ig, m);
                return None;
            }
        }
        stray_check(cx, ig, all);
    }
    let mut some = Vec::new();
    for (k, v) in &r.ignored_on {
        let (on, mask) = match (parse_sms(k.get_ref(), sms), parse_bits(v.get_ref())) {
            (Err(m), _) => {
                cx.err(Code::S0101, k, m);
                continue;
            }
            (_, Err(m)) => {
                cx.err(Code::S0101, v, m);
                continue;
            }
            (Ok(on), Ok(b)) => (on, b.mask()),
        };
        // An entry for none of the encoding's SMs (inherited from a base
        // on other SMs) is moot.
        if !on.is_empty() {
            stray_check(cx, v, mask);
            some.push((on, mask));
        }
    }
    Some((all, some))
}

/// The form's SMs grouped by the bits of `raw` (the fixed bits that turn
/// raw) that nvdisasm reads on them: those not in `all` nor in an
/// `ignored_on` entry naming the SM. SMs that ignore every bit of `raw`
/// are left out.
fn strict_groups(form: &Form, raw: u128, all: u128, some: &[(Vec<u32>, u128)]) -> Vec<Strict> {
    let mut groups: Vec<Strict> = Vec::new();
    for &sm in &form.sms {
        let ignored = some
            .iter()
            .filter(|(on, _)| on.contains(&sm))
            .fold(all, |a, (_, m)| a | m);
        let mask = raw & !ignored;
        if mask == 0 {
            continue;
        }
        match groups.iter_mut().find(|g| g.mask == mask) {
            Some(g) => g.sms.push(sm),
            None => groups.push(Strict {
                sms: vec![sm],
                mask,
            }),
        }
    }
    groups
}

/// A fixed field as runs of bits, each fixed or (under `ignored`) raw
/// with its part of the fixed value.
fn split_fixed(f: &Field, v: u128, ignored: u128) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    let mut shift = 0;
    for &(l, h) in &f.bits.ranges {
        let mut b = l;
        while b < h {
            let raw = ignored >> b & 1 == 1;
            let mut e = b + 1;
            while e < h && (ignored >> e & 1 == 1) == raw {
                e += 1;
            }
            let part = v >> (shift + b - l) & ((1u128 << (e - b)) - 1);
            out.push(Field {
                bits: Bits {
                    ranges: vec![(b, e)],
                },
                target: if raw {
                    FieldTarget::Unknown(part)
                } else {
                    FieldTarget::Fixed(part)
                },
                loc: f.loc.clone(),
                slot: f.slot.clone(),
            });
            b = e;
        }
        shift += h - l;
    }
    out
}

/// The encoding's family and SMs (`sms`, default: the whole family);
/// `None` (reported) for an unknown family or a range with none of its SMs.
fn encoding_family_sms(
    cx: &mut Ctx,
    r: &schema::EncodingDef,
    names: &Names,
) -> Option<(usize, Vec<u32>)> {
    // Every expanded encoding has a family (`extend` reports one without).
    let family = r.family.as_ref()?;
    let Some(fi) = names
        .families
        .iter()
        .position(|f| &f.name == family.get_ref())
    else {
        cx.err(
            Code::S1001,
            family,
            format!("unknown family `{}`", family.get_ref()),
        );
        return None;
    };
    let fam = &names.families[fi];
    let Some(s) = &r.sms else {
        return Some((fi, fam.sms.clone()));
    };
    match parse_sms(s.get_ref(), &fam.sms) {
        Ok(v) if !v.is_empty() => Some((fi, v)),
        Ok(_) => {
            cx.err(
                Code::S1001,
                s,
                format!("no SM of family `{}` is in `{}`", fam.name, s.get_ref()),
            );
            None
        }
        Err(er) => {
            cx.err(Code::S1001, s, er);
            None
        }
    }
}

/// `[encoding.values.<modifier>]`: per enum modifier, the enum's codes
/// with the encoding's changes (a negative code: the value does not exist
/// here).
fn value_overrides(
    cx: &mut Ctx,
    op: &Op,
    values: &BTreeMap<S<String>, BTreeMap<String, S<i64>>>,
    enums: &[Enum],
) -> BTreeMap<String, Vec<Option<u64>>> {
    let mut overrides = BTreeMap::new();
    for (m, vals) in values {
        let Some(mi) = op.modifier(m.get_ref()) else {
            cx.err(
                Code::S0601,
                m,
                format!("`{}` is not a modifier", m.get_ref()),
            );
            continue;
        };
        let ModType::Enum(ei) = op.modifiers[mi].ty else {
            cx.err(
                Code::S0601,
                m,
                format!("`{}` is not an enum modifier", m.get_ref()),
            );
            continue;
        };
        let en = &enums[ei];
        let mut codes: Vec<Option<u64>> = en.values.iter().map(|v| Some(v.code)).collect();
        for (vn, code) in vals {
            match en.values.iter().position(|v| &v.name == vn) {
                Some(i) => codes[i] = u64::try_from(*code.get_ref()).ok(),
                None => cx.err(
                    Code::S0302,
                    code,
                    format!("`{vn}` is not a value of `{}`", en.name),
                ),
            }
        }
        overrides.insert(m.get_ref().clone(), codes);
    }
    overrides
}

/// The encoding's `reuse` table: source -> control bit (`None`: no flag).
fn reuse_overrides(
    cx: &mut Ctx,
    op: &Op,
    reuse: &BTreeMap<S<String>, S<i64>>,
) -> BTreeMap<String, Option<u32>> {
    let mut out = BTreeMap::new();
    for (k, v) in reuse {
        if op.src(k.get_ref()).is_none() {
            cx.err(Code::S0601, k, format!("`{}` is not a source", k.get_ref()));
        }
        out.insert(k.get_ref().clone(), u32::try_from(*v.get_ref()).ok());
    }
    out
}

/// The `not_all` entries: `"24..32"` (never all ones) or `"24..32 if 76 ==
/// 0"` (not while bits 76.. hold that value); one that does not parse is
/// reported and left out.
fn not_all_masks(cx: &mut Ctx, ranges: &[S<String>]) -> Vec<NotAll> {
    let mut out = Vec::new();
    for b in ranges {
        match parse_not_all(b.get_ref()) {
            Ok(n) => out.push(n),
            Err(m) => cx.err(Code::S0101, b, m),
        }
    }
    out
}

fn parse_not_all(s: &str) -> Result<NotAll, String> {
    let (bits, cond) = match s.split_once(" if ") {
        Some((b, c)) => (b.trim(), Some(c.trim())),
        None => (s.trim(), None),
    };
    let mask = parse_bits(bits)?.mask();
    let (when_mask, when_value) = match cond {
        None => (0, 0),
        Some(c) => {
            let (r, v) = c
                .split_once("==")
                .ok_or_else(|| format!("`not_all` condition `{c}` is not `BITS == VALUE`"))?;
            let b = parse_bits(r.trim())?;
            let v = v.trim();
            let v = match v.strip_prefix("0x") {
                Some(h) => u128::from_str_radix(h, 16),
                None => v.parse::<u128>(),
            }
            .map_err(|_| format!("bad `not_all` value `{v}`"))?;
            if b.width() < 128 && v >> b.width() != 0 {
                return Err(format!(
                    "`not_all` value {v} does not fit bits `{}`",
                    r.trim()
                ));
            }
            (b.mask(), b.place(v))
        }
    };
    Ok(NotAll {
        mask,
        when_mask,
        when_value,
    })
}

/// The `tied` table as (source, destination) indices, and sources tied to
/// another source (`"b"` or `"b+N"`).
fn tied_pairs(
    cx: &mut Ctx,
    op: &Op,
    tied: &BTreeMap<S<String>, S<String>>,
) -> (Vec<(usize, usize)>, Vec<TiedSrc>) {
    let mut out = Vec::new();
    let mut srcs = Vec::new();
    for (sn, dn) in tied {
        let si = op.srcs.iter().position(|x| &x.name == sn.get_ref());
        let di = op.dsts.iter().position(|x| &x.name == dn.get_ref());
        let (base, n) = match dn.get_ref().split_once('+') {
            Some((b, n)) => (b.trim(), n.trim().parse::<u8>().ok()),
            None => (dn.get_ref().as_str(), Some(0)),
        };
        let sj = op.srcs.iter().position(|x| x.name == base);
        match (si, di, sj, n) {
            (Some(si), Some(di), _, _) => out.push((si, di)),
            (Some(si), None, Some(sj), Some(n)) if si != sj => srcs.push(TiedSrc {
                src: si,
                base: sj,
                n,
            }),
            (None, _, _, _) => cx.err(
                Code::S0601,
                sn,
                format!("`{}` is not a source", sn.get_ref()),
            ),
            _ => cx.err(
                Code::S0601,
                dn,
                format!(
                    "`{}` is not a destination, another source, or another source plus a register count (`b+1`)",
                    dn.get_ref()
                ),
            ),
        }
    }
    (out, srcs)
}

/// One `"bits" = "target"` entry of the op's fields; `None` (reported)
/// when either side does not parse.
fn parse_field(cx: &mut Ctx, p: &EncodingParts, k: &S<String>, v: &S<String>) -> Option<Field> {
    let bits = match parse_bits(k.get_ref()) {
        Ok(b) => b,
        Err(er) => {
            cx.err(Code::S0101, k, er);
            return None;
        }
    };
    match parse_target(p.op, p.names.enums, v.get_ref(), &p.overrides) {
        Ok(target) => Some(Field {
            bits,
            target,
            loc: cx.loc(k),
            slot: None,
        }),
        Err(er) => {
            cx.err(Code::S0601, v, er);
            None
        }
    }
}

/// Fills `op_fields` and `per_form`; false when a field does not parse or
/// two of `fields` overlap (merged with a preset, one would silently
/// replace the other).
fn parse_op_fields(cx: &mut Ctx, p: &mut EncodingParts, r: &schema::EncodingDef) -> bool {
    let mut ok = true;
    let mut parse_table = |cx: &mut Ctx, p: &EncodingParts, t: &BTreeMap<S<String>, S<String>>| {
        let mut v = Vec::new();
        for (k, val) in t {
            match parse_field(cx, p, k, val) {
                Some(f) => v.push(f),
                None => ok = false,
            }
        }
        v
    };
    p.op_fields = parse_table(cx, p, &r.fields);
    let mut per_form = BTreeMap::new();
    for (fname, t) in &r.form {
        per_form.insert(fname.get_ref().clone(), parse_table(cx, p, t));
    }
    p.per_form = per_form;
    check_field_overlaps(cx, p.op, &p.op_fields) && ok
}

/// Two of the op's own fields on one bit (S0201).
fn check_field_overlaps(cx: &mut Ctx, op: &Op, fields: &[Field]) -> bool {
    let mut ok = true;
    for (i, f) in fields.iter().enumerate() {
        let Some(g) = fields[..i]
            .iter()
            .find(|g| g.bits.mask() & f.bits.mask() != 0)
        else {
            continue;
        };
        cx.report.push(
            Diagnostic::error(
                Code::S0201,
                format!(
                    "bits {} overlap bits {} in the fields of `{}`",
                    f.bits.display(),
                    g.bits.display(),
                    op.name
                ),
            )
            .at(f.loc.clone())
            .also(g.loc.clone(), "overlapped field"),
        );
        ok = false;
    }
    ok
}

/// Without a preset, `fields` (with the family's common fields) is the
/// one form; `opcode` and `slots` mean nothing there (S0601).
fn fixed_form(cx: &mut Ctx, p: &EncodingParts, e: &S<schema::EncodingDef>) -> Option<Form> {
    let r = e.get_ref();
    if r.opcode.is_some() || !r.slots.is_empty() {
        cx.err(
            Code::S0601,
            e,
            "`opcode` and `slots` need a `preset`; without one, put the opcode in `fields`",
        );
        return None;
    }
    let mut fields = p.op_fields.clone();
    fields.extend(common_under(&fields, &p.fam().common));
    Some(p.form("fixed".into(), p.sms.clone(), fields, cx.loc(e), None))
}

/// The preset's forms for the op (those left out by `without`, by SM, by
/// a missing opcode or a slot kind the op does not fill are skipped);
/// `None` (reported) for an unknown preset or slot source.
fn preset_forms(
    cx: &mut Ctx,
    p: &EncodingParts,
    e: &S<schema::EncodingDef>,
    pname: &S<String>,
) -> Option<Vec<Form>> {
    let r = e.get_ref();
    let Some(preset) = p.names.presets[p.family].get(pname.get_ref()) else {
        cx.err(
            Code::S1001,
            pname,
            format!(
                "family `{}` has no preset `{}`",
                p.fam().name,
                pname.get_ref()
            ),
        );
        return None;
    };
    let slot_map = slot_map(cx, p.op, &r.slots)?;
    check_form_names(cx, preset, pname, &r.without, p.per_form.keys(), cx.loc(e));
    let forms = preset
        .forms
        .iter()
        .filter(|pf| !r.without.iter().any(|w| w.get_ref() == &pf.name))
        .filter_map(|pf| preset_form(cx, p, e, preset, pf, &slot_map))
        .collect();
    Some(forms)
}

/// `slots`: preset slot -> the op source placed in it.
fn slot_map(
    cx: &mut Ctx,
    op: &Op,
    slots: &BTreeMap<S<String>, S<String>>,
) -> Option<BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    for (slot, src) in slots {
        let Some(i) = op.src(src.get_ref()) else {
            cx.err(
                Code::S0601,
                src,
                format!("`{}` is not a source", src.get_ref()),
            );
            return None;
        };
        out.insert(slot.get_ref().clone(), i);
    }
    Some(out)
}

/// `without` and `form.<name>` must name forms of the preset (S0601).
fn check_form_names<'k>(
    cx: &mut Ctx,
    preset: &ResolvedPreset,
    pname: &S<String>,
    without: &[S<String>],
    per_form: impl Iterator<Item = &'k String>,
    enc_loc: Loc,
) {
    let has = |n: &str| preset.forms.iter().any(|f| f.name == n);
    for w in without {
        if !has(w.get_ref()) {
            cx.err(
                Code::S0601,
                w,
                format!("preset `{}` has no form `{}`", pname.get_ref(), w.get_ref()),
            );
        }
    }
    for fname in per_form {
        if !has(fname) {
            cx.report.push(
                Diagnostic::error(
                    Code::S0601,
                    format!("preset `{}` has no form `{fname}`", pname.get_ref()),
                )
                .at(enc_loc.clone()),
            );
        }
    }
}

/// One preset form for the op, on the encoding's SMs where the preset has
/// it: the opcode, the preset's fields for the op's slots, then the op's
/// own fields over them. `None`: the op does not have this form.
fn preset_form(
    cx: &mut Ctx,
    p: &EncodingParts,
    e: &S<schema::EncodingDef>,
    preset: &ResolvedPreset,
    pf: &PresetFormR,
    slot_map: &BTreeMap<String, usize>,
) -> Option<Form> {
    let r = e.get_ref();
    let fsms: Vec<u32> = pf
        .sms
        .iter()
        .copied()
        .filter(|s| p.sms.contains(s))
        .collect();
    if fsms.is_empty() {
        return None;
    }
    let opcode = match r.opcode.as_ref().map(|o| o.get_ref()) {
        Some(schema::OpcodeValue::One(v)) => *v,
        Some(schema::OpcodeValue::PerForm(m)) => *m.get(&pf.name)?,
        None => return None,
    };
    let opcode_loc = r.opcode.as_ref().map_or(cx.loc(e), |o| cx.loc(o));
    let opcode_field = Field {
        bits: preset.opcode.clone(),
        target: FieldTarget::Fixed(opcode as u128),
        loc: opcode_loc.clone(),
        slot: None,
    };
    let fields = preset_fields(cx, p, pf, slot_map, &preset.empty_zero)?;
    let mut fields = opcode_gives_way(opcode_field, fields);
    let mut extra: Vec<Field> = p.op_fields.clone();
    extra.extend(p.per_form.get(&pf.name).into_iter().flatten().cloned());
    fields = op_fields_over(fields, extra);
    fields.extend(common_under(&fields, &p.fam().common));
    Some(p.form(
        pf.name.clone(),
        fsms,
        fields,
        opcode_loc,
        Some(pf.loc.clone()),
    ))
}

/// The preset form's fields with the op's sources in their slots; `None`
/// when the form needs a slot kind the op does not fill (or, reported, a
/// slot field does not expand).
fn preset_fields(
    cx: &mut Ctx,
    p: &EncodingParts,
    pf: &PresetFormR,
    slot_map: &BTreeMap<String, usize>,
    empty_zero: &[String],
) -> Option<Vec<Field>> {
    let mut fields = Vec::new();
    for (bits, t, loc) in &pf.fields {
        let empty = EmptySlot {
            zero_kinds: empty_zero,
            width: bits.width(),
        };
        match expand_slot(p.op, p.names.enums, t, slot_map, &p.overrides, &empty) {
            Ok(Some(target)) => fields.push(Field {
                bits: bits.clone(),
                target,
                loc: loc.clone(),
                slot: t
                    .strip_prefix('$')
                    .map(|x| x.split(['.', ':']).next().unwrap_or(x).to_string()),
            }),
            Ok(None) => return None,
            Err(er) => {
                cx.report
                    .push(Diagnostic::error(Code::S0601, er).at(loc.clone()));
                return None;
            }
        }
    }
    Some(fields)
}

/// The opcode first, giving way to the form's own fields where they
/// overlap (Maxwell's imm20 sign bit sits inside the opcode bits).
fn opcode_gives_way(opcode: Field, mut fields: Vec<Field>) -> Vec<Field> {
    let own = fields.iter().fold(0u128, |m, f| m | f.bits.mask());
    let mut out = if opcode.bits.mask() & own != 0 {
        subtract_bits(&opcode, own)
    } else {
        vec![opcode]
    };
    out.append(&mut fields);
    out
}

/// The family's common fields that the op's `fields` leave alone: an op
/// field over a common field replaces it (an op without a guard, such as
/// Maxwell's CAL, whose bits 16..20 nvdisasm ignores, says `"16..20" =
/// "?"`; the form then has no guard field and only encodes PT).
fn common_under(fields: &[Field], common: &[Field]) -> Vec<Field> {
    let own = fields.iter().fold(0u128, |m, f| m | f.bits.mask());
    common
        .iter()
        .filter(|c| c.bits.mask() & own == 0)
        .cloned()
        .collect()
}

/// The op's fields (`extra`: common ones, then the form's own) over the
/// preset's: they take over the preset bits they overlap (fixed and raw
/// preset bits keep their other bits), and a form's own field replaces a
/// common op field on the same bits.
fn op_fields_over(preset: Vec<Field>, extra: Vec<Field>) -> Vec<Field> {
    let extra_mask = extra.iter().fold(0u128, |m, f| m | f.bits.mask());
    let mut merged: Vec<Field> = Vec::new();
    for f in preset {
        if f.bits.mask() & extra_mask == 0 {
            merged.push(f);
        } else if matches!(f.target, FieldTarget::Fixed(_) | FieldTarget::Unknown(_)) {
            merged.extend(subtract_bits(&f, extra_mask));
        }
    }
    let mut kept: Vec<Field> = Vec::new();
    for f in extra.into_iter().rev() {
        if kept.iter().all(|g| g.bits.mask() & f.bits.mask() == 0) {
            kept.push(f);
        }
    }
    kept.reverse();
    merged.extend(kept);
    merged
}

/// Expand a preset field string (`$b:gpr`, `$c.neg`, `=0`, `?`) for an op.
/// `Ok(None)`: the form needs a slot the op does not fill with that kind.
/// What an empty slot's register field holds: the register kinds (besides
/// gpr) that read their zero register there, and the field's width.
struct EmptySlot<'a> {
    zero_kinds: &'a [String],
    width: u32,
}

fn expand_slot(
    op: &Op,
    enums: &[Enum],
    t: &str,
    slots: &BTreeMap<String, usize>,
    overrides: &BTreeMap<String, Vec<Option<u64>>>,
    empty: &EmptySlot,
) -> Result<Option<FieldTarget>, String> {
    let Some(rest) = t.strip_prefix('$') else {
        return parse_target(op, enums, t, overrides).map(Some);
    };
    let end = rest.find(['.', ':']).unwrap_or(rest.len());
    let (slot, tail) = rest.split_at(end);
    match slots.get(slot) {
        Some(&i) => {
            let src = &op.srcs[i];
            let part = tail.strip_prefix('.');
            if let Some(p) = part {
                let has = match p {
                    "neg" => src.mods.neg,
                    "abs" => src.mods.abs,
                    "not" => src.mods.not,
                    _ => return Err(format!("unknown part `{p}`")),
                };
                if !has {
                    return Ok(Some(FieldTarget::Fixed(0)));
                }
            }
            parse_target(op, enums, &format!("{}{tail}", src.name), overrides).map(Some)
        }
        None => {
            // Empty slot: a register reads RZ, a modifier bit is clear; any
            // other kind means the form needs an operand the op lacks.
            if tail.starts_with('.') {
                Ok(Some(FieldTarget::Fixed(0)))
            } else if tail == ":gpr" || tail.is_empty() {
                Ok(Some(FieldTarget::Fixed(0xff)))
            } else if let Some(kind) = tail.strip_prefix(':')
                && empty.zero_kinds.iter().any(|k| k == kind)
            {
                Ok(Some(FieldTarget::Fixed((1u128 << empty.width) - 1)))
            } else {
                Ok(None)
            }
        }
    }
}

/// The part of a fixed/unknown field outside `mask`.
fn subtract_bits(f: &Field, mask: u128) -> Vec<Field> {
    let mut out = Vec::new();
    let mut value_shift = 0;
    for &(l, h) in &f.bits.ranges {
        let h = h.min(128);
        let mut b = l;
        while b < h {
            if mask >> b & 1 == 1 {
                b += 1;
                continue;
            }
            let start = b;
            while b < h && mask >> b & 1 == 0 {
                b += 1;
            }
            let off = value_shift + (start - l);
            let part = |v: u128| {
                v.checked_shr(off).unwrap_or(0)
                    & 1u128.checked_shl(b - start).map_or(u128::MAX, |m| m - 1)
            };
            let target = match f.target {
                FieldTarget::Fixed(v) => FieldTarget::Fixed(part(v)),
                FieldTarget::Unknown(v) => FieldTarget::Unknown(part(v)),
                ref t => t.clone(),
            };
            out.push(Field {
                bits: Bits {
                    ranges: vec![(start, b)],
                },
                target,
                loc: f.loc.clone(),
                slot: f.slot.clone(),
            });
        }
        value_shift += h - l;
    }
    out
}

/// Per source, the control bit that marks its register `.reuse`: the
/// encoding's override, else (for an op of the family's `reuse_classes`)
/// the family's rule for the field's preset slot, else for the field's
/// position.
fn reuse_of(
    op: &Op,
    fam: &Family,
    fields: &[Field],
    over: &BTreeMap<String, Option<u32>>,
) -> Vec<Option<u32>> {
    let mut v = vec![None; op.srcs.len()];
    let by_family = fam
        .reuse_classes
        .as_ref()
        .is_none_or(|c| c.contains(&op.class));
    for f in fields {
        if let FieldTarget::SrcReg {
            idx,
            kind: SlotKindClass::Gpr,
            ..
        } = f.target
        {
            let by_slot = f
                .slot
                .as_ref()
                .and_then(|s| fam.reuse_slots.iter().find(|(n, _)| n == s))
                .map(|x| x.1);
            let by_pos = fam
                .reuse
                .iter()
                .find(|(l, _)| *l == f.bits.ranges[0].0)
                .map(|x| x.1);
            v[idx] = match over.get(&op.srcs[idx].name) {
                Some(o) => *o,
                None => by_slot.or(by_pos).filter(|_| by_family),
            };
        }
    }
    v
}

/// A tied source sits in its destination's register field, or in the
/// other source's.
fn tie_kinds(
    mut v: Vec<Option<SlotKindClass>>,
    fields: &[Field],
    tied: &[(usize, usize)],
    tied_src: &[TiedSrc],
) -> Vec<Option<SlotKindClass>> {
    for &(si, di) in tied {
        let kind = fields.iter().find_map(|f| match f.target {
            FieldTarget::Dst { idx, kind, .. } if idx == di => Some(kind),
            _ => None,
        });
        if let Some(slot) = v.get_mut(si) {
            *slot = kind;
        }
    }
    for t in tied_src {
        let kind = v.get(t.base).copied().flatten();
        if let Some(slot) = v.get_mut(t.src) {
            *slot = kind;
        }
    }
    v
}

fn src_kinds_of(op: &Op, fields: &[Field]) -> Vec<Option<SlotKindClass>> {
    let mut v = vec![None; op.srcs.len()];
    for f in fields {
        match f.target {
            FieldTarget::SrcReg { idx, kind, .. } => v[idx] = Some(kind),
            FieldTarget::SrcImm { idx, .. } => v[idx] = Some(SlotKindClass::Imm),
            FieldTarget::SrcCbuf { idx, .. } => v[idx] = Some(SlotKindClass::Cbuf),
            _ => {}
        }
    }
    v
}
