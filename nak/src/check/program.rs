//! A kernel as the hazard checker sees it: each instruction's registers,
//! control fields and flow (all from the spec), and its basic blocks.

use crate::check::spans::Spans;
use crate::dis::stream::for_each_word;
use crate::isa::{self, Family, Op, family_of};
use crate::runtime::control::{self, Fields};
use crate::runtime::flow::{Flow, FlowKind};
use crate::runtime::instr::Common;
use crate::runtime::mem::MemKind;
use crate::runtime::operand::{Reg, RegFile, SrcKind};

/// Registers the checker tracks: R0..R254, UR0..UR254, P0..P6, UP0..UP6
/// at these offsets (the zero registers and barriers are not tracked).
pub const REGS: usize = 528;
/// The slot of P0; P0..P6 then UP0..UP6 are the last slots.
pub const PRED_BASE: usize = 512;

/// `n` consecutive registers from `first` (a 64-bit value's pair, a
/// vector load's four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first: Reg,
    pub n: u8,
}

impl Span {
    /// The tracked slots it covers: consecutive ones, up to the file's
    /// zero register (the last of its file) or end.
    pub fn slots(self) -> std::ops::Range<usize> {
        let Some(first) = slot(self.first) else {
            return 0..0;
        };
        let file = self.first.file;
        let limit = if file.has_zero() {
            file.zero_index()
        } else {
            0
        };
        let n = usize::from(self.n).min(usize::from(limit.saturating_sub(self.first.idx)));
        first..first + n
    }
}

/// One bit per register slot: what the checker and the scheduling pass
/// keep pending, tested against an instruction's registers in a few words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlotSet([u64; REGS.div_ceil(64)]);

impl SlotSet {
    pub fn insert(&mut self, s: usize) {
        self.0[s / 64] |= 1 << (s % 64);
    }
    pub fn contains(&self, s: usize) -> bool {
        self.0[s / 64] >> (s % 64) & 1 == 1
    }
    /// The slots of `spans`.
    pub fn of(spans: &[Span]) -> SlotSet {
        let mut set = SlotSet::default();
        spans
            .iter()
            .flat_map(|s| s.slots())
            .for_each(|s| set.insert(s));
        set
    }
    pub fn union(mut self, other: &SlotSet) -> SlotSet {
        self.union_with(other);
        self
    }
    pub fn intersects(&self, other: &SlotSet) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// Add `other`'s slots; whether that added any.
    pub fn union_with(&mut self, other: &SlotSet) -> bool {
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            grew |= b & !*a != 0;
            *a |= b;
        }
        grew
    }
}

/// The tracked slot of a register (None: a zero register or a barrier).
pub fn slot(r: Reg) -> Option<usize> {
    if r.is_zero() {
        return None;
    }
    let (base, size) = match r.file {
        RegFile::Gpr => (0, 256),
        RegFile::UGpr => (256, 256),
        RegFile::Pred => (PRED_BASE, 8),
        RegFile::UPred => (PRED_BASE + 8, 8),
        RegFile::Bar => return None,
    };
    (usize::from(r.idx) < size).then_some(base + usize::from(r.idx))
}

/// The register of a tracked slot (for messages).
pub fn slot_reg(s: usize) -> Reg {
    let (file, base) = match s {
        0..256 => (RegFile::Gpr, 0),
        256..512 => (RegFile::UGpr, 256),
        PRED_BASE..520 => (RegFile::Pred, PRED_BASE),
        _ => (RegFile::UPred, PRED_BASE + 8),
    };
    Reg {
        file,
        idx: (s - base) as u8,
    }
}

/// One instruction of the kernel.
pub struct Instr {
    pub addr: u64,
    /// Its word and control value: decoded again for [`Instr::decoded`]
    /// (keeping the op would double the size of a million-instruction
    /// program).
    word: u128,
    ctrl: u32,
    /// The spec decodes the word.
    pub known: bool,
    pub ctl: Fields,
    /// Registers read (the guard among them), and those of them a read
    /// barrier covers (the family's `late_reads` files, not the guard).
    pub reads: Spans,
    pub late_reads: Spans,
    /// Registers written, and those of them a write barrier covers (not
    /// the op's `[sched] early` destinations).
    pub writes: Spans,
    pub late_writes: Spans,
    /// The result lands after a memory round trip (a `memory` class op):
    /// after any late read of the register it overwrites.
    pub lands_late: bool,
    /// It reads its sources when it issues: no write barrier of its own
    /// and not a memory or control op (those read theirs later).
    pub reads_at_issue: bool,
    /// The fixed latency of its results on this SM, where the spec states
    /// it (`[sched] latency`), and when a predicate it writes may guard a
    /// control op (`[sched] guard_latency`).
    pub latency: Option<u8>,
    pub guard_latency: Option<u8>,
    /// The guard is a predicate other than PT: the writes may not happen.
    pub guarded: bool,
    /// The guard is !PT or !UPT: the instruction never runs (ptxas pads
    /// waits with such instructions; only their control bits count).
    pub never: bool,
    pub flow: Flow,
    pub waits_on: Option<(u8, u8)>,
    /// See [`Instr::guard_read_by_control`].
    control_guard: Option<u16>,
}

