//! Where control goes after an instruction, as the spec's `[flow]` tables
//! say (`Op::flow`): what a control-flow graph is built from. And the
//! scoreboard waits an op makes (`[sched]`, `Op::waits_on`).

/// The kind of move (`[flow] kind`); `Next` for ops without `[flow]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowKind {
    /// On to the next instruction.
    Next,
    /// To the target where the guard and conditions hold, else on.
    Branch,
    /// The thread ends where they hold.
    Exit,
    /// To the target, and back to the next instruction.
    Call,
    /// Back to the caller.
    Return,
    /// To an address the instruction does not state (a register, or the
    /// one an earlier SSY, PBK or PCNT pushed).
    Indirect,
}

/// One instruction's effect on control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flow {
    pub kind: FlowKind,
    /// The byte address it goes to, when the instruction states it.
    pub target: Option<u64>,
    /// Whether the op's own conditions (`cond`, a CC test) may fail; the
    /// guard predicate is the caller's to check.
    pub conditional: bool,
}

impl Flow {
    pub const NEXT: Flow = Flow {
        kind: FlowKind::Next,
        target: None,
        conditional: false,
    };

    /// Whether control may reach the next instruction after this one
    /// (`guarded`: the instruction's guard is not PT).
    pub fn falls_through(&self, guarded: bool) -> bool {
        match self.kind {
            FlowKind::Next | FlowKind::Call => true,
            _ => guarded || self.conditional,
        }
    }
}

/// Implemented by every op struct; ops with a `[flow]` table override it.
pub trait FlowOp {
    /// Where control goes after the op at byte address `addr` on `sm`.
    fn flow(&self, _addr: u64, _sm: u32) -> Flow {
        Flow::NEXT
    }
}

/// Implemented by every op struct; ops with a `[sched]` wait override it.
pub trait SchedOp {
    /// The scoreboard the op waits on and how many of its operations may
    /// stay pending (newest first): DEPBAR.LE SB0, 0x1 is `(0, 1)`.
    fn waits_on(&self) -> Option<(u8, u8)> {
        None
    }
    /// Destinations written at a fixed latency although the op's other
    /// results land later under its write barrier (indices).
    fn early_dsts(&self) -> &'static [usize] {
        &[]
    }
    /// Cycles after the op issues before an instruction that reads its
    /// sources at issue may read a result, where the spec states it.
    /// None: the spec says the results are `variable` or `unmeasured` on
    /// `sm` (the lint asks for one of the three), and a write barrier
    /// covers them.
    fn latency(&self, _sm: u32) -> Option<u8> {
        None
    }
    /// Cycles after the op issues before a predicate it writes may guard
    /// a control op, where the spec states it.
    fn guard_latency(&self, _sm: u32) -> Option<u8> {
        None
    }
}
