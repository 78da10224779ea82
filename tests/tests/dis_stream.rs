//! `nak dis` cuts a stream into blocks printed side by side; its output must
//! be the same as decoding the whole stream and printing each instruction
//! in turn, at every block boundary, on both families (Maxwell's scheduling
//! words included).

use isa_tests::corpus;
use nak::dis::listing::{disassemble, disassemble_reader, instr_text};
use nak::dis::stream::{decode_stream, encode_stream, parse_word_hex, word_hex};
use nak::isa::family_of;

/// A stream of `n` corpus words of `stem` (repeated), laid out as in memory.
fn stream_of(stem: &str, sm: u32, n: usize) -> Vec<u8> {
    let family = family_of(sm).expect("family");
    let text = corpus::read(stem).expect("corpus");
    let words: Vec<(u128, u32)> = text
        .lines()
        .filter_map(|l| parse_word_hex(l.split('\t').next()?, family))
        .map(|w| (w, 0))
        .collect();
    // Varied scheduling bits, so Maxwell's per-slot control is checked too.
    let all: Vec<(u128, u32)> = words
        .iter()
        .copied()
        .cycle()
        .take(n)
        .enumerate()
        .map(|(i, (w, _))| (w, (i as u32).wrapping_mul(2_654_435_761) & 0x1f_ffff))
        .collect();
    encode_stream(sm, &all, Some(0)).expect("stream")
}

fn check(stem: &str, sm: u32) {
    // Many 4K-instruction blocks (more than two per core), not a multiple
    // of the block.
    let bytes = stream_of(stem, sm, 70_001);
    let (text, unknown) = disassemble(sm, &bytes).expect("dis");
    let family = family_of(sm).expect("family");
    let decoded = decode_stream(sm, &bytes).expect("decode");
    let mut want = String::new();
    let mut want_unknown = 0;
    for d in &decoded {
        want.push_str(&word_hex(d.word, family));
        want.push('\t');
        match instr_text(d, sm) {
            Some(t) => want.push_str(&t),
            None => {
                want_unknown += 1;
                want.push_str("<unknown>");
            }
        }
        want.push('\n');
    }
    assert_eq!(unknown, want_unknown, "{stem}: unknown count");
    for (i, (a, b)) in text.lines().zip(want.lines()).enumerate() {
        assert_eq!(a, b, "{stem}: line {}", i + 1);
    }
    assert_eq!(
        text.lines().count(),
        want.lines().count(),
        "{stem}: line count"
    );
}

#[test]
fn blocked_dis_equals_one_by_one_sm75() {
    check("sm_75", 75);
}

#[test]
fn blocked_dis_equals_one_by_one_sm50() {
    check("sm_50", 50);
}

#[test]
fn ragged_stream_is_an_error_naming_the_offset() {
    let e = disassemble(75, &[0u8; 20]).expect_err("20 bytes is not whole words");
    assert!(e.contains("0x10"), "{e}");
}

/// A reader that hands out at most 7 bytes per read, as a pipe may.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(7).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn streamed_input_prints_every_whole_word_then_names_the_trailing_bytes() {
    let mut bytes = stream_of("sm_75", 75, 9_000);
    let (want, _) = disassemble(75, &bytes).expect("dis");
    bytes.extend_from_slice(&[0xab; 5]);
    let mut out = Vec::new();
    let e = disassemble_reader(75, &mut Trickle(&bytes), &mut out).expect_err("ragged");
    assert_eq!(String::from_utf8(out).expect("utf-8"), want);
    let m = e.to_string();
    assert!(
        m.contains("5 trailing bytes") && m.contains(&format!("{:#x}", 9_000 * 16)),
        "{m}"
    );
}

/// `nak dis` prints each word in one step (`isa::printer`, no `Op` in
/// between); it must print exactly what decoding and then printing the
/// `Op` does, and refuse exactly the words the decoder refuses. Checked on
/// every corpus word of every SM and on copies with single bits flipped
/// (which reach the decoders' refusals: bad enum codes, registers past the
/// SM's last uniform register, forms an SM lacks).
#[test]
fn one_step_printer_equals_decode_then_print_on_every_sm() {
    let mut compared = 0usize;
    let mut refused = 0usize;
    for (stem, sm) in corpus::files() {
        let family = family_of(sm).expect("family");
        let print = nak::isa::printer(sm).expect("printer");
        let text = corpus::read(&stem).expect("corpus");
        let words: Vec<u128> = text
            .lines()
            .filter_map(|l| parse_word_hex(l.split('\t').next()?, family))
            .collect();
        let bits = family.width();
        for (i, &w) in words.iter().enumerate() {
            // The word itself, and one flip of a bit that moves with `i`.
            for w in [w, w ^ 1u128 << ((i as u32).wrapping_mul(37) % bits)] {
                let addr = 0x100 + 16 * i as u64;
                let ctrl = if family.bundle().is_some() {
                    (i as u32).wrapping_mul(2_654_435_761) & 0x1f_ffff
                } else {
                    0
                };
                let want = nak::isa::decode(w, sm).map(|(op, mut c)| {
                    if family.bundle().is_some() {
                        c.ctrl = ctrl;
                    }
                    op.text(&c, sm, addr)
                });
                let mut room = nak::runtime::line_buf::LineRoom::new();
                let mut line = room.line();
                let got = print(w, sm, addr, ctrl, &mut line).map(|()| line.as_str().to_string());
                if got.is_none() {
                    assert!(line.is_empty(), "{stem}: {w:#x} refused after printing");
                    refused += 1;
                }
                assert_eq!(got, want, "{stem}: word {w:#x}");
                compared += 1;
            }
        }
    }
    eprintln!("{compared} words compared, {refused} refused by both");
    assert!(
        compared > 100_000 && refused > 1_000,
        "{compared} words, {refused} refused"
    );
}
