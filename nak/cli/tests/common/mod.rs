//! What the `nak` command tests share.

use std::process::Command;

/// Run `nak` with `args`; its stdout, after asserting it succeeded.
#[allow(dead_code)] // each test binary uses some of these helpers
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

/// The workspace's root (the `nak` command's tests read `tests/cubins`).
#[allow(dead_code)]
pub fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A gzip-compressed file's bytes.
#[allow(dead_code)]
pub fn gunzip(path: &std::path::Path) -> Vec<u8> {
    use std::io::Read;
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(f)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}
