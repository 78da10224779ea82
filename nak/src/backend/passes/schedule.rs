//! Control bits for legalized code, conservatively: after this pass every
//! instruction carries control bits that `nak check` accepts.
//!
//! - Scoreboards: an op whose results have no fixed latency in the spec
//!   (`[sched] latency` on this SM) sets a write barrier, one of SB0..SB4:
//!   a free one, else the one given out longest ago; a memory or control
//!   op that reads registers late sets read barrier SB5. An instruction
//!   waits on a write scoreboard when it reads or writes a register a
//!   result pending there goes to (so a reader waits for its own load, not
//!   for every load before it), and on SB5 when it overwrites a register a
//!   pending late read needs. What is pending carries across blocks: a
//!   block starts with every event some predecessor may leave pending (a
//!   forward data flow over the branches, iterated to its fixed point), so
//!   a load whose result one path leaves unused, or that is still in flight
//!   at a loop's back edge, has landed before the register is written
//!   again, and a block waits only where it touches such a register. A
//!   function with a hardware branch (whose target the IR does not name)
//!   keeps the old rule: every block's first instruction waits on all six.
//! - Stalls: at least 1, and 2 after an instruction that sets a barrier (a
//!   scoreboard counts it one cycle after issue). A fixed-latency result is
//!   covered by stretching the stall before each reader in the block (a
//!   predicate that guards a branch or an exit by its longer guard
//!   latency, or the longest stall where the spec states none), and by the
//!   block's last stall for whatever is still in flight when the block
//!   ends.

use super::PassError;
use crate::backend::ir::{Function, Instr, VOp};
use crate::check::program::{SlotSet, Span, footprint, is_control, late_read_spans, reads_late};
use crate::isa::{Family, family_of};
use crate::runtime::control::{self, Fields};
use crate::runtime::flow::FlowKind;

/// The scoreboards results that land late are spread over (SB0..SB4), and
/// the one late reads count on.
const WRITE_SBS: usize = 5;
const READ_SB: u8 = 5;
/// A wait on every scoreboard.
const ALL_SBS: u8 = 0x3f;
/// A stall count's largest value.
const MAX_STALL: u32 = 15;

/// What scheduling needs to know of one instruction.
struct Facts {
    reads: Vec<Span>,
    /// The sources a read barrier covers (`late_read_spans`).
    late_reads: Vec<Span>,
    /// Registers it may write, and whether it is guarded (may not write).
    writes: Vec<Span>,
    guarded: bool,
    /// A control op (a branch, an exit): a predicate it reads must be
    /// ready earlier than an operand (`[sched] guard_latency`).
    control: bool,
    /// Results with a fixed latency: (registers, cycles until an operand
    /// may read them, cycles until they may guard a control op).
    fixed: Vec<(Span, u32, u32)>,
    /// Results land late: the op needs a write barrier (`place_waits`
    /// picks which).
    lands_late: bool,
    fields: Fields,
}

/// The events a scoreboard may still count where a point of the program
/// is reached: the registers of results pending on each write scoreboard,
/// and the sources a pending late read needs.
#[derive(Clone, Copy, Default, PartialEq)]
struct Pending {
    write: [SlotSet; WRITE_SBS],
    read: SlotSet,
}

impl Pending {
    /// Add what `other` has pending; whether that added anything.
    fn join(&mut self, other: &Pending) -> bool {
        let mut grew = self.read.union_with(&other.read);
        for (mine, theirs) in self.write.iter_mut().zip(&other.write) {
            grew |= mine.union_with(theirs);
        }
        grew
    }
}

