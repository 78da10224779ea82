//! What `nak dis` prints, `nak asm` takes back (issue 23 item 1): a word
//! that breaks a rule keeping programs correct (a misaligned 64-bit
//! register, a hardware trap) assembles with a warning, `--deny-warnings`
//! makes it an error, and `nak dis --check-canonical` names the words whose
//! text cannot carry all their bits.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
mod common;

use common::nak;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nak-cli-canonical-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(args)
        .output()
        .expect("run nak")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// nvdisasm 13 prints `IMAD.WIDE R5, R10, 0x4, RZ` for a word with a
/// misaligned destination pair (the example), and the same holds
/// for STG/LDG with an odd address register: each line assembles back to
/// the word `nak dis` printed it from, with a warning naming the rule.
#[test]
fn misaligned_registers_assemble_with_a_warning() {
    let src = tmp("misaligned.s");
    let out = tmp("misaligned.bin");
    let lines = "IMAD.WIDE R5, R10, 0x4, RZ\nSTG.E [R3.64], R4\nLDG.E R2, [R5.64]\n";
    std::fs::write(&src, lines).unwrap();
    let done = run(&["asm", "--sm", "80", path(&src), "-o", path(&out)]);
    assert!(done.status.success(), "{done:?}");
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(err.matches(": warning: ").count(), 3, "{err}");
    assert!(
        err.contains(":1:1: warning: imad_wide: d must be a register aligned to 2, not R5"),
        "{err}"
    );
    assert!(
        err.contains("a must be a register aligned to 2, not R3"),
        "{err}"
    );
    let listing = nak(&["dis", "--sm", "80", path(&out)]);
    let texts: Vec<&str> = listing
        .lines()
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(texts, lines.lines().collect::<Vec<_>>());
}

/// `--deny-warnings`: the same lines are errors, and nothing is written.
#[test]
fn deny_warnings_makes_them_errors() {
    let src = tmp("deny.s");
    let out = tmp("deny.bin");
    std::fs::write(&src, "IADD3 R0, R1, R2, R3\nIMAD.WIDE R5, R10, 0x4, RZ\n").unwrap();
    let failed = run(&[
        "asm",
        "--sm",
        "75",
        "--deny-warnings",
        path(&src),
        "-o",
        path(&out),
    ]);
    assert_eq!(failed.status.code(), Some(1));
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(
        err.contains(":2:1: error: imad_wide: d must be a register aligned to 2"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

/// Maxwell's `SHF.L.HI` traps on the hardware (the spec's `traps`), yet
/// nvdisasm prints it: it assembles with the trap's evidence as warning.
#[test]
fn a_trap_assembles_with_its_evidence_as_warning() {
    let src = tmp("trap.s");
    let out = tmp("trap.bin");
    std::fs::write(&src, "SHF.L.HI R8, R10, R13, R4\n").unwrap();
    let done = run(&["asm", "--sm", "50", path(&src), "-o", path(&out)]);
    assert!(done.status.success(), "{done:?}");
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        err.contains("warning: shf: SHF.L.HI on SM50: the hardware traps on it"),
        "{err}"
    );
    let listing = nak(&["dis", "--sm", "50", path(&out)]);
    assert!(
        listing
            .lines()
            .next()
            .unwrap()
            .ends_with("\tSHF.L.HI R8, R10, R13, R4")
    );
}

/// `--check-canonical` on a stream: a canonical word is not listed, a
/// `MUFU.RSQ R10, -QNAN` whose NaN payload is not the one the assembler
/// writes is, with the bits; exit 1 then, 0 on a canonical stream.
#[test]
fn check_canonical_names_the_hidden_bits() {
    // SM90: `MUFU.RSQ R10, -QNAN` with payload 0 (ptxas writes such words;
    // the text shows no payload, the assembler writes all ones).
    let mufu = "08790a000000c0ff0014000000220e00";
    let iadd = tmp("canonical.s");
    std::fs::write(&iadd, "IADD3 R0, R1, R2, R3\n").unwrap();
    let stream = tmp("canonical.bin");
    nak(&["asm", "--sm", "90", path(&iadd), "-o", path(&stream)]);
    let clean = run(&["dis", "--sm", "90", "--check-canonical", path(&stream)]);
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
    assert!(clean.stdout.is_empty());
    let hex = tmp("mufu.hex");
    std::fs::write(&hex, format!("{mufu}\n")).unwrap();
    let packed = tmp("mufu.bin");
    nak(&["pack", "--sm", "90", path(&hex), "-o", path(&packed)]);
    let found = run(&["dis", "--sm", "90", "--check-canonical", path(&packed)]);
    assert_eq!(found.status.code(), Some(1), "{found:?}");
    let out = String::from_utf8_lossy(&found.stdout);
    let fields: Vec<&str> = out.trim_end().split('\t').collect();
    assert_eq!(
        fields[..3],
        ["0x0000", mufu, "MUFU.RSQ R10, -QNAN"],
        "{out}"
    );
    assert_eq!(
        fields[3],
        "non-canonical: bits the text does not show 32..53 are 0x0, the assembler writes 0x3fffff"
    );
    let err = String::from_utf8_lossy(&found.stderr);
    assert!(
        err.contains("1 decodable words, 1 non-canonical, 0 that do not round-trip"),
        "{err}"
    );
}
