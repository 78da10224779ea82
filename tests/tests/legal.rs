//! The spec's `legal` rules against nvdisasm, both ways: the oracle test
//! (tests/oracle.rs) shows the sampled legal combinations are accepted;
//! here a sample of the combinations the rules leave out must be rejected
//! by nvdisasm (or printed as something else).
//!
//! Needs nvdisasm like tests/oracle.rs; `NAK_SKIP_ORACLE=1` skips it.
//! `NAK_SWEEP=sm:op,op,...` (e.g. `NAK_SWEEP=75:i2f,f2f`) runs the sweep
//! behind the rules instead: every combination of the ops' modifiers on
//! that SM (`all` for every SM), with nvdisasm's answer, one line each.

use isa_tests::combos::combos;
use isa_tests::oracle::{Oracle, address_of};

fn spec() -> isa_spec::model::Spec {
    let root = isa_tests::oracle::workspace_dir();
    isa_spec::load(&root.join("isa-spec/spec"), "isa-spec/spec")
        .spec
        .expect("the spec loads")
}

/// `SM\top\tform\tvalues\tverdict\tour text\tspec claim` for every combination of `ops` on `sm`:
/// `ok`, `differs: <nvdisasm text>` or `rejected: <message>`.
fn sweep(spec: &isa_spec::model::Spec, oracle: &Oracle, sm: u32, ops: &[&str]) -> String {
    let mut out = String::new();
    for op in ops {
        let cs: Vec<_> = combos(spec, op, sm)
            .into_iter()
            .filter_map(|c| Some((c.word(sm)?, c)))
            .collect();
        let words: Vec<u128> = cs.iter().map(|(w, _)| *w).collect();
        let theirs = oracle.disassemble(sm, &words);
        for (i, ((_, c), t)) in cs.iter().zip(&theirs).enumerate() {
            let mut ours = c.op.text(&c.common, sm, address_of(sm, i));
            nak::runtime::print::normalize_in_place(&mut ours);
            let verdict = match t {
                Ok(t) if *t == ours => "ok".to_string(),
                // nvdisasm spaces the constant of 8- and 16-bit sources
                // (`c[0x2] [0x10]`): a printing matter, not legality.
                Ok(t) if t.replace("] [", "][") == ours => "ok".to_string(),
                Ok(t) => format!("differs: {t}"),
                Err(e) => format!("rejected: {e}"),
            };
            let claim = if c.legal(sm) { "legal" } else { "illegal" };
            out.push_str(&format!(
                "{sm}\t{op}\t{}\t{}\t{verdict}\t{ours}\t{claim}\n",
                c.form,
                c.key()
            ));
        }
    }
    out
}

#[test]
#[ignore = "a tool: run with NAK_SWEEP=sm:ops"]
fn sweep_combinations() {
    let arg = std::env::var("NAK_SWEEP").expect("NAK_SWEEP=sm:op,op");
    let (sm, ops) = arg.split_once(':').expect("sm:ops");
    let ops: Vec<&str> = ops.split(',').collect();
    let oracle = Oracle::get().expect("nvdisasm");
    let spec = spec();
    let sms: Vec<u32> = if sm == "all" {
        nak::isa::ALL_SMS.to_vec()
    } else {
        vec![sm.parse().expect("sm")]
    };
    for sm in sms {
        print!("{}", sweep(&spec, oracle, sm, &ops));
    }
}

fn oracle() -> Option<&'static Oracle> {
    if std::env::var("NAK_SKIP_ORACLE").is_ok_and(|v| v == "1") {
        println!(
            "SKIPPED: nvdisasm checks of illegal combinations skipped because NAK_SKIP_ORACLE=1"
        );
        return None;
    }
    match Oracle::get() {
        Ok(o) => Some(o),
        Err(e) => panic!(
            "nvdisasm is needed for this test and is missing: {e}\n(set NAK_SKIP_ORACLE=1 to skip it, and say so)"
        ),
    }
}

/// The mnemonic with its suffixes (the first token after the guard).
fn mnemonic(text: &str) -> &str {
    let t = text.trim_start();
    let t = if t.starts_with('@') {
        t.split_once(' ').map_or("", |x| x.1)
    } else {
        t
    };
    t.split(' ').next().unwrap_or("")
}

/// Every op with `legal` or `traps` products, on every SM: up to
/// `NAK_ILLEGAL_PER_OP` (default 16) combinations the products leave out,
/// picked at random from that complement, must be rejected by nvdisasm or
/// printed with another mnemonic or suffixes (`MUFU.INVALID9`, a dropped
/// `.ANY`). Traps are left out: nvdisasm prints them.
#[test]
fn illegal_combinations_are_rejected_by_nvdisasm() {
    let Some(oracle) = oracle() else { return };
    let per_op: usize = std::env::var("NAK_ILLEGAL_PER_OP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let spec = spec();
    let ruled: Vec<&str> = spec
        .ops
        .iter()
        .filter(|o| !o.legal.is_empty())
        .map(|o| o.name.as_str())
        .collect();
    assert!(!ruled.is_empty(), "the spec has `legal` products");
    let mut rng = nak::runtime::sample::Rng::new(0x1e6a1);
    let (mut checked, mut failures) = (0usize, Vec::new());
    for &sm in nak::isa::ALL_SMS {
        let mut words = Vec::new();
        let mut cases = Vec::new();
        for op in &ruled {
            let mut bad: Vec<_> = combos(&spec, op, sm)
                .into_iter()
                .filter(|c| !c.legal(sm))
                .filter_map(|c| Some((c.word(sm)?, c)))
                .collect();
            for _ in 0..per_op.min(bad.len()) {
                let i = (rng.next_u64() % bad.len() as u64) as usize;
                let (w, c) = bad.swap_remove(i);
                words.push(w);
                cases.push((op, c));
            }
        }
        let theirs = oracle.disassemble(sm, &words);
        for (i, ((op, c), t)) in cases.iter().zip(&theirs).enumerate() {
            checked += 1;
            let ours = c.op.text(&c.common, sm, address_of(sm, i));
            if let Ok(t) = t
                && mnemonic(t) == mnemonic(&ours)
            {
                failures.push(format!(
                    "SM{sm} {op} {} [{}]: the spec rules it out, but nvdisasm prints `{t}`",
                    c.form,
                    c.key()
                ));
            }
        }
    }
    println!(
        "illegal combinations: {checked} checked against nvdisasm, {} accepted",
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("{f}");
    }
    assert!(checked > 0, "some illegal combinations were checked");
    assert!(
        failures.is_empty(),
        "{} combinations the spec rules out exist",
        failures.len()
    );
}
