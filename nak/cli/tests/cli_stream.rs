//! `nak info` prints the spec's facts about an SM for scripts, and `nak
//! pack` lays HEX words out as a stream that `nak dis` reads back (with
//! scheduling words where the family has them).

use std::path::PathBuf;
mod common;

use common::nak;
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nak-cli-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn info_names_the_family_word_size_and_reference() {
    for (sm, family, bits, bundle) in [("50", "sm50", 64, 3), ("sm_90", "sm70", 128, 1)] {
        let out = nak(&["info", "--sm", sm]);
        let want = nak::isa::reference_nvdisasm(nak::dis::stream::parse_sm(sm).unwrap()).unwrap();
        for line in [
            format!("family={family}"),
            format!("word_bits={bits}"),
            format!("bundle={bundle}"),
            format!("nvdisasm={want}"),
        ] {
            assert!(
                out.lines().any(|l| l == line),
                "`{line}` missing from:\n{out}"
            );
        }
    }
}

#[test]
fn pack_then_dis_gives_the_words_back() {
    for (sm, op) in [("50", "shf"), ("75", "iadd3")] {
        let words = tmp(&format!("w{sm}.txt"));
        let bin = tmp(&format!("w{sm}.bin"));
        // Sample two words, take their hex from `nak dis`, pack them again.
        let sample = tmp(&format!("s{sm}.bin"));
        nak(&[
            "sample",
            "--sm",
            sm,
            "--ops",
            op,
            "--per-form",
            "1",
            "-o",
            sample.to_str().unwrap(),
        ]);
        let listing = nak(&["dis", "--sm", sm, sample.to_str().unwrap()]);
        let hex: Vec<&str> = listing
            .lines()
            .filter_map(|l| l.split('\t').next())
            .take(2)
            .collect();
        assert_eq!(hex.len(), 2, "{listing}");
        std::fs::write(&words, format!("{}\n{}\n", hex[0], hex[1])).unwrap();
        nak(&[
            "pack",
            "--sm",
            sm,
            words.to_str().unwrap(),
            "-o",
            bin.to_str().unwrap(),
        ]);
        let again = nak(&["dis", "--sm", sm, bin.to_str().unwrap()]);
        let back: Vec<&str> = again.lines().filter_map(|l| l.split('\t').next()).collect();
        assert_eq!(&back[..2], &hex[..], "SM{sm}: {again}");
        let len = std::fs::metadata(&bin).unwrap().len();
        // SM50: one scheduling word and three slots (the third a NOP).
        assert_eq!(
            len, 32,
            "SM{sm}: two 16-byte words, or a scheduling word and three 8-byte slots"
        );
    }
}

#[test]
fn pack_names_the_line_of_a_bad_word() {
    let words = tmp("bad.txt");
    std::fs::write(&words, "0000000000000000\nnot-hex\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args([
            "pack",
            "--sm",
            "50",
            words.to_str().unwrap(),
            "-o",
            tmp("bad.bin").to_str().unwrap(),
        ])
        .output()
        .expect("run nak");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.txt:2:") && err.contains("not-hex"),
        "{err}"
    );
}

