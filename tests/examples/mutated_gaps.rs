//! Why nvdisasm prints mutated words the spec does not decode: for each
//! such word (as `tests/tests/oracle_mutated.rs` makes them), the
//! smallest set of its flipped bits whose flip back gives a word the spec
//! decodes to nvdisasm's text for the mutated word. Those bits are ones
//! nvdisasm ignores in that form (a candidate for the encoding's
//! `ignored` list, on the SMs listed); words no flip back explains are
//! forms or values the spec does not have. Prints both, most frequent
//! first.
//!
//! `cargo run --release -p isa-tests --example mutated_gaps [PER_SM]`

use isa_tests::mutate::{mnemonic, mutated_words};
use isa_tests::oracle::{Oracle, address_of};
use nak::isa;
use std::collections::{BTreeMap, BTreeSet};

/// Words one explanation covers: count, SMs, an example.
#[derive(Default)]
struct Seen {
    count: usize,
    sms: BTreeSet<u32>,
    example: String,
}

fn main() {
    let per_sm: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000);
    let oracle = Oracle::get().unwrap_or_else(|e| panic!("nvdisasm is needed: {e}"));
    let forms = form_locations();
    // `NAK_GAPS_ALL=BRA`: also print every missing word of that mnemonic.
    let dump = std::env::var("NAK_GAPS_ALL").ok();
    let mut ignored: BTreeMap<(String, u32), Seen> = BTreeMap::new();
    let mut missing: BTreeMap<String, Seen> = BTreeMap::new();
    for &sm in isa::ALL_SMS {
        let muts = mutated_words(sm, per_sm);
        let words: Vec<u128> = muts.iter().map(|m| m.word).collect();
        let theirs = oracle.disassemble(sm, &words);
        for (i, (m, nv)) in muts.iter().zip(&theirs).enumerate() {
            let Ok(text) = nv else { continue };
            if isa::decode(m.word, sm).is_some() || text.contains("INVALID") || text.contains("???")
            {
                continue;
            }
            let addr = address_of(sm, i);
            let seen = match explain(m.base ^ m.word, m.word, sm, addr, text) {
                Some((op, id, bit)) => {
                    let loc = forms
                        .get(&(op.to_string(), id))
                        .cloned()
                        .unwrap_or_default();
                    ignored.entry((format!("{loc} {op}"), bit)).or_default()
                }
                None => {
                    if dump.as_deref() == Some(mnemonic(text).as_str()) {
                        println!("missing SM{sm} {:#034x} `{text}`", m.word);
                    }
                    missing.entry(mnemonic(text)).or_default()
                }
            };
            seen.count += 1;
            seen.sms.insert(sm);
            if seen.example.is_empty() {
                seen.example = format!("SM{sm} {:#x} `{text}`", m.word);
            }
        }
        eprintln!("SM{sm} done");
    }
    println!("# bits nvdisasm ignores where the spec fixes them (encoding, op, bit)");
    print_sorted(
        ignored
            .iter()
            .map(|((k, b), s)| (format!("{k} bit {b}"), s)),
    );
    println!("# forms or values the spec does not have (mnemonic)");
    print_sorted(missing.iter().map(|(k, s)| (k.clone(), s)));
}

/// The one flipped bit whose flip back decodes to `text`: the op, its
/// form id and the bit. Single bits only: a word two flips away from a
/// decodable one is counted as missing.
fn explain(
    flipped: u128,
    word: u128,
    sm: u32,
    addr: u64,
    text: &str,
) -> Option<(&'static str, u8, u32)> {
    (0..128).filter(|b| flipped >> b & 1 == 1).find_map(|b| {
        let (op, c) = isa::decode(word ^ 1u128 << b, sm)?;
        let mut s = op.text(&c, sm, addr);
        nak::runtime::print::normalize_in_place(&mut s);
        let form = isa::form_of(sm, &op)?;
        (s == text).then_some((op.name(), form.id, b))
    })
}

fn print_sorted<'a>(rows: impl Iterator<Item = (String, &'a Seen)>) {
    let mut rows: Vec<_> = rows.collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1.count));
    for (k, s) in rows {
        let sms: Vec<String> = s.sms.iter().map(u32::to_string).collect();
        println!(
            "{:5}  {k}  SM{}  e.g. {}",
            s.count,
            sms.join(","),
            s.example
        );
    }
}

/// `FILE:LINE` of each (op, form id)'s `[[encoding]]`.
fn form_locations() -> BTreeMap<(String, u8), String> {
    let dir = isa_tests::oracle::workspace_dir().join("isa-spec/spec");
    let loaded = isa_spec::load(&dir, "isa-spec/spec");
    let spec = loaded.spec.expect("the spec loads");
    let mut out = BTreeMap::new();
    for op in &spec.ops {
        for (id, enc, _) in isa_tests::forms::with_ids(op) {
            let file = loaded.files.get(enc.loc.file);
            let (line, _) = file.line_col(enc.loc.span.start);
            out.insert((op.name.clone(), id), format!("{}:{line}", file.path));
        }
    }
    out
}
