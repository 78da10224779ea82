//! Every word the decoder accepts comes back from its own text (issue 23
//! item 1): `asm(print(decode(w)))` is `w`, or the word is non-canonical
//! (it differs only in bits the text does not show, and `nak dis
//! --check-canonical` names them). Checked on every corpus word and on
//! corpus words with one to three bits flipped below the control bits,
//! which reach registers, modifier values and combinations ptxas never
//! writes (a misaligned 64-bit register, a trap): the assembler takes
//! those back too, with the warning the strict encoder's refusal gives.

use isa_tests::rng::Rng;
use nak::dis::canonical::{Verdict, verdict};
use nak::dis::stream::Decoded;
use nak::isa;

/// Mutated copies of each corpus word.
const MUTANTS: usize = 2;

#[derive(Default)]
struct Counts {
    words: usize,
    decoded: usize,
    canonical: usize,
    non_canonical: usize,
    /// Decoded words the backend's strict encoder refuses (assembled with
    /// a warning).
    warned: usize,
}

#[test]
fn every_decodable_word_assembles_back_from_its_text() {
    let mut broken = Vec::new();
    println!("SM       words  decoded  canonical  non-canonical  warned");
    for (stem, sm) in isa_tests::corpus::files() {
        let text = isa_tests::corpus::read(&stem).expect("corpus reads");
        let family = isa::family_of(sm).expect("corpus SM is covered");
        let below_ctrl = family.control_in_word().map_or(64, |(lo, _)| lo as u64);
        let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ u64::from(sm));
        let mut n = Counts::default();
        for line in text.lines() {
            let hex = line.split('\t').next().unwrap_or("");
            let word = nak::dis::stream::parse_word_hex(hex, family).expect("corpus hex");
            for k in 0..=MUTANTS {
                let mut w = word;
                if k > 0 {
                    for _ in 0..=rng.next_u64() % 3 {
                        w ^= 1u128 << (rng.next_u64() % below_ctrl);
                    }
                }
                n.words += 1;
                let d = Decoded {
                    addr: 0,
                    word: w,
                    instr: isa::decode(w, sm),
                };
                let Some(v) = verdict(sm, &d) else { continue };
                n.decoded += 1;
                let (op, c) = d.instr.as_ref().expect("decoded");
                if op.encode(sm, c).is_err() {
                    n.warned += 1;
                }
                match v {
                    Verdict::Canonical => n.canonical += 1,
                    Verdict::NonCanonical { canonical, why } => {
                        n.non_canonical += 1;
                        assert!(!why.is_empty() && canonical != w, "{stem} {w:#x}");
                    }
                    Verdict::Broken { why } => {
                        let t = op.text(c, sm, 0);
                        broken.push(format!("{stem} {} {w:#034x} `{t}`: {why}", op.name()));
                    }
                }
            }
        }
        println!(
            "{stem:8} {:7} {:8} {:10} {:14} {:6}",
            n.words, n.decoded, n.canonical, n.non_canonical, n.warned
        );
        // ptxas's own words need no warning.
        assert!(n.decoded > 0, "{stem}: nothing decoded");
    }
    for b in broken.iter().take(30) {
        println!("{b}");
    }
    assert!(
        broken.is_empty(),
        "{} decodable words do not come back from their text (first 30 above)",
        broken.len()
    );
}

/// ptxas's words keep every rule: the strict encoder takes each corpus
/// word back without a warning.
#[test]
fn ptxas_words_need_no_warning() {
    for (stem, sm) in isa_tests::corpus::files() {
        let text = isa_tests::corpus::read(&stem).expect("corpus reads");
        let family = isa::family_of(sm).expect("corpus SM is covered");
        for line in text.lines() {
            let hex = line.split('\t').next().unwrap_or("");
            let w = nak::dis::stream::parse_word_hex(hex, family).expect("corpus hex");
            let (op, c) = isa::decode(w, sm).expect("every corpus word decodes");
            if let Err(e) = op.encode(sm, &c) {
                panic!("{stem} {w:#x} `{}`: {e}", op.text(&c, sm, 0));
            }
        }
    }
}
