//! `nak asm --cubin` (`nak::cubin::patch`) on the cubins of
//! `tests/cubins`: the unedited listing gives the cubin back byte for byte;
//! every listed text, labels resolved, assembles at its address (and the
//! words that come back different are only the ones whose bits the text
//! does not show, counted per SM); an edited instruction changes only its
//! own bytes (and, on Maxwell, its scheduling-word slot when a control
//! field is given), and nvdisasm prints the edit; a listing that does not
//! fit is an error naming its line.
//!
//! The nvdisasm check needs nvdisasm as `oracle.rs` does
//! (`NAK_SKIP_ORACLE=1` skips it and says so).

use isa_tests::oracle::{Oracle, normalize};
use nak::cubin::patch;
use std::io::Read;
use std::path::{Path, PathBuf};

fn cubins_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cubins")
}

/// Every stored cubin: (SM directory, name, bytes).
fn stored_cubins() -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(cubins_dir())
        .expect("tests/cubins")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .collect();
    dirs.sort_by_key(|e| e.file_name());
    for d in dirs {
        let mut files: Vec<_> = std::fs::read_dir(d.path())
            .expect("sm dir")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".cubin.gz"))
            .collect();
        files.sort_by_key(|e| e.file_name());
        for f in files {
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(f.path()).expect("open"))
                .read_to_end(&mut bytes)
                .expect("gunzip");
            out.push((
                d.file_name().to_string_lossy().into_owned(),
                f.file_name().to_string_lossy().into_owned(),
                bytes,
            ));
        }
    }
    out
}

fn listing(bytes: &[u8]) -> String {
    nak::cubin::disassemble(bytes, None).expect("listing").0
}

