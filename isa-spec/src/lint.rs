//! Semantic checks over a resolved spec. Each check has a stable code; see
//! `isa-spec/README.md` for the list.

use crate::diag::{Diagnostic, Report};
use crate::model::*;

/// Run every semantic check, adding to `report`.
pub fn run(spec: &Spec, report: &mut Report) {
    for op in &spec.ops {
        check_op(spec, op, report);
        crate::fold_lint::check_op(spec, op, report);
        check_constraints(spec, op, report);
        check_legalize_gaps(spec, op, report);
        check_sms(spec, op, report);
        check_suffixes(spec, op, report);
    }
    check_ambiguity(spec, report);
    check_asm_clash(spec, report);
}

fn check_op(spec: &Spec, op: &Op, report: &mut Report) {
    for enc in &op.encodings {
        let fam = &spec.families[enc.family];
        for form in &enc.forms {
            check_form(spec, op, fam, form, report);
        }
        // Every source must be encodable in some form, or have a default.
        for (i, s) in op.srcs.iter().enumerate() {
            if s.default.is_none() && enc.forms.iter().all(|f| f.src_kinds[i].is_none()) {
                report.push(
                    Diagnostic::error(
                        "S0601",
                        format!(
                            "source `{}` of `{}` is never encoded on {} and has no default",
                            s.name, op.name, fam.name
                        ),
                    )
                    .at(s.loc.clone())
                    .also(enc.loc.clone(), "in this encoding"),
                );
            }
        }
        for (i, d) in op.dsts.iter().enumerate() {
            let encoded = enc.forms.iter().any(|f| {
                f.fields
                    .iter()
                    .any(|x| matches!(x.target, FieldTarget::Dst { idx, .. } if idx == i))
            });
            if !encoded && d.default.is_none() {
                report.push(
                    Diagnostic::error(
                        "S0601",
                        format!(
                            "destination `{}` of `{}` is never encoded on {}",
                            d.name, op.name, fam.name
                        ),
                    )
                    .at(d.loc.clone())
                    .also(enc.loc.clone(), "in this encoding"),
                );
            }
        }
        for (i, m) in op.modifiers.iter().enumerate() {
            let encoded = enc.forms.iter().any(|f| {
                f.fields
                    .iter()
                    .any(|x| matches!(x.target, FieldTarget::Modifier { idx, .. } if idx == i))
            });
            if !encoded {
                report.push(
                    Diagnostic::warning(
                        "S0602",
                        format!(
                            "modifier `{}` of `{}` is not encoded on {}; it must keep its default there",
                            m.name, op.name, fam.name
                        ),
                    )
                    .at(m.loc.clone())
                    .also(enc.loc.clone(), "in this encoding"),
                );
            }
        }
    }
    if op.class == "alu" && op.fold.is_empty() && op.fold_family.is_empty() && !op.dsts.is_empty() {
        report.push(
            Diagnostic::warning(
                "S1201",
                format!("ALU op `{}` has no fold semantics", op.name),
            )
            .at(op.loc.clone())
            .help("add a [fold] table with one Rust expression per destination"),
        );
    }
}

