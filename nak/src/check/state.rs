//! What is pending at a program point: for every register and scoreboard,
//! the age of the youngest event on that scoreboard still protecting it
//! (a variable-latency write not yet landed, or a late read not yet
//! done). Ages count the scoreboard's later events, so `DEPBAR.LE SBx, N`
//! (the N newest may still run) can be applied. Fixed-latency results not
//! ready yet are kept as the cycle they become ready.
//!
//! Few registers are pending at once, so both are short lists, with a
//! bit per register slot saying which slots may be in them: an
//! instruction's checks cost a bit test per operand, not a scan of every
//! register.

use crate::check::program::{PRED_BASE, SlotSet};

/// Scoreboards per warp.
pub const SBS: usize = 6;
/// No scoreboard (a read's link when its instruction sets no write
/// barrier).
const NONE: u8 = u8::MAX;
/// Ages stop here: a scoreboard counts 63 events at most.
const OLDEST: u8 = 63;

/// Which kind of event protects a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Its value is still to be written by a variable-latency op.
    Write,
    /// It is still to be read by an op that reads its sources late.
    Read,
}

/// One pending event: register slot, scoreboard, kind, age, and the
/// instruction that made it (for messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    slot: u16,
    sb: u8,
    kind: Event,
    age: u8,
    /// For a read: the write barrier of the instruction reading (NONE
    /// without), whose wait also ends the read (an op's results are
    /// written after its sources are read).
    link: u8,
    by: u32,
}

/// A fixed-latency result not ready yet: the cycles (from the state's
/// clock origin) at which an operand, and a control op's guard, may read
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ready {
    slot: u16,
    at: u32,
    guard_at: u32,
    by: u32,
}

/// The pending events and the results not ready yet.
#[derive(Clone, Debug, Default)]
pub struct State {
    events: Vec<Pending>,
    /// Slots with a pending write, and with a pending read (a superset:
    /// bits are cleared when the list is rebuilt after removals).
    writes: SlotSet,
    reads: SlotSet,
    ready: Vec<Ready>,
    /// Slots that may be in `ready`.
    unready: SlotSet,
    /// Cycles since the clock's origin (a block's entry).
    now: u32,
    /// `ready`'s length at which results ready by now are dropped.
    prune_at: usize,
}

impl State {
    /// Nothing pending (a kernel's or callee's entry).
    pub fn empty() -> State {
        State::default()
    }

    /// Merge another path's end state (cycles counted from its own
    /// clock) into this block-entry state: pending on either path,
    /// youngest age, latest ready cycle. Returns whether this state
    /// changed.
    pub fn join(&mut self, other: &State) -> bool {
        debug_assert_eq!(self.now, 0, "joins go into block-entry states");
        let mut changed = false;
        for e in &other.events {
            let same = |m: &&mut Pending| (m.slot, m.sb, m.kind) == (e.slot, e.sb, e.kind);
            match self.events.iter_mut().find(same) {
                Some(m) if e.age < m.age => {
                    (m.age, m.link, m.by) = (e.age, e.link, e.by);
                    changed = true;
                }
                Some(_) => {}
                None => {
                    self.add(*e);
                    changed = true;
                }
            }
        }
        for r in other
            .ready
            .iter()
            .filter(|r| r.guard_at.max(r.at) > other.now)
        {
            let (at, guard_at) = (
                r.at.saturating_sub(other.now),
                r.guard_at.saturating_sub(other.now),
            );
            match self.ready.iter_mut().find(|m| m.slot == r.slot) {
                Some(m) => {
                    if at > m.at || guard_at > m.guard_at {
                        (m.at, m.guard_at) = (m.at.max(at), m.guard_at.max(guard_at));
                        m.by = r.by;
                        changed = true;
                    }
                }
                None => {
                    self.unready.insert(usize::from(r.slot));
                    self.ready.push(Ready { at, guard_at, ..*r });
                    changed = true;
                }
            }
        }
        changed
    }

    fn add(&mut self, e: Pending) {
        match e.kind {
            Event::Write => self.writes.insert(usize::from(e.slot)),
            Event::Read => self.reads.insert(usize::from(e.slot)),
        }
        self.events.push(e);
    }

    /// Drop the events `done` says are over, and the bits of slots left
    /// with none.
    fn retire(&mut self, done: impl Fn(&Pending) -> bool) {
        let before = self.events.len();
        self.events.retain(|e| !done(e));
        if self.events.len() != before {
            (self.writes, self.reads) = (SlotSet::default(), SlotSet::default());
            for e in &self.events {
                match e.kind {
                    Event::Write => self.writes.insert(usize::from(e.slot)),
                    Event::Read => self.reads.insert(usize::from(e.slot)),
                }
            }
        }
    }

    /// Every event on the scoreboards of `mask` is done (a wait mask).
    pub fn wait_all(&mut self, mask: u8) {
        if mask == 0 || self.events.is_empty() {
            return;
        }
        let on = |sb: u8| sb != NONE && mask >> sb & 1 == 1;
        self.retire(|e| on(e.sb) || (e.kind == Event::Read && on(e.link)));
    }

