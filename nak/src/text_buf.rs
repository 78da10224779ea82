//! The block buffer printed lines are gathered in (`nak dis` fills one per
//! block): a byte buffer that keeps initialized room past the text, so a
//! finished [`LineBuf`](crate::line_buf::LineBuf) is appended as one
//! fixed-size copy instead of a length-checked `memcpy` call.
//!
//! Every piece written is ASCII or a whole `&str`, so the text is always
//! UTF-8; it is checked once when read as a `&str`, never per piece.

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

    /// Write all `N` bytes of `chunk` (ASCII) but keep only the first `n`:
    /// one fixed-size store for a piece whose length varies.
    #[inline(always)]
    pub(crate) fn push_chunk<const N: usize>(&mut self, chunk: &[u8; N], n: usize) {
        debug_assert!(n <= N && std::str::from_utf8(&chunk[..n]).is_ok());
        self.room(N).copy_from_slice(chunk);
        self.len += n.min(N);
    }

    /// Append a printed line: one fixed-size copy (128 or 256 bytes) of its
    /// padded array rather than a `memcpy` call of its length.
    #[inline(always)]
    pub fn push_line(&mut self, line: &crate::line_buf::LineBuf) {
        let n = line.len();
        match line.padded() {
            Some(p) if n <= 128 => {
                if let Some(half) = p.first_chunk::<128>() {
                    self.push_chunk(half, n);
                }
            }
            Some(p) => self.push_chunk(p, n),
            None => self.push_str(crate::line_buf::LineBuf::TOO_LONG),
        }
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
        let mut line = crate::line_buf::LineBuf::new();
        line.push_str(" R0\n");
        for _ in 0..3000 {
            t.push_str("IADD3 ");
            t.push_chunk(b"R12\0\0\0\0\x03", 3);
            t.push_str("é");
            t.push_line(&line);
        }
        let want: String = (0..3000).map(|_| "IADD3 R12é R0\n").collect();
        assert_eq!(t.as_str(), want);
        t.clear();
        assert!(t.is_empty() && t.as_str().is_empty());
    }
}