/// Set the control bits of every instruction of a legalized function:
/// block by block, each starting with what its predecessors may leave
/// pending, and again whenever a block's start grows, until none does
/// (the sets only grow, so this ends; straight-line code takes one pass,
/// a loop another over the blocks its back edge reaches). Each block's
/// bits are those of its last visit, from its final start.
pub fn schedule(f: &mut Function) -> Result<(), PassError> {
    let sm = f.sm;
    let family = family_of(sm).ok_or_else(|| PassError::new(format!("SM{sm} is not covered")))?;
    let succs = successors(f);
    let n = f.blocks.len();
    let known = succs.is_some().then(Pending::default);
    let mut entry = vec![known; n];
    let mut dirty = vec![true; n];
    while let Some(first) = dirty.iter().position(|&d| d) {
        for b in first..n {
            if !std::mem::take(&mut dirty[b]) {
                continue;
            }
            let block = &mut f.blocks[b];
            let mut facts = block
                .instrs
                .iter()
                .map(|i| facts(sm, family, i))
                .collect::<Result<Vec<_>, _>>()?;
            let exit = place_waits(&mut facts, entry[b]);
            cover_latencies(&mut facts);
            for (i, x) in block.instrs.iter_mut().zip(&facts) {
                i.ctrl = Some(control::from_fields(family, &x.fields));
            }
            for &s in succs.as_ref().map_or(&[][..], |s| &s[b]) {
                if entry[s].as_mut().is_some_and(|e| e.join(&exit)) {
                    dirty[s] = true;
                }
            }
        }
    }
    Ok(())
}

/// Each block's successors (by index): the blocks its branches name, and
/// the next one unless an unguarded branch or exit ends it. None when a
/// hardware op moves control where the IR does not say (a hardware
/// branch, call or indirect jump; its exits and returns are known).
fn successors(f: &Function) -> Option<Vec<Vec<usize>>> {
    let index = |label: &str| f.blocks.iter().position(|b| b.label == label);
    let mut out = Vec::new();
    for (k, b) in f.blocks.iter().enumerate() {
        let mut succ = Vec::new();
        let mut falls = true;
        for i in &b.instrs {
            let unguarded = i.guard.as_reg().is_none_or(|g| g.is_zero());
            match &i.op {
                VOp::Bra(l) => {
                    succ.push(index(l)?);
                    falls &= !unguarded;
                }
                VOp::Exit => falls &= !unguarded,
                VOp::Hw(op) => {
                    let flow = op.flow(0, f.sm);
                    match flow.kind {
                        FlowKind::Next => {}
                        FlowKind::Exit | FlowKind::Return => {
                            falls &= !unguarded || flow.conditional
                        }
                        _ => return None,
                    }
                }
                _ => {}
            }
        }
        if falls && k + 1 < f.blocks.len() {
            succ.push(k + 1);
        }
        out.push(succ);
    }
    Some(out)
}

fn facts(sm: u32, family: Family, i: &Instr) -> Result<Facts, PassError> {
    let mut reads = Vec::new();
    if let Some(g) = i.guard.as_reg().filter(|g| !g.is_zero()) {
        reads.push(Span { first: g, n: 1 });
    }
    let mut fields = Fields {
        stall: 1,
        ..Fields::default()
    };
    let (mut fixed, mut all_writes, mut late_reads) = (Vec::new(), Vec::new(), Vec::new());
    let mut lands_late = false;
    let control = match &i.op {
        VOp::Hw(op) => {
            let (r, writes, late) = footprint(op);
            let latency = op.latency(sm).map(u32::from);
            // A predicate whose guard latency is not known waits out the
            // longest stall before it guards a control op.
            let guard = op.guard_latency(sm).map_or(MAX_STALL, u32::from);
            if reads_late(op) {
                late_reads = late_read_spans(family, &r).to_vec();
                late_reads.retain(|s| !s.first.is_zero());
            }
            reads.extend(r);
            for w in writes.into_iter().filter(|w| !w.first.is_zero()) {
                all_writes.push(w);
                match latency {
                    Some(l) if w.first.file.is_pred() => fixed.push((w, l, guard.max(l))),
                    Some(l) => fixed.push((w, l, l)),
                    None if late.contains(&w) => lands_late = true,
                    // Written at once (`[sched] early`).
                    None => {}
                }
            }
            if !late_reads.is_empty() {
                fields.read_barrier = Some(READ_SB);
            }
            is_control(op)
        }
        VOp::Bra(_) | VOp::Exit => true,
        other => {
            return Err(PassError::new(format!(
                "{other:?} is not legalized: schedule runs after legalization"
            )));
        }
    };
    if lands_late || fields.read_barrier.is_some() {
        fields.stall = 2;
    }
    Ok(Facts {
        reads,
        late_reads,
        writes: all_writes,
        guarded: i.guard.as_reg().is_some_and(|g| !g.is_zero()),
        control,
        fixed,
        lands_late,
        fields,
    })
}

