//! One line of printer output: the printers' fast path.
//!
//! The write position is masked into a fixed array with room to spare past
//! it, so the compiler proves every fixed-size store in bounds and a push is
//! a store and an add: no capacity check, no growth, no bounds check. A line
//! longer than [`LINE_MAX`] bytes (no instruction's text comes close: the
//! longest are under 120) is not written wrapped: it reads as
//! [`LineBuf::TOO_LONG`], so a bug shows instead of corrupting the text.
//!
//! The array is borrowed: `nak dis` lends the room after its block's text,
//! so a finished line is already in place (no copy); a line printed on its
//! own lives in a [`LineRoom`].

use std::fmt;

/// Longest line kept; a power of two (the position is masked with it).
pub const LINE_MAX: usize = 256;
/// Longest single piece written at once (fixed chunks and `&str`s alike).
const PIECE_MAX: usize = 64;
/// Bytes a [`LineBuf`] writes into: a line and one piece past it.
pub const LINE_ROOM: usize = LINE_MAX + PIECE_MAX;

/// Storage for a line printed on its own (not into a block of text).
pub struct LineRoom([u8; LINE_ROOM]);

impl Default for LineRoom {
    fn default() -> Self {
        LineRoom([0; LINE_ROOM])
    }
}

impl LineRoom {
    pub fn new() -> Self {
        LineRoom::default()
    }

    /// An empty line written into this room.
    pub fn line(&mut self) -> LineBuf<'_> {
        LineBuf::over(&mut self.0)
    }
}

/// The text `print` writes into a line of its own.
pub fn line_text(print: impl FnOnce(&mut LineBuf<'_>)) -> String {
    let mut room = LineRoom::new();
    let mut line = room.line();
    print(&mut line);
    line.as_str().to_string()
}

/// A line being printed. Every piece is ASCII or a whole `&str`, so the
/// text is UTF-8.
pub struct LineBuf<'a> {
    bytes: &'a mut [u8; LINE_ROOM],
    /// Bytes written; only its low bits index `bytes`.
    pos: usize,
}

impl<'a> LineBuf<'a> {
    /// What a line that overflowed reads as.
    pub const TOO_LONG: &'static str = "<line longer than 256 bytes>";

    /// An empty line written into `bytes` (whatever they hold).
    #[inline(always)]
    pub fn over(bytes: &'a mut [u8; LINE_ROOM]) -> Self {
        LineBuf { bytes, pos: 0 }
    }

    /// End a line written in place: the length of its text, which is left
    /// at the start of the room (an overflowed line's is [`Self::TOO_LONG`]).
    #[inline(always)]
    pub fn finish(self) -> usize {
        if self.too_long() {
            return self.finish_too_long();
        }
        self.pos
    }

    #[cold]
    #[inline(never)]
    fn finish_too_long(self) -> usize {
        let t = Self::TOO_LONG.as_bytes();
        self.bytes[..t.len()].copy_from_slice(t);
        t.len()
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

    /// [`Self::push_chunk`] of a `(chunk, length)` pair as an enum's
    /// `chunk_sm` returns it.
    #[inline(always)]
    pub fn push_text_chunk<const N: usize>(&mut self, (chunk, n): (&[u8; N], usize)) {
        self.push_chunk(chunk, n)
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

    /// The text (UTF-8 by construction; checked here, once).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl fmt::Write for LineBuf<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

impl fmt::Display for LineBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for LineBuf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// Each text zero-padded to `S` bytes with its length (for
/// [`LineBuf::push_chunk`]), built at compile time: the generated enums'
/// `chunk_sm` tables.
pub const fn text_chunks<const S: usize, const N: usize>(
    texts: &[&str; N],
) -> [([u8; S], usize); N] {
    let mut out = [([0u8; S], 0usize); N];
    let mut i = 0;
    while i < N {
        let b = texts[i].as_bytes();
        assert!(b.len() <= S, "text longer than its chunk");
        let mut j = 0;
        while j < b.len() {
            out[i].0[j] = b[j];
            j += 1;
        }
        out[i].1 = b.len();
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_trim_and_overflow() {
        let mut room = LineRoom::new();
        let mut l = room.line();
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

    #[test]
    fn finish_leaves_the_text_at_the_start_of_the_room() {
        let mut room = [b'#'; LINE_ROOM];
        let mut l = LineBuf::over(&mut room);
        l.push_str("MOV R1, R2");
        assert_eq!(l.finish(), 10);
        assert_eq!(&room[..11], b"MOV R1, R2#");
        let mut l = LineBuf::over(&mut room);
        for _ in 0..=LINE_MAX {
            l.push_byte(b'z');
        }
        let n = l.finish();
        assert_eq!(&room[..n], LineBuf::TOO_LONG.as_bytes());
    }
}
