//! `nak run` and `nak legalize` on a text-IR file with global memory: two
//! 32-bit stores to a 16-byte aligned base combine into one 64-bit store,
//! and the run prints the words written.

mod common;

use common::nak;
use std::process::Command;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/store_pair.nak");

#[test]
fn run_prints_registers_and_global_words() {
    let out = nak(&["run", "--global", "64", "--lanes", "1", FILE]);
    for want in [
        "R10 = 0x11",
        "R11 = 0x22",
        "global[0x10] = 0x11",
        "global[0x14] = 0x22",
    ] {
        assert!(out.contains(want), "`{want}` missing from:\n{out}");
    }
}

#[test]
fn legalize_combines_the_aligned_store_pair() {
    let out = nak(&["legalize", FILE]);
    assert_eq!(out.matches("STG").count(), 1, "{out}");
    assert!(out.contains("STG.E.64.SYS [R4+0x10], R8"), "{out}");
}

#[test]
fn run_reports_a_fault_without_global_memory() {
    let out = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(["run", FILE])
        .output()
        .expect("run nak");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outside the 0-byte buffer"), "{err}");
}
