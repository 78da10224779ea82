//! `nak check`: a hazard checker for scheduled SASS. It follows every
//! path of a kernel's control-flow graph (to a fixed point over loops) and
//! reports each instruction that reads or overwrites a register while a
//! variable-latency write or a late read of it may still be pending on a
//! scoreboard the instruction has not waited for. Which ops branch and
//! wait comes from the spec (`[flow]`, `[sched]`); the scoreboards each
//! instruction sets and waits for are its own control bits.

pub mod program;
pub mod spans;
pub mod state;

use program::{Instr, Program, slot_reg};
use state::{Event, State};

/// One hazard: where, which kind, and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub addr: u64,
    pub code: Code,
    pub message: String,
}

/// The kinds of hazard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// A register read while a variable-latency write to it is pending.
    Raw,
    /// A register written while a variable-latency write to it is pending
    /// (the late write would land over the new value).
    Waw,
    /// A register written while a late read of it is pending.
    War,
    /// A register read at issue before the stall counts since a
    /// fixed-latency write to it cover the writer's latency.
    Latency,
    /// A word the spec cannot decode: its registers are unknown.
    Unknown,
}

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::Raw => "RAW",
            Code::Waw => "WAW",
            Code::War => "WAR",
            Code::Latency => "LAT",
            Code::Unknown => "UNKNOWN",
        }
    }
}

/// Check a raw stream of one kernel starting at address 0 (Maxwell
/// streams with their scheduling words). Findings are in address order.
pub fn check(sm: u32, bytes: &[u8]) -> Result<Vec<Finding>, String> {
    Ok(check_program(&Program::decode(sm, bytes)?))
}

/// [`check`] on a decoded kernel (whose control fields a test may have
/// changed to inject a fault).
///
/// Each block's state on entry is iterated to a fixed point: states only
/// grow (events appear, ages fall, results are ready later), and all are
/// bounded, so it ends. A block's findings are those of its last visit,
/// made from its final entry state (a change re-queues the block), so a
/// kernel without loops is walked once.
pub fn check_program(p: &Program) -> Vec<Finding> {
    let n = p.blocks.len();
    let mut ins = vec![State::empty(); n];
    let mut found: Vec<Vec<Finding>> = vec![Vec::new(); n];
    let mut queued = vec![true; n];
    let mut work: Vec<usize> = (0..n).rev().collect();
    let mut st = State::empty();
    while let Some(b) = work.pop() {
        queued[b] = false;
        let block = &p.blocks[b];
        st.clone_from(&ins[b]);
        let out = &mut found[b];
        out.clear();
        for i in block.first..block.end {
            step(p, i, &mut st, &mut |f| out.push(f));
        }
        for &s in block.succs() {
            if ins[s].join(&st) && !queued[s] {
                queued[s] = true;
                work.push(s);
            }
        }
    }
    let mut out: Vec<Finding> = found.into_iter().flatten().collect();
    out.sort_by_key(|f| (f.addr, f.code));
    out
}

/// One instruction: its waits, its checks (each finding to `report`), and
/// the events it starts.
fn step(p: &Program, i: usize, st: &mut State, report: &mut dyn FnMut(Finding)) {
    let x = &p.instrs[i];
    st.wait_all(x.ctl.wait);
    if let Some((sb, pending)) = x.waits_on {
        st.wait_until(sb, pending);
    }
    if !x.known {
        report(finding(
            x,
            Code::Unknown,
            "the spec cannot decode this word: its registers are not checked".into(),
        ));
    }
    if x.never {
        st.advance(x.ctl.stall);
        return;
    }
    check_regs(p, x, st, report);
    check_ready(p, x, st, report);
    for sb in [x.ctl.write_barrier, x.ctl.read_barrier]
        .into_iter()
        .flatten()
    {
        st.age(sb);
    }
    if !x.guarded {
        for r in x.writes.iter().flat_map(|s| s.slots()) {
            st.overwrite(r);
        }
    }
    if let Some(sb) = x.ctl.write_barrier {
        for r in x.late_writes.iter().flat_map(|s| s.slots()) {
            st.protect(Event::Write, r, sb, i, None);
        }
    }
    if let Some(sb) = x.ctl.read_barrier {
        for r in x.late_reads.iter().flat_map(|s| s.slots()) {
            st.protect(Event::Read, r, sb, i, x.ctl.write_barrier);
        }
    }
    for span in &x.writes {
        // A result under the write barrier is the scoreboard's to track.
        let barrier = x.ctl.write_barrier.is_some() && x.late_writes.contains(span);
        let cycles = if barrier { 0 } else { x.latency.unwrap_or(0) };
        let guard = if barrier {
            0
        } else {
            x.guard_latency.unwrap_or(0)
        };
        for r in span.slots() {
            st.written(r, cycles, guard, i, x.guarded);
        }
    }
    st.advance(x.ctl.stall);
}

