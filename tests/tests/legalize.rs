//! For every op of the spec, on every SM it claims, and every combination
//! of operand kinds in its source slots (GPR, RZ, UGPR, small/large/float
//! immediates, cbuf; PT, !PT, P, UP for predicates), legalize followed by
//! encode succeeds: the generated encoder's checks pass on whatever the
//! generated legalizer produces. A new op is covered without touching this.

use nak::isa::{self, Encode, FORMS, Legalize, Op};
use nak::runtime::instr::{Common, FormInfo, ValueType};
use nak::runtime::legalize_support::{LegalizeCx, LegalizeError};
use nak::runtime::operand::{Reg, RegFile, SlotKind, Src};

/// Hands out fresh registers and counts the copies it was asked for.
struct Cx {
    next_gpr: u8,
    copies: usize,
}

impl LegalizeCx for Cx {
    fn copy_to_reg(
        &mut self,
        _src: Src,
        ty: ValueType,
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        self.copies += 1;
        if file == RegFile::Pred || file == RegFile::UPred {
            return Ok(Reg { file, idx: 5 });
        }
        let step = ty.regs();
        self.next_gpr = self.next_gpr.div_ceil(step) * step;
        let r = Reg {
            file,
            idx: self.next_gpr % 60,
        };
        self.next_gpr += step;
        Ok(r)
    }

    fn copy_run(
        &mut self,
        parts: &[(u8, Src, ValueType)],
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        let len = parts.iter().map(|p| p.0 + p.2.regs()).max().unwrap_or(1);
        let step = parts.first().map_or(1, |p| p.2.regs());
        self.copies += parts.len();
        self.next_gpr = self.next_gpr.div_ceil(step) * step;
        let r = Reg {
            file,
            idx: self.next_gpr % 60,
        };
        self.next_gpr += len;
        Ok(r)
    }
}

fn kinds(ty: ValueType) -> Vec<Src> {
    if ty.is_pred() {
        return vec![
            Src::PT,
            Src::FALSE,
            Src::reg(Reg::pred(3)),
            Src::reg(Reg::pred(2)).with_not(true),
            Src::reg(Reg::upred(1)),
        ];
    }
    let mut v = vec![
        Src::reg(Reg::gpr(10)),
        Src::RZ,
        Src::reg(Reg::ugpr(4)),
        Src::imm(7),
        Src::imm(0x1234_5679),
        Src::cbuf(1, 0x40),
    ];
    if ty.is_float() {
        v.push(Src::imm(0x3fc0_0000)); // 1.5: fits Maxwell's 20-bit float form
        v.push(Src::imm(0x3fc0_0001)); // needs all 32 bits
    }
    v
}

/// Whether some kind of source `i` other than its `default` (the other
/// sources as in `op`) legalizes and encodes on `sm`.
fn some_kind_encodes(op: Op, i: usize, ty: ValueType, default: Option<Src>, sm: u32) -> bool {
    kinds(ty)
        .into_iter()
        .filter(|&k| Some(k) != default)
        .any(|k| {
            let mut o = op;
            *o.src_mut(i) = k;
            let mut cx = Cx {
                next_gpr: 100,
                copies: 0,
            };
            o.legalize(sm, &mut cx).is_ok() && o.encode(sm, &Common::default()).is_ok()
        })
}

/// Pairs of sources (i, j) that some form tied (one register read as
/// both) and no form takes as two registers of their own.
fn shared_register_pairs(forms: &[&FormInfo], n: usize) -> Vec<(usize, usize)> {
    let is_reg = |k: Option<SlotKind>| !matches!(k, None | Some(SlotKind::Imm | SlotKind::CBuf));
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let tied = |f: &FormInfo| {
                f.tied.contains(&(i as u8, j as u8)) || f.tied.contains(&(j as u8, i as u8))
            };
            let some_tie = forms.iter().any(|f| tied(f));
            let apart = forms
                .iter()
                .any(|f| !tied(f) && is_reg(f.srcs[i]) && is_reg(f.srcs[j]));
            if some_tie && !apart {
                out.push((i, j));
            }
        }
    }
    out
}

/// Whether `v` is an immediate that a form takes as it is in source `i`
/// beside a register in source `j` (the other sources as in the decoded
/// instance `op`).
fn imm_in_place(op: Op, v: Src, i: usize, j: usize, sm: u32) -> bool {
    if !v.is_imm() {
        return false;
    }
    let mut o = op;
    *o.src_mut(i) = v;
    *o.src_mut(j) = Src::reg(Reg::gpr(10));
    o.encode(sm, &Common::default()).is_ok()
}

/// One instance of each op per SM: decoded from its first form's fixed bits.
fn instances(sm: u32) -> Vec<Op> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for w in nak::runtime::sample::sample_words(sm, &[], 2, 7) {
        let (op, _) = isa::decode(w, sm).expect("sampled word decodes");
        if seen.insert(op.name()) {
            out.push(op);
        }
    }
    out
}

