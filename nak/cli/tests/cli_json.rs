//! `nak dis --json` on every cubin of `tests/cubins`: one object per
//! instruction whose words are the ones nvdisasm's shipped listing shows
//! for that kernel, in order; whose control fields are the bits of those
//! words (SM70+) or of the scheduling words between them (SM50..SM62);
//! and whose guard, mnemonic, modifiers and operands put back together
//! give its text. A raw stream gives the same objects without a kernel.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Every `(sm, cubin.gz, sass.gz)` of `tests/cubins`.
fn cubins() -> Vec<(u32, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for sm_dir in std::fs::read_dir(common::root().join("tests/cubins")).expect("tests/cubins") {
        let sm_dir = sm_dir.expect("entry").path();
        let Some(sm) = sm_dir
            .file_name()
            .and_then(|n| n.to_str()?.strip_prefix("sm_")?.parse().ok())
        else {
            continue;
        };
        for f in std::fs::read_dir(&sm_dir).expect("sm dir") {
            let p = f.expect("entry").path();
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            if let Some(stem) = name.strip_suffix(".cubin.gz") {
                let sass = sm_dir.join(format!("{stem}.sass.gz"));
                out.push((sm, p.clone(), sass));
            }
        }
    }
    out.sort();
    out
}

/// Each code section's 64-bit words in stream order, from the hex
/// comments of nvdisasm's listing (on SM50..SM62 the scheduling words
/// come between the instructions, as they do in the section).
fn listing_words(sass: &str) -> BTreeMap<String, Vec<u64>> {
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut section = None;
    for line in sass.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("//--------------------- .text.") {
            section = rest.split_whitespace().next().map(str::to_string);
            continue;
        }
        let Some(name) = &section else { continue };
        let mut rest = t;
        while let Some(at) = rest.find("/* 0x") {
            let hex = &rest[at + 5..];
            let end = hex.find(' ').unwrap_or(hex.len());
            let w = u64::from_str_radix(&hex[..end], 16).expect("hex comment");
            out.entry(name.clone()).or_default().push(w);
            rest = &hex[end..];
        }
    }
    out
}

fn hex(v: &Value) -> u64 {
    let s = v.as_str().expect("hex string");
    u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex word")
}

/// The text put back together from the parts.
fn rejoined(i: &Value) -> String {
    let mut s = String::new();
    if let Some(g) = i["guard"].as_str() {
        s.push_str(&format!("@{g} "));
    }
    s.push_str(i["mnemonic"].as_str().expect("mnemonic"));
    for m in i["modifiers"].as_array().expect("modifiers") {
        s.push('.');
        s.push_str(m.as_str().expect("modifier"));
    }
    let ops: Vec<&str> = i["operands"]
        .as_array()
        .expect("operands")
        .iter()
        .map(|o| o["text"].as_str().expect("operand text"))
        .collect();
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s
}

/// The control value an instruction's stream words give it: SM70+ bits
/// 105..127 of the word; SM50..SM62 its 21 bits of the scheduling word
/// before its group of three.
fn control_from(words: &[u64], k: usize, maxwell: bool) -> (Vec<u64>, u64) {
    if maxwell {
        let group = k / 3;
        let sched = words[group * 4];
        let w = words[group * 4 + 1 + k % 3];
        (vec![w], sched >> (21 * (k % 3)) & 0x1f_ffff)
    } else {
        let (lo, hi) = (words[2 * k], words[2 * k + 1]);
        (vec![lo, hi], hi >> 41)
    }
}

