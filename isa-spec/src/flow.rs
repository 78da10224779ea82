//! `[flow]` and `[sched]`: where control goes after an op, and what it
//! means to the scheduler. A hazard checker and a listing with labels
//! build the control-flow graph from them, so they are stated in the op's
//! file like any other hardware fact.

use crate::codes::Code;
use crate::model::{Enum, Flow, FlowKind, ModType, Op, Sched};
use crate::resolve::Ctx;
use crate::schema::{FlowDef, S, SchedDef};

/// Resolve an op's `[flow]` table; None (with S1303 errors) when it is bad.
pub(crate) fn resolve_flow(cx: &mut Ctx, op: &Op, enums: &[Enum], f: &S<FlowDef>) -> Option<Flow> {
    let r = f.get_ref();
    let mut ok = true;
    let kind = FlowKind::NAMES
        .iter()
        .find(|(n, _)| *n == r.kind.get_ref().as_str())
        .map(|&(_, k)| k);
    if kind.is_none() {
        cx.err(
            Code::S1303,
            &r.kind,
            format!(
                "kind `{}` is not branch, exit, call, return or indirect",
                r.kind.get_ref()
            ),
        );
        ok = false;
    }
    let target = r.target.as_ref().and_then(|t| {
        let i = op
            .modifier(t.get_ref())
            .filter(|&i| matches!(op.modifiers[i].ty, ModType::Rel | ModType::Abs { .. }));
        if i.is_none() {
            cx.err(
                Code::S1303,
                t,
                format!("`{}` is not a `rel` or `abs` modifier", t.get_ref()),
            );
            ok = false;
        }
        i
    });
    if kind == Some(FlowKind::Branch) && r.target.is_none() {
        cx.err(Code::S1303, f, "a branch needs its `target`");
        ok = false;
    }
    let (mut when_srcs, mut when_mods, mut decided_by) = (Vec::new(), Vec::new(), Vec::new());
    let mut when_values = Vec::new();
    for w in &r.when {
        let name = w.get_ref();
        if let Some((m, v)) = name.split_once("==") {
            let (m, v) = (m.trim(), v.trim());
            let found = op.modifier(m).and_then(|i| match op.modifiers[i].ty {
                ModType::Enum(e) => enums[e]
                    .values
                    .iter()
                    .position(|x| x.name == v)
                    .map(|vi| (i, vi)),
                ModType::Bool => match v {
                    "true" => Some((i, 1)),
                    "false" => Some((i, 0)),
                    _ => None,
                },
                _ => None,
            });
            match found {
                Some(p) => when_values.push(p),
                None => {
                    cx.err(
                        Code::S1303,
                        w,
                        format!("`{m}` is no enum or bool modifier with a value `{v}`"),
                    );
                    ok = false;
                }
            }
        } else if let Some(i) = op.src(name) {
            match op.srcs[i].ty.is_pred() {
                true => when_srcs.push(i),
                false => decided_by.push(i),
            }
        } else if let Some(i) = op
            .modifier(name)
            .filter(|&i| matches!(op.modifiers[i].ty, ModType::Enum(_)))
        {
            when_mods.push(i);
        } else {
            cx.err(
                Code::S1303,
                w,
                format!("`{name}` is neither a source nor an enum modifier"),
            );
            ok = false;
        }
    }
    Some(Flow {
        kind: kind?,
        target,
        when_srcs,
        when_mods,
        when_values,
        decided_by,
        loc: cx.loc(f),
    })
    .filter(|_| ok)
}

/// Resolve an op's `[sched]` table; None (with S1304 errors) when it is bad.
pub(crate) fn resolve_sched(cx: &mut Ctx, op: &Op, s: &S<SchedDef>) -> Option<Sched> {
    let r = s.get_ref();
    let mut ok = true;
    let mut find = |m: &S<String>, enum_: bool| {
        let i = op
            .modifier(m.get_ref())
            .filter(|&i| match op.modifiers[i].ty {
                ModType::Enum(_) => enum_,
                ModType::Int { .. } => !enum_,
                _ => false,
            });
        if i.is_none() {
            let what = if enum_ { "an enum" } else { "an integer" };
            cx.err(
                Code::S1304,
                m,
                format!("`{}` is not {what} modifier", m.get_ref()),
            );
            ok = false;
        }
        i
    };
    let wait = match (&r.wait_barrier, &r.wait_pending) {
        (Some(b), Some(p)) => find(b, true).zip(find(p, false)),
        (None, None) => None,
        _ => {
            cx.err(
                Code::S1304,
                s,
                "`wait_barrier` and `wait_pending` come together",
            );
            ok = false;
            None
        }
    };
    let mut early = Vec::new();
    for d in &r.early {
        match op.dst(d.get_ref()) {
            Some(i) => early.push(i),
            None => {
                cx.err(
                    Code::S1304,
                    d,
                    format!("`{}` is not a destination", d.get_ref()),
                );
                ok = false;
            }
        }
    }
    let latency = latency_table(cx, op, &r.latency, &mut ok);
    let guard_latency = latency_table(cx, op, &r.guard_latency, &mut ok);
    let mut stated: Vec<u32> = latency.iter().map(|&(sm, _)| sm).collect();
    let variable = sm_list(cx, op, r.variable.as_ref(), &mut stated, &mut ok);
    let unmeasured = sm_list(cx, op, r.unmeasured.as_ref(), &mut stated, &mut ok);
    ok.then(|| Sched {
        wait,
        early,
        latency,
        guard_latency,
        variable,
        unmeasured,
        loc: cx.loc(s),
    })
}

