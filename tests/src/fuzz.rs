//! Fuzz targets on stable Rust: seeded loops that feed random and mutated
//! input to every entry point that reads user input, and fail on a panic
//! (issue 23 item 3). The suite runs each briefly (`tests/tests/fuzz.rs`);
//! `scripts/fuzz.sh TARGET SECONDS` runs one for longer with fresh seeds
//! (`tests/examples/fuzz.rs`). A failure names the target, the seed and the
//! input, so it can be replayed and kept as a regression test.

use crate::rng::Rng;
use nak::isa;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// The fuzz targets, by the name `scripts/fuzz.sh` takes.
pub const TARGETS: &[&str] = &["dis", "asm", "ir", "cubin", "spec"];

/// What one run of a target did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Inputs fed (words for `dis`, lines for `asm`, files otherwise).
    pub inputs: u64,
    /// Inputs the entry point accepted (decoded, assembled, parsed).
    pub accepted: u64,
}

/// Run `target` on `rounds` rounds of input from `seed`; `Err` names the
/// input that made it panic, or an error without a file and line.
pub fn run(target: &str, seed: u64, rounds: u64) -> Result<Stats, String> {
    let mut rng = Rng(seed | 1);
    let mut st = Stats::default();
    for round in 0..rounds {
        let r = match target {
            "dis" => dis_round(&mut rng, &mut st),
            "asm" => asm_round(&mut rng, &mut st),
            "ir" => ir_round(&mut rng, &mut st),
            "cubin" => cubin_round(&mut rng, &mut st),
            "spec" => spec_round(&mut rng, &mut st),
            _ => {
                return Err(format!(
                    "no fuzz target `{target}` ({})",
                    TARGETS.join(", ")
                ));
            }
        };
        r.map_err(|e| format!("{target}, seed {seed:#x}, round {round}: {e}"))?;
    }
    Ok(st)
}

/// `f(input)`, with a panic turned into an error naming the input.
fn guarded<T>(what: impl Fn() -> String, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("panicked ({msg}) on {}", what())
    })
}

/// A random SM the spec covers.
fn any_sm(rng: &mut Rng) -> u32 {
    isa::ALL_SMS[(rng.next_u64() % isa::ALL_SMS.len() as u64) as usize]
}

/// One corpus file: its SM, words and texts.
type CorpusFile = (u32, Vec<u128>, Vec<String>);

/// The corpus words of every corpus file, read once.
fn corpus() -> &'static [CorpusFile] {
    static C: std::sync::OnceLock<Vec<CorpusFile>> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        crate::corpus::files()
            .into_iter()
            .map(|(stem, sm)| {
                let family = isa::family_of(sm).expect("corpus SM covered");
                let text = crate::corpus::read(&stem).expect("corpus reads");
                let (mut words, mut lines) = (Vec::new(), Vec::new());
                for l in text.lines() {
                    let (hex, t) = l.split_once('\t').unwrap_or((l, ""));
                    if let Some(w) = nak::dis::stream::parse_word_hex(hex, family) {
                        words.push(w);
                        lines.push(t.to_string());
                    }
                }
                (sm, words, lines)
            })
            .collect()
    })
}

/// 256 words on one SM, half random and half corpus words with a few bits
/// flipped anywhere: decoded, printed, checked for the round trip, and
/// the same words as a raw stream cut at a random length.
fn dis_round(rng: &mut Rng, st: &mut Stats) -> Result<(), String> {
    let c = corpus();
    let (sm, words, _) = &c[(rng.next_u64() % c.len() as u64) as usize];
    let sm = if rng.next_u64().is_multiple_of(4) {
        any_sm(rng)
    } else {
        *sm
    };
    let family = isa::family_of(sm).expect("covered");
    let width = family.width();
    let mut batch = Vec::with_capacity(256);
    for i in 0..256 {
        let mut w = if i % 2 == 0 {
            u128::from(rng.next_u64()) | u128::from(rng.next_u64()) << 64
        } else {
            let mut w = words[(rng.next_u64() % words.len() as u64) as usize];
            for _ in 0..=rng.next_u64() % 4 {
                w ^= 1u128 << (rng.next_u64() % u64::from(width));
            }
            w
        };
        if width < 128 {
            w &= (1u128 << width) - 1;
        }
        batch.push(w);
    }
    for (i, &w) in batch.iter().enumerate() {
        st.inputs += 1;
        let addr = (i as u64) * 16;
        let d = guarded(
            || format!("word {w:#034x} on SM{sm}"),
            || {
                let instr = isa::decode(w, sm);
                let d = nak::dis::stream::Decoded {
                    addr,
                    word: w,
                    instr,
                };
                let v = nak::dis::canonical::verdict(sm, &d);
                (d.instr.is_some(), v)
            },
        )?;
        if d.0 {
            st.accepted += 1;
        }
        if let Some(nak::dis::canonical::Verdict::Broken { why }) = d.1 {
            return Err(format!(
                "word {w:#034x} on SM{sm} does not round-trip: {why}"
            ));
        }
    }
    let bytes: Vec<u8> = batch
        .iter()
        .flat_map(|w| w.to_le_bytes()[..(width / 8) as usize].to_vec())
        .collect();
    let cut = (rng.next_u64() % (bytes.len() as u64 + 1)) as usize;
    guarded(
        || format!("a {cut}-byte stream on SM{sm}"),
        || {
            let _ = nak::dis::listing::disassemble(sm, &bytes[..cut]);
            let _ = nak::check::check(sm, &bytes[..cut]);
        },
    )
}

