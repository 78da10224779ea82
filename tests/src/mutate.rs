//! Mutated words for the off-the-happy-path checks (issue 23 item 2):
//! real instruction words of an SM with one to three random bits flipped
//! outside the opcode and the control bits. `tests/tests/oracle_mutated.rs`
//! checks them against nvdisasm; `examples/mutated_gaps.rs` explains the
//! words nvdisasm prints and the spec does not decode.

use crate::rng::Rng;
use nak::isa;

/// A mutated word and the word it came from.
#[derive(Clone, Copy, Debug)]
pub struct Mutated {
    pub base: u128,
    pub word: u128,
}

/// `count` mutated words of `sm`, the same on every run.
pub fn mutated_words(sm: u32, count: usize) -> Vec<Mutated> {
    let family = isa::family_of(sm).expect("covered SM");
    // Opcode bits stay: SM70+ bits 0..12; Maxwell's opcodes start at 52.
    let (lo, hi) = match family.control_in_word() {
        Some((ctrl, _)) => (12, u64::from(ctrl)),
        None => (0, 52),
    };
    // The control bits are neutral: which sources may be `.reuse` depends
    // on the form, and a flip may change the form (the control bits have
    // their own tests).
    let ctrl = nak::runtime::control::word_mask(family);
    let neutral = family
        .control_in_word()
        .map_or(0, |(lo, _)| u128::from(family.neutral_control()) << lo);
    let bases: Vec<u128> = base_words(sm)
        .into_iter()
        .map(|w| w & !ctrl | neutral)
        .collect();
    let mut rng = Rng(0x6d75_7461_6e74 ^ u64::from(sm));
    (0..count)
        .map(|_| {
            let base = bases[(rng.next_u64() % bases.len() as u64) as usize];
            let mut word = base;
            for _ in 0..=rng.next_u64() % 3 {
                word ^= 1u128 << (lo + rng.next_u64() % (hi - lo));
            }
            Mutated { base, word }
        })
        .collect()
}

/// The corpus words of `sm` (every corpus file of that SM), else the
/// distinct instruction words of its ptxas kernels, else sampled words of
/// every form.
fn base_words(sm: u32) -> Vec<u128> {
    let family = isa::family_of(sm).expect("covered SM");
    let mut out = Vec::new();
    for (stem, s) in crate::corpus::files() {
        if s != sm {
            continue;
        }
        let text = crate::corpus::read(&stem).expect("corpus reads");
        out.extend(
            text.lines()
                .filter_map(|l| nak::dis::stream::parse_word_hex(l.split('\t').next()?, family)),
        );
    }
    if out.is_empty() {
        out = kernel_words(sm);
    }
    if out.is_empty() {
        out = nak::runtime::sample::sample_words(sm, &[], 1, 0x6d75);
    }
    out
}

/// The distinct instruction words of `sm`'s kernels in `tests/kernels`
/// (the stream walk leaves SM50..SM62's scheduling words out).
fn kernel_words(sm: u32) -> Vec<u128> {
    let kernels = crate::kernels::all().expect("tests/kernels reads");
    let mut words = std::collections::BTreeSet::new();
    for k in kernels.iter().filter(|k| k.sm == sm) {
        nak::dis::stream::for_each_word(sm, &k.code, |_, w, _, _| {
            words.insert(w);
        })
        .expect("a ptxas kernel is a whole stream");
    }
    words.into_iter().collect()
}

/// The mnemonic of an nvdisasm text, guard left out.
pub fn mnemonic(text: &str) -> String {
    let t = text.trim();
    let t = match t.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map_or(rest, |x| x.1),
        None => t,
    };
    t.split([' ', '.']).next().unwrap_or("").to_string()
}
