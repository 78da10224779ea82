//! The assembler reads back what the printer writes, bit for bit: for
//! sampled words of every form on every SM, print -> parse -> encode gives
//! the same word back (control bits aside), except the bits the text does
//! not carry, which must come back as the spec says the assembler writes
//! them: raw fields at their `?=` value, and each form's `hidden` rules
//! (an operand a modifier hides, a part selector of a 32-bit type, a NaN's
//! payload, ...; `FormInfo::canonical_word`, derived from the spec by
//! codegen's `hidden.rs`).

use nak::isa;

/// Words sampled per form and SM: enough to draw the hidden cases (a NaN
/// immediate, a carry-out only in the second slot) of every form.
const PER_FORM: usize = 128;

#[test]
fn printed_text_assembles_to_the_same_word() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for &sm in isa::ALL_SMS {
        for w in nak::runtime::sample::sample_words(sm, &[], PER_FORM, 99) {
            checked += 1;
            if let Err(e) = round_trip(sm, w) {
                failures.push(e);
            }
        }
    }
    println!(
        "asm round trip: {checked} instructions, {} failed",
        failures.len()
    );
    for f in failures.iter().take(40) {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} failed (first 40 above)",
        failures.len()
    );
}

/// Print `w`, parse the text, encode it: the canonical word of `w`, or
/// what went wrong (op, form, SM, word, text and the differing bits).
fn round_trip(sm: u32, w: u128) -> Result<(), String> {
    let (op, c) = isa::decode(w, sm).expect("sampled word decodes");
    let form = isa::form_of(sm, &op).expect("a decoded op has a form");
    let text = op.text(&c, sm, 0);
    let at = format!("SM{sm} {} form {} {w:#034x} `{text}`", op.name(), form.form);
    let line = nak::runtime::asm::tokenize(&text).map_err(|e| format!("{at}: {}", e.message))?;
    let (op2, c2) = isa::parse(&line, sm, 0)
        .map_err(|e| format!("{at}: column {}: {}", e.col + 1, e.message))?;
    let again = op2.text(&c2, sm, 0);
    if again != text {
        return Err(format!("{at}: parsed back as `{again}`"));
    }
    let got = op2.encode(sm, &c2).map_err(|e| format!("{at}: {e}"))?;
    let want = form.canonical_word(sm, w);
    let ctrl = isa::family_of(sm).map_or(0, nak::runtime::control::word_mask);
    let diff = (got ^ want) & !ctrl;
    if diff != 0 {
        return Err(format!(
            "{at}: assembles to {got:#034x}, not {want:#034x} (bits {diff:#034x} differ)"
        ));
    }
    Ok(())
}
