//! A few register spans kept inline: an instruction's reads or writes,
//! without a heap allocation per instruction (the checker decodes
//! millions of them).

use std::ops::Deref;

use crate::check::program::Span;
use crate::runtime::operand::{Reg, RegFile};

/// The most spans a list holds: an op has at most 5 register sources and
/// 3 destinations in the spec, and a guard (`tests/tests/hazards.rs`
/// checks every form of every SM against it).
pub const MAX_SPANS: usize = 6;

/// Up to [`MAX_SPANS`] spans in order; it reads as a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spans {
    len: u8,
    items: [Span; MAX_SPANS],
}

impl Default for Spans {
    fn default() -> Spans {
        let none = Span {
            first: Reg {
                file: RegFile::Gpr,
                idx: 0,
            },
            n: 0,
        };
        Spans {
            len: 0,
            items: [none; MAX_SPANS],
        }
    }
}

impl Spans {
    /// Add a span; returns false (and drops it) when the list is full,
    /// which would under-count an op's registers: that only hides
    /// hazards, never invents one.
    pub fn push(&mut self, s: Span) -> bool {
        let Some(slot) = self.items.get_mut(usize::from(self.len)) else {
            return false;
        };
        *slot = s;
        self.len += 1;
        true
    }

    /// Keep the spans `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&Span) -> bool) {
        let mut out = Spans::default();
        for s in self.iter().filter(|s| keep(s)) {
            out.push(*s);
        }
        *self = out;
    }
}

impl Deref for Spans {
    type Target = [Span];
    fn deref(&self) -> &[Span] {
        &self.items[..usize::from(self.len)]
    }
}

impl Extend<Span> for Spans {
    fn extend<I: IntoIterator<Item = Span>>(&mut self, iter: I) {
        for s in iter {
            self.push(s);
        }
    }
}

impl FromIterator<Span> for Spans {
    fn from_iter<I: IntoIterator<Item = Span>>(iter: I) -> Spans {
        let mut out = Spans::default();
        out.extend(iter);
        out
    }
}

impl<'a> IntoIterator for &'a Spans {
    type Item = &'a Span;
    type IntoIter = std::slice::Iter<'a, Span>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for Spans {
    type Item = Span;
    type IntoIter = std::iter::Take<std::array::IntoIter<Span, MAX_SPANS>>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter().take(usize::from(self.len))
    }
}