#[test]
fn legalize_then_encode_succeeds_for_every_operand_kind() {
    let mut failures = Vec::new();
    let mut checked = 0usize;
    for &sm in isa::ALL_SMS {
        for op in instances(sm) {
            let info = op.src_info();
            // Sources no form encodes on this SM keep their value (they are
            // absent on this family, like SM70's branch condition on SM50).
            let forms: Vec<_> = FORMS
                .iter()
                .filter(|f| f.op == op.name() && f.sms.contains(&sm))
                .collect();
            // So do sources that encode with this instance's modifiers only
            // at their default, the value of an absent operand (SM75 LDG in
            // register mode has no uniform register term: only the UR form
            // takes one, with other modifiers).
            let choices: Vec<Vec<Src>> = info
                .iter()
                .enumerate()
                .map(|(i, inf)| {
                    let encoded = forms.iter().any(|f| f.srcs[i].is_some());
                    // A constant-only slot (ULDC's) takes nothing a copy
                    // could make: only constants are asked of it.
                    let constant_only = forms
                        .iter()
                        .all(|f| matches!(f.srcs[i], None | Some(SlotKind::CBuf)));
                    if encoded && constant_only {
                        kinds(inf.ty).into_iter().filter(Src::is_cbuf).collect()
                    } else if encoded && some_kind_encodes(op, i, inf.ty, inf.default, sm) {
                        kinds(inf.ty)
                    } else {
                        vec![*op.src(i)]
                    }
                })
                .collect();
            let shared = shared_register_pairs(&forms, info.len());
            let total: usize = choices.iter().map(Vec::len).product();
            for n in 0..total {
                let mut o = op;
                let mut k = n;
                for (i, c) in choices.iter().enumerate() {
                    *o.src_mut(i) = c[k % c.len()];
                    k /= c.len();
                }
                // Two sources the SM reads from one register (tied in
                // every form that takes both as registers) are asked only
                // for one value, or with one of them an immediate some
                // form takes as it is: two different values both in
                // registers have no form.
                if shared.iter().any(|&(i, j)| {
                    o.src(i) != o.src(j)
                        && !imm_in_place(op, *o.src(i), i, j, sm)
                        && !imm_in_place(op, *o.src(j), j, i, sm)
                }) {
                    continue;
                }
                let before = o;
                let mut cx = Cx {
                    next_gpr: 100,
                    copies: 0,
                };
                checked += 1;
                match o.legalize(sm, &mut cx) {
                    Ok(()) => match o.encode(sm, &Common::default()) {
                        Err(e) => failures.push(format!(
                            "SM{sm} {before:?}: legalized but does not encode: {e}"
                        )),
                        // The one-step path gives the same word.
                        Ok(w) => {
                            let mut one = before;
                            let mut cx = Cx {
                                next_gpr: 100,
                                copies: 0,
                            };
                            let w1 = one.legalize_encode(sm, &Common::default(), &mut cx);
                            if w1.as_ref().ok() != Some(&w) || one != o {
                                failures.push(format!(
                                    "SM{sm} {before:?}: legalize_encode gives {w1:x?}, not {w:#x}"
                                ));
                            }
                        }
                    },
                    Err(e) => failures.push(format!("SM{sm} {before:?}: {e}")),
                }
            }
        }
    }
    println!(
        "legalize: {checked} operand-kind combinations checked, {} failed",
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} combinations failed (first 40 above)",
        failures.len()
    );
}

/// An F16 immediate's negation folds into bit 15, its own sign (the
/// source reads the low half), not into bit 31: `F2I.F16 R0, -1` keeps
/// the value -1 once legalized into the immediate form, checked by
/// folding before and after.
#[test]
fn f16_immediate_negation_folds_into_the_half() {
    use nak::isa::{CvtFtype32, CvtItype32, F2iRnd, OpF2i};
    use nak::runtime::fold::Value;
    use nak::runtime::operand::SrcKind;
    let before = OpF2i {
        d: Reg::gpr(0),
        b: Src {
            neg: true,
            ..Src::imm(0x3c00)
        },
        ftz: false,
        dtype: CvtItype32::S32,
        stype: CvtFtype32::F16,
        rnd: F2iRnd::Trunc,
        ntz: true,
        sel: 0,
    };
    let mut after = before;
    let mut cx = Cx {
        next_gpr: 0,
        copies: 0,
    };
    assert!(after.legalize(90, &mut cx).expect("legalizes").is_none());
    assert_eq!(cx.copies, 0, "folded, not copied: {after:?}");
    let kind = { after.b.kind };
    assert_eq!(kind, SrcKind::Imm(0xbc00), "-1.0 as F16");
    let value = |o: &OpF2i| {
        let kind = o.b.kind;
        let imm = match kind {
            SrcKind::Imm(v) => v,
            _ => unreachable!(),
        };
        o.fold(90, &[Value::U32(imm)]).expect("folds").as_slice()[0]
    };
    assert_eq!(value(&before), value(&after));
    assert_eq!(value(&after), Value::U32(-1i32 as u32));
    after.encode(90, &Common::default()).expect("encodes");
}

/// An integer negation stays the op's when the op chooses the source's
/// width: Maxwell's `I2I.U32.U32.SAT R0, -0x5b43baad` negates the word
/// before it saturates (0), which the immediate form (no negate bit)
/// cannot say as `0xa4bc4553`: the immediate is copied to a register that
/// keeps the negation, checked by folding before and after.
#[test]
fn i2i_immediate_negation_stays_on_the_op() {
    use nak::isa::{I2iType, OpI2i};
    use nak::runtime::fold::Value;
    let before = OpI2i {
        d: Reg::gpr(0),
        b: Src::imm(0x5b43_baad).with_neg(true),
        dtype: I2iType::U32,
        stype: I2iType::U32,
        sat: true,
        cc: false,
        sel: 0,
    };
    let mut after = before;
    let mut cx = Cx {
        next_gpr: 0,
        copies: 0,
    };
    assert!(after.legalize(50, &mut cx).expect("legalizes").is_none());
    assert_eq!(cx.copies, 1, "copied, not folded: {after:?}");
    assert!(after.b.neg, "the negation stays on the op: {after:?}");
    let word = Value::U32(0x5b43_baad);
    let want = before.fold(50, &[word]).expect("folds");
    assert_eq!(want.as_slice()[0], Value::U32(0));
    assert_eq!(
        after.fold(50, &[word]).expect("folds").as_slice()[0],
        Value::U32(0)
    );
    after.encode(50, &Common::default()).expect("encodes");
}
