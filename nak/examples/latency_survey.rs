//! The evidence behind the spec's `[sched] latency` tables: in every kernel
//! of `tests/kernels`, for each result an instruction writes at a fixed
//! latency (no write barrier over it), the cycles until the first later
//! instruction of the same block that reads it at issue (no write barrier
//! of its own, not a memory or control op; readers of other kinds before
//! it are passed over): the sum of the stall counts between their issues. One line each, `SM OP CYCLES`; an op with a write
//! barrier over its results on an SM prints `SM OP variable` instead. A
//! predicate read as the guard of a control op (a branch, an exit)
//! prints `SM OP guard CYCLES`.
//! `scripts/survey-latencies.sh` turns the lines into each op's table (the
//! fewest cycles per SM).
//!
//! `cargo run --release -p nak --example latency_survey -- tests/kernels`

use nak::check::program::{Instr, Program};
use std::io::{Read, Write};

/// How far a reader is looked for: beyond this no latency matters.
const HORIZON: u32 = 40;

fn main() -> Result<(), String> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: latency_survey KERNELS_DIR")?;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{dir}: {e}"))?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for path in files {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let Some(sm) = name
            .strip_prefix("sm_")
            .and_then(|s| s.strip_suffix(".tsv.gz"))
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let mut text = String::new();
        let f = std::fs::File::open(&path).map_err(|e| e.to_string())?;
        flate2::read::GzDecoder::new(f)
            .read_to_string(&mut text)
            .map_err(|e| e.to_string())?;
        for line in text.lines() {
            let hex = line.rsplit('\t').next().unwrap_or("");
            let code: Vec<u8> = (0..hex.len() / 2)
                .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                .collect();
            let p = Program::decode(sm, &code)?;
            for b in &p.blocks {
                for i in b.first..b.end {
                    survey(&p, i, b.end, &mut out).map_err(|e| e.to_string())?;
                }
            }
        }
    }
    out.flush().map_err(|e| e.to_string())
}

/// The lines for instruction `i` of a block ending at `end`.
fn survey(p: &Program, i: usize, end: usize, out: &mut impl Write) -> std::io::Result<()> {
    let x = &p.instrs[i];
    let Some((op, _)) = x.decoded(p.sm).filter(|_| !x.never) else {
        return Ok(());
    };
    let barrier = x.ctl.write_barrier.is_some();
    if barrier && x.late_writes.iter().any(|s| s.slots().next().is_some()) {
        writeln!(out, "{} {} variable", p.sm, op.name())?;
    }
    let fixed = x
        .writes
        .iter()
        .filter(|s| !barrier || !x.late_writes.contains(s))
        .flat_map(|s| s.slots());
    for r in fixed {
        let (at_issue, guard) = first_reads(p, i, end, r);
        if let Some(cycles) = at_issue {
            writeln!(out, "{} {} {cycles}", p.sm, op.name())?;
        }
        if let Some(cycles) = guard {
            writeln!(out, "{} {} guard {cycles}", p.sm, op.name())?;
        }
    }
    Ok(())
}

/// Cycles from instruction `i` to the first later instruction of the
/// block that reads register slot `r` at issue, and to the first control
/// op it guards, unless it is overwritten first. Readers of other kinds
/// are passed over: the checker holds every at-issue reader to the
/// latency, so the survey must see the nearest one.
fn first_reads(p: &Program, i: usize, end: usize, r: usize) -> (Option<u32>, Option<u32>) {
    let (mut at_issue, mut guard) = (None, None);
    let mut cycles = 0;
    for j in i + 1..end {
        cycles += p.instrs[j - 1].ctl.stall;
        let y: &Instr = &p.instrs[j];
        if cycles > HORIZON || (at_issue.is_some() && guard.is_some()) {
            break;
        }
        if y.never {
            continue;
        }
        if y.reads.iter().flat_map(|s| s.slots()).any(|s| s == r) {
            if y.reads_at_issue {
                at_issue = at_issue.or(Some(cycles));
            } else if y.guard_read_by_control() == Some(r) {
                guard = guard.or(Some(cycles));
            }
        }
        if !y.guarded && y.writes.iter().flat_map(|s| s.slots()).any(|s| s == r) {
            break;
        }
    }
    (at_issue, guard)
}
