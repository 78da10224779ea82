//! Whole listings: a raw stream to nvdisasm-style text (`nak dis`) and
//! text back to a raw stream (`nak asm`), as functions tests can call.

use crate::dis::ordered_blocks;
use crate::dis::stream::{self, Decoded};
use crate::dis::text_buf::TextBuf;
use crate::isa::{self, family_of};
use crate::runtime::line_buf::LineBuf;
use crate::runtime::print::normalize_in_place;
use crate::runtime::{asm, control};

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

/// `nak dis` of bytes in memory, streaming into `sink` (see
/// [`disassemble_reader`]).
pub fn disassemble_to(
    sm: u32,
    bytes: &[u8],
    sink: &mut (impl std::io::Write + Send),
) -> std::io::Result<usize> {
    // Check the whole stream first, so no block can fail halfway.
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    stream::check_length(sm, bytes).map_err(invalid)?;
    disassemble_reader(sm, &mut &bytes[..], sink)
}

/// `nak dis` streaming from `input` into `sink`. The stream is read in
/// blocks of whole instructions (bundles on families with scheduling
/// words), printed on every core and written in order (see
/// [`ordered_blocks`]), so memory stays bounded whatever the input size.
/// Returns the count of unknown encodings. A stream that ends inside a
/// word is an error naming the offset, after the whole words before it
/// were written.
pub fn disassemble_reader<R, W>(sm: u32, input: &mut R, sink: &mut W) -> std::io::Result<usize>
where
    R: std::io::Read + Send,
    W: std::io::Write + Send,
{
    disassemble_reader_with(sm, input, sink, false)
}

/// [`disassemble_reader`], with each instruction's control bits before
/// its text when `ctrl` is set (`nak dis --ctrl`; the field is
/// [`control::ctrl_text`]'s, which `nak asm` reads back).
pub fn disassemble_reader_with<R, W>(
    sm: u32,
    input: &mut R,
    sink: &mut W,
    ctrl: bool,
) -> std::io::Result<usize>
where
    R: std::io::Read + Send,
    W: std::io::Write + Send,
{
    let invalid = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, m);
    let family = family_of(sm).ok_or_else(|| invalid(format!("SM{sm} is not covered")))?;
    let wb = (family.width() / 8) as usize;
    let per_unit = family.bundle().map_or(1, |n| n as usize);
    let unit = wb * family.bundle().map_or(1, |n| n as usize + 1);
    const BLOCK_INSTRS: usize = 1 << 12;
    let mut reader = BlockReader {
        input,
        sm,
        block: unit * (BLOCK_INSTRS / per_unit),
        wb,
        offset: 0,
        trailing: None,
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let unknown = ordered_blocks::run(&mut reader, sink, threads, |data, at, buf| {
        print_block(sm, wb, data, at as u64, buf, ctrl)
    })?;
    reader.finish(unknown)
}

/// Reads a stream block by block for [`disassemble_reader`].
struct BlockReader<'a, R> {
    input: &'a mut R,
    sm: u32,
    /// Bytes per block (whole bundles) and per word.
    block: usize,
    wb: usize,
    /// Bytes read so far.
    offset: usize,
    /// The error for bytes after the last whole word, reported at the end.
    trailing: Option<String>,
}

impl<R: std::io::Read + Send> ordered_blocks::BlockSource for BlockReader<'_, R> {
    /// Fill `v` with the next block's whole words and return its offset;
    /// `None` at the end. Bytes after the last whole word are dropped and
    /// reported by [`BlockReader::finish`], after every whole word was
    /// printed.
    fn next_block(&mut self, v: &mut Vec<u8>) -> std::io::Result<Option<usize>> {
        // Fill a block-sized buffer with as few reads as the input allows
        // (`read_to_end` starts small and doubles: four system calls a block).
        v.resize(self.block, 0);
        let mut filled = 0;
        while filled < v.len() {
            match self.input.read(&mut v[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        v.truncate(filled);
        let at = self.offset;
        self.offset += v.len();
        let extra = v.len() % self.wb;
        if extra != 0 {
            self.trailing = stream::check_stream_len(self.sm, self.offset as u64).err();
            v.truncate(v.len() - extra);
        }
        Ok((!v.is_empty()).then_some(at))
    }
}

impl<R> BlockReader<'_, R> {
    /// The unknown count, or the trailing-bytes error.
    fn finish(&self, unknown: usize) -> std::io::Result<usize> {
        match &self.trailing {
            Some(m) => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                m.clone(),
            )),
            None => Ok(unknown),
        }
    }
}

