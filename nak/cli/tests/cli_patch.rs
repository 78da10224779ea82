//! `nak asm --cubin IN LISTING -o OUT`: the unedited listing writes IN
//! back; a listing that does not fit IN (unknown kernel, instructions
//! added or removed, other addresses, a line that does not assemble, an
//! unknown label) or an IN that is no cubin is an error naming the
//! listing's line, and no OUT is written. (The byte-level checks over all
//! stored cubins, and nvdisasm on edits, are `tests/tests/cubin_patch.rs`.)

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn stored(sm: &str) -> Vec<u8> {
    common::gunzip(&common::root().join(format!("tests/cubins/{sm}/control.cubin.gz")))
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("nak-cli-patch-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir().join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

/// Run `nak ARGS`: (exit code, stdout, stderr).
fn nak(args: &[&Path]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(args)
        .output()
        .expect("run nak");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `nak dis` of a cubin file.
fn listing(cubin: &Path) -> String {
    let (code, out, err) = nak(&[Path::new("dis"), cubin]);
    assert_eq!(code, 0, "{err}");
    out
}

/// `nak asm --cubin IN LISTING -o OUT` with `listing`: (exit code,
/// stderr, the listing's path, OUT's path).
fn patch(case: &str, cubin: &Path, listing: &str) -> (i32, String, PathBuf, PathBuf) {
    let l = write(&format!("{case}.sass"), listing.as_bytes());
    let out = dir().join(format!("{case}.out.cubin"));
    let _ = std::fs::remove_file(&out);
    let (code, _, err) = nak(&[
        Path::new("asm"),
        Path::new("--cubin"),
        cubin,
        &l,
        Path::new("-o"),
        &out,
    ]);
    (code, err, l, out)
}

/// The case fails with `want` in an error at `LISTING:LINE` (or
/// `LISTING:` for line 0), and writes no OUT.
fn fails(case: &str, cubin: &Path, listing: &str, line: usize, want: &str) {
    let (code, err, l, out) = patch(case, cubin, listing);
    assert_eq!(code, 1, "{case}: {err}");
    assert!(!err.contains("panicked"), "{case}: {err}");
    let at = if line == 0 {
        format!("{}: error: ", l.display())
    } else {
        format!("{}:{line}:", l.display())
    };
    assert!(
        err.lines().any(|e| e.starts_with(&at) && e.contains(want)),
        "{case}: want `{want}` at `{at}` in:\n{err}"
    );
    assert!(!out.exists(), "{case}: {} was written", out.display());
}

/// The 1-based number of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).expect(needle) + 1
}

#[test]
fn unedited_listing_writes_the_cubin_back() {
    for sm in ["sm_50", "sm_90"] {
        let bytes = stored(sm);
        let cubin = write(&format!("{sm}.cubin"), &bytes);
        let (code, err, _, out) = patch(&format!("same_{sm}"), &cubin, &listing(&cubin));
        assert_eq!(code, 0, "{err}");
        assert!(
            std::fs::read(&out).expect("OUT") == bytes,
            "{sm}: OUT differs"
        );
        assert!(err.contains("0 of"), "{err}");
    }
}

#[test]
fn listings_that_do_not_fit_are_errors_and_write_nothing() {
    let cubin = write("err_sm90.cubin", &stored("sm_90"));
    let text = listing(&cubin);

    // An unknown kernel.
    let renamed = text.replace(".text.control", ".text.nosuch");
    let l = line_of(&renamed, ".section\t.text.nosuch");
    fails("unknown_kernel", &cubin, &renamed, l, "unknown kernel");

    // One instruction line fewer.
    let l = line_of(&text, "/*0010*/");
    let fewer: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| i + 1 != l)
        .map(|(_, t)| t)
        .collect();
    let s = line_of(&text, ".section\t.text.control");
    fails(
        "fewer",
        &cubin,
        &(fewer.join("\n") + "\n"),
        s,
        "instructions can be edited, not added or removed",
    );

    // Another address.
    let moved = text.replacen("/*0010*/", "/*0018*/", 1);
    fails("moved", &cubin, &moved, l, "address 0x0018");

    // A line that does not assemble.
    let bad = text.replacen("/*0010*/                   S2R", "/*0010*/ FROB", 1);
    assert_ne!(bad, text, "the listing has no S2R at 0x10");
    fails("bad_line", &cubin, &bad, l, "FROB");

    // A branch to a label the listing does not have.
    let bl = text
        .lines()
        .position(|t| t.contains("BRA `(.L_x_"))
        .expect("a BRA")
        + 1;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, t)| {
            if i + 1 == bl {
                let at = t.find("`(.L_x_").expect("label");
                let end = at + t[at..].find(')').expect(")");
                format!("{}`(.L_x_999{}", &t[..at], &t[end..])
            } else {
                t.to_string()
            }
        })
        .collect();
    fails(
        "label",
        &cubin,
        &(lines.join("\n") + "\n"),
        bl,
        "unknown label `.L_x_999`",
    );

    // Not a cubin.
    let not = write("not.cubin", b"not an ELF file at all");
    let (code, err, _, out) = patch("not_cubin", &not, &text);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a cubin"), "{err}");
    assert!(!out.exists());

    // A truncated cubin (an ELF header only).
    let bytes = stored("sm_90");
    let cut = write("cut.cubin", &bytes[..100]);
    fails("truncated", &cut, &text, 0, "not a readable cubin");
}