impl Instr {
    /// The slot of its guard predicate when it is a control op (a branch,
    /// an exit) with one: such a guard must be ready earlier than an
    /// operand (`[sched] guard_latency`).
    pub fn guard_read_by_control(&self) -> Option<usize> {
        self.control_guard.map(usize::from)
    }

    /// The decoded op, None for a word the spec does not know.
    pub fn decoded(&self, sm: u32) -> Option<(Op, Common)> {
        let mut d = isa::decode(self.word, sm);
        if let Some((_, c)) = &mut d {
            c.ctrl = self.ctrl;
        }
        d
    }

    /// Its text, for messages.
    pub fn text(&self, sm: u32) -> String {
        match &self.decoded(sm) {
            Some((op, c)) => {
                let mut s = op.text(c, sm, self.addr);
                crate::runtime::print::normalize_in_place(&mut s);
                s
            }
            None => "(unknown encoding)".into(),
        }
    }
}

/// A basic block: instructions `first..end` and the blocks control may go
/// to next.
pub struct Block {
    pub first: usize,
    pub end: usize,
    /// A branch's target, then the next block: at most two, kept inline.
    succ: [usize; 2],
    n_succs: u8,
}

impl Block {
    /// The blocks control may go to next.
    pub fn succs(&self) -> &[usize] {
        &self.succ[..usize::from(self.n_succs)]
    }
}

/// A kernel: its instructions and basic blocks (block 0 is the entry).
pub struct Program {
    pub sm: u32,
    pub instrs: Vec<Instr>,
    pub blocks: Vec<Block>,
}

impl Program {
    /// Decode a raw stream of one kernel starting at address 0.
    pub fn decode(sm: u32, bytes: &[u8]) -> Result<Program, String> {
        let family = family_of(sm).ok_or_else(|| format!("SM{sm} is not covered"))?;
        let words = bytes.len() / (family.width() as usize / 8);
        let mut instrs = Vec::with_capacity(words);
        let layout = control::Layout::of(family);
        for_each_word(sm, bytes, |addr, word, ctrl, _| {
            instrs.push(instr(sm, (family, &layout), addr, word, ctrl));
        })?;
        let blocks = blocks(&instrs);
        Ok(Program { sm, instrs, blocks })
    }
}

fn instr(
    sm: u32,
    (family, layout): (Family, &control::Layout),
    addr: u64,
    word: u128,
    ctrl: Option<u32>,
) -> Instr {
    let ctrl = ctrl.unwrap_or_else(|| match family.control_in_word() {
        Some((lo, width)) => (word >> lo) as u32 & ((1u32 << width) - 1),
        None => 0,
    });
    let mut decoded = isa::decode(word, sm);
    if let Some((_, c)) = &mut decoded {
        c.ctrl = ctrl;
    }
    let (mut reads, writes, late_writes) = decoded
        .as_ref()
        .map_or_else(Default::default, |(op, _)| footprint(op));
    let lands_late = decoded.as_ref().is_some_and(|(op, _)| is_memory(op));
    let control = decoded.as_ref().is_some_and(|(op, _)| is_control(op));
    let ctl = layout.fields(ctrl);
    let reads_at_issue = ctl.write_barrier.is_none() && !lands_late && !control;
    let latency = decoded.as_ref().and_then(|(op, _)| op.latency(sm));
    let guard_latency = decoded.as_ref().and_then(|(op, _)| op.guard_latency(sm));
    let late_reads = late_read_spans(family, &reads);
    let guard = decoded.as_ref().map(|(_, c)| c.guard);
    let guard_reg = guard.and_then(|g| g.as_reg());
    let never = guard.is_some_and(|g| g.not && guard_reg.is_some_and(Reg::is_zero));
    if let Some(g) = guard_reg.filter(|g| !g.is_zero()) {
        reads.push(Span { first: g, n: 1 });
    }
    let (flow, _) = flow_of(decoded.as_ref(), addr, sm);
    let waits_on = decoded.as_ref().and_then(|(op, _)| op.waits_on());
    Instr {
        addr,
        ctl,
        reads_at_issue,
        latency,
        guard_latency,
        reads,
        late_reads,
        writes,
        late_writes,
        lands_late,
        guarded: guard_reg.is_some_and(|g| !g.is_zero()),
        never,
        flow,
        waits_on: if never { None } else { waits_on },
        control_guard: guard_reg
            .filter(|_| control)
            .and_then(slot)
            .map(|s| s as u16),
        known: decoded.is_some(),
        word,
        ctrl,
    }
}

