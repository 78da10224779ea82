//! The `nak` command's work, as functions that tests can call.

use crate::asm;
use crate::isa::{self, family_of};
use crate::print::normalize_in_place;
use crate::stream::{self, Decoded};
use crate::text_buf::TextBuf;

/// Text of one decoded instruction, as the corpus writes it.
pub fn instr_text(d: &Decoded, sm: u32) -> Option<String> {
    let (op, c) = d.instr.as_ref()?;
    let mut s = op.text(c, sm, d.addr);
    normalize_in_place(&mut s);
    Some(s)
}

/// `nak dis`: one `HEX<TAB>TEXT` line per instruction, and the count of
/// encodings the spec does not know.
pub fn disassemble(sm: u32, bytes: &[u8]) -> Result<(String, usize), String> {
    let mut out = Vec::with_capacity(bytes.len() * 4);
    let unknown = disassemble_to(sm, bytes, &mut out).map_err(|e| e.to_string())?;
    Ok((
        String::from_utf8(out).expect("printer writes UTF-8"),
        unknown,
    ))
}

/// `nak dis` streaming into `sink`: the stream is cut into blocks of
/// whole instructions (bundles on families with scheduling words); the
/// machine's cores print blocks side by side into their own buffers, which
/// are written out in order, so memory stays bounded whatever the input
/// size. Returns the count of unknown encodings.
pub fn disassemble_to(
    sm: u32,
    bytes: &[u8],
    sink: &mut impl std::io::Write,
) -> std::io::Result<usize> {
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    let family = family_of(sm).ok_or_else(|| invalid(format!("SM{sm} is not covered")))?;
    let wb = (family.width() / 8) as usize;
    let per_unit = family.bundle().map_or(1, |n| n as usize);
    let unit = wb * family.bundle().map_or(1, |n| n as usize + 1);
    // Check the whole stream first, so no block can fail halfway.
    stream::check_length(sm, bytes).map_err(invalid)?;
    const BLOCK_INSTRS: usize = 1 << 15;
    let block = unit * (BLOCK_INSTRS / per_unit);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let blocks: Vec<(usize, &[u8])> = bytes
        .chunks(block)
        .enumerate()
        .map(|(i, b)| (i * block, b))
        .collect();
    let mut unknown = 0;
    let mut bufs: Vec<TextBuf> = (0..threads).map(|_| TextBuf::new()).collect();
    for round in blocks.chunks(threads) {
        if round.len() == 1 || threads == 1 {
            for (&(base, piece), buf) in round.iter().zip(bufs.iter_mut()) {
                unknown += print_block(sm, wb, piece, base as u64, buf);
            }
        } else {
            unknown += std::thread::scope(|s| {
                let handles: Vec<_> = round
                    .iter()
                    .zip(bufs.iter_mut())
                    .map(|(&(base, piece), buf)| {
                        s.spawn(move || print_block(sm, wb, piece, base as u64, buf))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(0))
                    .sum::<usize>()
            });
        }
        for buf in bufs.iter().take(round.len()) {
            sink.write_all(buf.as_bytes())?;
        }
    }
    Ok(unknown)
}

/// Decode and print one block of whole instructions into `buf` (cleared
/// first); returns how many had an encoding the spec does not know.
fn print_block(sm: u32, nbytes: usize, piece: &[u8], base: u64, buf: &mut TextBuf) -> usize {
    buf.clear();
    buf.reserve(piece.len() * 4);
    let mut unknown = 0;
    // The caller checked the stream, so this walk cannot fail.
    let _ = stream::for_each_word_at(sm, piece, base, |addr, word, ctrl| {
        stream::push_hex(buf, word, nbytes);
        buf.push_str("\t");
        // Printed where it was decoded (matching by value would copy it).
        let decoded = stream::decode_with_ctrl(word, sm, ctrl);
        match &decoded {
            // The printer writes normalized text directly into the buffer.
            Some((op, c)) => op.print(c, sm, addr, buf),
            None => {
                unknown += 1;
                buf.push_str("<unknown>");
            }
        }
        buf.push_str("\n");
    });
    unknown
}

/// An assembly error: 1-based line and column, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmFileError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// `nak asm`: parse every line (a leading `HEX<TAB>` is ignored) and return
/// the raw stream, or every error found.
pub fn assemble(sm: u32, text: &str) -> Result<Vec<u8>, Vec<AsmFileError>> {
    let family = family_of(sm).ok_or_else(|| {
        vec![AsmFileError {
            line: 0,
            col: 0,
            message: format!("SM{sm} is not covered"),
        }]
    })?;
    let wb = (family.width() / 8) as u64;
    let mut words = Vec::new();
    let mut errors = Vec::new();
    for (ln, raw) in text.lines().enumerate() {
        let (offset, body) = match raw.split_once('\t') {
            Some((h, rest)) if h.chars().all(|c| c.is_ascii_hexdigit()) => (h.len() + 1, rest),
            _ => (0, raw),
        };
        let body_trim = body.split("//").next().unwrap_or("");
        if body_trim.trim().is_empty() {
            continue;
        }
        let idx = words.len() as u64;
        let addr = match family.bundle() {
            Some(n) => (idx / n as u64) * wb * (n as u64 + 1) + wb * (idx % n as u64 + 1),
            None => idx * wb,
        };
        let res = asm::tokenize(body_trim).and_then(|line| {
            let (op, c) = isa::parse(&line, sm, addr)?;
            op.encode(sm, &c)
                .map(|w| (w, c.ctrl))
                .map_err(|e| asm::AsmError {
                    col: line.mnemonic_col,
                    message: e.to_string(),
                })
        });
        match res {
            Ok(w) => words.push(w),
            Err(e) => errors.push(AsmFileError {
                line: ln + 1,
                col: offset + e.col + 1,
                message: e.message,
            }),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let nop = isa::parse(&asm::tokenize("NOP").map_err(|_| Vec::new())?, sm, 0)
        .ok()
        .and_then(|(op, c)| op.encode(sm, &c).ok());
    stream::encode_stream(sm, &words, nop).map_err(|m| {
        vec![AsmFileError {
            line: 0,
            col: 0,
            message: m,
        }]
    })
}

/// Result of checking one corpus line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorpusOutcome {
    /// Mnemonic not in the spec.
    NotCovered,
    /// Covered mnemonic, but no encoding matched.
    NotDecoded,
    /// Decoded, but re-encoding gave another word.
    NotBitExact {
        got: u128,
    },
    /// Decoded and re-encoded exactly, but printed other text.
    TextDiffers {
        got: String,
    },
    Ok,
}

/// Per-SM coverage counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CorpusStats {
    pub lines: usize,
    pub covered: usize,
    pub decoded: usize,
    pub bit_exact: usize,
    pub text_identical: usize,
}

/// The mnemonics (first part) the spec prints on `sm`.
pub fn covered_mnemonics(sm: u32) -> std::collections::BTreeSet<&'static str> {
    isa::MNEMONICS
        .iter()
        .filter(|(_, s)| *s == sm)
        .map(|(m, _)| *m)
        .collect()
}