#[test]
fn json_matches_the_listing_words_and_text() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_json");
    std::fs::create_dir_all(&tmp).expect("tmp dir");
    let mut per_sm: BTreeMap<u32, (usize, usize, usize)> = BTreeMap::new();
    for (sm, cubin, sass) in cubins() {
        let path = tmp.join(format!("sm{sm}.cubin"));
        std::fs::write(&path, common::gunzip(&cubin)).expect("write cubin");
        let words = listing_words(&String::from_utf8(common::gunzip(&sass)).expect("utf-8"));
        let out = common::nak(&["dis", "--json", path.to_str().expect("path")]);
        let mut k_of: BTreeMap<String, usize> = BTreeMap::new();
        let counts = per_sm.entry(sm).or_default();
        counts.0 += 1;
        for line in out.lines() {
            let i: Value = serde_json::from_str(line).expect("one JSON object per line");
            let kernel = i["kernel"].as_str().expect("a cubin's kernel").to_string();
            let k = k_of.entry(kernel.clone()).or_default();
            let section = words.get(&kernel).unwrap_or_else(|| panic!("{kernel}"));
            let maxwell = sm < 70;
            let (want_words, want_ctrl) = control_from(section, *k, maxwell);
            let got: Vec<u64> = i["words"]
                .as_array()
                .expect("words")
                .iter()
                .map(hex)
                .collect();
            let at = format!("{} {kernel} {}", cubin.display(), i["addr"]);
            assert_eq!(got, want_words, "{at}: words");
            let stride = if maxwell {
                8 * (*k / 3 * 4 + 1 + *k % 3)
            } else {
                16 * *k
            };
            assert_eq!(i["addr"].as_u64(), Some(stride as u64), "{at}: address");
            assert_eq!(
                i["control"]["raw"].as_u64(),
                Some(want_ctrl),
                "{at}: control"
            );
            *k += 1;
            counts.1 += 1;
            if let Some(text) = i["text"].as_str() {
                let m = i["mnemonic"].as_str().expect("mnemonic");
                assert!(
                    !m.is_empty() && !m.contains(' '),
                    "{at}: text not split: {text}"
                );
                // nvdisasm leaves the comma out between some operands
                // (`BRX R3 -0x478`).
                let bare = |t: &str| {
                    t.replace(',', "")
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                assert_eq!(bare(&rejoined(&i)), bare(text), "{at}: parts of the text");
                counts.2 += 1;
            }
        }
        for (kernel, n) in &k_of {
            let per = if sm < 70 { 4.0 / 3.0 } else { 2.0 };
            let want = (words[kernel].len() as f64 / per).round() as usize;
            assert_eq!(*n, want, "{}: {kernel}: instructions", cubin.display());
        }
        assert_eq!(k_of.len(), words.len(), "{}: kernels", cubin.display());
    }
    assert!(per_sm.len() >= 10, "cubins of {} SMs", per_sm.len());
    for (sm, (files, n, known)) in per_sm {
        eprintln!(
            "--json SM{sm}: {files} cubins, {n} instructions ({known} decoded) match nvdisasm's words"
        );
    }
}

#[test]
fn json_kinds_and_a_raw_stream() {
    // `IMAD.MOV.U32 R2, RZ, RZ, 0x1` and `@P0 EXIT` on SM75, as nvdisasm
    // reads them; a raw stream has no kernel.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_json_raw.bin");
    let text = "IMAD.MOV.U32 R2, RZ, RZ, 0x1\n@P0 EXIT\nLDS R4, [R2+0x10]\n";
    let src = tmp.with_extension("s");
    std::fs::write(&src, text).expect("write");
    common::nak(&[
        "asm",
        "--sm",
        "75",
        src.to_str().unwrap(),
        "-o",
        tmp.to_str().unwrap(),
    ]);
    let out = common::nak(&["dis", "--json", "--sm", "75", tmp.to_str().unwrap()]);
    let all: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(all.len(), 3);
    assert!(all[0]["kernel"].is_null());
    assert_eq!(all[0]["mnemonic"], "IMAD");
    assert_eq!(all[0]["modifiers"], serde_json::json!(["MOV", "U32"]));
    let kinds: Vec<&str> = all[0]["operands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["register", "register", "register", "immediate"]);
    assert_eq!(all[1]["guard"], "P0");
    assert_eq!(all[1]["mnemonic"], "EXIT");
    assert_eq!(all[2]["operands"][1]["kind"], "memory");
    assert_eq!(all[2]["addr"], 32);
}
