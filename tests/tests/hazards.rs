//! The hazard checker (`nak check`) on whole ptxas kernels: ptxas's own
//! schedules are correct, so a sound checker reports nothing on any of
//! them; faults injected into their control bits must be found.

use isa_tests::kernels::{self, Kernel};
use isa_tests::rng::Rng;
use nak::check::{check_program, program::Program};
use std::collections::BTreeMap;

fn program(k: &Kernel) -> Program {
    Program::decode(k.sm, &k.code)
        .unwrap_or_else(|e| panic!("{} {} SM{}: {e}", k.cubin, k.function, k.sm))
}

#[test]
fn ptxas_kernels_are_clean() {
    let all = kernels::all().expect("tests/kernels reads");
    assert!(
        all.len() > 1000,
        "only {} kernels in tests/kernels",
        all.len()
    );
    let mut per_sm: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let mut bad = Vec::new();
    for k in &all {
        let p = program(k);
        let e = per_sm.entry(k.sm).or_default();
        e.0 += 1;
        e.1 += p.instrs.len();
        for f in check_program(&p) {
            bad.push(format!(
                "SM{} {} {}: {:#06x}\t{}\t{}",
                k.sm,
                k.cubin,
                k.function,
                f.addr,
                f.code.name(),
                f.message
            ));
        }
    }
    for (sm, (n, instrs)) in &per_sm {
        println!("SM{sm}: {n} kernels, {instrs} instructions checked");
    }
    assert!(
        bad.is_empty(),
        "{} findings on ptxas's own code (each is a gap in the checker's model):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A fault injected into one instruction's control bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    /// One bit of its wait mask cleared.
    WaitCleared,
    /// Its write barrier moved to another scoreboard.
    WriteBarrierMoved,
    /// The stall count between a fixed-latency writer (one the spec gives
    /// a latency over 1) and the next instruction, which reads its result
    /// at issue, lowered to 1.
    StallLowered,
}

/// Up to this many faults of each kind per kernel, at random places.
const PER_KERNEL: usize = 2;

/// Inject faults into every kernel and count those the checker finds.
/// Not every fault is a hazard (ptxas waits on scoreboards for memory
/// ordering and at block ends too, where no register needs it), so the
/// rate is below 100% by nature; the floors (92.7% and 76.6% measured
/// when they were set) guard against the checker losing what it finds.
#[test]
fn injected_faults_are_found() {
    let all = kernels::all().expect("tests/kernels reads");
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut tally: BTreeMap<(Fault, u32), (usize, usize)> = BTreeMap::new();
    for k in &all {
        let p = program(k);
        for fault in [
            Fault::WaitCleared,
            Fault::WriteBarrierMoved,
            Fault::StallLowered,
        ] {
            let sites: Vec<usize> = (0..p.instrs.len())
                .filter(|&i| {
                    let x = &p.instrs[i];
                    match fault {
                        Fault::WaitCleared => x.ctl.wait != 0,
                        Fault::WriteBarrierMoved => x.ctl.write_barrier.is_some(),
                        Fault::StallLowered => feeds_next(&p, i),
                    }
                })
                .collect();
            for _ in 0..PER_KERNEL.min(sites.len()) {
                let i = sites[rng.next_u32() as usize % sites.len()];
                let mut q = program(k);
                let ctl = &mut q.instrs[i].ctl;
                match fault {
                    Fault::WaitCleared => {
                        let bits: Vec<u8> = (0..6).filter(|b| ctl.wait >> b & 1 == 1).collect();
                        ctl.wait &= !(1 << bits[rng.next_u32() as usize % bits.len()]);
                    }
                    Fault::WriteBarrierMoved => {
                        let old = ctl.write_barrier.unwrap_or(0);
                        ctl.write_barrier = Some((old + 1 + (rng.next_u32() % 5) as u8) % 6);
                    }
                    Fault::StallLowered => ctl.stall = 1,
                }
                let t = tally.entry((fault, k.sm)).or_default();
                t.0 += 1;
                t.1 += usize::from(!check_program(&q).is_empty());
            }
        }
    }
    let mut totals: BTreeMap<Fault, (usize, usize)> = BTreeMap::new();
    for ((fault, sm), (n, found)) in &tally {
        println!(
            "{fault:?} SM{sm}: {found} of {n} found ({:.1}%)",
            pct(*found, *n)
        );
        let t = totals.entry(*fault).or_default();
        t.0 += n;
        t.1 += found;
    }
    for (fault, (n, found)) in &totals {
        println!(
            "{fault:?}, all SMs: {found} of {n} found ({:.1}%)",
            pct(*found, *n)
        );
        assert!(*n > 1000, "{fault:?}: only {n} faults injected");
        let floor = match fault {
            Fault::WaitCleared => 90.0,
            Fault::WriteBarrierMoved => 70.0,
            Fault::StallLowered => FLOOR_STALL,
        };
        assert!(
            pct(*found, *n) >= floor,
            "{fault:?}: {found} of {n} found, below the {floor}% floor"
        );
    }
}

/// Every such fault puts a read inside the writer's latency: all must be
/// found.
const FLOOR_STALL: f64 = 100.0;

/// Whether instruction `i` writes at a fixed latency over 1 cycle a
/// register the next instruction reads at issue, with a stall between
/// them that can be lowered.
fn feeds_next(p: &Program, i: usize) -> bool {
    let (x, Some(y)) = (&p.instrs[i], p.instrs.get(i + 1)) else {
        return false;
    };
    let writes = |r: usize| {
        x.writes
            .iter()
            .filter(|s| x.ctl.write_barrier.is_none() || !x.late_writes.contains(s))
            .flat_map(|s| s.slots())
            .any(|w| w == r)
    };
    x.latency.is_some_and(|l| l > 1)
        && !x.never
        && x.ctl.stall > 1
        && y.reads_at_issue
        && !y.never
        && y.reads.iter().flat_map(|s| s.slots()).any(writes)
}

fn pct(a: usize, b: usize) -> f64 {
    100.0 * a as f64 / b.max(1) as f64
}

/// Assemble `text` (one instruction per line, each with its control field)
/// for SM90 and check it: the findings as `ADDR CODE` strings.
fn check_text(text: &str) -> Vec<String> {
    let bytes = nak::dis::listing::assemble(90, text)
        .unwrap_or_else(|e| panic!("{text}: {}", e[0].message))
        .bytes;
    nak::check::check(90, &bytes)
        .expect("the stream decodes")
        .iter()
        .map(|f| format!("{:#06x} {}", f.addr, f.code.name()))
        .collect()
}

/// A load whose result one side of an if/else leaves unused still writes
/// its register when it lands, after the join reuses it.
#[test]
fn unused_load_in_one_branch_then_reuse_after_join() {
    let program = |wait: &str| {
        format!(
            "[B------:R-:W-:-:S13] ISETP.NE.AND P0, PT, R0, RZ, PT
             [B------:R-:W-:-:S05] @P0 BRA 0x40
             [B------:R-:W0:-:S02] LDG.E R2, desc[UR4][R4.64]
             [B------:R-:W-:-:S05] BRA 0x40
             [{wait}:R-:W-:-:S04] IADD3 R2, PT, PT, R6, 0x1, RZ
             [B------:R-:W-:-:S04] STG.E desc[UR4][R4.64], R2
             [B------:R-:W-:-:S05] EXIT"
        )
    };
    assert_eq!(check_text(&program("B------")), ["0x0040 WAW"]);
    assert!(check_text(&program("B0-----")).is_empty());
}

/// A load issued at the bottom of a loop is still pending at its top,
/// reached through the back edge: read there, and rewritten by the next
/// iteration's load.
#[test]
fn load_pending_across_a_loop_back_edge() {
    let program = |wait: &str| {
        format!(
            "[{wait}:R-:W-:-:S04] IADD3 R6, PT, PT, R2, 0x1, RZ
             [B------:R-:W-:-:S11] ISETP.NE.AND P0, PT, R6, RZ, PT
             [B------:R-:W0:-:S02] LDG.E R2, desc[UR4][R4.64]
             [B------:R-:W-:-:S05] @P0 BRA 0x0
             [B------:R-:W-:-:S05] EXIT"
        )
    };
    assert_eq!(
        check_text(&program("B------")),
        ["0x0000 RAW", "0x0020 WAW"]
    );
    assert!(check_text(&program("B0-----")).is_empty());
}

/// `DEPBAR.LE SB0, 0x1` lets the newest of two loads on SB0 run on: the
/// older one's result may be read, the newer one's not.
#[test]
fn depbar_keeps_the_newest_pending() {
    let program = |read: &str| {
        format!(
            "[B------:R-:W0:-:S01] LDG.E R2, desc[UR4][R4.64]
             [B------:R-:W0:-:S01] LDG.E R3, desc[UR4][R4.64+0x4]
             [B------:R-:W-:-:S04] DEPBAR.LE SB0, 0x1
             [B------:R-:W-:-:S04] IADD3 R6, PT, PT, {read}, 0x1, RZ
             [B------:R-:W-:-:S05] EXIT"
        )
    };
    assert!(check_text(&program("R2")).is_empty());
    assert_eq!(check_text(&program("R3")), ["0x0030 RAW"]);
}

/// A store reads its data late, under its read barrier: overwriting the
/// data before a wait on it is a hazard; its guard and uniform registers
/// are read at issue.
#[test]
fn store_data_is_read_late() {
    let program = |wait: &str, write: &str| {
        format!(
            "[B------:R0:W-:-:S01] @P1 STG.E desc[UR4][R4.64], R2
             [{wait}:R-:W-:-:S04] {write}
             [B------:R-:W-:-:S05] EXIT"
        )
    };
    assert_eq!(
        check_text(&program("B------", "MOV R2, 0x1")),
        ["0x0010 WAR"]
    );
    assert!(check_text(&program("B0-----", "MOV R2, 0x1")).is_empty());
    assert!(check_text(&program("B------", "UMOV UR4, 0x1")).is_empty());
    assert!(check_text(&program("B------", "ISETP.NE.AND P1, PT, R0, RZ, PT")).is_empty());
}

/// Every branch's `[flow]` target is the address its text prints, and
/// every block the checker builds ends where control may leave it.
#[test]
fn branch_targets_are_the_printed_addresses() {
    use nak::runtime::flow::FlowKind;
    let mut branches = 0;
    for k in kernels::all().expect("tests/kernels reads") {
        let p = program(&k);
        for x in &p.instrs {
            if x.flow.kind != FlowKind::Branch {
                continue;
            }
            let target = x.flow.target.expect("a branch states its target");
            let text = x.text(k.sm);
            assert!(
                text.ends_with(&format!(" {target:#x}")),
                "SM{} {} at {:#x}: `{text}` but the target is {target:#x}",
                k.sm,
                k.function,
                x.addr
            );
            branches += 1;
        }
        for b in &p.blocks {
            let last = &p.instrs[b.end - 1];
            let inner = &p.instrs[b.first..b.end - 1];
            assert!(
                inner.iter().all(|x| x.flow.kind == FlowKind::Next),
                "{}",
                k.function
            );
            assert!(
                b.succs().len() <= 2 && (last.flow.kind != FlowKind::Next || b.succs().len() <= 1)
            );
        }
    }
    println!("{branches} branches");
    assert!(branches > 1000, "only {branches} branches in tests/kernels");
}

/// A fixed-latency result read before the stall counts cover the writer's
/// latency (the spec's `[sched] latency`: IADD3 takes 4 cycles on SM90).
#[test]
fn fixed_latency_result_read_too_soon() {
    let program = |stall: u32| {
        format!(
            "[B------:R-:W-:-:S{stall:02}] IADD3 R2, PT, PT, R6, 0x1, RZ
             [B------:R-:W-:-:S04] IADD3 R3, PT, PT, R2, 0x1, RZ
             [B------:R-:W-:-:S05] EXIT"
        )
    };
    assert_eq!(check_text(&program(3)), ["0x0010 LAT"]);
    assert!(check_text(&program(4)).is_empty());
}

/// A predicate guards a branch only after its guard latency, longer than
/// an operand's (ISETP on SM90: 4 cycles to SEL, 13 to `@P0 BRA`).
#[test]
fn guard_of_a_branch_waits_longer() {
    let program = |stall: u32| {
        format!(
            "[B------:R-:W-:-:S{stall:02}] ISETP.NE.AND P0, PT, R0, RZ, PT
             [B------:R-:W-:-:S05] @P0 BRA 0x30
             [B------:R-:W-:-:S05] EXIT
             [B------:R-:W-:-:S05] EXIT"
        )
    };
    assert_eq!(check_text(&program(12)), ["0x0010 LAT"]);
    assert!(check_text(&program(13)).is_empty());
}

/// Every form of every op on every SM: its registers fit the checker's
/// inline span lists (`MAX_SPANS`), with the guard, so none is dropped.
#[test]
fn every_form_fits_the_span_lists() {
    use nak::check::{program::footprint, spans::MAX_SPANS};
    let mut most = (0, 0);
    for &sm in nak::isa::ALL_SMS {
        for w in nak::runtime::sample::sample_words(sm, &[], 1, 7) {
            let (op, _) = nak::isa::decode(w, sm).expect("sampled words decode");
            let (regs_in, regs_out) = (op.src_info().len() + 1, op.dst_info().len());
            let (reads, writes, late) = footprint(&op);
            let srcs = (0..op.src_info().len())
                .filter(|&i| matches!(op.src(i).kind, nak::runtime::operand::SrcKind::Reg(_)))
                .count();
            assert_eq!(reads.len(), srcs, "SM{sm} {}: a source dropped", op.name());
            assert_eq!(writes.len(), regs_out, "SM{sm} {}", op.name());
            assert!(late.len() <= writes.len());
            most = (most.0.max(regs_in), most.1.max(regs_out));
        }
    }
    println!(
        "most register sources with the guard: {}, destinations: {}",
        most.0, most.1
    );
    assert!(
        most.0 <= MAX_SPANS && most.1 <= MAX_SPANS,
        "{most:?} > {MAX_SPANS}"
    );
}
