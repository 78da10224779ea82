//! `extends`: an encoding written as another encoding of the same op with
//! changes (SM70's LDG is SM75's without the L2 hint bits).
//!
//! The copy is made on the raw records, before resolution, so an extending
//! encoding resolves exactly as the encoding written out in full would:
//! the model, the generated code and every later check are the same. Each
//! copied entry keeps its span, so a problem in an inherited field is
//! reported at the line that wrote it.

use crate::codes::Code;
use crate::resolve::{Ctx, parse_bits};
use crate::schema::{EncodingDef, S};
use std::collections::BTreeMap;

/// A field table: bit range -> what lives there.
type FieldTable = BTreeMap<S<String>, S<String>>;

/// Where the expansion of one encoding stands.
#[derive(Clone)]
enum State {
    Todo,
    /// Being expanded: reaching it again closes a cycle.
    Active,
    /// Expanded (`None`: it could not be, already reported).
    Done(Box<Option<S<EncodingDef>>>),
}

/// Every encoding of an op with its `extends` applied, in file order;
/// `None` for one that cannot be expanded (the error is reported).
pub(crate) fn expand(cx: &mut Ctx, encs: &[S<EncodingDef>]) -> Vec<Option<S<EncodingDef>>> {
    let names = encoding_names(cx, encs);
    let mut states = vec![State::Todo; encs.len()];
    let mut chain = Vec::new();
    (0..encs.len())
        .map(|i| expand_one(cx, encs, &names, &mut states, &mut chain, i))
        .collect()
}

/// `name` -> encoding index; a name given twice is an error (S1005).
fn encoding_names(cx: &mut Ctx, encs: &[S<EncodingDef>]) -> BTreeMap<String, usize> {
    let mut names = BTreeMap::new();
    for (i, e) in encs.iter().enumerate() {
        let Some(n) = &e.get_ref().name else { continue };
        if names.contains_key(n.get_ref()) {
            cx.err(
                Code::S1005,
                n,
                format!("two encodings are named `{}`", n.get_ref()),
            );
        } else {
            names.insert(n.get_ref().clone(), i);
        }
    }
    names
}

/// Encoding `i` with its base's keys filled in, the base expanded first
/// (memoised in `states`; `chain` holds the names being expanded, to name
/// a cycle's members).
fn expand_one(
    cx: &mut Ctx,
    encs: &[S<EncodingDef>],
    names: &BTreeMap<String, usize>,
    states: &mut [State],
    chain: &mut Vec<String>,
    i: usize,
) -> Option<S<EncodingDef>> {
    if let State::Done(d) = &states[i] {
        return d.as_ref().clone();
    }
    states[i] = State::Active;
    let e = &encs[i];
    let r = e.get_ref();
    let done = match &r.extends {
        None if r.family.is_none() => {
            cx.err(
                Code::S0003,
                e,
                "missing key `family` (an encoding needs one unless it `extends` another)",
            );
            None
        }
        None => Some(e.clone()),
        Some(target) => {
            let own = r
                .name
                .as_ref()
                .map_or("(unnamed)", |n| n.get_ref().as_str());
            chain.push(own.to_string());
            let base = base_of(cx, encs, names, states, chain, target);
            chain.pop();
            base.and_then(|b| merge(cx, b.get_ref(), r, target))
                .map(|m| S::new(e.span(), m))
        }
    };
    states[i] = State::Done(Box::new(done.clone()));
    done
}

