//! What the `nak` command tests share.

use std::process::Command;

/// Run `nak` with `args`; its stdout, after asserting it succeeded.
pub fn nak(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(args)
        .output()
        .expect("run nak");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}