fn check_form(spec: &Spec, op: &Op, fam: &Family, form: &Form, report: &mut Report) {
    let width = fam.width;
    let mut covered: u128 = 0;
    for (i, f) in form.fields.iter().enumerate() {
        for &(l, h) in &f.bits.ranges {
            if h > width {
                report.push(
                    Diagnostic::error(
                        "S0101",
                        format!(
                            "bit range {l}..{h} is outside the {width}-bit instruction of {}",
                            fam.name
                        ),
                    )
                    .at(f.loc.clone()),
                );
            }
        }
        let m = f.bits.mask();
        if covered & m != 0 {
            let other = form.fields[..i]
                .iter()
                .find(|g| g.bits.mask() & m != 0)
                .expect("some earlier field overlaps");
            report.push(
                Diagnostic::error(
                    "S0201",
                    format!(
                        "bits {} overlap bits {} in form `{}` of `{}`",
                        f.bits.display(),
                        other.bits.display(),
                        form.name,
                        op.name
                    ),
                )
                .at(f.loc.clone())
                .also(other.loc.clone(), "overlapped field"),
            );
        }
        covered |= m;
        let w = f.bits.width();
        match &f.target {
            FieldTarget::Fixed(v) | FieldTarget::Unknown(v) if w < 128 && *v >> w != 0 => {
                report.push(
                    Diagnostic::error(
                        "S0301",
                        format!("fixed value {v:#x} does not fit in {w} bits"),
                    )
                    .at(f.loc.clone()),
                );
            }
            FieldTarget::Modifier { idx, codes, .. } => {
                let m = &op.modifiers[*idx];
                if let Some(codes) = codes {
                    for (vi, c) in codes.iter().enumerate() {
                        // Values that do not exist in this encoding: skipped.
                        let Some(c) = c else { continue };
                        if w < 64 && c >> w != 0 {
                            let en = match m.ty {
                                ModType::Enum(e) => &spec.enums[e],
                                _ => continue,
                            };
                            report.push(
                                Diagnostic::error(
                                    "S0301",
                                    format!(
                                        "value `{}` ({c}) of `{}` does not fit in {w} bits",
                                        en.values[vi].name, m.name
                                    ),
                                )
                                .at(f.loc.clone()),
                            );
                        }
                    }
                    for (a, ca) in codes.iter().enumerate() {
                        let Some(ca) = ca else { continue };
                        if let Some(b) = codes[..a].iter().position(|cb| *cb == Some(*ca)) {
                            report.push(
                                Diagnostic::error(
                                    "S0303",
                                    format!(
                                        "values {b} and {a} of `{}` share the code {ca}",
                                        m.name
                                    ),
                                )
                                .at(f.loc.clone()),
                            );
                        }
                    }
                } else if m.ty == ModType::Bool && w != 1 {
                    report.push(
                        Diagnostic::error(
                            "S0301",
                            format!("bool modifier `{}` needs a 1-bit field, not {w}", m.name),
                        )
                        .at(f.loc.clone()),
                    );
                }
            }
            FieldTarget::SrcNeg(_)
            | FieldTarget::SrcAbs(_)
            | FieldTarget::SrcNot(_)
            | FieldTarget::GuardNot
                if w != 1 =>
            {
                report.push(
                    Diagnostic::error("S0301", format!("a flag needs a 1-bit field, not {w}"))
                        .at(f.loc.clone()),
                );
            }
            _ => {}
        }
    }
    let all = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    let missing = all & !covered;
    if missing != 0 {
        report.push(
            Diagnostic::error(
                "S0501",
                format!(
                    "form `{}` of `{}` leaves bits {} unassigned (not fixed, not a field, not `?`)",
                    form.name,
                    op.name,
                    bit_list(missing)
                ),
            )
            .at(form.loc.clone())
            .help("assign them in [encoding.fields]: `\"a..b\" = \"=0\"` for fixed zero, `\"?\"` for bits kept raw"),
        );
    }
}

/// Whether an enum field of `form` has no valid code that agrees with the
/// fixed bits (`mask`, `value`) of another form.
fn enum_excludes(form: &Form, mask: u128, value: u128) -> bool {
    form.fields.iter().any(|f| {
        let FieldTarget::Modifier {
            codes: Some(codes), ..
        } = &f.target
        else {
            return false;
        };
        let m = f.bits.mask() & mask;
        m != 0
            && codes
                .iter()
                .flatten()
                .all(|&c| (f.bits.place(u128::from(c)) ^ value) & m != 0)
    })
}

/// Two encodings that can match one word on the same SM make decode ambiguous.
fn check_ambiguity(spec: &Spec, report: &mut Report) {
    struct F<'a> {
        op: &'a Op,
        form: &'a Form,
        fam: usize,
        mask: u128,
        value: u128,
    }
    let mut all: Vec<F> = Vec::new();
    for op in &spec.ops {
        for e in &op.encodings {
            for form in &e.forms {
                let (mask, value) = form.fixed();
                all.push(F {
                    op,
                    form,
                    fam: e.family,
                    mask,
                    value,
                });
            }
        }
    }
    for (i, a) in all.iter().enumerate() {
        for b in &all[..i] {
            if a.fam != b.fam || !a.form.sms.iter().any(|s| b.form.sms.contains(s)) {
                continue;
            }
            let common = a.mask & b.mask;
            if (a.value ^ b.value) & common != 0 {
                continue;
            }
            // An enum field takes only its valid codes: no overlap when
            // none of them fits the other form's fixed bits there.
            if enum_excludes(a.form, b.mask, b.value) || enum_excludes(b.form, a.mask, a.value) {
                continue;
            }
            {
                let witness = a.value | b.value;
                report.push(
                    Diagnostic::error(
                        "S0401",
                        format!(
                            "form `{}` of `{}` and form `{}` of `{}` can match the same word, e.g. {witness:#034x}",
                            a.form.name, a.op.name, b.form.name, b.op.name
                        ),
                    )
                    .at(a.form.loc.clone())
                    .also(b.form.loc.clone(), "other encoding"),
                );
            }
        }
    }
}