/// The expanded encoding `target` names: S1005 when there is none, S1006
/// when it is being expanded already (a cycle).
fn base_of(
    cx: &mut Ctx,
    encs: &[S<EncodingDef>],
    names: &BTreeMap<String, usize>,
    states: &mut [State],
    chain: &mut Vec<String>,
    target: &S<String>,
) -> Option<S<EncodingDef>> {
    let Some(&bi) = names.get(target.get_ref()) else {
        let known: Vec<&str> = names.keys().map(String::as_str).collect();
        cx.err(
            Code::S1005,
            target,
            format!(
                "no encoding of this op is named `{}` (named: {})",
                target.get_ref(),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        );
        return None;
    };
    if matches!(states[bi], State::Active) {
        cx.err(
            Code::S1006,
            target,
            format!(
                "encodings extend each other in a cycle: {} -> {}",
                chain.join(" -> "),
                target.get_ref()
            ),
        );
        return None;
    }
    expand_one(cx, encs, names, states, chain, bi)
}

/// `child` applied to `base`: a key the child sets replaces the base's
/// (a table or list wholesale when the child's is not empty), except
/// `fields` and `form.<name>`, whose entries replace the base fields they
/// overlap, and `values.<modifier>`, merged value by value.
fn merge(
    cx: &mut Ctx,
    base: &EncodingDef,
    child: &EncodingDef,
    target: &S<String>,
) -> Option<EncodingDef> {
    let preset = or_base(&child.preset, &base.preset);
    let fields = merge_fields(cx, &base.fields, &child.fields, preset.is_none(), target)?;
    let mut form = base.form.clone();
    for (name, table) in &child.form {
        let merged = merge_fields(
            cx,
            form.get(name).unwrap_or(&BTreeMap::new()),
            table,
            false,
            target,
        )?;
        form.remove(name);
        form.insert(name.clone(), merged);
    }
    let mut values = base.values.clone();
    for (m, codes) in &child.values {
        let mut merged = values.remove(m).unwrap_or_default();
        merged.extend(codes.iter().map(|(k, v)| (k.clone(), v.clone())));
        values.insert(m.clone(), merged);
    }
    Some(EncodingDef {
        name: child.name.clone(),
        extends: None,
        family: or_base(&child.family, &base.family),
        sms: or_base(&child.sms, &base.sms),
        preset,
        opcode: or_base(&child.opcode, &base.opcode),
        slots: or_base_map(&child.slots, &base.slots),
        without: or_base_vec(&child.without, &base.without),
        fields,
        form,
        reuse: or_base_map(&child.reuse, &base.reuse),
        values,
        not_all: or_base_vec(&child.not_all, &base.not_all),
        tied: or_base_map(&child.tied, &base.tied),
        ignored: or_base(&child.ignored, &base.ignored),
        // One concept with `ignored`: a child that sets `ignored` (`""`
        // too) states its own lists and inherits neither.
        ignored_on: match child.ignored {
            Some(_) => child.ignored_on.clone(),
            None => or_base_map(&child.ignored_on, &base.ignored_on),
        },
    })
}

/// The child's value if it sets one, else the base's.
fn or_base<T: Clone>(child: &Option<T>, base: &Option<T>) -> Option<T> {
    child.clone().or_else(|| base.clone())
}

/// The child's table if it is not empty, else the base's.
fn or_base_map<K: Clone, V: Clone>(
    child: &BTreeMap<K, V>,
    base: &BTreeMap<K, V>,
) -> BTreeMap<K, V> {
    if child.is_empty() { base } else { child }.clone()
}

/// The child's list if it is not empty, else the base's.
fn or_base_vec<T: Clone>(child: &[T], base: &[T]) -> Vec<T> {
    if child.is_empty() { base } else { child }.to_vec()
}

/// The base's fields with each of the child's replacing every base field
/// it overlaps. In a layout without a preset every bit is a field already,
/// so a child field that overlaps none is a mistake (S1007); with a preset
/// it takes over preset bits, as any op field does.
fn merge_fields(
    cx: &mut Ctx,
    base: &FieldTable,
    child: &FieldTable,
    whole_layout: bool,
    target: &S<String>,
) -> Option<FieldTable> {
    let mask = |k: &S<String>| parse_bits(k.get_ref()).map(|b| b.mask()).ok();
    let mut out = FieldTable::new();
    for (k, v) in base {
        let replaced = child.keys().any(|c| {
            c.get_ref() == k.get_ref()
                || matches!((mask(c), mask(k)), (Some(a), Some(b)) if a & b != 0)
        });
        if !replaced {
            out.insert(k.clone(), v.clone());
        }
    }
    let mut ok = true;
    for (k, v) in child {
        let overlaps = base.keys().any(|b| {
            b.get_ref() == k.get_ref()
                || matches!((mask(b), mask(k)), (Some(a), Some(c)) if a & c != 0)
        });
        // An unparsable range is reported when the encoding resolves.
        if whole_layout && !overlaps && mask(k).is_some() {
            cx.err(
                Code::S1007,
                k,
                format!(
                    "bits {} replace no field of `{}` (an extending encoding's fields replace the inherited fields they overlap)",
                    k.get_ref(),
                    target.get_ref()
                ),
            );
            ok = false;
        }
        out.insert(k.clone(), v.clone());
    }
    ok.then_some(out)
}