/// `nak dis --ctrl` puts each instruction's control bits before its text,
/// and `nak asm` reads the listing back: the control fields and texts of
/// the assembled stream are the listing's, and that stream assembles to
/// itself (sampled words may hold bits the text does not say, which
/// assemble to their canonical values). SM50 with varied control per
/// slot of its scheduling words, SM75 with the words' own.
#[test]
fn dis_ctrl_then_asm_gives_the_stream_back() {
    for sm in [50u32, 75] {
        let words = nak::runtime::sample::sample_words(sm, &["iadd3", "shf"], 4, 3);
        let with_ctrl: Vec<(u128, u32)> = words
            .iter()
            .enumerate()
            .map(|(i, &w)| (w, (i as u32).wrapping_mul(2_654_435_761) & 0x1f_ffff))
            .collect();
        let nop = nak::dis::stream::nop_word(sm);
        let bytes = nak::dis::stream::encode_stream(sm, &with_ctrl, nop).unwrap();
        let sm_arg = sm.to_string();
        let dis = |bytes: &[u8], name: &str| {
            let bin = tmp(&format!("{name}{sm}.bin"));
            std::fs::write(&bin, bytes).unwrap();
            nak(&["dis", "--ctrl", "--sm", &sm_arg, bin.to_str().unwrap()])
        };
        let asm = |listing: &str, name: &str| {
            let text = tmp(&format!("{name}{sm}.txt"));
            std::fs::write(&text, listing).unwrap();
            let out = tmp(&format!("{name}{sm}.out"));
            let asm_args = ["asm", "--sm", &sm_arg, text.to_str().unwrap(), "-o"];
            nak(&[&asm_args[..], &[out.to_str().unwrap()]].concat());
            std::fs::read(&out).unwrap()
        };
        let listing = dis(&bytes, "a");
        let first = listing.lines().next().unwrap_or("");
        let field = first.split('\t').nth(1).unwrap_or("");
        assert!(
            field.starts_with("[B") && field.contains(":S"),
            "SM{sm}: {first}"
        );
        let canonical = asm(&listing, "a");
        let again = dis(&canonical, "b");
        let body = |l: &str| {
            l.split_once('\t')
                .map_or(String::new(), |x| x.1.to_string())
        };
        let bodies = |t: &str| t.lines().map(body).collect::<Vec<_>>();
        assert_eq!(bodies(&listing), bodies(&again), "SM{sm}");
        assert_eq!(asm(&again, "b"), canonical, "SM{sm}: {again}");
    }
}

/// A whole ptxas kernel (`tests/data/README.md`) goes through `nak dis
/// --ctrl` and `nak asm` back to its exact bytes: every control field, the
/// SM50 scheduling words and every instruction word as ptxas wrote them.
#[test]
fn dis_ctrl_round_trips_a_ptxas_kernel() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    for (sm, file) in [
        ("50", "ptxas_atom_generic_sm50.bin"),
        ("90", "ptxas_atom_generic_sm90.bin"),
    ] {
        let bin = data.join(file);
        let listing = nak(&["dis", "--ctrl", "--sm", sm, bin.to_str().unwrap()]);
        // ptxas's first instruction waits on nothing and sets no barrier.
        let first = listing.lines().next().unwrap_or("");
        assert!(first.contains("\t[B------:R-:W-:"), "SM{sm}: {first}");
        let text = tmp(&format!("kernel{sm}.txt"));
        std::fs::write(&text, &listing).unwrap();
        let out = tmp(&format!("kernel{sm}.out"));
        nak(&[
            "asm",
            "--sm",
            sm,
            text.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&bin).unwrap(),
            "SM{sm}:\n{listing}"
        );
    }
}

/// `nak asm -o OUT` writes OUT whole or not at all: a bad line leaves an
/// existing OUT as it was, an unwritable OUT is a clear error, and no
/// temporary file is left behind either way.
#[test]
fn asm_output_is_whole_or_untouched() {
    let dir = tmp("whole");
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.s");
    let bad = dir.join("bad.s");
    std::fs::write(&good, "IADD3 R0, R1, R2, R3\n").unwrap();
    std::fs::write(&bad, "IADD3 R0, R1, R2, R3\nNOT_AN_OP R1\n").unwrap();
    let out = dir.join("out.bin");
    nak(&[
        "asm",
        "--sm",
        "75",
        good.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let before = std::fs::read(&out).unwrap();
    assert_eq!(before.len(), 16);
    let run = |input: &std::path::Path, out: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_nak"))
            .args([
                "asm",
                "--sm",
                "75",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .output()
            .expect("run nak")
    };
    let failed = run(&bad, &out);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), before, "OUT untouched");
    let missing = dir.join("no-such-dir").join("out.bin");
    let failed = run(&good, &missing);
    assert_eq!(failed.status.code(), Some(1));
    let err = String::from_utf8_lossy(&failed.stderr);
    assert!(err.contains("no-such-dir"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

/// A stream whose length is not known before it is read (a pipe, or a
/// file that shrinks while `nak dis` reads it) and that ends inside a word:
/// the whole words are printed, then an error names the trailing bytes'
/// offset, and the exit status is 1.
#[test]
fn dis_of_a_pipe_ending_inside_a_word_names_the_offset() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(["dis", "--sm", "90", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run nak");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&[0u8; 20])
        .expect("write");
    let out = child.wait_with_output().expect("nak ends");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 trailing bytes at offset 0x10"), "{err}");
}
