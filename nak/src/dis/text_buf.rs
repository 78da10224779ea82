//! The block buffer printed lines are gathered in (`nak dis` fills one per
//! block): a byte buffer that keeps initialized room past the text, so a
//! [`LineBuf`](crate::runtime::line_buf::LineBuf) prints straight into it (no copy
//! of the finished line).
//!
//! Every piece written is ASCII or a whole `&str`, so the text is always
//! UTF-8; it is checked once when read as a `&str`, never per piece.

use crate::runtime::line_buf::LINE_ROOM;
#[cfg(test)]
use crate::runtime::line_buf::LineBuf;

/// Room grown past the requested end, so growth is rare.
const SLACK: usize = 4096;

/// Text being printed; `nak dis` fills one per block of instructions.
#[derive(Clone, Default)]
pub struct TextBuf {
    /// Initialized bytes; the text is `buf[..len]`, the rest is room.
    buf: Vec<u8>,
    len: usize,
}

impl TextBuf {
    pub fn new() -> Self {
        TextBuf::default()
    }

    /// A buffer with `n` bytes of room already made.
    pub fn with_capacity(n: usize) -> Self {
        TextBuf {
            buf: vec![0; n],
            len: 0,
        }
    }

    /// Make sure `n` more bytes fit without growing while they are written.
    pub fn reserve(&mut self, n: usize) {
        let end = self.len.saturating_add(n);
        if end > self.buf.len() {
            self.grow(end);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, end: usize) {
        let want = end.saturating_add(SLACK).max(self.buf.len() * 2);
        // A fresh zeroed allocation (pages the system zeroes on first
        // touch) and a copy of the text, rather than `resize`, which
        // writes zeros over the whole new room.
        let mut bigger = vec![0u8; want];
        bigger[..self.len].copy_from_slice(&self.buf[..self.len]);
        self.buf = bigger;
    }

    /// The `n` bytes after the text, made when missing.
    #[inline(always)]
    fn room(&mut self, n: usize) -> &mut [u8] {
        let end = self.len + n;
        if end > self.buf.len() {
            self.grow(end);
        }
        &mut self.buf[self.len..end]
    }

    #[inline(always)]
    pub fn push_str(&mut self, s: &str) {
        let b = s.as_bytes();
        self.room(b.len()).copy_from_slice(b);
        self.len += b.len();
    }

    /// The room after the text for one line, made when missing: print the
    /// line into it ([`crate::runtime::line_buf::LineBuf::over`]), then
    /// [`Self::commit`] its length.
    #[inline(always)]
    pub fn line_room(&mut self) -> &mut [u8; LINE_ROOM] {
        if self.buf.len() - self.len < LINE_ROOM {
            self.grow(self.len + LINE_ROOM);
        }
        match self.buf[self.len..].first_chunk_mut::<LINE_ROOM>() {
            Some(room) => room,
            None => unreachable!("grow made the room"),
        }
    }

    /// Keep the first `n` bytes (at most [`LINE_ROOM`]) of the room
    /// [`Self::line_room`] lent.
    #[inline(always)]
    pub fn commit(&mut self, n: usize) {
        self.len += n.min(LINE_ROOM);
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// The text (UTF-8 by construction; checked here, once).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_grow() {
        let mut t = TextBuf::new();
        for _ in 0..3000 {
            t.push_str("IADD3 ");
            t.push_str("R12");
            t.push_str("é");
            let mut line = LineBuf::over(t.line_room());
            line.push_str(" R0\n");
            let n = line.finish();
            t.commit(n);
        }
        let want: String = (0..3000).map(|_| "IADD3 R12é R0\n").collect();
        assert_eq!(t.as_str(), want);
        t.clear();
        assert!(t.is_empty() && t.as_str().is_empty());
    }
}
