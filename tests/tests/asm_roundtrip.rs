//! The assembler reads back what the printer writes: for sampled words of
//! every form on every SM, print -> parse -> encode gives an instruction
//! that prints the same text.

use nak::isa;

#[test]
fn printed_text_parses_back() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for &sm in isa::ALL_SMS {
        for w in nak::sample::sample_words(sm, &[], 8, 99) {
            let (op, c) = isa::decode(w, sm).expect("sampled word decodes");
            let text = op.text(&c, sm, 0);
            checked += 1;
            let line = match nak::asm::tokenize(&text) {
                Ok(l) => l,
                Err(e) => {
                    failures.push(format!("SM{sm} `{text}`: {}", e.message));
                    continue;
                }
            };
            match isa::parse(&line, sm, 0) {
                Ok((op2, c2)) => {
                    let again = op2.text(&c2, sm, 0);
                    if again != text {
                        failures.push(format!("SM{sm} `{text}` parsed back as `{again}`"));
                    } else if let Err(e) = op2.encode(sm, &c2) {
                        failures.push(format!("SM{sm} `{text}`: {e}"));
                    }
                }
                Err(e) => failures.push(format!(
                    "SM{sm} `{text}`: column {}: {}",
                    e.col + 1,
                    e.message
                )),
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
        "{} failed (first 40 above)",
        failures.len()
    );
}
