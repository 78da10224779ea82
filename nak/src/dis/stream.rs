//! Raw instruction streams as they lie in GPU memory: 16-byte words on
//! SM70+, and on SM50..SM62 one 8-byte scheduling word before every three
//! 8-byte instructions.

use crate::isa::{self, Family, Op, family_of};
use crate::runtime::instr::Common;
use crate::runtime::line_buf::LineBuf;

/// One decoded (or undecodable) instruction of a stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Byte address of the instruction in the stream.
    pub addr: u64,
    /// The instruction word.
    pub word: u128,
    /// Op and common parts; None when the spec knows no such encoding.
    pub instr: Option<(Op, Common)>,
}

/// Parse `SM` written as `90`, `sm_90` or `SM90`; an architecture-specific
/// target (`sm_90a`, `sm_100f`) reads as its base SM, whose instructions
/// the spec describes (the corpus's `sm_90a.txt` is checked the same way).
pub fn parse_sm(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let t = t
        .strip_prefix("sm_")
        .or_else(|| t.strip_prefix("SM"))
        .or_else(|| t.strip_prefix("sm"))
        .unwrap_or(t);
    let t = t
        .strip_suffix(['a', 'f'])
        .filter(|d| !d.is_empty())
        .unwrap_or(t);
    let sm: u32 = t
        .parse()
        .map_err(|_| format!("`{s}` is not an SM (write 90, sm_90 or SM90)"))?;
    if family_of(sm).is_none() {
        return Err(format!(
            "SM{sm} is not covered; supported: {}",
            isa::ALL_SMS
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(sm)
}

/// Hex of the word as the corpus writes it: little-endian bytes.
pub fn word_hex(word: u128, family: Family) -> String {
    let n = (family.width() / 8) as usize;
    word.to_le_bytes()[..n]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The 32 lower-case hex digits of 16 bytes in order, high nibble first.
/// Written as lane-wise loops over the bytes (not shifts of a `u128`) so
/// that it compiles to about 30 SSE2 instructions: each byte becomes a
/// 16-bit lane holding its two nibbles, and each nibble its ASCII digit.
#[inline]
pub fn hex_column(b: &[u8; 16]) -> [u8; 32] {
    let mut lanes = [0u16; 16];
    for (l, &x) in lanes.iter_mut().zip(b) {
        *l = u16::from(x >> 4) | u16::from(x & 15) << 8;
    }
    for l in lanes.iter_mut() {
        // Digits above 9 need 0x27 more to land on 'a'..'f'.
        let letters = ((*l + 0x0606) >> 4) & 0x0101;
        *l += 0x3030 + 0x27 * letters;
    }
    let mut out = [0u8; 32];
    for (o, l) in out.chunks_exact_mut(2).zip(lanes) {
        o.copy_from_slice(&l.to_le_bytes());
    }
    out
}

/// Append a word's first `nbytes` bytes (as they are in the stream) as
/// lower-case hex: all 32 digits are stored at once and the text keeps
/// `2 * nbytes`.
#[inline(always)]
pub fn push_hex(out: &mut LineBuf, bytes: &[u8; 16], nbytes: usize) {
    out.push_chunk(&hex_column(bytes), 2 * nbytes.min(16));
}

/// Parse a corpus HEX field into a word.
pub fn parse_word_hex(hex: &str, family: Family) -> Option<u128> {
    let n = (family.width() / 8) as usize;
    if hex.len() != 2 * n || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut bytes = [0u8; 16];
    for (i, b) in bytes[..n].iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(u128::from_le_bytes(bytes))
}

/// Split a raw stream into instruction words. Errors name the byte offset.
pub fn decode_stream(sm: u32, bytes: &[u8]) -> Result<Vec<Decoded>, String> {
    let mut out = Vec::new();
    for_each_word(sm, bytes, |addr, word, ctrl, _| {
        out.push(Decoded {
            addr,
            word,
            instr: decode_with_ctrl(word, sm, ctrl),
        });
    })?;
    Ok(out)
}

/// Walk a raw stream without collecting it: `f(addr, word, ctrl, bytes)`
/// for each instruction word, where `ctrl` is the instruction's scheduling
/// bits from its bundle's scheduling word (families with bundles only) and
/// `bytes` the word as it is in the stream (zero-padded to 16 bytes). The
/// stream is checked before the first call, so an error means nothing was
/// visited.
pub fn for_each_word(
    sm: u32,
    bytes: &[u8],
    f: impl FnMut(u64, u128, Option<u32>, &[u8; 16]),
) -> Result<(), String> {
    for_each_word_at(sm, bytes, 0, f)
}

/// Decode one word; `ctrl` is its scheduling bits from the bundle's
/// scheduling word on families that have one (see [`for_each_word`]).
#[inline]
pub fn decode_with_ctrl(word: u128, sm: u32, ctrl: Option<u32>) -> Option<(Op, Common)> {
    // Patched in place: unpacking and repacking would copy the op.
    let mut d = isa::decode(word, sm);
    if let (Some((_, c)), Some(ctrl)) = (&mut d, ctrl) {
        c.ctrl = ctrl;
    }
    d
}

/// The SM is covered and the stream is whole words; the error names the
/// offset of the trailing bytes.
pub fn check_length(sm: u32, bytes: &[u8]) -> Result<(), String> {
    check_stream_len(sm, bytes.len() as u64)
}

/// [`check_length`] for a stream of `len` bytes not read yet.
pub fn check_stream_len(sm: u32, len: u64) -> Result<(), String> {
    let family = family_of(sm).ok_or_else(|| format!("SM{sm} is not covered"))?;
    let wb = family.width() as u64 / 8;
    if !len.is_multiple_of(wb) {
        return Err(format!(
            "stream length {len} is not a multiple of {wb} bytes; {} trailing bytes at offset {:#x}",
            len % wb,
            len - len % wb
        ));
    }
    Ok(())
}

/// [`for_each_word`] over a piece of a stream that starts at byte `base`
/// (a multiple of the family's word or bundle size).
pub fn for_each_word_at(
    sm: u32,
    bytes: &[u8],
    base: u64,
    mut f: impl FnMut(u64, u128, Option<u32>, &[u8; 16]),
) -> Result<(), String> {
    check_length(sm, bytes)?;
    let family = family_of(sm).ok_or_else(|| format!("SM{sm} is not covered"))?;
    let wb = (family.width() / 8) as usize;
    // A word's bytes, zero-padded to 16 (a fixed-size copy, no memcpy call).
    let padded = |chunk: &[u8]| -> [u8; 16] {
        let mut b = [0u8; 16];
        let n = chunk.len().min(16);
        b[..n].copy_from_slice(&chunk[..n]);
        b
    };
    match (family.bundle(), wb) {
        (None, 16) => {
            // 16-byte words are passed straight from the stream.
            let (words, _) = bytes.as_chunks::<16>();
            for (i, b) in words.iter().enumerate() {
                f(base + (i * 16) as u64, u128::from_le_bytes(*b), None, b);
            }
        }
        (None, _) => {
            for (i, chunk) in bytes.chunks_exact(wb).enumerate() {
                let b = padded(chunk);
                f(base + (i * wb) as u64, u128::from_le_bytes(b), None, &b);
            }
        }
        (Some(n), _) => {
            let group = wb * (n as usize + 1);
            let slot = SlotBits::of(family);
            for (g, chunk) in bytes.chunks(group).enumerate() {
                let ctrl = u128::from_le_bytes(padded(&chunk[..wb])) as u64;
                for (i, ib) in chunk[wb..].chunks_exact(wb).enumerate() {
                    let addr = base + (g * group + wb * (i + 1)) as u64;
                    let c = slot.get(ctrl, i);
                    let b = padded(ib);
                    f(addr, u128::from_le_bytes(b), Some(c), &b);
                }
            }
        }
    }
    Ok(())
}

/// Where each instruction's control value sits in a bundle's scheduling
/// word: `bits` bits per slot (the family's `control.slot_bits`).
#[derive(Clone, Copy)]
struct SlotBits {
    bits: u32,
}

impl SlotBits {
    /// The family's slot width; a family with bundles states it in the spec.
    fn of(family: Family) -> SlotBits {
        SlotBits {
            bits: family.control_slot_bits().unwrap_or(0),
        }
    }
    fn mask(self) -> u64 {
        (1u64 << self.bits) - 1
    }
    /// Instruction `i`'s control value.
    fn get(self, word: u64, i: usize) -> u32 {
        ((word >> (self.bits as usize * i)) & self.mask()) as u32
    }
    /// `c` placed in slot `i`.
    fn put(self, c: u32, i: usize) -> u64 {
        ((c as u64) & self.mask()) << (self.bits as usize * i)
    }
}

/// Byte address of the `n`-th instruction of a stream [`encode_stream`]
/// lays out (scheduling words counted), and the instruction width in bytes.
pub fn instr_addr(sm: u32, n: usize) -> Option<(u64, u64)> {
    let family = family_of(sm)?;
    let wb = (family.width() / 8) as u64;
    let n = n as u64;
    Some(match family.bundle() {
        None => (n * wb, wb),
        Some(b) => {
            let b = b as u64;
            ((n / b) * wb * (b + 1) + wb * (n % b + 1), wb)
        }
    })
}

/// The word of a plain `NOP` on `sm` (what pads a bundle's last slots).
pub fn nop_word(sm: u32) -> Option<u128> {
    let line = crate::runtime::asm::tokenize("NOP").ok()?;
    let (op, c) = crate::isa::parse(&line, sm, 0).ok()?;
    op.encode(sm, &c).ok()
}

/// Lay encoded instructions out as a raw stream (scheduling words included
/// where the family has them; a missing third slot is padded with NOP-free
/// zero words only if `pad` is given).
pub fn encode_stream(sm: u32, words: &[(u128, u32)], pad: Option<u128>) -> Result<Vec<u8>, String> {
    let family = family_of(sm).ok_or_else(|| format!("SM{sm} is not covered"))?;
    let wb = (family.width() / 8) as usize;
    let mut out = Vec::new();
    match family.bundle() {
        None => {
            for (w, _) in words {
                out.extend_from_slice(&w.to_le_bytes()[..wb]);
            }
        }
        Some(n) => {
            let slot = SlotBits::of(family);
            for group in words.chunks(n as usize) {
                let mut ctrl: u64 = 0;
                for (i, (_, c)) in group.iter().enumerate() {
                    ctrl |= slot.put(*c, i);
                }
                let mut ws: Vec<u128> = group.iter().map(|x| x.0).collect();
                while ws.len() < n as usize {
                    ctrl |= slot.put(family.neutral_control(), ws.len());
                    ws.push(pad.unwrap_or(0));
                }
                out.extend_from_slice(&ctrl.to_le_bytes());
                for w in ws {
                    out.extend_from_slice(&w.to_le_bytes()[..wb]);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_names_parse() {
        for (text, sm) in [
            ("90", 90),
            ("sm_90", 90),
            ("SM90", 90),
            ("sm_90a", 90),
            ("sm_100f", 100),
            ("120a", 120),
        ] {
            assert_eq!(parse_sm(text), Ok(sm), "{text}");
        }
        for bad in ["a", "sm_a", "sm_91", "90b", ""] {
            assert!(parse_sm(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hex_column_matches_core_fmt() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut words = vec![
            [0u8; 16],
            [0xff; 16],
            core::array::from_fn(|i| i as u8 * 17),
        ];
        for _ in 0..1000 {
            let mut w = [0u8; 16];
            for b in &mut w {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            words.push(w);
        }
        for w in words {
            let want: String = w.iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(std::str::from_utf8(&hex_column(&w)).unwrap(), want);
            for n in [8, 16] {
                let text = crate::runtime::line_buf::line_text(|line| push_hex(line, &w, n));
                assert_eq!(text, &want[..2 * n]);
            }
        }
    }
}
