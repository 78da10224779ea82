//! Semantic checks over a resolved spec. Each check has a stable code; see
//! `isa-spec/README.md` for the list.

use crate::diag::{Diagnostic, Report};
use crate::model::*;

/// Run every semantic check, adding to `report`.
pub fn run(spec: &Spec, report: &mut Report) {
    for op in &spec.ops {
        check_op(spec, op, report);
    }
    check_ambiguity(spec, report);
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
            FieldTarget::Fixed(v) if w < 128 && *v >> w != 0 => {
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
