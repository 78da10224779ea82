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
                        if differs { "reassembles differently" } else { "reassembles to itself" },
                        if non { "non-canonical" } else { "canonical" },
                        &old[a..a + wb],
                        &new[a..a + wb]
                    ));
                }
            }
            // The rest: Maxwell's scheduling words.
            for a in (0..old.len()).step_by(wb).filter(|a| !words.contains(a)) {
                if old[a..a + wb] != new[a..a + wb] {
                    wrong.push(format!("{sm}/{name} {} {a:#06x}: scheduling word differs", t.name));
                }
            }
        }
    }
    for (sm, (i, d)) in &per_sm {
        println!("{sm}: {i} instructions reassembled, {d} non-canonical words come back canonical");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
