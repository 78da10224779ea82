//! A runner that models time, so a program whose control bits are wrong
//! computes a wrong result (issue 21's item 5).
//!
//! The warp issues one instruction at a time on a cycle counter: each
//! instruction first waits on the scoreboards its wait mask (or DEPBAR)
//! names, then issues, then the next one issues `stall` cycles later. A
//! result is not written at issue but lands later, and until then readers
//! see the register's old value:
//! - a fixed-latency result (`[sched] latency`) after its latency;
//! - any other result (`variable` or `unmeasured`) 1 to `max_delay` cycles
//!   later, drawn from the seed, but not before the fixed results of the
//!   ops issued before it (a memory or multi-function unit is never faster
//!   than the pipeline), and destinations the spec writes `early` after
//!   one cycle;
//! - a memory op reads its general-purpose registers (address, data) and
//!   memory late, 1 to `max_delay` cycles after issue (the family's
//!   `late_reads`: other sources, the guard included, are read at issue),
//!   and a load's results land 1 to `max_delay` cycles after that (again
//!   not before earlier fixed results). Memory
//!   ops reach memory in the order they issued.
//!
//! A scoreboard counts the events of the instructions that name it: a
//! write barrier a result's landing, a read barrier the late read. Events
//! on one scoreboard finish in the order they were counted, so DEPBAR's
//! "at most n pending" means the n newest. Control ops read everything at
//! issue. Within a seed the run is deterministic; a program scheduled
//! right gives [`super::CpuRunner`]'s result for every seed.

use super::{
    CpuRunner, RegWrite, RunError, RunStats, Runner, WarpState, err, exec_control, folded,
    guard_holds, lockstep, mem_access,
};
use crate::dis::stream::decode_stream;
use crate::isa::Op;
use crate::runtime::control::Layout;
use crate::runtime::sample::Rng;

/// Runs like [`CpuRunner`] on a cycle counter (see the module doc).
#[derive(Clone, Debug)]
pub struct TimedRunner {
    /// Draws every variable delay.
    pub seed: u64,
    /// The most cycles a variable result or a late read takes beyond one.
    pub max_delay: u32,
    /// Issue limit (guards against endless loops).
    pub max_steps: u64,
}

impl TimedRunner {
    pub fn new(seed: u64) -> TimedRunner {
        TimedRunner {
            seed,
            max_delay: 40,
            max_steps: CpuRunner::default().max_steps,
        }
    }
}

/// What happens at an event's time.
enum Action {
    /// Register writes and carries become visible.
    Land {
        writes: Vec<RegWrite>,
        cc: Vec<(usize, bool)>,
    },
    /// A memory op's late part: it reads its registers and memory now
    /// (the uniform and predicate files as they were at issue), a store
    /// writes memory, a load's writes land at `land`.
    Access {
        op: Box<Op>,
        addr: u64,
        lanes: Vec<usize>,
        at_issue: Box<IssueFiles>,
        land: u64,
    },
}

/// The register files a memory op reads at issue (not `late_reads`).
struct IssueFiles {
    ugpr: [u32; 256],
    upred: [bool; 8],
    pred: Vec<[bool; 8]>,
}

struct Event {
    time: u64,
    seq: u64,
    action: Action,
}

/// The warp's clock, its pending events and its scoreboards.
struct Clock {
    now: u64,
    seq: u64,
    events: Vec<Event>,
    /// Per scoreboard: the times its pending events finish, oldest first.
    boards: [Vec<u64>; 8],
    /// When the latest fixed-latency result lands, and the last memory
    /// access happens.
    last_fixed: u64,
    last_access: u64,
    rng: Rng,
    max_delay: u32,
}

impl Clock {
    fn delay(&mut self) -> u64 {
        1 + self.rng.next_u64() % u64::from(self.max_delay.max(1))
    }

    /// Count an event finishing at `time` on scoreboard `sb`; it finishes
    /// no earlier than the ones counted before it. Returns its time.
    fn count(&mut self, sb: Option<u8>, time: u64) -> u64 {
        let Some(b) = sb.map(usize::from).filter(|&b| b < 8) else {
            return time;
        };
        let t = time.max(self.boards[b].last().copied().unwrap_or(0));
        self.boards[b].push(t);
        t
    }

    fn push(&mut self, time: u64, action: Action) {
        self.seq += 1;
        self.events.push(Event {
            time,
            seq: self.seq,
            action,
        });
    }

    /// Wait until at most `keep` events of scoreboard `b` are pending.
    fn wait(&mut self, b: usize, keep: usize) {
        let board = &mut self.boards[b];
        if board.len() > keep {
            let done = board.len() - keep;
            self.now = self.now.max(board[done - 1]);
            board.drain(..done);
        }
    }

    /// The next event due by now, earliest (then oldest) first.
    fn next_due(&mut self, until: u64) -> Option<Event> {
        let i = (0..self.events.len())
            .filter(|&i| self.events[i].time <= until)
            .min_by_key(|&i| (self.events[i].time, self.events[i].seq))?;
        Some(self.events.swap_remove(i))
    }
}

