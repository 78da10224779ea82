//! Which fixed bits of each encoding nvdisasm ignores: for sampled words
//! of every form on every SM, each fixed bit is flipped; where the spec
//! then decodes nothing but nvdisasm prints the same text as for the
//! unflipped word, on every sample of every form and SM of the encoding
//! that fixes the bit, the bit belongs in the encoding's `ignored` list.
//! Prints `FILE:LINE<TAB>BITS` per encoding (the line of its
//! `[[encoding]]`); `scripts/sweep-ignored-bits.sh` runs it.
//!
//! `cargo run --release -p isa-tests --example ignored_bits [PER_FORM]`

use isa_spec::model::Bits;
use isa_tests::oracle::Oracle;
use nak::isa;
use std::collections::BTreeMap;

/// Per (op, form id): bits seen ignored on every sample so far, and
/// bits seen not ignored.
#[derive(Default, Clone, Copy)]
struct Seen {
    ignored: u128,
    not: u128,
    /// Bits whose flip the spec decodes (as another form) on some SM.
    decodes: u128,
}

fn main() {
    let per_form: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let oracle = Oracle::get().unwrap_or_else(|e| panic!("nvdisasm is needed: {e}"));
    let mut seen: BTreeMap<(&str, u8), Seen> = BTreeMap::new();
    for &sm in isa::ALL_SMS {
        sweep_sm(oracle, sm, per_form, &mut seen);
        eprintln!("SM{sm} swept");
    }
    report(&seen);
}

/// Flip each fixed bit of sampled words of every form on `sm`.
fn sweep_sm(oracle: &Oracle, sm: u32, per_form: usize, seen: &mut BTreeMap<(&str, u8), Seen>) {
    let family = isa::family_of(sm).expect("known SM");
    let below = family.control_in_word().map_or(64, |(lo, _)| lo);
    let mut base = Vec::new();
    let mut flipped = Vec::new();
    let mut what = Vec::new();
    for w in nak::runtime::sample::sample_words(sm, &[], per_form, 0x1b175) {
        let (op, _) = isa::decode(w, sm).expect("sampled words decode");
        let form = isa::form_of(sm, &op).expect("a decoded op has a form");
        let id = form.id;
        for b in 0..below {
            if form.mask >> b & 1 == 0 {
                continue;
            }
            let x = w ^ (1u128 << b);
            if isa::decode(x, sm).is_some() {
                seen.entry((op.name(), id)).or_default().decodes |= 1u128 << b;
                continue;
            }
            base.push(w);
            flipped.push(x);
            what.push((op.name(), id, b));
        }
    }
    let theirs = oracle.disassemble(sm, &base);
    let theirs_x = oracle.disassemble(sm, &flipped);
    for (i, &(op, id, b)) in what.iter().enumerate() {
        let s = seen.entry((op, id)).or_default();
        match (&theirs[i], &theirs_x[i]) {
            (Ok(a), Ok(x)) if a == x => s.ignored |= 1u128 << b,
            _ => s.not |= 1u128 << b,
        }
    }
}

/// One line per spec encoding with ignored bits.
fn report(seen: &BTreeMap<(&str, u8), Seen>) {
    let dir = isa_tests::oracle::workspace_dir().join("isa-spec/spec");
    let loaded = isa_spec::load(&dir, "isa-spec/spec");
    let spec = loaded.spec.expect("the spec loads");
    for op in &spec.ops {
        let mut id = 0u8;
        for enc in &op.encodings {
            let mut ignored = u128::MAX;
            let mut any = false;
            for form in &enc.forms {
                let fixed = form.fixed().0;
                match seen.get(&(op.name.as_str(), id)) {
                    // Bits this form fixes must be ignored here, not only
                    // untried (the flip decoded as another form).
                    Some(s) => {
                        ignored &= !(fixed & (s.not | s.decodes | !s.ignored));
                        any |= s.ignored & !s.not & !s.decodes != 0;
                    }
                    None => ignored &= !fixed,
                }
                id += 1;
            }
            let fixed_all = enc.forms.iter().fold(0, |a, f| a | f.fixed().0);
            let ignored = ignored & fixed_all;
            if any && ignored != 0 {
                let file = loaded.files.get(enc.loc.file);
                let (line, _) = file.line_col(enc.loc.span.start);
                println!("{}:{}\t{}", file.path, line, Bits::from_mask(ignored));
            }
        }
    }
}
