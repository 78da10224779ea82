//! Every subcommand that writes to stdout exits quietly when its reader has
//! gone (`nak lint --format json | head -1`): status 0, no panic message.
//! Each command writes far more than a pipe buffer (64 KiB), into a pipe
//! whose read end is closed before the command starts writing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A scratch directory for this test's inputs.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nak-closed-pipe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `nak args` with its stdout a pipe already closed for reading.
fn into_closed_pipe(args: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run nak");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for nak");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "nak {args:?} panicked:\n{err}");
    assert_eq!(out.status.code(), Some(0), "nak {args:?}:\n{err}");
}

/// A spec whose one op file has 2000 unknown keys: 2000 diagnostics.
fn noisy_spec() -> PathBuf {
    let dir = scratch("spec");
    let real = isa_spec::default_spec_dir();
    std::fs::copy(real.join("families.toml"), dir.join("families.toml")).unwrap();
    std::fs::create_dir_all(dir.join("enums")).unwrap();
    for e in std::fs::read_dir(real.join("enums")).unwrap().flatten() {
        std::fs::copy(e.path(), dir.join("enums").join(e.file_name())).unwrap();
    }
    std::fs::create_dir_all(dir.join("ops")).unwrap();
    let mut op = String::from("name = \"noisy\"\nclass = \"alu\"\n");
    for i in 0..2000 {
        op.push_str(&format!("unknown_key_{i} = 1\n"));
    }
    std::fs::write(dir.join("ops/noisy.toml"), op).unwrap();
    dir
}

#[test]
fn lint_exits_quietly_into_a_closed_pipe() {
    let spec = noisy_spec();
    let dir = spec.to_str().unwrap();
    for format in ["json", "short", "human", "github"] {
        into_closed_pipe(&["lint", dir, "--format", format]);
    }
    let _ = std::fs::remove_dir_all(&spec);
}

/// A raw SM75 stream of 20000 instructions, assembled by `nak asm`.
fn stream(dir: &Path) -> PathBuf {
    let text = "IADD3 R1, R2, R3, R4\n".repeat(20_000);
    std::fs::write(dir.join("in.s"), text).unwrap();
    let bin = dir.join("in.bin");
    let status = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(["asm", "--sm", "75", "-o"])
        .arg(&bin)
        .arg(dir.join("in.s"))
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    bin
}

#[test]
fn dis_corpus_and_help_exit_quietly_into_a_closed_pipe() {
    let dir = scratch("dis");
    let bin = stream(&dir);
    into_closed_pipe(&["dis", "--sm", "75", bin.to_str().unwrap()]);
    into_closed_pipe(&["dis", "--cfg", "--sm", "75", bin.to_str().unwrap()]);
    // 20000 lines of an IADD3 word with another IADD3's text: every line
    // is a mismatch, and all are shown.
    let word: String = std::fs::read(&bin).unwrap()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let corpus = dir.join("corpus.txt");
    let line = format!("{word}\tIADD3 R9, R9, R9, R9\n");
    std::fs::write(&corpus, line.repeat(20_000)).unwrap();
    into_closed_pipe(&[
        "corpus",
        "--sm",
        "75",
        "--show",
        "100000",
        corpus.to_str().unwrap(),
    ]);
    into_closed_pipe(&["--help"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn legalize_and_run_exit_quietly_into_a_closed_pipe() {
    let dir = scratch("ir");
    // A function long enough that its printout exceeds a pipe buffer.
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/store_pair.nak");
    let text = std::fs::read_to_string(data).unwrap();
    let file = dir.join("f.nak");
    std::fs::write(&file, &text).unwrap();
    into_closed_pipe(&["legalize", file.to_str().unwrap()]);
    into_closed_pipe(&[
        "run",
        "--global",
        "64",
        "--lanes",
        "1",
        file.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}
