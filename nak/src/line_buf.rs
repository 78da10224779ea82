//! One line of printer output, on the stack: the printers' fast path.
//!
//! The write position is masked into a fixed array with room to spare past
//! it, so the compiler proves every fixed-size store in bounds and a push is
//! a store and an add: no capacity check, no growth, no bounds check. A line
//! longer than [`LINE_MAX`] bytes (no instruction's text comes close: the
//! longest are under 120) is not written wrapped: it reads as
//! [`LineBuf::TOO_LONG`], so a bug shows instead of corrupting the text.

use std::fmt;

/// Longest line kept; a power of two (the position is masked with it).
pub const LINE_MAX: usize = 256;
/// Longest single piece written at once (fixed chunks and `&str`s alike).
const PIECE_MAX: usize = 64;

/// A line being printed. Every piece is ASCII or a whole `&str`, so the
/// text is UTF-8.
#[derive(Clone)]
pub struct LineBuf {
    bytes: [u8; LINE_MAX + PIECE_MAX],
    /// Bytes written; only its low bits index `bytes`.
    pos: usize,
}

impl Default for LineBuf {
    fn default() -> Self {
        LineBuf {
            bytes: [0; LINE_MAX + PIECE_MAX],
            pos: 0,
        }
    }
}

impl LineBuf {
    /// What a line that overflowed reads as.
    pub const TOO_LONG: &'static str = "<line longer than 256 bytes>";

    pub fn new() -> Self {
        LineBuf::default()
    }

    /// The `n` bytes at the write position (`n <= PIECE_MAX`, so the
    /// masked range is always inside the array).
    #[inline(always)]
    fn at(&mut self, n: usize) -> &mut [u8] {
        let p = self.pos & (LINE_MAX - 1);
        &mut self.bytes[p..p + n.min(PIECE_MAX)]
    }

    #[inline(always)]
    pub fn push_str(&mut self, s: &str) {
        self.push_ascii_or_utf8(s.as_bytes());
    }

    #[inline(always)]
    fn push_ascii_or_utf8(&mut self, b: &[u8]) {
        let n = b.len().min(PIECE_MAX);
        self.at(n).copy_from_slice(&b[..n]);
        // A piece cut short is a line too long to keep.
        self.pos += if n == b.len() { n } else { LINE_MAX + 1 };
    }

    /// One ASCII byte (callers pass ASCII only: the text stays UTF-8).
    #[inline(always)]
    pub fn push_byte(&mut self, b: u8) {
        debug_assert!(b.is_ascii());
        self.at(1)[0] = b;
        self.pos += 1;
    }

    #[inline(always)]
    pub fn push(&mut self, c: char) {
        if c.is_ascii() {
            self.push_byte(c as u8);
        } else {
            let mut tmp = [0u8; 4];
            self.push_str(c.encode_utf8(&mut tmp));
        }
    }

    /// Bytes known to be ASCII.
    #[inline(always)]
    pub fn push_ascii(&mut self, b: &[u8]) {
        debug_assert!(b.is_ascii());
        self.push_ascii_or_utf8(b);
    }

    /// Write all `N` bytes of `chunk` (ASCII) but keep only the first `n`:
    /// one fixed-size store for a piece whose length varies.
    #[inline(always)]
    pub fn push_chunk<const N: usize>(&mut self, chunk: &[u8; N], n: usize) {
        const { assert!(N <= PIECE_MAX) };
        debug_assert!(n <= N && chunk[..n].is_ascii());
        self.at(N).copy_from_slice(chunk);
        self.pos += n.min(N);
    }

    /// Drop trailing blanks (a printer's last operand may have printed none).
    #[inline]
    pub fn trim_end_spaces(&mut self) {
        while self.pos > 0 && self.pos <= LINE_MAX && self.bytes[self.pos - 1] == b' ' {
            self.pos -= 1;
        }
    }

    pub fn clear(&mut self) {
        self.pos = 0;
    }

    /// Whether the line outgrew [`LINE_MAX`] (its text is then
    /// [`Self::TOO_LONG`]).
    pub fn too_long(&self) -> bool {
        self.pos > LINE_MAX
    }

    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn as_bytes(&self) -> &[u8] {
        if self.too_long() {
            Self::TOO_LONG.as_bytes()
        } else {
            &self.bytes[..self.pos]
        }
    }

    /// The whole array (the text is its first [`Self::len`] bytes): for
    /// copying the line out as one fixed-size block.
    #[inline(always)]
    pub(crate) fn padded(&self) -> Option<&[u8; LINE_MAX]> {
        if self.too_long() {
            return None;
        }
        self.bytes.first_chunk::<LINE_MAX>()
    }

    /// The text (UTF-8 by construction; checked here, once).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl fmt::Write for LineBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

impl fmt::Display for LineBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for LineBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_trim_and_overflow() {
        let mut l = LineBuf::new();
        l.push_str("IADD3 ");
        l.push_chunk(b"R12\0\0\0\0\x03", 3);
        l.push_byte(b',');
        l.push('é');
        l.push_ascii(b"  ");
        l.trim_end_spaces();
        assert_eq!(l.as_str(), "IADD3 R12,é");
        assert!(!l.too_long());
        l.clear();
        for _ in 0..LINE_MAX / 8 {
            l.push_str("01234567");
        }
        assert_eq!(l.len(), LINE_MAX);
        assert!(!l.too_long());
        l.push_byte(b'x');
        assert!(l.too_long());
        assert_eq!(l.as_str(), LineBuf::TOO_LONG);
        l.trim_end_spaces();
        assert!(
            l.too_long(),
            "trimming never brings an overflowed line back"
        );
        // A single piece longer than PIECE_MAX also marks the line.
        l.clear();
        l.push_str(&"y".repeat(PIECE_MAX + 1));
        assert_eq!(l.as_str(), LineBuf::TOO_LONG);
    }
}