/// 64 corpus lines, each mutated at the character level (a character
/// dropped, doubled, replaced or swapped, a token duplicated or dropped),
/// assembled one by one and as a listing.
fn asm_round(rng: &mut Rng, st: &mut Stats) -> Result<(), String> {
    let c = corpus();
    let (sm, _, lines) = &c[(rng.next_u64() % c.len() as u64) as usize];
    let mut listing = String::new();
    for _ in 0..64 {
        let line = &lines[(rng.next_u64() % lines.len() as u64) as usize];
        let m = mutate_text(rng, line);
        st.inputs += 1;
        let ok = guarded(
            || format!("`{m}` on SM{sm}"),
            || nak::dis::listing::assemble(*sm, &m).is_ok(),
        )?;
        if ok {
            st.accepted += 1;
        }
        listing.push_str(&m);
        listing.push('\n');
    }
    guarded(
        || format!("a listing on SM{sm}:\n{listing}"),
        || {
            let _ = nak::dis::listing::assemble(*sm, &listing);
        },
    )
}

/// Characters mutations draw from: what assembly and IR text is made of.
const ALPHABET: &[u8] = b" ,.[]+-|~!@:;{}()0123456789abcdefxRPUZTSBc_\t\n";

/// `s` with one to four character or token mutations.
pub fn mutate_text(rng: &mut Rng, s: &str) -> String {
    let mut b: Vec<u8> = s.as_bytes().to_vec();
    for _ in 0..=rng.next_u64() % 4 {
        let n = b.len().max(1) as u64;
        let at = (rng.next_u64() % n) as usize;
        let last = b.len().saturating_sub(1);
        let ch = ALPHABET[(rng.next_u64() % ALPHABET.len() as u64) as usize];
        match rng.next_u64() % 6 {
            0 if !b.is_empty() => {
                b.remove(at.min(last));
            }
            1 if !b.is_empty() => {
                let c = b[at.min(last)];
                b.insert(at.min(last), c);
            }
            2 if !b.is_empty() => b[at.min(last)] = ch,
            3 => b.insert(at.min(b.len()), ch),
            4 if b.len() > 1 => {
                let j = (rng.next_u64() % n) as usize;
                b.swap(at.min(last), j.min(last));
            }
            _ => {
                // A token (up to the next blank) doubled.
                let from = at.min(b.len());
                let end = b[from..]
                    .iter()
                    .position(|&c| c == b' ')
                    .map_or(b.len(), |p| from + p);
                let tok = b[from..end].to_vec();
                b.splice(from..from, tok);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// The text-IR files the tests and the README use, read once.
fn ir_texts() -> &'static [String] {
    static T: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    T.get_or_init(read_ir_texts)
}

fn read_ir_texts() -> Vec<String> {
    let ws = crate::oracle::workspace_dir();
    let mut out: Vec<String> = ["nak/cli/tests/data/store_pair.nak"]
        .iter()
        .filter_map(|p| std::fs::read_to_string(ws.join(p)).ok())
        .collect();
    out.push(
        ".sm 90\nbb0:\n    copy R1, 0x7\n    IADD3 R2, R1, R1, RZ\n    @P0 bra bb1\nbb1:\n    exit\n"
            .to_string(),
    );
    out
}

/// One text-IR function mutated, parsed, and (when it parses) legalized.
fn ir_round(rng: &mut Rng, st: &mut Stats) -> Result<(), String> {
    let texts = ir_texts();
    let t = &texts[(rng.next_u64() % texts.len() as u64) as usize];
    let m = mutate_text(rng, t);
    st.inputs += 1;
    let ok = guarded(
        || format!("IR text:\n{m}"),
        || match nak::backend::ir::text::parse_function(&m, Some(90)) {
            Ok(mut f) => {
                let _ = nak::backend::ir::text::print_function(&f);
                let _ = nak::backend::passes::legalize::legalize(&mut f);
                true
            }
            Err(_) => false,
        },
    )?;
    if ok {
        st.accepted += 1;
    }
    Ok(())
}

/// The project's test cubins, decompressed once.
fn cubins() -> &'static [Vec<u8>] {
    static C: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        let dir = crate::oracle::workspace_dir().join("tests/cubins");
        let mut out = Vec::new();
        for sm in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(sm.path()).into_iter().flatten().flatten() {
                let p = f.path();
                if p.to_string_lossy().ends_with(".cubin.gz") {
                    out.push(gunzip(&p));
                }
                if out.len() >= 24 {
                    return out;
                }
            }
        }
        out
    })
}