/// The barriers and waits of a block, starting with what `entry` says is
/// pending (None: unknown, so its first instruction waits on every
/// scoreboard); returns what is pending at its end. An instruction waits
/// on a write scoreboard when it reads or writes a register a result
/// still pending there goes to, and on SB5 when it writes a register a
/// pending late read still needs. A wait ends every event of its
/// scoreboard. A result that lands late gets a free write scoreboard, else
/// the one given out longest ago (its events are the likeliest to have
/// landed by the time a reader waits).
fn place_waits(facts: &mut [Facts], entry: Option<Pending>) -> Pending {
    let known = entry.is_some();
    let Pending {
        write: mut on_write_sb,
        read: mut on_read_sb,
    } = entry.unwrap_or_default();
    let mut given_at = [0usize; WRITE_SBS];
    for (j, x) in facts.iter_mut().enumerate() {
        x.fields.wait = if j == 0 && !known { ALL_SBS } else { 0 };
        // The registers' slots, only when something is pending (mostly
        // nothing is, between loads).
        let writes = SlotSet::of(&x.writes);
        if on_write_sb.iter().any(|p| !p.is_empty()) {
            let touched = SlotSet::of(&x.reads).union(&writes);
            for (sb, pending) in on_write_sb.iter_mut().enumerate() {
                if pending.intersects(&touched) {
                    x.fields.wait |= 1 << sb;
                    *pending = SlotSet::default();
                }
            }
        }
        if on_read_sb.intersects(&writes) {
            x.fields.wait |= 1 << READ_SB;
            on_read_sb = SlotSet::default();
        }
        if x.lands_late {
            let sb = (0..WRITE_SBS)
                .find(|&sb| on_write_sb[sb].is_empty())
                .unwrap_or_else(|| (0..WRITE_SBS).min_by_key(|&sb| given_at[sb]).unwrap_or(0));
            x.fields.write_barrier = Some(sb as u8);
            on_write_sb[sb].union_with(&writes);
            given_at[sb] = j;
        }
        if x.fields.read_barrier.is_some() {
            on_read_sb.union_with(&SlotSet::of(&x.late_reads));
        }
    }
    Pending {
        write: on_write_sb,
        read: on_read_sb,
    }
}

fn overlaps(a: &Span, b: &Span) -> bool {
    a.slots().any(|s| b.slots().any(|t| s == t))
}

/// Stretch stalls until every fixed-latency result is ready before each
/// reader in the block (as a control op's predicate, its guard latency),
/// lands before a later fixed-latency write of its registers does, and
/// is ready before the block ends unless it is overwritten first.
fn cover_latencies(facts: &mut [Facts]) {
    let n = facts.len();
    for i in 0..n {
        for k in 0..facts[i].fixed.len() {
            let (span, latency, guard) = facts[i].fixed[k];
            let mut live_at_end = true;
            for j in i + 1..n {
                if facts[j].reads.iter().any(|r| overlaps(r, &span)) {
                    let need = if facts[j].control { guard } else { latency };
                    stretch(facts, i, j, need);
                }
                // A later fixed-latency write of the register lands after
                // this one (a shorter latency issued too soon would land
                // first and be overwritten).
                let rewrite = facts[j].fixed.iter().find(|w| overlaps(&w.0, &span));
                if let Some(&(_, later, _)) = rewrite {
                    stretch(facts, i, j, (latency + 1).saturating_sub(later));
                }
                if !facts[j].guarded && facts[j].writes.iter().any(|w| overlaps(w, &span)) {
                    live_at_end = false;
                    break;
                }
            }
            if live_at_end {
                stretch(facts, i, n, latency.max(guard));
            }
        }
    }
}

/// Make the cycles from instruction `i`'s issue to `j`'s (or past the
/// block's end, `j` = its length) at least `need`, by lengthening the
/// stalls before `j`, the nearest first (a latency may exceed one stall).
fn stretch(facts: &mut [Facts], i: usize, j: usize, need: u32) {
    let mut dist: u32 = facts[i..j].iter().map(|x| x.fields.stall).sum();
    for x in facts[i..j].iter_mut().rev() {
        if dist >= need {
            break;
        }
        let add = (need - dist).min(MAX_STALL - x.fields.stall);
        x.fields.stall += add;
        dist += add;
    }
}