impl Runner for TimedRunner {
    fn run(&mut self, sm: u32, code: &[u8], st: &mut WarpState) -> Result<RunStats, RunError> {
        let dec = decode_stream(sm, code).map_err(|m| RunError {
            addr: None,
            message: m,
        })?;
        let family = crate::isa::family_of(sm).ok_or_else(|| RunError {
            addr: None,
            message: format!("no family for SM{sm}"),
        })?;
        let layout = Layout::of(family);
        let mut clock = Clock {
            now: 0,
            seq: 0,
            events: Vec::new(),
            boards: Default::default(),
            last_fixed: 0,
            last_access: 0,
            rng: Rng::new(self.seed),
            max_delay: self.max_delay,
        };
        let stats = lockstep(&dec, st, self.max_steps, |addr, op, c, lanes, st| {
            let f = layout.fields(c.ctrl);
            for b in 0..8 {
                if f.wait >> b & 1 == 1 {
                    clock.wait(b, 0);
                }
            }
            if let Some((b, keep)) = op.waits_on() {
                clock.wait(usize::from(b) & 7, usize::from(keep));
            }
            let now = clock.now;
            settle(&mut clock, st, now)?;
            let lanes: Vec<usize> = lanes
                .iter()
                .copied()
                .filter(|&l| guard_holds(st, l, &c.guard))
                .collect();
            let flow = issue(&mut clock, sm, addr, op, &f, &lanes, st)?;
            clock.now += u64::from(f.stall.max(1));
            Ok(flow)
        })?;
        // After the last lane ended, whatever is still in flight lands.
        settle(&mut clock, st, u64::MAX)?;
        Ok(stats)
    }
}

/// Issue one instruction at the clock's time on the lanes its guard let
/// through: control ops act at once, the others leave events.
fn issue(
    clock: &mut Clock,
    sm: u32,
    addr: u64,
    op: &Op,
    f: &crate::runtime::control::Fields,
    lanes: &[usize],
    st: &WarpState,
) -> Result<super::Flow, RunError> {
    if op.class() == "control" {
        return exec_control(sm, addr, op, lanes, st);
    }
    let now = clock.now;
    if op.mem_access().is_some() {
        let read = clock.delay();
        let access = clock.count(f.read_barrier, (now + read).max(clock.last_access));
        clock.last_access = access;
        let land = (access + clock.delay()).max(clock.last_fixed);
        let land = clock.count(f.write_barrier, land);
        let at_issue = Box::new(IssueFiles {
            ugpr: st.ugpr,
            upred: st.upred,
            pred: st.pred.clone(),
        });
        clock.push(
            access,
            Action::Access {
                op: Box::new(*op),
                addr,
                lanes: lanes.to_vec(),
                at_issue,
                land,
            },
        );
        return Ok(Vec::new());
    }
    let r = folded(sm, addr, op, lanes, st)?;
    let early = op.early_dsts();
    let (soon, later): (Vec<_>, Vec<_>) = r
        .writes
        .iter()
        .zip(&r.dst)
        .partition(|(_, k)| early.contains(k));
    let soon: Vec<RegWrite> = soon.into_iter().map(|(w, _)| *w).collect();
    let later: Vec<RegWrite> = later.into_iter().map(|(w, _)| *w).collect();
    if !soon.is_empty() {
        clock.push(
            now + 1,
            Action::Land {
                writes: soon,
                cc: Vec::new(),
            },
        );
    }
    let land = match op.latency(sm) {
        Some(l) => {
            let t = now + u64::from(l);
            clock.last_fixed = clock.last_fixed.max(t);
            t
        }
        None => {
            let t = (now + clock.delay()).max(clock.last_fixed);
            clock.count(f.write_barrier, t)
        }
    };
    clock.push(
        land,
        Action::Land {
            writes: later,
            cc: r.cc,
        },
    );
    Ok(Vec::new())
}

/// Carry out every event due by `until`, earliest first (an access
/// may add the landing of its load, carried out too when due).
fn settle(clock: &mut Clock, st: &mut WarpState, until: u64) -> Result<(), RunError> {
    while let Some(e) = clock.next_due(until) {
        happen(clock, st, e)?;
    }
    Ok(())
}

fn happen(clock: &mut Clock, st: &mut WarpState, e: Event) -> Result<(), RunError> {
    match e.action {
        Action::Land { writes, cc } => {
            for (l, c) in cc {
                st.cc[l] = c;
            }
            st.apply(&writes);
        }
        Action::Access {
            op,
            addr,
            lanes,
            mut at_issue,
            land,
        } => {
            let m = op.mem_access().expect("a memory op");
            // The files read at issue stand in for the live ones.
            std::mem::swap(&mut st.ugpr, &mut at_issue.ugpr);
            std::mem::swap(&mut st.upred, &mut at_issue.upred);
            std::mem::swap(&mut st.pred, &mut at_issue.pred);
            let mut writes = Vec::new();
            let mut failed = None;
            for &l in &lanes {
                match mem_access(&m, l, st) {
                    Ok(w) => writes.extend(w),
                    Err(msg) => {
                        failed = Some(err(addr, format!("{}: lane {l}: {msg}", op.name())));
                        break;
                    }
                }
            }
            std::mem::swap(&mut st.ugpr, &mut at_issue.ugpr);
            std::mem::swap(&mut st.upred, &mut at_issue.upred);
            std::mem::swap(&mut st.pred, &mut at_issue.pred);
            if let Some(f) = failed {
                return Err(f);
            }
            if !writes.is_empty() {
                clock.push(
                    land,
                    Action::Land {
                        writes,
                        cc: Vec::new(),
                    },
                );
            }
        }
    }
    Ok(())
}