/// Reads at issue of fixed-latency results the stalls do not cover yet,
/// and a control op's guard predicate before its guard latency.
fn check_ready(p: &Program, x: &Instr, st: &State, report: &mut dyn FnMut(Finding)) {
    if let Some(g) = x.guard_read_by_control() {
        let (left, by) = st.guard_ready_in(g);
        let need = p.instrs[by].guard_latency.unwrap_or(0);
        if left > 0 {
            report(too_soon(
                p,
                x,
                ("is guarded by", "a guard takes"),
                g,
                (left, need),
                by,
            ));
        }
    }
    if !x.reads_at_issue {
        return;
    }
    for r in x.reads.iter().flat_map(|s| s.slots()) {
        let (left, by) = st.ready_in(r);
        let need = p.instrs[by].latency.unwrap_or(0);
        if left > 0 {
            report(too_soon(p, x, ("reads", "it takes"), r, (left, need), by));
        }
    }
}

/// A `LAT` finding: register slot `r`, written by instruction `by`, is
/// read (`verb`) `left` cycles before the `need` it takes (`takes`).
fn too_soon(
    p: &Program,
    x: &Instr,
    (verb, takes): (&str, &str),
    r: usize,
    (left, need): (u32, u8),
    by: usize,
) -> Finding {
    let w = &p.instrs[by];
    let m = format!(
        "{verb} {} {} cycles after `{}` (at {:#06x}) writes it; {takes} {need}",
        slot_reg(r),
        u32::from(need).saturating_sub(left),
        w.text(p.sm),
        w.addr
    );
    finding(x, Code::Latency, m)
}

/// Reads and writes of registers a pending event still protects.
fn check_regs(p: &Program, x: &Instr, st: &State, report: &mut dyn FnMut(Finding)) {
    let pending = |kind, code, r, text: &str| {
        let (mask, by) = st.pending(kind, r);
        (mask != 0).then(|| {
            let w = &p.instrs[by];
            let m = text
                .replace("{reg}", &slot_reg(r).to_string())
                .replace("{by}", &format!("`{}` (at {:#06x})", w.text(p.sm), w.addr));
            finding(x, code, format!("{m}: no wait on {}", sbs(mask)))
        })
    };
    for r in x.reads.iter().flat_map(|s| s.slots()) {
        let text = "reads {reg} before the write by {by} has landed";
        report_all(report, pending(Event::Write, Code::Raw, r, text));
    }
    for r in x.writes.iter().flat_map(|s| s.slots()) {
        let text = "writes {reg} while the write by {by} may still land";
        report_all(report, pending(Event::Write, Code::Waw, r, text));
        // A result that lands late (the writer sets a write barrier, or
        // is a memory op) lands after a pending read of the register:
        // ptxas writes a load's result over a store's data without a wait
        // (tests/kernels tex_surf: SM60 with a barrier, SM50 without).
        if x.ctl.write_barrier.is_none() && !x.lands_late {
            let text = "writes {reg} before {by} has read it";
            report_all(report, pending(Event::Read, Code::War, r, text));
        }
    }
}

fn report_all(report: &mut dyn FnMut(Finding), f: Option<Finding>) {
    if let Some(f) = f {
        report(f);
    }
}

fn finding(x: &Instr, code: Code, message: String) -> Finding {
    Finding {
        addr: x.addr,
        code,
        message,
    }
}

/// `SB0` or `SB0 or SB3`.
fn sbs(mask: u8) -> String {
    (0..6)
        .filter(|s| mask >> s & 1 == 1)
        .map(|s| format!("SB{s}"))
        .collect::<Vec<_>>()
        .join(" or ")
}