/// Where control may go after a decoded word at `addr`, and whether its
/// guard is a predicate other than PT (so it may fall through): what the
/// checker's blocks and `nak dis --cfg`'s graph are built from. A word
/// guarded by !PT never runs, so it goes on; an unknown word too.
pub fn flow_of(decoded: Option<&(Op, Common)>, addr: u64, sm: u32) -> (Flow, bool) {
    let Some((op, c)) = decoded else {
        return (Flow::NEXT, false);
    };
    let guard = c.guard.as_reg();
    if c.guard.not && guard.is_some_and(Reg::is_zero) {
        return (Flow::NEXT, false);
    }
    (op.flow(addr, sm), guard.is_some_and(|g| !g.is_zero()))
}

/// A control op (a branch, an exit, a call): its guard must be ready
/// earlier than an operand (`[sched] guard_latency`).
pub fn is_control(op: &Op) -> bool {
    op.class() == "control"
}

/// A memory op: its results come back from memory, after any late read of
/// the registers they overwrite.
pub fn is_memory(op: &Op) -> bool {
    op.class() == "memory"
}

/// Memory and control ops read their sources after they issue: a read
/// barrier covers those reads, and no fixed latency applies to them.
pub fn reads_late(op: &Op) -> bool {
    is_memory(op) || is_control(op)
}

/// The sources a read barrier covers: those in the family's `late_reads`
/// register files.
pub fn late_read_spans(family: Family, reads: &[Span]) -> Spans {
    let late = family.late_read_files();
    reads
        .iter()
        .copied()
        .filter(|s| late.contains(&s.first.file))
        .collect()
}

/// The registers an op reads and writes: each operand's register and as
/// many after it as its type takes (a load's or store's data as many as
/// its size), and the writes a write barrier covers (all but the op's
/// `[sched] early` destinations). Under-counting only hides hazards; it
/// never invents one.
pub fn footprint(op: &Op) -> (Spans, Spans, Spans) {
    let mem = if is_memory(op) { op.mem_access() } else { None };
    let data_n = mem.map_or(1, |m| m.data_regs().max(1) as u8);
    let mut reads = Spans::default();
    for (i, info) in op.src_info().iter().enumerate() {
        if let SrcKind::Reg(r) = op.src(i).kind {
            let is_data = mem.is_some_and(|m| m.kind == MemKind::Store && m.data == r);
            // An address's width is a modifier (`R2.64`, `R2.U32`): its
            // first register only.
            let is_addr = mem.is_some_and(|m| m.addr.as_reg() == Some(r));
            let n = if is_data {
                data_n
            } else if is_addr {
                1
            } else {
                info.ty.regs()
            };
            reads.push(Span { first: r, n });
        }
    }
    let (mut writes, mut late) = (Spans::default(), Spans::default());
    let early = op.early_dsts();
    for (i, info) in op.dst_info().iter().enumerate() {
        let r = *op.dst(i);
        let is_data = mem.is_some_and(|m| m.kind == MemKind::Load && m.data == r);
        let n = if is_data { data_n } else { info.ty.regs() };
        writes.push(Span { first: r, n });
        if !early.contains(&i) {
            late.push(Span { first: r, n });
        }
    }
    (reads, writes, late)
}

/// Split the instructions into basic blocks: a block starts at the entry,
/// at every branch or call target, and after every instruction that may
/// not go on to the next.
fn blocks(instrs: &[Instr]) -> Vec<Block> {
    // Addresses rise through the stream: a target is found by search.
    let at = |addr: u64| instrs.binary_search_by_key(&addr, |x| x.addr).ok();
    let mut leader = vec![false; instrs.len() + 1];
    leader[0] = true;
    for (i, x) in instrs.iter().enumerate() {
        if x.flow.kind != FlowKind::Next {
            leader[i + 1] = true;
        }
        if let Some(t) = x.flow.target.and_then(at) {
            leader[t] = true;
        }
    }
    let starts: Vec<usize> = (0..instrs.len()).filter(|&i| leader[i]).collect();
    let block_of = |i: usize| starts.partition_point(|&s| s <= i) - 1;
    let mut out = Vec::with_capacity(starts.len());
    for (b, &first) in starts.iter().enumerate() {
        let end = starts.get(b + 1).copied().unwrap_or(instrs.len());
        let last = &instrs[end - 1];
        let (mut succ, mut n_succs) = ([0; 2], 0);
        if last.flow.kind == FlowKind::Branch
            && let Some(t) = last.flow.target.and_then(at)
        {
            succ[0] = block_of(t);
            n_succs = 1;
        }
        if end < instrs.len() && last.flow.falls_through(last.guarded) {
            succ[n_succs] = b + 1;
            n_succs += 1;
        }
        out.push(Block {
            first,
            end,
            succ,
            n_succs: n_succs as u8,
        });
    }
    out
}