fn errs(e: &[nak::dis::listing::AsmFileError]) -> String {
    e.iter()
        .map(|e| format!("{}:{}: {}", e.line, e.col, e.message))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn unedited_listings_give_the_cubins_back() {
    let cubins = stored_cubins();
    assert!(!cubins.is_empty(), "no cubins in tests/cubins");
    let mut per_sm: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for (sm, name, bytes) in &cubins {
        let p = patch::patch(bytes, &listing(bytes))
            .unwrap_or_else(|e| panic!("{sm}/{name}:\n{}", errs(&e)));
        assert!(p.bytes == *bytes, "{sm}/{name}: the output differs");
        assert_eq!(p.rewritten, 0, "{sm}/{name}");
        let e = per_sm.entry(sm.clone()).or_default();
        e.0 += 1;
        e.1 += p.instructions;
    }
    for (sm, (n, i)) in &per_sm {
        println!("{sm}: {n} cubins, {i} instructions byte-identical");
    }
}

/// Reassembling every listed text (labels resolved) at its address gives
/// each word back but those the canonical check finds non-canonical
/// (bits the text does not show); scheduling words all come back.
#[test]
fn every_listed_text_assembles_at_its_address() {
    use nak::dis::canonical::{Verdict, check_stream};
    let mut per_sm: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    let mut wrong = Vec::new();
    for (sm, name, bytes) in &stored_cubins() {
        let text = listing(bytes);
        let p = patch::reassemble_all(bytes, &text)
            .unwrap_or_else(|e| panic!("{sm}/{name}:\n{}", errs(&e)));
        assert_eq!(p.bytes.len(), bytes.len());
        let cubin = nak::cubin::elf::Cubin::parse(bytes).expect("cubin");
        let family = nak::isa::family_of(cubin.sm).expect("family");
        let wb = (family.width() / 8) as usize;
        let e = per_sm.entry(sm.clone()).or_default();
        e.0 += p.instructions;
        for t in &cubin.texts {
            let base = t.offset as usize;
            let old = &bytes[base..base + t.data.len()];
            let new = &p.bytes[base..base + t.data.len()];
            let verdicts = check_stream(cubin.sm, t.data).expect("stream");
            let mut words = std::collections::HashSet::new();
            for (d, v) in &verdicts {
                let a = d.addr as usize;
                words.insert(a);
                let differs = old[a..a + wb] != new[a..a + wb];
                let non = matches!(v, Verdict::NonCanonical { .. });
                e.1 += usize::from(differs);
                if differs != non {
                    wrong.push(format!(
                        "{sm}/{name} {} {a:#06x}: {} (canonical check: {}) {:02x?} {:02x?}",
                        t.name,
                        if differs {
                            "reassembles differently"
                        } else {
                            "reassembles to itself"
                        },
                        if non { "non-canonical" } else { "canonical" },
                        &old[a..a + wb],
                        &new[a..a + wb]
                    ));
                }
            }
            // The rest: Maxwell's scheduling words.
            for a in (0..old.len()).step_by(wb).filter(|a| !words.contains(a)) {
                if old[a..a + wb] != new[a..a + wb] {
                    wrong.push(format!(
                        "{sm}/{name} {} {a:#06x}: scheduling word differs",
                        t.name
                    ));
                }
            }
        }
    }
    for (sm, (i, d)) in &per_sm {
        println!("{sm}: {i} instructions reassembled, {d} non-canonical words come back canonical");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The stored cubin `sm_NN/NAME.cubin.gz`.
fn stored(dir: &str, name: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    let path = cubins_dir().join(dir).join(format!("{name}.cubin.gz"));
    flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("open"))
        .read_to_end(&mut bytes)
        .expect("gunzip");
    bytes
}

/// One edit of a listing: the first unguarded single instruction (no
/// `.reuse`, no dual-issue brace) whose first operand is a register `Rn`
/// gets `R(n+1)`, and `ctrl` before its text when given. The listing,
/// the section, address and the new text.
fn edit_a_register(listing: &str, ctrl: Option<&str>) -> (String, String, u64, String) {
    let mut section = String::new();
    let mut lines: Vec<String> = listing.lines().map(str::to_string).collect();
    for line in lines.iter_mut() {
        if let Some(rest) = line.trim().strip_prefix(".section\t") {
            section = rest.split(',').next().unwrap_or("").to_string();
        }
        let Some((head, rest)) = line.split_once("*/") else {
            continue;
        };
        let Some(addr) = head
            .trim()
            .strip_prefix("/*")
            .and_then(|h| u64::from_str_radix(h, 16).ok())
        else {
            continue;
        };
        let Some((text, hex)) = rest.split_once(" ;") else {
            continue;
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        if text.contains(['{', '}', '@']) || text.contains(".reuse") || words.len() < 3 {
            continue;
        }
        let Some(n) = words[1]
            .strip_prefix('R')
            .and_then(|r| r.strip_suffix(','))
            .and_then(|r| r.parse::<u32>().ok())
            .filter(|&n| n < 200)
        else {
            continue;
        };
        let mut new_words = words.clone();
        let reg = format!("R{},", n + 1);
        new_words[1] = &reg;
        let new_text = new_words.join(" ");
        let field = ctrl.map_or(String::new(), |c| format!("{c} "));
        // The stale hex stays: the text is what counts.
        *line = format!("{head}*/ {field}{new_text} ;{hex}");
        return (lines.join("\n") + "\n", section, addr, new_text);
    }
    panic!("no instruction to edit in the listing");
}

/// Byte offsets where `a` and `b` differ.
fn diff(a: &[u8], b: &[u8]) -> Vec<usize> {
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

/// nvdisasm's text at `addr` of `section` in `cubin`.
fn nvdisasm_text(oracle: &Oracle, sm: u32, cubin: &[u8], section: &str, addr: u64) -> String {
    let path = std::env::temp_dir().join(format!("nak-patch-{}-{sm}.cubin", std::process::id()));
    std::fs::write(&path, cubin).expect("write temp cubin");
    let out = std::process::Command::new(oracle.nvdisasm(sm))
        .args(["-c", "-hex"])
        .arg(&path)
        .output()
        .expect("run nvdisasm");
    let _ = std::fs::remove_file(&path);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !err.contains("error"),
        "nvdisasm: {err}"
    );
    let mut in_section = false;
    let tag = format!("/*{addr:04x}*/");
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix(".section\t") {
            in_section = rest.trim().starts_with(&format!("{section},"));
        }
        if in_section && line.trim().starts_with(&tag) {
            return normalize(line);
        }
    }
    panic!("nvdisasm lists no {section} {addr:#x}");
}

/// Edit one instruction of an SM90 and an SM50 cubin (Maxwell also with a
/// control field): only its bytes change (and its scheduling-word slot
/// with the control field), and nvdisasm prints the edit.
#[test]
fn an_edit_changes_only_its_instruction() {
    let skip_oracle = std::env::var("NAK_SKIP_ORACLE").is_ok_and(|v| v == "1");
    let oracle = if skip_oracle {
        println!("SKIPPED: the nvdisasm check of the patched cubins, because NAK_SKIP_ORACLE=1");
        None
    } else {
        Some(Oracle::get().unwrap_or_else(|e| {
            panic!("nvdisasm is needed for this test and is missing: {e}\n(set NAK_SKIP_ORACLE=1 to skip it, and say so)")
        }))
    };
    // A stall of 13 with the yield bit clear, as ptxas writes long stalls.
    let ctrl_field = "[B------:R-:W-:Y:S13]";
    for (dir, name, ctrl) in [
        ("sm_90", "control", None),
        ("sm_90", "control", Some(ctrl_field)),
        ("sm_50", "control", None),
        ("sm_50", "control", Some(ctrl_field)),
    ] {
        let bytes = stored(dir, name);
        let cubin = nak::cubin::elf::Cubin::parse(&bytes).expect("cubin");
        let family = nak::isa::family_of(cubin.sm).expect("family");
        let wb = (family.width() / 8) as usize;
        let (text, section, addr, new_text) = edit_a_register(&listing(&bytes), ctrl);
        let p =
            patch::patch(&bytes, &text).unwrap_or_else(|e| panic!("{dir}/{name}:\n{}", errs(&e)));
        assert_eq!(p.rewritten, 1);
        let sec = cubin
            .texts
            .iter()
            .find(|t| t.name == section)
            .expect("section");
        let at = sec.offset as usize + addr as usize;
        let sched = family.bundle().map(|n| {
            let group = wb * (n as usize + 1);
            let g = sec.offset as usize + addr as usize / group * group;
            let slot = (addr as usize % group) / wb - 1;
            (g, slot)
        });
        // The instruction's bytes, and its scheduling word when a control
        // field was given.
        let allowed = |i: usize| {
            (at..at + wb).contains(&i)
                || matches!((sched, ctrl), (Some((g, _)), Some(_)) if (g..g + 8).contains(&i))
        };
        let changed = diff(&bytes, &p.bytes);
        assert!(!changed.is_empty(), "{dir}/{name}: nothing changed");
        for i in &changed {
            assert!(
                allowed(*i),
                "{dir}/{name}: byte {i:#x} changed, outside the edited instruction at {at:#x}"
            );
        }
        // The control field lands in the instruction's control bits.
        if let Some(c) = ctrl {
            let (want, _) = nak::runtime::control::parse_ctrl_text(family, c).expect("ctrl");
            let got = match (sched, family.control_in_word()) {
                (Some((g, slot)), _) => {
                    let bits = family.control_slot_bits().expect("slot bits");
                    let sw = u64::from_le_bytes(p.bytes[g..g + 8].try_into().expect("8 bytes"));
                    (sw >> (bits as usize * slot)) as u32 & ((1 << bits) - 1)
                }
                (None, Some((lo, w))) => {
                    let word = u128::from_le_bytes(p.bytes[at..at + 16].try_into().expect("16"));
                    (word >> lo) as u32 & ((1 << w) - 1)
                }
                (None, None) => unreachable!("a family keeps its control bits somewhere"),
            };
            assert_eq!(got, want, "{dir}/{name}: control bits");
        }
        if let Some(o) = oracle {
            let printed = nvdisasm_text(o, cubin.sm, &p.bytes, &section, addr);
            assert_eq!(printed, normalize(&new_text), "{dir}/{name}");
        }
        println!(
            "{dir}/{name} {section} {addr:#06x}: {new_text} ({} bytes changed)",
            changed.len()
        );
    }
}