fn gunzip(p: &Path) -> Vec<u8> {
    use std::io::Read;
    let f = std::fs::File::open(p).expect("cubin opens");
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(f)
        .read_to_end(&mut out)
        .expect("cubin decompresses");
    out
}

/// A test cubin with bytes overwritten, truncated or extended, listed and
/// checked.
fn cubin_round(rng: &mut Rng, st: &mut Stats) -> Result<(), String> {
    let all = cubins();
    if all.is_empty() {
        return Err("no test cubins in tests/cubins".into());
    }
    let mut b = all[(rng.next_u64() % all.len() as u64) as usize].clone();
    for _ in 0..=rng.next_u64() % 8 {
        if b.is_empty() {
            break;
        }
        let at = (rng.next_u64() % b.len() as u64) as usize;
        match rng.next_u64() % 8 {
            0 => b.truncate(at),
            1 => b.extend((0..at % 64).map(|_| rng.next_u64() as u8)),
            // The header and section table, where a wrong value leads far.
            2 | 3 => {
                let h = (rng.next_u64() % 64) as usize;
                if h < b.len() {
                    b[h] = rng.next_u64() as u8;
                }
            }
            _ if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] = rng.next_u64() as u8;
            }
            _ => {}
        }
    }
    st.inputs += 1;
    let ok = guarded(
        || format!("a mutated cubin of {} bytes", b.len()),
        || {
            let ok = nak::cubin::disassemble(&b, None).is_ok();
            if let Ok(c) = nak::cubin::elf::Cubin::parse(&b) {
                for t in &c.texts {
                    let _ = nak::check::check(c.sm, t.data);
                }
            }
            ok
        },
    )?;
    if ok {
        st.accepted += 1;
    }
    Ok(())
}

/// A copy of the spec in a temporary directory, made once per process.
fn spec_copy() -> &'static Path {
    static D: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let src = crate::oracle::workspace_dir().join("isa-spec/spec");
        let dst = std::env::temp_dir().join(format!("nak-fuzz-spec-{}", std::process::id()));
        copy_dir(&src, &dst);
        dst
    })
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("temp spec dir");
    for e in std::fs::read_dir(src).expect("spec dir").flatten() {
        let p = e.path();
        let to = dst.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &to);
        } else {
            std::fs::copy(&p, &to).expect("copy spec file");
        }
    }
}

/// The TOML files of [`spec_copy`], sorted, listed once.
fn spec_files() -> &'static [PathBuf] {
    static F: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    F.get_or_init(|| {
        let mut files = Vec::new();
        toml_files(spec_copy(), &mut files);
        files.sort();
        files
    })
}

/// The spec's TOML files under `dir`.
fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// One spec file mutated at the character level (or a line dropped or
/// doubled), the spec loaded and linted: no panic, and every diagnostic
/// names a file and line. The file is restored afterwards.
fn spec_round(rng: &mut Rng, st: &mut Stats) -> Result<(), String> {
    let dir = spec_copy();
    let files = spec_files();
    let f = &files[(rng.next_u64() % files.len() as u64) as usize];
    let orig = std::fs::read_to_string(f).map_err(|e| e.to_string())?;
    let mut lines: Vec<String> = orig.lines().map(str::to_string).collect();
    for _ in 0..=rng.next_u64() % 2 {
        let at = (rng.next_u64() % lines.len().max(1) as u64) as usize;
        match rng.next_u64() % 4 {
            0 if !lines.is_empty() => {
                lines.remove(at);
            }
            1 if !lines.is_empty() => {
                let l = lines[at].clone();
                lines.insert(at, l);
            }
            _ if !lines.is_empty() => lines[at] = mutate_text(rng, &lines[at]),
            _ => {}
        }
    }
    let text = lines.join("\n") + "\n";
    std::fs::write(f, &text).map_err(|e| e.to_string())?;
    st.inputs += 1;
    let name = f.strip_prefix(dir).unwrap_or(f).display().to_string();
    let loaded = guarded(
        || format!("{name} mutated to:\n{text}"),
        || isa_spec::load(dir, "spec"),
    );
    std::fs::write(f, &orig).map_err(|e| e.to_string())?;
    let loaded = loaded?;
    if let Some(d) = loaded.report.diagnostics.iter().find(|d| d.loc.is_none()) {
        return Err(format!(
            "{name}: a diagnostic without file and line: {}",
            d.short(&loaded.files)
        ));
    }
    if loaded.spec.is_some() && loaded.report.diagnostics.is_empty() {
        st.accepted += 1;
    }
    Ok(())
}
