//! Semantic checks over a resolved spec. Each check has a stable code; see
//! `isa-spec/README.md` for the list.

use crate::codes::Code;
use crate::diag::{Diagnostic, Loc, Report};
use crate::model::*;

/// Run every semantic check, adding to `report`.
pub fn run(spec: &Spec, report: &mut Report) {
    let enum_names = crate::fold_lint::EnumNames::new(&spec.enums);
    for op in &spec.ops {
        check_op(spec, op, report);
        crate::fold_lint::check_op(&enum_names, op, report);
        check_constraints(spec, op, report);
        check_legalize_gaps(spec, op, report);
        check_sms(spec, op, report);
        check_suffixes(spec, op, report);
        check_unprinted_operands(op, report);
    }
    check_ambiguity(spec, report);
    check_asm_clash(spec, report);
}

fn check_op(spec: &Spec, op: &Op, report: &mut Report) {
    for enc in &op.encodings {
        let fam = &spec.families[enc.family];
        let mut short: Vec<(Vec<&Form>, u128)> = Vec::new();
        for form in &enc.forms {
            let missing = check_form(spec, op, fam, form, report);
            if missing == 0 {
                continue;
            }
            match short.iter_mut().find(|(_, m)| *m == missing) {
                Some((forms, _)) => forms.push(form),
                None => short.push((vec![form], missing)),
            }
        }
        for (forms, missing) in short {
            report.push(unassigned(op, &forms, missing));
        }
        // Every source must be encodable in some form, or have a default.
        for (i, s) in op.srcs.iter().enumerate() {
            if s.default.is_none() && enc.forms.iter().all(|f| f.src_kinds[i].is_none()) {
                report.push(
                    Diagnostic::error(
                        Code::S0601,
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
                        Code::S0601,
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
    }
    for (i, m) in op.modifiers.iter().enumerate() {
        check_modifier_encoded(spec, op, i, m, report);
    }
    let inexact = op.fold.inexact.is_some();
    if op.class == "alu"
        && op.fold.is_empty()
        && !inexact
        && op.fold_family.is_empty()
        && !op.dsts.is_empty()
    {
        report.push(
            Diagnostic::warning(
                Code::S1201,
                format!("ALU op `{}` has no fold semantics", op.name),
            )
            .at(op.loc.clone())
            .help("add a [fold] table with one Rust expression per destination, or `inexact = \"why\"` when the result is not an exact function of the sources"),
        );
    }
}

/// Whether encoding `enc` has bits for modifier `idx` (in any form).
fn encodes_modifier(enc: &Encoding, idx: usize) -> bool {
    enc.forms.iter().any(|f| {
        f.fields
            .iter()
            .any(|x| matches!(x.target, FieldTarget::Modifier { idx: i, .. } if i == idx))
    })
}

/// A modifier left out of an encoding must keep its default there. Without
/// a declaration, an SM where no encoding encodes it is S0602 (once per
/// family: is the omission meant? An encoding of some forms only, as
/// Maxwell F2I's immediate one, may leave it to another on its SMs);
/// with `families`/`sms`, it must be encoded on exactly the SMs it
/// declares, by some encoding of each (S0603). A one-value enum needs no bits anywhere.
fn check_modifier_encoded(spec: &Spec, op: &Op, idx: usize, m: &Modifier, report: &mut Report) {
    if matches!(m.ty, ModType::Enum(e) if spec.enums[e].values.len() == 1) {
        return;
    }
    let mut warned: Vec<usize> = Vec::new();
    for enc in &op.encodings {
        let fam = &spec.families[enc.family];
        let encoded = encodes_modifier(enc, idx);
        let Some(on) = &m.exists_on else {
            let encoded_on_its_sms = enc.sms.iter().all(|sm| {
                op.encodings
                    .iter()
                    .any(|e| e.sms.contains(sm) && encodes_modifier(e, idx))
            });
            if !encoded_on_its_sms && !warned.contains(&enc.family) {
                warned.push(enc.family);
                report.push(
                    Diagnostic::warning(
                        Code::S0602,
                        format!(
                            "modifier `{}` of `{}` is not encoded on {}; it must keep its default there",
                            m.name, op.name, fam.name
                        ),
                    )
                    .at(m.loc.clone())
                    .also(enc.loc.clone(), "in this encoding")
                    .help(format!("if it does not exist on {}, declare where it does: `families = [...]` or `sms = \"..\"`", fam.name)),
                );
            }
            continue;
        };
        let present: Vec<u32> = enc.sms.iter().copied().filter(|s| on.contains(s)).collect();
        let why = if encoded && present.len() < enc.sms.len() {
            let absent: Vec<u32> = enc
                .sms
                .iter()
                .copied()
                .filter(|s| !on.contains(s))
                .collect();
            Some(format!(
                "is encoded on SM {}, where it is declared not to exist",
                sm_list(&absent)
            ))
        } else if !encoded && !encoded_elsewhere(op, idx, &present).is_empty() {
            Some(format!(
                "is declared on SM {} but not encoded there",
                sm_list(&encoded_elsewhere(op, idx, &present))
            ))
        } else {
            None
        };
        if let Some(why) = why {
            report.push(
                Diagnostic::error(
                    Code::S0603,
                    format!("modifier `{}` of `{}` {why}", m.name, op.name),
                )
                .at(m.exists_loc.clone())
                .also(enc.loc.clone(), "this encoding"),
            );
        }
    }
}

/// The SMs of `sms` where no encoding of `op` encodes modifier `idx`: an
/// encoding of some forms only (WARPSYNC's immediate one, without
/// `.EXCLUSIVE`) may leave it to another encoding of the same SMs.
fn encoded_elsewhere(op: &Op, idx: usize, sms: &[u32]) -> Vec<u32> {
    sms.iter()
        .copied()
        .filter(|sm| {
            !op.encodings
                .iter()
                .any(|e| e.sms.contains(sm) && encodes_modifier(e, idx))
        })
        .collect()
}

fn sm_list(sms: &[u32]) -> String {
    let v: Vec<String> = sms.iter().map(|s| s.to_string()).collect();
    v.join(", ")
}

/// Check one form's fields; returns the bits it leaves unassigned.
fn check_form(spec: &Spec, op: &Op, fam: &Family, form: &Form, report: &mut Report) -> u128 {
    let width = fam.width;
    let mut covered: u128 = 0;
    for (i, f) in form.fields.iter().enumerate() {
        check_field_in_width(fam, f, report);
        check_field_overlap(op, form, i, covered, report);
        covered |= f.bits.mask();
        check_field_value_fits(spec, op, f, report);
    }
    let all = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    all & !covered
}

/// S0101: every bit range of a field lies inside the family's instruction
/// width.
fn check_field_in_width(fam: &Family, f: &Field, report: &mut Report) {
    let width = fam.width;
    for &(l, h) in &f.bits.ranges {
        if h > width {
            report.push(
                Diagnostic::error(
                    Code::S0101,
                    format!(
                        "bit range {l}..{h} is outside the {width}-bit instruction of {}",
                        fam.name
                    ),
                )
                .at(f.loc.clone()),
            );
        }
    }
}

/// S0201: field `i` of `form` claims no bit already `covered` by an
/// earlier field; the diagnostic points at the first field it overlaps.
fn check_field_overlap(op: &Op, form: &Form, i: usize, covered: u128, report: &mut Report) {
    let f = &form.fields[i];
    let m = f.bits.mask();
    if covered & m == 0 {
        return;
    }
    let other = form.fields[..i]
        .iter()
        .find(|g| g.bits.mask() & m != 0)
        .expect("some earlier field overlaps");
    report.push(
        Diagnostic::error(
            Code::S0201,
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

/// S0301/S0303: what a field stores fits its width: a fixed value, every
/// code of a modifier (codes distinct too), a bool or a flag in one bit.
fn check_field_value_fits(spec: &Spec, op: &Op, f: &Field, report: &mut Report) {
    let w = f.bits.width();
    match &f.target {
        FieldTarget::Fixed(v) | FieldTarget::Unknown(v) if w < 128 && *v >> w != 0 => {
            report.push(
                Diagnostic::error(
                    Code::S0301,
                    format!("fixed value {v:#x} does not fit in {w} bits"),
                )
                .at(f.loc.clone()),
            );
        }
        FieldTarget::Modifier { idx, codes, .. } => {
            let m = &op.modifiers[*idx];
            if let Some(codes) = codes {
                check_codes_fit(spec, m, codes, f, report);
                check_codes_distinct(m, codes, f, report);
            } else if m.ty == ModType::Bool && w != 1 {
                report.push(
                    Diagnostic::error(
                        Code::S0301,
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
                Diagnostic::error(Code::S0301, format!("a flag needs a 1-bit field, not {w}"))
                    .at(f.loc.clone()),
            );
        }
        _ => {}
    }
}

/// S0301: every code this encoding gives an enum modifier's values fits
/// in the field. Values that do not exist in this encoding are skipped.
fn check_codes_fit(
    spec: &Spec,
    m: &Modifier,
    codes: &[Option<u64>],
    f: &Field,
    report: &mut Report,
) {
    let w = f.bits.width();
    for (vi, c) in codes.iter().enumerate() {
        let Some(c) = c else { continue };
        if w < 64 && c >> w != 0 {
            let en = match m.ty {
                ModType::Enum(e) => &spec.enums[e],
                _ => continue,
            };
            report.push(
                Diagnostic::error(
                    Code::S0301,
                    format!(
                        "value `{}` ({c}) of `{}` does not fit in {w} bits",
                        en.values[vi].name, m.name
                    ),
                )
                .at(f.loc.clone()),
            );
        }
    }
}

/// S0303: no two values of a modifier share a code, or the decoder could
/// not tell them apart.
fn check_codes_distinct(m: &Modifier, codes: &[Option<u64>], f: &Field, report: &mut Report) {
    for (a, ca) in codes.iter().enumerate() {
        let Some(ca) = ca else { continue };
        if let Some(b) = codes[..a].iter().position(|cb| *cb == Some(*ca)) {
            report.push(
                Diagnostic::error(
                    Code::S0303,
                    format!("values {b} and {a} of `{}` share the code {ca}", m.name),
                )
                .at(f.loc.clone()),
            );
        }
    }
}

/// S0501 for the `missing` bits of `forms` (of one encoding), at the op
/// file's line that most likely left them: a field of the op next to them (a
/// field one bit short), else the encoding, with the preset forms as notes.
fn unassigned(op: &Op, forms: &[&Form], missing: u128) -> Diagnostic {
    let form = forms[0];
    let next_to = |f: &&Field| {
        let m = f.bits.mask();
        f.loc.file == op.loc.file && ((m << 1) & missing != 0 || (m >> 1) & missing != 0)
    };
    let field = form.fields.iter().find(next_to);
    let mut d = Diagnostic::error(
        Code::S0501,
        format!(
            "{} of `{}` {} bits {} unassigned (not fixed, not a field, not `?`)",
            form_names(forms),
            op.name,
            if forms.len() == 1 { "leaves" } else { "leave" },
            bit_list(missing)
        ),
    )
    .help("assign them in [encoding.fields]: `\"a..b\" = \"=0\"` for fixed zero, `\"?\"` for bits kept raw");
    d = match field {
        Some(f) => d
            .at(f.loc.clone())
            .label(format!("bits {} are next to this field", bit_list(missing)))
            .also(form.loc.clone(), "in this encoding"),
        None => d.at(form.loc.clone()),
    };
    forms.iter().fold(d, |d, f| with_preset_note(d, f))
}

/// "form `rrr`" or "forms `rrr`, `rir`".
fn form_names(forms: &[&Form]) -> String {
    let names: Vec<String> = forms.iter().map(|f| format!("`{}`", f.name)).collect();
    let s = if forms.len() == 1 { "" } else { "s" };
    format!("form{s} {}", names.join(", "))
}

/// A secondary note at the preset form a form was expanded from.
fn with_preset_note(d: Diagnostic, form: &Form) -> Diagnostic {
    match &form.preset_loc {
        Some(p) => d.also(p.clone(), format!("preset form `{}`", form.name)),
        None => d,
    }
}

/// Whether a `not_all` mask of `form` is all ones in the fixed bits
/// (`mask`, `value`) of another form, a word `form` never matches
/// (Maxwell IMAD's both negations are IMAD.PO, its own op); a
/// conditional entry only where those fixed bits also meet its condition.
fn not_all_excludes(form: &Form, mask: u128, value: u128) -> bool {
    form.not_all.iter().any(|n| {
        let m = n.mask;
        let when = n.when_mask & mask == n.when_mask && value & n.when_mask == n.when_value;
        m & mask == m && value & m == m && when
    })
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

/// Whether two forms hold an enum field on the same bits whose valid codes
/// are disjoint (Maxwell's ATOM.CAS and ATOM.CAS.64: bit 49 is `.64`).
fn enum_codes_disjoint(a: &Form, b: &Form) -> bool {
    let codes = |f: &Field| match &f.target {
        FieldTarget::Modifier {
            codes: Some(codes), ..
        } => Some(codes.iter().flatten().copied().collect::<Vec<_>>()),
        _ => None,
    };
    a.fields.iter().any(|fa| {
        let Some(ca) = codes(fa) else { return false };
        b.fields.iter().any(|fb| {
            fb.bits == fa.bits && codes(fb).is_some_and(|cb| ca.iter().all(|c| !cb.contains(c)))
        })
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
        /// The SMs on which the form is `mask`/`value` (one group of
        /// `Form::dispatch_groups`).
        sms: Vec<u32>,
    }
    let mut all: Vec<F> = Vec::new();
    for op in &spec.ops {
        for e in &op.encodings {
            for form in &e.forms {
                for (mask, value, sms) in form.dispatch_groups() {
                    all.push(F {
                        op,
                        form,
                        fam: e.family,
                        mask,
                        value,
                        sms,
                    });
                }
            }
        }
    }
    // Overlapping forms of one pair of encodings: one diagnostic.
    /// The overlapping forms of one pair of encodings, and a first witness.
    struct Overlap<'a> {
        a: &'a F<'a>,
        b: &'a F<'a>,
        witness: u128,
        a_forms: Vec<&'a Form>,
        b_forms: Vec<&'a Form>,
    }
    let mut found: Vec<Overlap> = Vec::new();
    for (i, a) in all.iter().enumerate() {
        for b in &all[..i] {
            if a.fam != b.fam || !a.sms.iter().any(|s| b.sms.contains(s)) {
                continue;
            }
            let common = a.mask & b.mask;
            if (a.value ^ b.value) & common != 0 {
                continue;
            }
            // An enum field takes only its valid codes: no overlap when
            // none of them fits the other form's fixed bits there.
            if enum_excludes(a.form, b.mask, b.value)
                || enum_excludes(b.form, a.mask, a.value)
                || enum_codes_disjoint(a.form, b.form)
            {
                continue;
            }
            if not_all_excludes(a.form, b.mask, b.value)
                || not_all_excludes(b.form, a.mask, a.value)
            {
                continue;
            }
            match found
                .iter_mut()
                .find(|x| x.a.form.loc == a.form.loc && x.b.form.loc == b.form.loc)
            {
                Some(x) => {
                    // A form split into SM groups is named once.
                    if !x.a_forms.iter().any(|f| std::ptr::eq(*f, a.form)) {
                        x.a_forms.push(a.form);
                    }
                    if !x.b_forms.iter().any(|f| std::ptr::eq(*f, b.form)) {
                        x.b_forms.push(b.form);
                    }
                }
                None => found.push(Overlap {
                    a,
                    b,
                    witness: a.value | b.value,
                    a_forms: vec![a.form],
                    b_forms: vec![b.form],
                }),
            }
        }
    }
    for Overlap {
        a,
        b,
        witness,
        a_forms,
        b_forms,
    } in found
    {
        let d = Diagnostic::error(
            Code::S0401,
            format!(
                "{} of `{}` and {} of `{}` can match the same word, e.g. {witness:#034x}",
                form_names(&a_forms),
                a.op.name,
                form_names(&b_forms),
                b.op.name
            ),
        )
        .at(a.form.loc.clone())
        .label(format!("`{}` encoding", a.op.name))
        .also(b.form.loc.clone(), format!("`{}` encoding", b.op.name))
        .help("give one of them another opcode, or fixed bits the other cannot have");
        let mut d = with_preset_note(d, a.form);
        if b.form.preset_loc != a.form.preset_loc {
            d = with_preset_note(d, b.form);
        }
        report.push(d);
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
    check_commutative(op, &lloc, report);
    check_swap_flips(spec, op, &lloc, report);
    check_alignment(op, report);
    if let Some(w) = op.legalize.wide_imm
        && let Some(wide) = spec.ops.get(w)
    {
        check_wide_imm(op, wide, &lloc, report);
    }
}

/// S0703: the legalizer may swap commutative sources only when they agree
/// in type and source modifiers, or `commutative_why` says why a type
/// difference still swaps exactly (and that note is not stray).
fn check_commutative(op: &Op, lloc: &Loc, report: &mut Report) {
    let mut types_differ = false;
    for &(x, y) in &op.legalize.commutative {
        let (a, b) = (&op.srcs[x], &op.srcs[y]);
        types_differ |= a.ty != b.ty;
        let explained = a.ty == b.ty || op.legalize.commutative_why.is_some();
        if !explained || a.mods != b.mods {
            report.push(
                Diagnostic::error(
                    Code::S0703,
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
                .also(b.loc.clone(), "declared here")
                .help("give both the same type and source modifiers, or say why they still swap exactly in `commutative_why`"),
            );
        }
    }
    if let Some(w) = &op.legalize.commutative_why
        && !types_differ
    {
        report.push(
            Diagnostic::error(
                Code::S0703,
                format!(
                    "`commutative_why` on `{}`, whose commutative sources have one type",
                    op.name
                ),
            )
            .at(w.clone()),
        );
    }
}

/// S0705: swapping sources flips the modifier named by `swap_flips`, so it
/// must be an enum that has a `flip` table to flip through.
fn check_swap_flips(spec: &Spec, op: &Op, lloc: &Loc, report: &mut Report) {
    let Some(m) = op.legalize.swap_flips else {
        return;
    };
    let md = &op.modifiers[m];
    let ok = matches!(md.ty, ModType::Enum(e) if spec.enums[e].flip.is_some());
    if !ok {
        report.push(
            Diagnostic::error(
                Code::S0705,
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

/// S0706: an operand's register alignment must be a power of two no
/// smaller than its register count, and predicates have none.
fn check_alignment(op: &Op, report: &mut Report) {
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
                    Code::S0706,
                    format!("operand `{}` has align = {}: {why}", o.name, o.align),
                )
                .at(o.loc.clone()),
            );
        }
    }
}

/// S0707: the `wide_imm` op the legalizer falls back to for a too-large
/// immediate must take every source of `op` in a matching type, hold a
/// strictly wider immediate, and have an immediate form at all.
fn check_wide_imm(op: &Op, wide: &Op, lloc: &Loc, report: &mut Report) {
    for s in &op.srcs {
        match wide.src(&s.name) {
            None => report.push(
                Diagnostic::error(
                    Code::S0707,
                    format!(
                        "wide_imm op `{}` has no source `{}` of `{}`",
                        wide.name, s.name, op.name
                    ),
                )
                .at(lloc.clone()),
            ),
            Some(j) => check_wide_source(op, s, wide, j, lloc, report),
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
                Code::S0707,
                format!("wide_imm op `{}` has no immediate form", wide.name),
            )
            .at(lloc.clone()),
        );
    }
}

/// S0707 for one source: `s` of `op` and source `j` of the wide op must
/// agree in float-ness and register count, and the wide op's immediate
/// must be wider than `op`'s on every SM where both have one.
fn check_wide_source(op: &Op, s: &Operand, wide: &Op, j: usize, lloc: &Loc, report: &mut Report) {
    let ws = &wide.srcs[j];
    if ws.ty.is_float() != s.ty.is_float() || ws.ty.regs() != s.ty.regs() {
        report.push(
            Diagnostic::error(
                Code::S0707,
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
        return;
    }
    let worse = sms_where_wide_is_not_wider(op, s, wide, j);
    if let Some(&(_, theirs, mine)) = worse.first() {
        let list: Vec<String> = worse.iter().map(|w| w.0.to_string()).collect();
        report.push(
            Diagnostic::error(
                Code::S0707,
                format!(
                    "the immediate of `{}` in wide_imm op `{}` holds {theirs} bits, no more than the {mine} of `{}` (SM {})",
                    s.name, wide.name, op.name, list.join(", ")
                ),
            )
            .at(lloc.clone()),
        );
    }
}

/// `(sm, wide bits, own bits)` for each SM where both ops have an
/// immediate for source `s` but the wide op's is no wider. Compared per
/// SM: the wide op only matters where it exists (FADD32I on Maxwell, not
/// FADD's 32-bit immediate on Volta).
fn sms_where_wide_is_not_wider(op: &Op, s: &Operand, wide: &Op, j: usize) -> Vec<(u32, u32, u32)> {
    let mut sms: Vec<u32> = wide.encodings.iter().flat_map(|e| e.sms.clone()).collect();
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
    worse
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
            let slots = SlotForms {
                spec,
                op,
                forms: &forms,
                sm,
            };
            for i in 0..op.srcs.len() {
                for k in slots.unreachable_kinds(fam, i) {
                    match gaps.iter_mut().find(|(gi, gk, _)| *gi == i && *gk == k) {
                        Some(g) => g.2.push(sm),
                        None => gaps.push((i, k, vec![sm])),
                    }
                }
            }
        }
    }
    for (i, k, sms) in gaps {
        report_legalize_gap(op, i, k, sms, report);
    }
}

/// The forms one family of `op` has on one SM: what the legalizer can
/// pick from when it fits a source value into a slot.
struct SlotForms<'a> {
    spec: &'a Spec,
    op: &'a Op,
    forms: &'a [&'a Form],
    sm: u32,
}

impl SlotForms<'_> {
    /// Whether some form takes kind `k` directly in source slot `i`.
    fn direct(&self, k: SlotKindClass, i: usize) -> bool {
        self.forms.iter().any(|f| f.src_kinds[i] == Some(k))
    }

    /// The kinds the IR can hold in source `i` that neither a form nor a
    /// rewrite reaches; empty for a slot no form has.
    fn unreachable_kinds(&self, fam: &Family, i: usize) -> Vec<SlotKindClass> {
        if self.forms.iter().all(|f| f.src_kinds[i].is_none()) {
            return Vec::new();
        }
        let s = &self.op.srcs[i];
        let (reg, kinds) = ir_kinds(s, fam, self.sm);
        // Any value reaches a register form by a copy; the
        // legalizer copies to a uniform register or predicate for
        // a source only a UGPR/UP form takes.
        let uniform = if s.ty.is_pred() {
            SlotKindClass::Upred
        } else {
            SlotKindClass::Ugpr
        };
        // A barrier register holds no value the IR moves into it by a
        // copy (BMOV is its own op): a source only barrier forms take is
        // no gap.
        // A source only constant-bank forms take is the address of what
        // the op loads (ULDC, LDCU), not a value computed into a bank.
        let only_cbuf = self
            .forms
            .iter()
            .all(|f| matches!(f.src_kinds[i], None | Some(SlotKindClass::Cbuf)));
        if self.direct(reg, i)
            || self.direct(uniform, i)
            || self.direct(SlotKindClass::Bar, i)
            || only_cbuf
        {
            return Vec::new();
        }
        kinds
            .into_iter()
            .filter(|&k| !self.direct(k, i) && !self.reached_by_rewrite(i, k, reg))
            .collect()
    }

    /// Whether kind `k` reaches source `i` by a swap with a commutative
    /// partner, the wide-immediate op, or the narrow op this one widens.
    fn reached_by_rewrite(&self, i: usize, k: SlotKindClass, reg: SlotKindClass) -> bool {
        let swap = self
            .op
            .legalize
            .commutative
            .iter()
            .any(|&(x, y)| (x == i && self.direct(k, y)) || (y == i && self.direct(k, x)));
        let name = &self.op.srcs[i].name;
        swap || (k == SlotKindClass::Imm && self.wide_op_takes_imm(name))
            || self.narrow_op_takes(name, k, reg)
    }

    /// Whether the `wide_imm` op has an immediate form for source `name`
    /// on this SM.
    fn wide_op_takes_imm(&self, name: &str) -> bool {
        let sm = self.sm;
        self.op
            .legalize
            .wide_imm
            .and_then(|w| self.spec.ops.get(w))
            .is_some_and(|w| {
                w.src(name).is_some_and(|j| {
                    w.encodings
                        .iter()
                        .flat_map(|e| &e.forms)
                        .any(|f| f.sms.contains(&sm) && f.src_kinds[j] == Some(SlotKindClass::Imm))
                })
            })
    }

    /// The op this one is the wide-immediate form of: the legalizer falls
    /// back to it (FADD32I to FADD), which takes the kind directly or
    /// through a register copy.
    fn narrow_op_takes(&self, name: &str, k: SlotKindClass, reg: SlotKindClass) -> bool {
        let (spec, sm) = (self.spec, self.sm);
        spec.ops
            .iter()
            .filter(|n| {
                n.legalize
                    .wide_imm
                    .and_then(|w| spec.ops.get(w))
                    .is_some_and(|w| w.name == self.op.name)
            })
            .any(|n| {
                n.src(name).is_some_and(|j| {
                    n.encodings.iter().flat_map(|e| &e.forms).any(|f| {
                        f.sms.contains(&sm)
                            && (f.src_kinds[j] == Some(k) || f.src_kinds[j] == Some(reg))
                    })
                })
            })
    }
}

/// The register kind and every kind the IR can hold for source `s` on
/// `sm`: predicates (plus uniform ones where the family has UPT), or
/// registers, immediates and constant-bank values (plus uniform registers
/// where the family has URZ).
fn ir_kinds(s: &Operand, fam: &Family, sm: u32) -> (SlotKindClass, Vec<SlotKindClass>) {
    if s.ty.is_pred() {
        let mut k = vec![SlotKindClass::Pred];
        if fam.zero_index(SlotKindClass::Upred, sm).is_some() {
            k.push(SlotKindClass::Upred);
        }
        (SlotKindClass::Pred, k)
    } else {
        let mut k = vec![SlotKindClass::Gpr, SlotKindClass::Imm, SlotKindClass::Cbuf];
        if fam.zero_index(SlotKindClass::Ugpr, sm).is_some() {
            k.push(SlotKindClass::Ugpr);
        }
        (SlotKindClass::Gpr, k)
    }
}

/// One S0801 warning: source `i` cannot take kind `k` on `sms`.
fn report_legalize_gap(
    op: &Op,
    i: usize,
    k: SlotKindClass,
    mut sms: Vec<u32>,
    report: &mut Report,
) {
    sms.sort_unstable();
    sms.dedup();
    let s = &op.srcs[i];
    report.push(
        Diagnostic::warning(
            Code::S0801,
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

/// SM ranges: S1002 (two encodings of one op on one SM that can both
/// encode the same operand kinds), S1004 (gaps). Two encodings on one SM
/// whose forms take different operand kinds are one encoding split in two
/// (FADD's b in the B or the C slot), and so are two that take disjoint
/// values of an enum modifier: the encoder's choice is unambiguous.
pub(crate) fn check_sms(spec: &Spec, op: &Op, report: &mut Report) {
    fn forms_on(e: &Encoding, sm: u32) -> Vec<&Form> {
        e.forms
            .iter()
            .filter(|f| f.sms.is_empty() || f.sms.contains(&sm))
            .collect()
    }
    // Same operand kinds, and some value of every enum modifier in both.
    let clash = |x: &Form, y: &Form| {
        x.src_kinds == y.src_kinds
            && (0..op.modifiers.len()).all(|m| {
                let (vx, vy) = (op.enum_values(spec, x, m), op.enum_values(spec, y, m));
                vx.is_none_or(|vx| vy.is_none_or(|vy| vx.iter().any(|v| vy.contains(v))))
            })
    };
    for (i, a) in op.encodings.iter().enumerate() {
        for b in &op.encodings[..i] {
            let both: Vec<String> = a
                .sms
                .iter()
                .filter(|s| b.sms.contains(s))
                .filter(|&&sm| {
                    let fb = forms_on(b, sm);
                    forms_on(a, sm)
                        .iter()
                        .any(|x| fb.iter().any(|y| clash(x, y)))
                })
                .map(u32::to_string)
                .collect();
            if !both.is_empty() {
                report.push(
                    Diagnostic::error(
                        Code::S1002,
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
                    Code::S1004,
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
                            Code::S1103,
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

/// S1105: an operand the text may leave out (`x?`, `x if m`) needs a
/// `default`, the value the assembler writes for it; and two adjacent
/// `x?, y?` of one register kind make text that shows one of them
/// ambiguous, which only predicate destinations defaulting to PT resolve
/// (the one shown is `x`, as ptxas writes IADD3's carries; codegen's
/// `hidden.rs` derives the rule).
fn check_unprinted_operands(op: &Op, report: &mut Report) {
    let syntaxes = std::iter::once(&op.asm).chain(op.asm.variants.iter().map(|(_, a)| a));
    for asm in syntaxes {
        for o in &asm.operands {
            let operand = match o.item {
                AsmItem::Dst(i) => &op.dsts[i],
                AsmItem::Src(i) => &op.srcs[i],
                _ => continue,
            };
            if o.cond != AsmCond::Always && operand.default.is_none() {
                report.push(
                    Diagnostic::error(
                        Code::S1105,
                        format!(
                            "operand `{}` of `{}` is not always printed but has no default for the assembler to write",
                            operand.name, op.name
                        ),
                    )
                    .at(o.loc.clone())
                    .also(operand.loc.clone(), "declared here")
                    .help("add `default = \"RZ\"` (or PT, !PT) to the operand"),
                );
            }
        }
        for pair in asm.operands.windows(2) {
            if let Some(d) = ambiguous_optionals(op, &pair[0], &pair[1]) {
                report.push(d);
            }
        }
    }
}

/// S1105 for `x?, y?` of one kind that codegen cannot pin.
fn ambiguous_optionals(op: &Op, x: &AsmOperand, y: &AsmOperand) -> Option<Diagnostic> {
    if x.cond != AsmCond::NotDefault || y.cond != AsmCond::NotDefault {
        return None;
    }
    let operand = |item: &AsmItem| match *item {
        AsmItem::Dst(i) => Some((&op.dsts[i], true)),
        AsmItem::Src(i) => Some((&op.srcs[i], false)),
        _ => None,
    };
    let ((a, a_dst), (b, b_dst)) = (operand(&x.item)?, operand(&y.item)?);
    // Different token kinds, or an operand already reported for lacking a default.
    if a.ty.is_pred() != b.ty.is_pred() || a.default.is_none() || b.default.is_none() {
        return None;
    }
    let pinned = a_dst
        && b_dst
        && a.ty.is_pred()
        && a.default == b.default
        && matches!(
            a.default,
            Some(DefaultValue::Zero | DefaultValue::UniformZero)
        );
    (!pinned).then(|| {
        Diagnostic::error(
            Code::S1105,
            format!(
                "`{}?, {}?` of `{}`: text showing one of them does not say which",
                a.name, b.name, op.name
            ),
        )
        .at(y.loc.clone())
        .help("only adjacent optional predicate destinations both defaulting to PT (or both to UPT) are resolved (the one shown is the first)")
    })
}

/// The syntax an op uses on `sm`.
fn asm_at(op: &Op, sm: u32) -> &Asm {
    op.asm
        .variants
        .iter()
        .find(|(s, _)| s.contains(&sm))
        .map_or(&op.asm, |(_, a)| a)
}

/// Every suffix text `asm` can print on `sm`: each value of each suffix
/// modifier, combined, keeping only combinations the op's `legal` products
/// admit there.
fn suffix_set(spec: &Spec, op: &Op, asm: &Asm, sm: u32) -> Vec<String> {
    let mut out: Vec<(String, Vec<(usize, i64)>)> = vec![(String::new(), Vec::new())];
    for &mi in &asm.suffixes {
        let Some(texts) = suffix_texts(spec, &op.modifiers[mi]) else {
            continue;
        };
        let mut next = Vec::new();
        for (o, vals) in &out {
            for (v, t) in texts.iter().enumerate() {
                let mut vals = vals.clone();
                vals.push((mi, v as i64));
                if suffixes_legal(op, sm, &vals) {
                    next.push((format!("{o}{t}"), vals));
                }
            }
        }
        next.truncate(4096);
        out = next;
    }
    let mut texts: Vec<String> = out.into_iter().map(|(t, _)| t).collect();
    texts.sort();
    texts.dedup();
    texts
}

/// Whether the suffix values `vals` (modifier, value index) can print on
/// `sm`: the op has no `legal` products, or one of those covering `sm`
/// admits every one of them (its conditions on other modifiers are theirs).
fn suffixes_legal(op: &Op, sm: u32, vals: &[(usize, i64)]) -> bool {
    op.legal.is_empty()
        || op.legal.iter().filter(|r| r.sms.contains(&sm)).any(|r| {
            r.mods.iter().all(|(m, allowed)| {
                vals.iter()
                    .find(|(vm, _)| vm == m)
                    .is_none_or(|(_, v)| allowed.contains(v))
            })
        })
}

/// What an operand token can look like in the text, as bits: a register,
/// a uniform register, a number (immediate, branch target, integer
/// modifier), a constant buffer, a predicate, a uniform predicate, a memory
/// address, or a word (an enum or bool modifier printed as an operand).
/// The parser reads these apart, so two ops whose operand lists differ in
/// one position's token class never read the same text.
mod tok {
    pub const REG: u16 = 1;
    pub const UREG: u16 = 2;
    pub const NUM: u16 = 4;
    pub const CBUF: u16 = 8;
    pub const PRED: u16 = 16;
    pub const UPRED: u16 = 32;
    pub const MEM: u16 = 64;
    pub const WORD: u16 = 128;
    pub const BAR: u16 = 256;
    pub const ATTR: u16 = 512;
    pub const DESC: u16 = 1024;
}

/// The token classes operand `o` of `op` can print as.
fn token_class(op: &Op, o: &AsmOperand) -> u16 {
    let by_type = |ty: ValueType| {
        if ty.is_pred() {
            tok::PRED | tok::UPRED
        } else {
            tok::REG | tok::UREG
        }
    };
    match o.item {
        AsmItem::Dst(i) if op.dst_kind(i) == SlotKindClass::Bar => tok::BAR,
        AsmItem::Dst(i) => by_type(op.dsts[i].ty),
        AsmItem::Src(i) => {
            let kinds = op
                .encodings
                .iter()
                .flat_map(|e| &e.forms)
                .filter_map(|f| f.src_kinds[i]);
            let class = kinds.fold(0, |c, k| {
                c | match k {
                    SlotKindClass::Gpr => tok::REG,
                    SlotKindClass::Ugpr => tok::UREG,
                    SlotKindClass::Imm => tok::NUM,
                    SlotKindClass::Cbuf => tok::CBUF,
                    SlotKindClass::Pred => tok::PRED,
                    SlotKindClass::Upred => tok::UPRED,
                    SlotKindClass::Bar => tok::BAR,
                }
            });
            // Never encoded: it prints its default (RZ, PT).
            if class == 0 {
                by_type(op.srcs[i].ty)
            } else {
                class
            }
        }
        AsmItem::Modifier(m) if op.modifiers[m].lanes.is_some() => tok::WORD,
        AsmItem::Modifier(m) => match op.modifiers[m].ty {
            ModType::Rel | ModType::Abs { .. } | ModType::Int { .. } => tok::NUM,
            ModType::Bool | ModType::Enum(_) => tok::WORD,
        },
        AsmItem::Mem(m) if m.attr => tok::ATTR,
        AsmItem::AttrOff(_) => tok::ATTR,
        AsmItem::Desc(_) => tok::DESC,
        AsmItem::Mem(..) => tok::MEM,
    }
}

/// Every operand list `asm` can print, as token classes (optional operands
/// present or not).
fn operand_shapes(op: &Op, asm: &Asm) -> Vec<Vec<u16>> {
    let mut out: Vec<Vec<u16>> = vec![Vec::new()];
    for o in &asm.operands {
        let class = token_class(op, o);
        let optional = o.cond != AsmCond::Always;
        let mut next = Vec::new();
        for v in out {
            if optional {
                next.push(v.clone());
            }
            let mut w = v;
            w.push(class);
            next.push(w);
        }
        next.truncate(4096);
        out = next;
    }
    out
}

/// An operand list both `x` and `y` can print, if any.
fn shared_shape(a: &Op, x: &Asm, b: &Op, y: &Asm) -> Option<usize> {
    let sb = operand_shapes(b, y);
    operand_shapes(a, x)
        .into_iter()
        .find(|s| {
            sb.iter()
                .any(|t| t.len() == s.len() && s.iter().zip(t).all(|(p, q)| p & q != 0))
        })
        .map(|s| s.len())
}

/// S1104: two ops that print the same text on one SM: the same mnemonic and
/// suffixes, and operand lists whose tokens the parser cannot tell apart.
pub(crate) fn check_asm_clash(spec: &Spec, report: &mut Report) {
    let mut cache = ClashCache::default();
    let sms: Vec<Vec<u32>> = spec.ops.iter().map(|o| o.sms()).collect();
    for (i, a) in spec.ops.iter().enumerate() {
        for (j, b) in spec.ops[..i].iter().enumerate() {
            for &sm in sms[i].iter().filter(|s| sms[j].contains(s)) {
                if let Some(d) = asm_clash(spec, (i, a), (j, b), sm, &mut cache) {
                    report.push(d);
                    break;
                }
            }
        }
    }
}

/// What S1104 computes once and asks for many pairs and SMs: each op's
/// suffix texts per syntax and set of `legal` products in force (most ops
/// print the same on every SM), and each pair of syntaxes' shared shape.
#[derive(Default)]
struct ClashCache {
    texts: std::collections::HashMap<(usize, usize, u64), Vec<String>>,
    shapes: std::collections::HashMap<(usize, usize), Option<usize>>,
}

impl ClashCache {
    /// The key of op `i`'s suffix texts with syntax `asm` on `sm`, built
    /// (sorted) on first use.
    fn texts(
        &mut self,
        spec: &Spec,
        (i, op): (usize, &Op),
        asm: &Asm,
        sm: u32,
    ) -> (usize, usize, u64) {
        // The legal products in force as a bit set; an op with more than
        // 63 of them (none today) is keyed by the SM instead.
        let rules = if op.legal.len() < 64 {
            op.legal
                .iter()
                .enumerate()
                .filter(|(_, r)| r.sms.contains(&sm))
                .fold(0u64, |m, (k, _)| m | 1 << k)
        } else {
            1 << 63 | u64::from(sm)
        };
        let key = (i, std::ptr::from_ref(asm) as usize, rules);
        self.texts
            .entry(key)
            .or_insert_with(|| suffix_set(spec, op, asm, sm));
        key
    }
}

fn asm_clash(
    spec: &Spec,
    (ai, a): (usize, &Op),
    (bi, b): (usize, &Op),
    sm: u32,
    cache: &mut ClashCache,
) -> Option<Diagnostic> {
    let (x, y) = (asm_at(a, sm), asm_at(b, sm));
    if x.mnemonic != y.mnemonic {
        return None;
    }
    let key = (
        std::ptr::from_ref(x) as usize,
        std::ptr::from_ref(y) as usize,
    );
    let n = (*cache
        .shapes
        .entry(key)
        .or_insert_with(|| shared_shape(a, x, b, y)))?;
    let (ka, kb) = (
        cache.texts(spec, (ai, a), x, sm),
        cache.texts(spec, (bi, b), y, sm),
    );
    let sb = &cache.texts[&kb];
    let text = cache.texts[&ka]
        .iter()
        .find(|t| sb.binary_search(t).is_ok())?
        .clone();
    Some(
        Diagnostic::error(
            Code::S1104,
            format!(
                "`{}` and `{}` can both print `{}{text}` with {n} operands on SM {sm}",
                a.name, b.name, x.mnemonic
            ),
        )
        .at(x.loc.clone())
        .also(y.loc.clone(), "other op")
        .help("give one of them a distinguishing suffix, or an [[alias]]"),
    )
}