fn bit_list(mask: u128) -> String {
    let mut out = Vec::new();
    let mut b = 0;
    while b < 128 {
        if mask >> b & 1 == 1 {
            let s = b;
            while b < 128 && mask >> b & 1 == 1 {
                b += 1;
            }
            out.push(if b == s + 1 {
                s.to_string()
            } else {
                format!("{s}..{b}")
            });
        } else {
            b += 1;
        }
    }
    out.join(", ")
}

/// Legalization constraints: S0703, S0705, S0706, S0707.
pub(crate) fn check_constraints(spec: &Spec, op: &Op, report: &mut Report) {
    let lloc = op.legalize.loc.clone().unwrap_or_else(|| op.loc.clone());
    for &(x, y) in &op.legalize.commutative {
        let (a, b) = (&op.srcs[x], &op.srcs[y]);
        if a.ty != b.ty || a.mods != b.mods {
            report.push(
                Diagnostic::error(
                    "S0703",
                    format!(
                        "commutative sources `{}` ({}) and `{}` ({}) of `{}` differ in type or source modifiers",
                        a.name,
                        a.ty.name(),
                        b.name,
                        b.ty.name(),
                        op.name
                    ),
                )
                .at(lloc.clone())
                .also(b.loc.clone(), "declared here"),
            );
        }
    }
    if let Some(m) = op.legalize.swap_flips {
        let md = &op.modifiers[m];
        let ok = matches!(md.ty, ModType::Enum(e) if spec.enums[e].flip.is_some());
        if !ok {
            report.push(
                Diagnostic::error(
                    "S0705",
                    format!(
                        "swap_flips names `{}`, which is not an enum modifier with a `flip` table",
                        md.name
                    ),
                )
                .at(lloc.clone())
                .also(md.loc.clone(), "declared here")
                .help("give the enum a `flip` table in its enums/ file, or drop swap_flips"),
            );
        }
    }
    for o in op.dsts.iter().chain(&op.srcs) {
        let bad = if o.ty.is_pred() && o.align > 1 {
            Some("a predicate has no register alignment")
        } else if !o.align.is_power_of_two() {
            Some("alignment must be a power of two")
        } else if o.align < o.ty.regs() {
            Some("alignment below the register count of the type")
        } else {
            None
        };
        if let Some(why) = bad {
            report.push(
                Diagnostic::error(
                    "S0706",
                    format!("operand `{}` has align = {}: {why}", o.name, o.align),
                )
                .at(o.loc.clone()),
            );
        }
    }
    if let Some(w) = op.legalize.wide_imm
        && let Some(wide) = spec.ops.get(w)
    {
        for s in &op.srcs {
            match wide.src(&s.name) {
                None => report.push(
                    Diagnostic::error(
                        "S0707",
                        format!(
                            "wide_imm op `{}` has no source `{}` of `{}`",
                            wide.name, s.name, op.name
                        ),
                    )
                    .at(lloc.clone()),
                ),
                Some(j) => {
                    let ws = &wide.srcs[j];
                    if ws.ty.is_float() != s.ty.is_float() || ws.ty.regs() != s.ty.regs() {
                        report.push(
                            Diagnostic::error(
                                "S0707",
                                format!(
                                    "source `{}` is {} in `{}` but {} in wide_imm op `{}`",
                                    s.name,
                                    s.ty.name(),
                                    op.name,
                                    ws.ty.name(),
                                    wide.name
                                ),
                            )
                            .at(lloc.clone()),
                        );
                        continue;
                    }
                    // Compared per SM: the wide op only matters where it
                    // exists (FADD32I on Maxwell, not FADD's 32-bit
                    // immediate on Volta).
                    let mut sms: Vec<u32> =
                        wide.encodings.iter().flat_map(|e| e.sms.clone()).collect();
                    sms.sort_unstable();
                    sms.dedup();
                    let mut worse: Vec<(u32, u32, u32)> = Vec::new();
                    for sm in sms {
                        let mine = imm_width(op, op.src(&s.name), sm);
                        let theirs = imm_width(wide, Some(j), sm);
                        if mine > 0 && theirs > 0 && theirs <= mine {
                            worse.push((sm, theirs, mine));
                        }
                    }
                    if let Some(&(_, theirs, mine)) = worse.first() {
                        let list: Vec<String> = worse.iter().map(|w| w.0.to_string()).collect();
                        report.push(
                            Diagnostic::error(
                                "S0707",
                                format!(
                                    "the immediate of `{}` in wide_imm op `{}` holds {theirs} bits, no more than the {mine} of `{}` (SM {})",
                                    s.name, wide.name, op.name, list.join(", ")
                                ),
                            )
                            .at(lloc.clone()),
                        );
                    }
                }
            }
        }
        // A modifier the wide op lacks is fine: the generated legalizer
        // only picks the wide op when that modifier holds its default.
        let any_imm = wide
            .encodings
            .iter()
            .flat_map(|e| &e.forms)
            .any(|f| f.src_kinds.contains(&Some(SlotKindClass::Imm)));
        if !any_imm {
            report.push(
                Diagnostic::error(
                    "S0707",
                    format!("wide_imm op `{}` has no immediate form", wide.name),
                )
                .at(lloc.clone()),
            );
        }
    }
}

