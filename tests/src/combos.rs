//! Every combination of an op's suffix modifiers, as instructions: the
//! sweep that finds which combinations exist (ask nvdisasm about each), and
//! the source of the illegal combinations the oracle test checks are
//! rejected.
//!
//! A combination is written as assembly text from the spec (mnemonic,
//! suffix texts, operands of fixed registers, immediates and constants for
//! the form's source kinds), parsed by nak's assembler and encoded without
//! the spec's `legal` rules ([`nak::isa::Op::encode_any_combo`]), so the
//! words of combinations the spec rules out can still be built and shown to
//! nvdisasm.

use isa_spec::model::{Asm, AsmCond, AsmItem, ModType, Op, SlotKindClass, Spec, ValueType};
use nak::isa;
use nak::runtime::instr::Common;

/// One combination of modifier values, as an instruction of one form.
#[derive(Clone, Debug)]
pub struct Combo {
    /// The spec's form name (`rrr`, `rcr`, `fixed`, ...).
    pub form: String,
    /// `modifier=value` for every modifier swept, in declaration order.
    pub values: Vec<String>,
    /// The instruction, parsed from the combination's text.
    pub op: isa::Op,
    pub common: Common,
}

impl Combo {
    /// The word, encoded without the `legal` rules; `None` when some other
    /// check (a value absent from the encoding, say) refuses it.
    pub fn word(&self, sm: u32) -> Option<u128> {
        self.op.encode_any_combo(sm, &self.common).ok()
    }
    /// Whether the spec's rules allow the combination on `sm`.
    pub fn legal(&self, sm: u32) -> bool {
        self.op.encode(sm, &self.common).is_ok()
    }
    pub fn key(&self) -> String {
        self.values.join(" ")
    }
}

/// The modifiers a sweep varies: the bool and enum modifiers the syntax
/// `asm` shows (as suffixes, operands or operand suffixes); the others
/// keep their defaults.
fn swept(op: &Op, asm: &Asm) -> Vec<usize> {
    let mut shown: Vec<usize> = asm.suffixes.clone();
    for o in &asm.operands {
        shown.extend(&o.suffixes);
        if let AsmItem::Modifier(m) = o.item {
            shown.push(m);
        }
        if let AsmCond::If(m, _) | AsmCond::IfOptional(m, _) = o.cond {
            shown.push(m);
        }
    }
    (0..op.modifiers.len())
        .filter(|i| shown.contains(i))
        .filter(|&i| matches!(op.modifiers[i].ty, ModType::Bool | ModType::Enum(_)))
        .collect()
}

/// The syntax of `op` on `sm`.
fn syntax(op: &Op, sm: u32) -> &Asm {
    op.asm
        .variants
        .iter()
        .find(|(sms, _)| sms.contains(&sm))
        .map_or(&op.asm, |(_, a)| a)
}

/// Value names of modifier `m` (bool: `false`, `true`).
fn value_names(spec: &Spec, op: &Op, m: usize) -> Vec<String> {
    match op.modifiers[m].ty {
        ModType::Enum(e) => spec.enums[e]
            .values
            .iter()
            .map(|v| v.name.clone())
            .collect(),
        _ => vec!["false".into(), "true".into()],
    }
}

/// The text of value `v` of modifier `m` on `sm` (bool: its suffix when set).
fn value_text(spec: &Spec, op: &Op, m: usize, v: usize, sm: u32) -> String {
    let md = &op.modifiers[m];
    match md.ty {
        ModType::Enum(e) => {
            let val = &spec.enums[e].values[v];
            val.sm_texts
                .iter()
                .find(|(sms, _)| sms.contains(&sm))
                .map_or(val.text.clone(), |(_, t)| t.clone())
        }
        _ if v == 1 => md.text.clone(),
        _ => String::new(),
    }
}

/// A source operand of kind `k` and value type `ty`.
fn src_text(k: SlotKindClass, ty: ValueType) -> &'static str {
    match k {
        SlotKindClass::Gpr => "R4",
        SlotKindClass::Ugpr => "UR4",
        SlotKindClass::Pred => "P1",
        SlotKindClass::Upred => "UP1",
        SlotKindClass::Bar => "B1",
        SlotKindClass::Cbuf => "c[0x2][0x10]",
        SlotKindClass::Imm if matches!(ty, ValueType::F32 | ValueType::F64) => "1.5",
        SlotKindClass::Imm => "0x1",
    }
}