    /// Scoreboard `sb` keeps only its `pending` newest events.
    pub fn wait_until(&mut self, sb: u8, pending: u8) {
        self.retire(|e| e.sb == sb && e.age >= pending);
    }

    /// A new event on `sb`: the ones already on it grow older.
    pub fn age(&mut self, sb: u8) {
        for e in self.events.iter_mut().filter(|e| e.sb == sb) {
            e.age = (e.age + 1).min(OLDEST);
        }
    }

    /// Register slot `r` is protected by a new event on `sb` made by
    /// instruction `by`; a read also ends when `link` (the instruction's
    /// write barrier) is waited on.
    pub fn protect(&mut self, kind: Event, r: usize, sb: u8, by: usize, link: Option<u8>) {
        let e = Pending {
            slot: r as u16,
            sb,
            kind,
            age: 0,
            link: if kind == Event::Read {
                link.unwrap_or(NONE)
            } else {
                NONE
            },
            by: by as u32,
        };
        let same = |m: &&mut Pending| (m.slot, m.sb, m.kind) == (e.slot, sb, kind);
        match self.events.iter_mut().find(same) {
            Some(m) => *m = e,
            None => self.add(e),
        }
    }

    /// A new value that lands at once replaces every pending write of `r`.
    pub fn overwrite(&mut self, r: usize) {
        if self.writes.contains(r) {
            self.retire(|e| e.kind == Event::Write && usize::from(e.slot) == r);
        }
    }

    /// The scoreboards with a pending event of `kind` on register slot
    /// `r` (a bit each), and the instruction that made the youngest.
    pub fn pending(&self, kind: Event, r: usize) -> (u8, usize) {
        let bits = match kind {
            Event::Write => &self.writes,
            Event::Read => &self.reads,
        };
        if !bits.contains(r) {
            return (0, 0);
        }
        let mut youngest: Option<&Pending> = None;
        let mut mask = 0u8;
        for e in &self.events {
            if e.kind == kind && usize::from(e.slot) == r {
                mask |= 1 << e.sb;
                if youngest.is_none_or(|y| e.age < y.age) {
                    youngest = Some(e);
                }
            }
        }
        (mask, youngest.map_or(0, |e| e.by as usize))
    }

    fn ready_of(&self, r: usize) -> Option<&Ready> {
        if !self.unready.contains(r) {
            return None;
        }
        self.ready.iter().find(|x| usize::from(x.slot) == r)
    }

    /// Cycles until register slot `r`'s fixed-latency result is ready,
    /// and the instruction that wrote it.
    pub fn ready_in(&self, r: usize) -> (u32, usize) {
        self.ready_of(r)
            .map_or((0, 0), |x| (x.at.saturating_sub(self.now), x.by as usize))
    }

    /// Cycles until register slot `r` may guard a control op.
    pub fn guard_ready_in(&self, r: usize) -> (u32, usize) {
        self.ready_of(r).map_or((0, 0), |x| {
            (x.guard_at.saturating_sub(self.now), x.by as usize)
        })
    }

    /// A result written by instruction `by` that is ready `cycles` after
    /// issue (0: at once, or under a write barrier); a write that may not
    /// happen (`maybe`, a guarded one) keeps a later pending value.
    /// `guard` is the same for reading it as a control op's guard (only
    /// predicates guard).
    pub fn written(&mut self, r: usize, cycles: u8, guard: u8, by: usize, maybe: bool) {
        let at = self.now + u32::from(cycles);
        let guard_at = if r >= PRED_BASE {
            self.now + u32::from(guard)
        } else {
            0
        };
        let by = by as u32;
        if self.unready.contains(r)
            && let Some(x) = self.ready.iter_mut().find(|x| usize::from(x.slot) == r)
        {
            if !maybe || at >= x.at {
                (x.at, x.by) = (at, by);
            }
            if r >= PRED_BASE && (!maybe || guard_at >= x.guard_at) {
                x.guard_at = guard_at;
            }
            return;
        }
        if at > self.now || guard_at > self.now {
            self.unready.insert(r);
            self.ready.push(Ready {
                slot: r as u16,
                at,
                guard_at,
                by,
            });
        }
    }

    /// `cycles` pass before the next instruction issues (a stall count).
    pub fn advance(&mut self, cycles: u32) {
        self.now += cycles;
        // Forget results that are ready now, once there are a few; the
        // next time when twice as many are left.
        if self.ready.len() >= self.prune_at.max(16) {
            let now = self.now;
            self.ready.retain(|x| x.at.max(x.guard_at) > now);
            self.unready = SlotSet::default();
            for x in &self.ready {
                self.unready.insert(usize::from(x.slot));
            }
            self.prune_at = 2 * self.ready.len();
        }
    }
}
