//! What is pending at a program point: for every register and scoreboard,
//! the age of the youngest event on that scoreboard still protecting it
//! (a variable-latency write not yet landed, or a late read not yet
//! done). Ages count the scoreboard's later events, so `DEPBAR.LE SBx, N`
//! (the N newest may still run) can be applied.

use crate::check::program::{PRED_BASE, REGS};

/// Scoreboards per warp.
pub const SBS: usize = 6;
/// No event (the join takes the minimum, so "none" is the largest age).
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

/// Per register and scoreboard, the age of the youngest pending event of
/// each kind, and which instruction made the youngest write (for messages).
#[derive(Clone, PartialEq, Eq)]
pub struct State {
    write: Vec<[u8; SBS]>,
    read: Vec<[u8; SBS]>,
    writer: Vec<u32>,
    reader: Vec<u32>,
    /// Per register and scoreboard of a pending read: the write barrier of
    /// the instruction reading (NONE without), whose wait also ends the
    /// read (an op's results are written after its sources are read).
    read_link: Vec<[u8; SBS]>,
    /// Per register: cycles until a fixed-latency result written to it
    /// may be read at issue (0: ready), and the instruction that wrote it.
    ready: Vec<u8>,
    ready_by: Vec<u32>,
    /// The same for a predicate read as a control op's guard.
    guard_ready: Vec<u8>,
}

impl State {
    /// Nothing pending (a kernel's or callee's entry).
    pub fn empty() -> State {
        State {
            write: vec![[NONE; SBS]; REGS],
            read: vec![[NONE; SBS]; REGS],
            writer: vec![0; REGS],
            reader: vec![0; REGS],
            read_link: vec![[NONE; SBS]; REGS],
            ready: vec![0; REGS],
            ready_by: vec![0; REGS],
            guard_ready: vec![0; REGS],
        }
    }

    /// Merge another path's state: pending on either path, youngest age.
    /// Returns whether this state changed.
    pub fn join(&mut self, other: &State) -> bool {
        let mut changed = false;
        for r in 0..REGS {
            if other.ready[r] > self.ready[r] {
                self.ready[r] = other.ready[r];
                self.ready_by[r] = other.ready_by[r];
                changed = true;
            }
            if other.guard_ready[r] > self.guard_ready[r] {
                self.guard_ready[r] = other.guard_ready[r];
                self.ready_by[r] = other.ready_by[r];
                changed = true;
            }
        }
        for r in 0..REGS {
            for s in 0..SBS {
                if other.read[r][s] < self.read[r][s] {
                    self.read_link[r][s] = other.read_link[r][s];
                }
            }
        }
        for (mine, theirs, by, their_by) in [
            (
                &mut self.write,
                &other.write,
                &mut self.writer,
                &other.writer,
            ),
            (&mut self.read, &other.read, &mut self.reader, &other.reader),
        ] {
            for r in 0..REGS {
                for s in 0..SBS {
                    if theirs[r][s] < mine[r][s] {
                        mine[r][s] = theirs[r][s];
                        by[r] = their_by[r];
                        changed = true;
                    }
                }
            }
        }
        changed
    }

    /// Every event on the scoreboards of `mask` is done (a wait mask).
    pub fn wait_all(&mut self, mask: u8) {
        if mask == 0 {
            return;
        }
        self.retire(|s, _| mask >> s & 1 == 1);
        for (ages, links) in self.read.iter_mut().zip(&self.read_link) {
            for (age, &link) in ages.iter_mut().zip(links) {
                if link != NONE && mask >> link & 1 == 1 {
                    *age = NONE;
                }
            }
        }
    }

    /// Scoreboard `sb` keeps only its `pending` newest events.
    pub fn wait_until(&mut self, sb: u8, pending: u8) {
        self.retire(|s, age| s == usize::from(sb) && age >= pending);
    }

    fn retire(&mut self, done: impl Fn(usize, u8) -> bool) {
        for ages in self.write.iter_mut().chain(self.read.iter_mut()) {
            for (s, age) in ages.iter_mut().enumerate() {
                if *age != NONE && done(s, *age) {
                    *age = NONE;
                }
            }
        }
    }

    /// A new event on `sb`: the ones already on it grow older.
    pub fn age(&mut self, sb: u8) {
        let s = usize::from(sb);
        for ages in self.write.iter_mut().chain(self.read.iter_mut()) {
            if ages[s] != NONE {
                ages[s] = (ages[s] + 1).min(OLDEST);
            }
        }
    }

    /// Register slot `r` is protected by a new event on `sb` made by
    /// instruction `by`; a read also ends when `link` (the instruction's
    /// write barrier) is waited on.
    pub fn protect(&mut self, kind: Event, r: usize, sb: u8, by: usize, link: Option<u8>) {
        let (ages, who) = match kind {
            Event::Write => (&mut self.write, &mut self.writer),
            Event::Read => (&mut self.read, &mut self.reader),
        };
        ages[r][usize::from(sb)] = 0;
        who[r] = by as u32;
        if kind == Event::Read {
            self.read_link[r][usize::from(sb)] = link.unwrap_or(NONE);
        }
    }

    /// A new value that lands at once replaces every pending write of `r`.
    pub fn overwrite(&mut self, r: usize) {
        self.write[r] = [NONE; SBS];
    }

    /// The scoreboards with a pending event of `kind` on register slot
    /// `r` (a bit each), and the instruction that made the youngest.
    pub fn pending(&self, kind: Event, r: usize) -> (u8, usize) {
        let (ages, who) = match kind {
            Event::Write => (&self.write, &self.writer),
            Event::Read => (&self.read, &self.reader),
        };
        let mask = ages[r]
            .iter()
            .enumerate()
            .filter(|(_, a)| **a != NONE)
            .fold(0u8, |m, (s, _)| m | 1 << s);
        (mask, who[r] as usize)
    }

    /// Cycles until register slot `r`'s fixed-latency result is ready,
    /// and the instruction that wrote it.
    pub fn ready_in(&self, r: usize) -> (u8, usize) {
        (self.ready[r], self.ready_by[r] as usize)
    }

    /// Cycles until register slot `r` may guard a control op.
    pub fn guard_ready_in(&self, r: usize) -> (u8, usize) {
        (self.guard_ready[r], self.ready_by[r] as usize)
    }

    /// A result written by instruction `by` that is ready `cycles` after
    /// issue (0: at once, or under a write barrier); a write that may not
    /// happen (`maybe`, a guarded one) keeps a later pending value.
    /// `guard` is the same for reading it as a control op's guard.
    pub fn written(&mut self, r: usize, cycles: u8, guard: u8, by: usize, maybe: bool) {
        if !maybe || cycles >= self.ready[r] {
            self.ready[r] = cycles;
            self.ready_by[r] = by as u32;
        }
        if r >= PRED_BASE && (!maybe || guard >= self.guard_ready[r]) {
            self.guard_ready[r] = guard;
        }
    }

    /// `cycles` pass before the next instruction issues (a stall count).
    pub fn advance(&mut self, cycles: u32) {
        let c = cycles.min(255) as u8;
        if c == 0 {
            return;
        }
        // Only predicates guard: their slots are the last ones.
        let preds = &mut self.guard_ready[PRED_BASE..];
        for t in self.ready.iter_mut().chain(preds.iter_mut()) {
            *t = t.saturating_sub(c);
        }
    }
}