/// Mnemonic of a corpus text (after any guard), without suffixes.
pub fn text_mnemonic(text: &str) -> &str {
    let t = if text.starts_with('@') {
        text.split_once(' ').map_or("", |x| x.1)
    } else {
        text
    };
    let m = t.split(' ').next().unwrap_or("");
    m.split('.').next().unwrap_or(m)
}

/// Check one corpus instruction (`HEX`, `TEXT`) for `sm`.
pub fn check_corpus_line(
    sm: u32,
    word: u128,
    text: &str,
    covered: &std::collections::BTreeSet<&'static str>,
) -> CorpusOutcome {
    if !covered.contains(text_mnemonic(text)) {
        return CorpusOutcome::NotCovered;
    }
    let Some((op, c)) = isa::decode(word, sm) else {
        return CorpusOutcome::NotDecoded;
    };
    match op.encode(sm, &c) {
        Ok(w) if w == word => {}
        Ok(w) => return CorpusOutcome::NotBitExact { got: w },
        Err(_) => return CorpusOutcome::NotBitExact { got: 0 },
    }
    // Maxwell corpus instructions sit at 0x8, after the scheduling word.
    let addr = if family_of(sm).and_then(|f| f.bundle()).is_some() {
        8
    } else {
        0
    };
    let mut s = op.text(&c, sm, addr);
    normalize_in_place(&mut s);
    if s == text {
        CorpusOutcome::Ok
    } else {
        CorpusOutcome::TextDiffers { got: s }
    }
}
