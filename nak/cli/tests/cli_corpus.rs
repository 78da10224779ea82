//! `nak corpus --gaps` lists, per mnemonic and most lines first, the corpus
//! lines that do not decode, and says why: a mnemonic the spec lacks, or
//! one it has whose encodings do not match the word.

mod common;

use common::nak;

#[test]
fn gaps_name_missing_mnemonics_and_unmatched_words() {
    let dir = std::env::temp_dir().join(format!("nak-cli-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("gaps_sm75.txt");
    // A decodable IADD3 (ptxas, SM75); two lines of a mnemonic no op has;
    // an IADD3 text on an all-zero word, which no encoding matches.
    let iadd3 = "107800121f000000ffe1ff0700c44f00";
    let zero = "00000000000000000000000000000000";
    let text = format!(
        "{iadd3}\tIADD3 R0, -R18, 0x1f, RZ\n{iadd3}\tNOTANOP R0\n{iadd3}\tNOTANOP.X R1\n{zero}\tIADD3 R0, R1, R2, R3\n"
    );
    std::fs::write(&file, text).expect("write corpus");
    let out = nak(&["corpus", "--sm", "75", file.to_str().unwrap(), "--gaps"]);
    let gaps: Vec<&str> = out.lines().filter(|l| l.starts_with("gap ")).collect();
    assert_eq!(
        gaps,
        [
            "gap NOTANOP 2 (not in the spec)",
            "gap IADD3 1 (no encoding matched)"
        ],
        "{out}"
    );
    assert!(out.contains("SM75: 4 lines, 2 covered, 1 decoded"), "{out}");
    // Without the flag, no gap lines.
    let plain = nak(&["corpus", "--sm", "75", file.to_str().unwrap()]);
    assert!(!plain.lines().any(|l| l.starts_with("gap ")), "{plain}");
    let _ = std::fs::remove_dir_all(&dir);
}
