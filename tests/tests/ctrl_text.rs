//! `nak dis --ctrl` prints each instruction's control bits as a field that
//! `nak asm` reads back: corpus words of every SM, with their own control
//! bits on Volta and later and varied ones in Maxwell's scheduling words,
//! assemble from the listing to the same bytes.

use isa_tests::corpus;
use nak::dis::listing::{assemble, disassemble_reader_with};
use nak::dis::stream::{encode_stream, parse_word_hex};
use nak::isa::family_of;

/// Words per corpus file: every form the file shows early on, while the
/// suite stays short (the asm round trip reads every word).
const WORDS: usize = 4_000;

fn round_trip(stem: &str, sm: u32) {
    let family = family_of(sm).expect("family");
    let text = corpus::read(stem).expect("corpus");
    let words: Vec<(u128, u32)> = text
        .lines()
        .filter_map(|l| parse_word_hex(l.split('\t').next()?, family))
        .take(WORDS)
        .enumerate()
        .map(|(i, w)| (w, (i as u32).wrapping_mul(2_654_435_761) & 0x1f_ffff))
        .collect();
    let nop = nak::dis::stream::nop_word(sm);
    let bytes = encode_stream(sm, &words, nop).expect("stream");
    // A word the text does not say whole (bits nvdisasm ignores) assembles
    // to its canonical form, so the check is on the control fields and
    // texts, and on the canonical stream assembling to itself.
    let listing = dis_ctrl(stem, sm, &bytes);
    let canonical = asm(stem, sm, &listing);
    let again = dis_ctrl(stem, sm, &canonical);
    for (i, (a, b)) in listing.lines().zip(again.lines()).enumerate() {
        assert_eq!(
            body(a),
            body(b),
            "{stem}: line {}: control field or text",
            i + 1
        );
    }
    assert_eq!(listing.lines().count(), again.lines().count(), "{stem}");
    let back = asm(stem, sm, &again);
    if back != canonical {
        let wb = (family.width() / 8) as usize;
        let at = back
            .iter()
            .zip(&canonical)
            .position(|(a, b)| a != b)
            .unwrap_or(back.len().min(canonical.len()));
        panic!(
            "{stem}: the stream differs at byte {at:#x} (instruction slot {}): {}",
            at / wb,
            again.lines().nth(at / wb).unwrap_or("")
        );
    }
}

/// A listing line without its hex column.
fn body(line: &str) -> &str {
    line.split_once('\t').map_or(line, |x| x.1)
}

/// `nak dis --ctrl` of a stream.
fn dis_ctrl(stem: &str, sm: u32, bytes: &[u8]) -> String {
    let mut listing = Vec::new();
    let unknown =
        disassemble_reader_with(sm, &mut &bytes[..], &mut listing, true).expect("dis --ctrl");
    assert_eq!(unknown, 0, "{stem}: every corpus word decodes");
    String::from_utf8(listing).expect("utf-8")
}

/// `nak asm` of a listing; every line must assemble.
fn asm(stem: &str, sm: u32, listing: &str) -> Vec<u8> {
    match assemble(sm, listing) {
        Ok(a) => {
            // ptxas code keeps every rule: no warning either.
            assert_eq!(a.warnings, [], "{stem}: warnings on ptxas code");
            a.bytes
        }
        Err(errs) => {
            let lines: Vec<&str> = listing.lines().collect();
            let shown: Vec<String> = errs
                .iter()
                .take(5)
                .map(|e| format!("line {}: {} in `{}`", e.line, e.message, lines[e.line - 1]))
                .collect();
            panic!(
                "{stem}: {} lines do not assemble:\n{}",
                errs.len(),
                shown.join("\n")
            );
        }
    }
}

#[test]
fn dis_ctrl_then_asm_round_trips_every_sm() {
    for (stem, sm) in corpus::files() {
        round_trip(&stem, sm);
    }
}