/// Widest immediate (stored bits) for source `i` over the forms on `sm`.
fn imm_width(op: &Op, i: Option<usize>, sm: u32) -> u32 {
    let Some(i) = i else { return 0 };
    op.encodings
        .iter()
        .filter(|e| e.sms.contains(&sm))
        .flat_map(|e| &e.forms)
        .map(|f| {
            f.fields
                .iter()
                .filter_map(|x| match x.target {
                    // Stored bits, not their position: FADD's imm20 holds the
                    // top 20 bits of an f32 (shift 12), 20 bits of values.
                    FieldTarget::SrcImm { idx, .. } if idx == i => Some(x.bits.width()),
                    _ => None,
                })
                .sum::<u32>()
        })
        .max()
        .unwrap_or(0)
}

/// S0801: an operand kind the IR can hold in a source slot that no form of
/// the op accepts and no rewrite reaches (swap with a commutative partner,
/// copy to a register, the wide-immediate op, or the op this one is the
/// wide-immediate form of).
pub(crate) fn check_legalize_gaps(spec: &Spec, op: &Op, report: &mut Report) {
    let mut gaps: Vec<(usize, SlotKindClass, Vec<u32>)> = Vec::new();
    for enc in &op.encodings {
        let fam = &spec.families[enc.family];
        for &sm in &enc.sms {
            let forms: Vec<&Form> = op
                .encodings
                .iter()
                .filter(|e| e.family == enc.family)
                .flat_map(|e| &e.forms)
                .filter(|f| f.sms.contains(&sm))
                .collect();
            let direct =
                |k: SlotKindClass, i: usize| forms.iter().any(|f| f.src_kinds[i] == Some(k));
            for (i, s) in op.srcs.iter().enumerate() {
                if forms.iter().all(|f| f.src_kinds[i].is_none()) {
                    continue;
                }
                let (reg, kinds): (SlotKindClass, Vec<SlotKindClass>) = if s.ty.is_pred() {
                    let mut k = vec![SlotKindClass::Pred];
                    if fam.ugpr_max(sm).is_some() {
                        k.push(SlotKindClass::Upred);
                    }
                    (SlotKindClass::Pred, k)
                } else {
                    let mut k = vec![SlotKindClass::Gpr, SlotKindClass::Imm, SlotKindClass::Cbuf];
                    if fam.ugpr_max(sm).is_some() {
                        k.push(SlotKindClass::Ugpr);
                    }
                    (SlotKindClass::Gpr, k)
                };
                if direct(reg, i) {
                    continue;
                }
                for k in kinds {
                    if direct(k, i) {
                        continue;
                    }
                    let swap = op
                        .legalize
                        .commutative
                        .iter()
                        .any(|&(x, y)| (x == i && direct(k, y)) || (y == i && direct(k, x)));
                    let wide = k == SlotKindClass::Imm
                        && op
                            .legalize
                            .wide_imm
                            .and_then(|w| spec.ops.get(w))
                            .is_some_and(|w| {
                                w.src(&s.name).is_some_and(|j| {
                                    w.encodings.iter().flat_map(|e| &e.forms).any(|f| {
                                        f.sms.contains(&sm)
                                            && f.src_kinds[j] == Some(SlotKindClass::Imm)
                                    })
                                })
                            });
                    // The op this one is the wide-immediate form of: the
                    // legalizer falls back to it (FADD32I to FADD), which
                    // takes the kind directly or through a register copy.
                    let narrow = spec
                        .ops
                        .iter()
                        .filter(|n| {
                            n.legalize
                                .wide_imm
                                .and_then(|w| spec.ops.get(w))
                                .is_some_and(|w| w.name == op.name)
                        })
                        .any(|n| {
                            n.src(&s.name).is_some_and(|j| {
                                n.encodings.iter().flat_map(|e| &e.forms).any(|f| {
                                    f.sms.contains(&sm)
                                        && (f.src_kinds[j] == Some(k)
                                            || f.src_kinds[j] == Some(reg))
                                })
                            })
                        });
                    if swap || wide || narrow {
                        continue;
                    }
                    match gaps.iter_mut().find(|(gi, gk, _)| *gi == i && *gk == k) {
                        Some(g) => g.2.push(sm),
                        None => gaps.push((i, k, vec![sm])),
                    }
                }
            }
        }
    }
    for (i, k, mut sms) in gaps {
        sms.sort_unstable();
        sms.dedup();
        let s = &op.srcs[i];
        report.push(
            Diagnostic::warning(
                "S0801",
                format!(
                    "source `{}` of `{}` cannot take a {} value on SM {}: no form accepts it, and no swap, register copy or wide form reaches it",
                    s.name,
                    op.name,
                    k.name(),
                    sms.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                ),
            )
            .at(s.loc.clone())
            .help("add a form with a register in this slot, or a commutative pair"),
        );
    }
}