/// A `variable` or `unmeasured` SM list: SMs of the op, none `stated`
/// already (by `latency` or the other list); adds them to `stated`.
fn sm_list(
    cx: &mut Ctx,
    op: &Op,
    v: Option<&S<String>>,
    stated: &mut Vec<u32>,
    ok: &mut bool,
) -> Vec<u32> {
    let Some(v) = v else { return Vec::new() };
    match crate::resolve::parse_sms(v.get_ref(), &op.sms()) {
        Ok(sms) if !sms.is_empty() => {
            for sm in sms.iter().filter(|sm| stated.contains(sm)) {
                cx.err(Code::S1304, v, format!("SM{sm} is stated already"));
                *ok = false;
            }
            stated.extend(&sms);
            let mut sms = sms;
            sms.sort_unstable();
            sms.dedup();
            sms
        }
        Ok(_) => {
            cx.err(
                Code::S1304,
                v,
                format!("`{}` names no SM of the op", v.get_ref()),
            );
            *ok = false;
            Vec::new()
        }
        Err(e) => {
            cx.err(Code::S1304, v, e);
            *ok = false;
            Vec::new()
        }
    }
}

/// S1305: an op with results a write barrier may cover (destinations not
/// `early`) states on every SM whether they take a fixed latency or land
/// under the barrier, so the scheduler and the checker never guess.
pub(crate) fn check_sched_complete(cx: &mut Ctx, op: &Op, file: &crate::schema::OpFile) {
    let early = op.sched.as_ref().map_or(&[][..], |s| &s.early[..]);
    if (0..op.dsts.len()).all(|i| early.contains(&i)) {
        return;
    }
    let stated = |sm: u32| {
        op.sched.as_ref().is_some_and(|s| {
            s.variable.contains(&sm)
                || s.unmeasured.contains(&sm)
                || s.latency.iter().any(|(x, _)| *x == sm)
        })
    };
    let missing: Vec<String> = op
        .sms()
        .into_iter()
        .filter(|&sm| !stated(sm))
        .map(|sm| sm.to_string())
        .collect();
    if missing.is_empty() {
        return;
    }
    let msg = format!(
        "SM{} {} no fixed `latency`, and {} not `variable` or `unmeasured`",
        missing.join(", SM"),
        if missing.len() == 1 { "has" } else { "have" },
        if missing.len() == 1 { "is" } else { "are" }
    );
    match &file.sched {
        Some(s) => cx.err(Code::S1305, s, msg),
        None => cx.err(Code::S1305, &file.name, format!("no `[sched]`: {msg}")),
    }
}

/// A `latency` or `guard_latency` table as (SM, cycles), sorted: each key
/// an SM list naming SMs of the op, each SM once, 1..255 cycles.
fn latency_table(
    cx: &mut Ctx,
    op: &Op,
    t: &std::collections::BTreeMap<S<String>, S<u32>>,
    ok: &mut bool,
) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (k, v) in t {
        match crate::resolve::parse_sms(k.get_ref(), &op.sms()) {
            Ok(sms) if !sms.is_empty() && (1..256).contains(v.get_ref()) => {
                for sm in sms {
                    if out.iter().any(|(s, _)| *s == sm) {
                        cx.err(Code::S1304, k, format!("SM{sm} has a latency already"));
                        *ok = false;
                    }
                    out.push((sm, *v.get_ref()));
                }
            }
            Ok(_) => {
                cx.err(
                    Code::S1304,
                    k,
                    format!(
                        "`{}` names no SM of the op, or the latency is not 1..255 cycles",
                        k.get_ref()
                    ),
                );
                *ok = false;
            }
            Err(e) => {
                cx.err(Code::S1304, k, e);
                *ok = false;
            }
        }
    }
    out.sort_unstable();
    out
}