/// The assembly text of `op` with modifier values `vals` (index per
/// swept modifier, `None` for the others) in form `form` on `sm`.
fn text(spec: &Spec, op: &Op, form: &isa_spec::model::Form, vals: &[usize], sm: u32) -> String {
    let asm = syntax(op, sm);
    let mut t = asm.mnemonic.clone();
    for &m in &asm.suffixes {
        t.push_str(&value_text(spec, op, m, vals[m], sm));
    }
    let mut operands = Vec::new();
    for o in &asm.operands {
        let shown = match o.cond {
            AsmCond::Always => true,
            AsmCond::If(m, flag) => (vals[m] == 1) == flag,
            AsmCond::NotDefault | AsmCond::IfOptional(..) => false,
        };
        let item = match o.item {
            AsmItem::Dst(d) => Some(
                match op.dst_kind(d) {
                    SlotKindClass::Upred => "UP0",
                    SlotKindClass::Pred => "P0",
                    SlotKindClass::Bar => "B2",
                    SlotKindClass::Ugpr => "UR2",
                    _ if op.dsts[d].ty == ValueType::Pred => "P0",
                    _ => "R2",
                }
                .to_string(),
            ),
            AsmItem::Src(s) => form.src_kinds[s].map(|k| src_text(k, op.srcs[s].ty).to_string()),
            AsmItem::Modifier(m) if op.modifiers[m].lanes.is_some() => {
                op.modifiers[m].lanes.map(|l| l.text(spec, 1))
            }
            AsmItem::Modifier(m) => Some(match op.modifiers[m].ty {
                ModType::Enum(_) | ModType::Bool => value_text(spec, op, m, vals[m], sm),
                ModType::Rel | ModType::Abs { .. } => "0x100".to_string(),
                ModType::Int { .. } => "0x1".to_string(),
            }),
            AsmItem::Mem(m) if m.bank.is_some() => Some("c[0x0][R4]".to_string()),
            AsmItem::Mem(m) if m.attr => Some("a[R4]".to_string()),
            AsmItem::AttrOff(_) => Some("a[0x10]".to_string()),
            AsmItem::Desc(_) => Some("gdesc[UR4]".to_string()),
            AsmItem::Mem(_) => Some("[R4]".to_string()),
        };
        if let (true, Some(mut s)) = (shown, item) {
            for &m in &o.suffixes {
                s.push_str(&value_text(spec, op, m, vals[m], sm));
            }
            operands.push(s);
        }
    }
    if operands.is_empty() {
        t
    } else {
        format!("{t} {}", operands.join(", "))
    }
}

/// Every combination of the swept modifiers of spec op `name` in every
/// form it has on `sm`, as instructions of that op and form (texts that
/// parse as another op, or do not parse, are left out).
pub fn combos(spec: &Spec, name: &str, sm: u32) -> Vec<Combo> {
    let Some(op) = spec.ops.iter().find(|o| o.name == name) else {
        return Vec::new();
    };
    let mods = swept(op, syntax(op, sm));
    let counts: Vec<usize> = mods
        .iter()
        .map(|&m| value_names(spec, op, m).len())
        .collect();
    let total: usize = counts.iter().product();
    let mut out = Vec::new();
    let mut id = 0u8;
    for enc in &op.encodings {
        for form in &enc.forms {
            let fid = id;
            id += 1;
            if !form.sms.contains(&sm) {
                continue;
            }
            for n in 0..total {
                let mut vals = vec![0usize; op.modifiers.len()];
                let mut rest = n;
                for (&m, &c) in mods.iter().zip(&counts) {
                    vals[m] = rest % c;
                    rest /= c;
                }
                let t = text(spec, op, form, &vals, sm);
                let Ok(line) = nak::runtime::asm::tokenize(&t) else {
                    continue;
                };
                let Ok((o, mut c)) = isa::parse(&line, sm, 0) else {
                    continue;
                };
                if let Some(f) = isa::family_of(sm).filter(|f| f.control_in_word().is_some()) {
                    // The family's neutral control, as the sampler writes.
                    c.ctrl = f.neutral_control();
                }
                if o.name() != name || o.form_id(sm) != Some(fid) {
                    continue;
                }
                let values = mods
                    .iter()
                    .map(|&m| {
                        format!(
                            "{}={}",
                            op.modifiers[m].name,
                            value_names(spec, op, m)[vals[m]]
                        )
                    })
                    .collect();
                out.push(Combo {
                    form: form.name.clone(),
                    values,
                    op: o,
                    common: c,
                });
            }
        }
    }
    out
}