/// Print one block into `buf` (cleared first); returns its unknown count.
/// Each line is printed straight into the room after the block's text.
fn print_block(
    sm: u32,
    nbytes: usize,
    piece: &[u8],
    base: u64,
    buf: &mut TextBuf,
    with_ctrl: bool,
) -> usize {
    buf.clear();
    // Most lines are under 128 bytes: room for that per word means the
    // buffer rarely grows while printing.
    buf.reserve(piece.len() / nbytes.max(1) * 128 + 4096);
    let mut unknown = 0;
    let (Some(print), Some(family)) = (isa::printer(sm), family_of(sm)) else {
        return 0;
    };
    // The caller checked the stream, so this walk cannot fail. The line's
    // work is inlined into the walk's loop (as a call, every word paid for
    // saving and restoring six registers).
    let _ = stream::for_each_word_at(
        sm,
        piece,
        base,
        #[inline(always)]
        |addr, word, ctrl, bytes| {
            let mut line = LineBuf::over(buf.line_room());
            stream::push_hex(&mut line, bytes, nbytes);
            line.push_byte(b'\t');
            if with_ctrl {
                line.push_str(&control::ctrl_text(
                    family,
                    control::of_instruction(family, word, ctrl),
                ));
                line.push_byte(b' ');
            }
            // Decoded and printed in one step, with no `Op` in between.
            if print(word, sm, addr, ctrl.unwrap_or(0), &mut line).is_none() {
                unknown += 1;
                line.push_str("<unknown>");
            }
            line.push_byte(b'\n');
            let n = line.finish();
            buf.commit(n);
        },
    );
    unknown
}

/// An assembly error: 1-based line and column, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmFileError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// What [`assemble`] made of a listing: the raw stream, and a warning for
/// each instruction that breaks a rule keeping programs correct (a
/// misaligned register, a modifier combination the spec does not list as
/// legal, a combination the hardware traps on). nvdisasm prints such words,
/// so their text assembles back to them; the backend's encoder refuses
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    pub bytes: Vec<u8>,
    pub warnings: Vec<AsmFileError>,
}

/// One instruction `text` at `addr`: its word and control value, and a
/// warning when only the lenient encoder takes it (see [`Assembled`]).
/// `ctrl` turns the control value the text gives (its `.reuse` flags) into
/// the instruction's. Error columns are 0-based within `text`.
pub fn assemble_at(
    sm: u32,
    text: &str,
    addr: u64,
    ctrl: impl FnOnce(u32) -> u32,
) -> Result<((u128, u32), Option<asm::AsmError>), asm::AsmError> {
    let line = asm::tokenize(text)?;
    let (op, mut c) = isa::parse(&line, sm, addr)?;
    c.ctrl = ctrl(c.ctrl);
    let at = |e: crate::runtime::encode::EncodeError| asm::AsmError {
        col: line.mnemonic_col,
        message: e.to_string(),
    };
    match op.encode(sm, &c) {
        Ok(w) => Ok(((w, c.ctrl), None)),
        Err(strict) => op
            .encode_lenient(sm, &c)
            .map(|w| {
                let warning = asm::AsmError {
                    col: line.mnemonic_col,
                    message: format!(
                        "{}: {}; assembled as written, but the backend's encoder refuses it",
                        strict.op, strict.message
                    ),
                };
                ((w, c.ctrl), Some(warning))
            })
            .map_err(at),
    }
}

/// `nak asm`: parse every line (a leading `HEX<TAB>` is ignored) and return
/// the raw stream with its warnings, or every error found. A line may
/// start with a control field as `nak dis --ctrl` prints it
/// ([`control::ctrl_text`]), which sets the instruction's control bits
/// (its `.reuse` flags are added to the field's); without one they are
/// zero but for `.reuse` and what it needs.
pub fn assemble(sm: u32, text: &str) -> Result<Assembled, Vec<AsmFileError>> {
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
    let mut warnings = Vec::new();
    for (ln, raw) in text.lines().enumerate() {
        let (offset, body) = match raw.split_once('\t') {
            Some((h, rest)) if h.chars().all(|c| c.is_ascii_hexdigit()) => (h.len() + 1, rest),
            _ => (0, raw),
        };
        let body_trim = body.split("//").next().unwrap_or("");
        if body_trim.trim().is_empty() {
            continue;
        }
        let lead = body_trim.len() - body_trim.trim_start().len();
        let (explicit, offset, body_trim) = if body_trim.trim_start().starts_with('[') {
            match control::parse_ctrl_text(family, body_trim.trim_start()) {
                Ok((v, n)) => (Some(v), offset + lead + n, &body_trim[lead + n..]),
                Err(message) => {
                    errors.push(AsmFileError {
                        line: ln + 1,
                        col: offset + lead + 1,
                        message,
                    });
                    continue;
                }
            }
        } else {
            (None, offset, body_trim)
        };
        let idx = words.len() as u64;
        let addr = match family.bundle() {
            Some(n) => (idx / n as u64) * wb * (n as u64 + 1) + wb * (idx % n as u64 + 1),
            None => idx * wb,
        };
        let res = assemble_at(sm, body_trim, addr, |parsed| match explicit {
            Some(v) => v | parsed & control::reuse_mask(family),
            None => control::with_reuse_needs(family, parsed),
        });
        match res {
            Ok((w, warning)) => {
                words.push(w);
                if let Some(e) = warning {
                    warnings.push(AsmFileError {
                        line: ln + 1,
                        col: offset + e.col + 1,
                        message: e.message,
                    });
                }
            }
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
    let bytes = stream::encode_stream(sm, &words, stream::nop_word(sm)).map_err(|m| {
        vec![AsmFileError {
            line: 0,
            col: 0,
            message: m,
        }]
    })?;
    Ok(Assembled { bytes, warnings })
}