/// SM ranges: S1002 (two encodings of one op on one SM that can both
/// encode the same operand kinds), S1004 (gaps). Two encodings on one SM
/// whose forms take different operand kinds are one encoding split in two
/// (FADD's b in the B or the C slot): the encoder's choice is unambiguous.
pub(crate) fn check_sms(spec: &Spec, op: &Op, report: &mut Report) {
    let forms_on = |e: &'_ Encoding, sm: u32| -> Vec<Vec<Option<SlotKindClass>>> {
        e.forms
            .iter()
            .filter(|f| f.sms.is_empty() || f.sms.contains(&sm))
            .map(|f| f.src_kinds.clone())
            .collect()
    };
    for (i, a) in op.encodings.iter().enumerate() {
        for b in &op.encodings[..i] {
            let both: Vec<String> = a
                .sms
                .iter()
                .filter(|s| b.sms.contains(s))
                .filter(|&&sm| {
                    let fb = forms_on(b, sm);
                    forms_on(a, sm).iter().any(|k| fb.contains(k))
                })
                .map(u32::to_string)
                .collect();
            if !both.is_empty() {
                report.push(
                    Diagnostic::error(
                        "S1002",
                        format!(
                            "two encodings of `{}` take the same operand kinds on SM {}",
                            op.name,
                            both.join(", ")
                        ),
                    )
                    .at(a.loc.clone())
                    .also(b.loc.clone(), "other encoding")
                    .help("limit one of them with `sms = \"...\"`"),
                );
            }
        }
    }
    let sms = op.sms();
    for fam in &spec.families {
        let have: Vec<u32> = fam
            .sms
            .iter()
            .copied()
            .filter(|s| sms.contains(s))
            .collect();
        let (Some(&lo), Some(&hi)) = (have.first(), have.last()) else {
            continue;
        };
        let missing: Vec<String> = fam
            .sms
            .iter()
            .filter(|&&s| s > lo && s < hi && !have.contains(&s))
            .map(u32::to_string)
            .collect();
        if !missing.is_empty() {
            report.push(
                Diagnostic::warning(
                    "S1004",
                    format!(
                        "`{}` has encodings for SM {lo} and SM {hi} of {} but not for SM {}",
                        op.name,
                        fam.name,
                        missing.join(", ")
                    ),
                )
                .at(op.loc.clone()),
            );
        }
    }
}

