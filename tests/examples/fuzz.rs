//! A long fuzz run of one target of `isa_tests::fuzz`: rounds from fresh
//! seeds until the time is up, then the totals; on a panic, the target,
//! seed, round and input, and exit 1 (replay it with
//! `isa_tests::fuzz::run(TARGET, SEED, ROUND + 1)` and keep it as a test).
//!
//! `cargo run --release -p isa-tests --example fuzz -- TARGET SECONDS [SEED]`
//! (`scripts/fuzz.sh` runs it).

use isa_tests::fuzz;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(target), Some(secs)) = (args.first(), args.get(1).and_then(|s| s.parse().ok()))
    else {
        eprintln!(
            "usage: fuzz TARGET SECONDS [SEED]   (targets: {})",
            fuzz::TARGETS.join(", ")
        );
        return ExitCode::from(2);
    };
    let mut seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let start = Instant::now();
    let until = start + Duration::from_secs(secs);
    let (mut inputs, mut accepted, mut seeds) = (0u64, 0u64, 0u64);
    let first = seed;
    while Instant::now() < until {
        match fuzz::run(target, seed, 16) {
            Ok(st) => {
                inputs += st.inputs;
                accepted += st.accepted;
            }
            Err(e) => {
                eprintln!("FOUND: {e}");
                return ExitCode::from(1);
            }
        }
        seeds += 1;
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
    let took = start.elapsed().as_secs_f64();
    println!(
        "fuzz {target}: {inputs} inputs ({accepted} accepted) from {seeds} seeds (first {first:#x}) in {took:.0} s, {:.0} inputs/s, nothing found",
        inputs as f64 / took
    );
    ExitCode::SUCCESS
}