/// The texts one suffix modifier can print, in value order.
fn suffix_texts(spec: &Spec, m: &Modifier) -> Option<Vec<String>> {
    match m.ty {
        ModType::Bool => Some(vec![String::new(), m.text.clone()]),
        ModType::Enum(e) => Some(
            spec.enums[e]
                .values
                .iter()
                .map(|v| v.text.clone())
                .collect(),
        ),
        _ => None,
    }
}

/// S1103: two values of one suffix modifier print the same text.
pub(crate) fn check_suffixes(spec: &Spec, op: &Op, report: &mut Report) {
    let mut seen = Vec::new();
    let all = std::iter::once(&op.asm).chain(op.asm.variants.iter().map(|(_, a)| a));
    for asm in all {
        for &mi in &asm.suffixes {
            if seen.contains(&mi) {
                continue;
            }
            seen.push(mi);
            let m = &op.modifiers[mi];
            let Some(texts) = suffix_texts(spec, m) else {
                continue;
            };
            for (a, t) in texts.iter().enumerate() {
                if let Some(b) = texts[..a].iter().position(|u| u == t) {
                    let (na, nb) = match m.ty {
                        ModType::Enum(e) => (
                            spec.enums[e].values[a].name.clone(),
                            spec.enums[e].values[b].name.clone(),
                        ),
                        _ => ("true".into(), "false".into()),
                    };
                    report.push(
                        Diagnostic::error(
                            "S1103",
                            format!(
                                "suffix modifier `{}` prints `{t}` for both `{nb}` and `{na}`; the assembler cannot tell them apart",
                                m.name
                            ),
                        )
                        .at(m.loc.clone()),
                    );
                }
            }
        }
    }
}

/// The syntax an op uses on `sm`.
fn asm_at(op: &Op, sm: u32) -> &Asm {
    op.asm
        .variants
        .iter()
        .find(|(s, _)| s.contains(&sm))
        .map_or(&op.asm, |(_, a)| a)
}

fn suffix_set(spec: &Spec, op: &Op, asm: &Asm) -> Vec<String> {
    let mut out = vec![String::new()];
    for &mi in &asm.suffixes {
        let Some(texts) = suffix_texts(spec, &op.modifiers[mi]) else {
            continue;
        };
        let mut next = Vec::new();
        for o in &out {
            for t in &texts {
                next.push(format!("{o}{t}"));
            }
        }
        next.sort();
        next.dedup();
        next.truncate(4096);
        out = next;
    }
    out
}

/// S1104: two ops that print the same text on one SM.
pub(crate) fn check_asm_clash(spec: &Spec, report: &mut Report) {
    for (i, a) in spec.ops.iter().enumerate() {
        let asms = a.sms();
        for b in &spec.ops[..i] {
            let bsms = b.sms();
            let Some(&sm) = asms.iter().find(|s| bsms.contains(s)) else {
                continue;
            };
            let (x, y) = (asm_at(a, sm), asm_at(b, sm));
            if x.mnemonic != y.mnemonic {
                continue;
            }
            let count = |s: &Asm| {
                let max = s.operands.len();
                let min = s
                    .operands
                    .iter()
                    .filter(|o| o.cond == AsmCond::Always)
                    .count();
                (min, max)
            };
            let ((amin, amax), (bmin, bmax)) = (count(x), count(y));
            if amax < bmin || bmax < amin {
                continue;
            }
            let sb = suffix_set(spec, b, y);
            let Some(text) = suffix_set(spec, a, x).into_iter().find(|t| sb.contains(t)) else {
                continue;
            };
            report.push(
                Diagnostic::error(
                    "S1104",
                    format!(
                        "`{}` and `{}` can both print `{}{text}` with {} operands on SM {sm}",
                        a.name,
                        b.name,
                        x.mnemonic,
                        amin.max(bmin)
                    ),
                )
                .at(x.loc.clone())
                .also(y.loc.clone(), "other op")
                .help("give one of them a distinguishing suffix, or an [[alias]]"),
            );
        }
    }
}
