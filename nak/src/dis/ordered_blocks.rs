//! Printing a stream block by block on every core, output in input order.
//!
//! Each thread (the caller's among them) loops: take the next block from
//! the source, print it into its own buffer, hand the buffer to the
//! outlet. The outlet writes every block whose predecessors are written,
//! so whichever thread completes a run writes it. No thread exists only
//! to read or write: with as many threads as cores, a thread sleeps only
//! when it runs too far ahead of the output or waits for a lock. (A
//! reader/writer thread beside the workers, as before, woke up for every
//! block and displaced a worker.)

use std::io;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use crate::dis::text_buf::TextBuf;

/// Blocks a thread may print ahead of the output, per thread: bounds the
/// buffers held (and memory) whatever the input size.
const AHEAD_PER_THREAD: usize = 2;

/// Where the blocks come from, in order.
pub trait BlockSource: Send {
    /// Fill `v` with the next block and return its byte offset; `None` at
    /// the end.
    fn next_block(&mut self, v: &mut Vec<u8>) -> io::Result<Option<usize>>;
}

/// Print every block of `source` with `print(bytes, offset, buf)` (which
/// clears `buf`, a reused buffer, prints into it and returns a count to
/// sum, such as unknown encodings) on `threads` threads, and write the
/// text to `sink` in block order. Blocks read before a read error are
/// still printed and written; the first error (a write error first) is
/// returned after that.
pub fn run<S, W, P>(source: &mut S, sink: &mut W, threads: usize, print: P) -> io::Result<usize>
where
    S: BlockSource,
    W: io::Write + Send,
    P: Fn(&[u8], usize, &mut TextBuf) -> usize + Sync,
{
    let shared = Shared {
        intake: Mutex::new(Intake {
            source,
            taken: 0,
            stopped: false,
            error: None,
        }),
        outlet: Mutex::new(Outlet {
            sink,
            next: 0,
            ready: Vec::new(),
            spare: Vec::new(),
            total: 0,
            error: None,
        }),
        advanced: Condvar::new(),
        ahead: AHEAD_PER_THREAD * threads.max(1),
    };
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(|| shared.work(&print));
        }
        shared.work(&print);
    });
    let intake = shared
        .intake
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let outlet = shared
        .outlet
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    match (outlet.error, intake.error) {
        (Some(e), _) | (None, Some(e)) => Err(e),
        (None, None) => Ok(outlet.total),
    }
}

struct Shared<'a, S, W> {
    intake: Mutex<Intake<'a, S>>,
    outlet: Mutex<Outlet<'a, W>>,
    /// Signalled when the outlet's `next` moves or it fails.
    advanced: Condvar,
    /// How far past the outlet's `next` a block may be printed.
    ahead: usize,
}

struct Intake<'a, S> {
    source: &'a mut S,
    /// Blocks handed out so far (the next block's index).
    taken: usize,
    /// The source ended or failed: hand out nothing more.
    stopped: bool,
    error: Option<io::Error>,
}

struct Outlet<'a, W> {
    sink: &'a mut W,
    /// Index of the next block to write.
    next: usize,
    /// Printed blocks waiting for their predecessors: index, text, count.
    ready: Vec<(usize, TextBuf, usize)>,
    /// Written buffers, handed back out for reuse.
    spare: Vec<TextBuf>,
    total: usize,
    /// A write failed (or a thread panicked): stop everyone.
    error: Option<io::Error>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<S: BlockSource, W: io::Write> Shared<'_, S, W> {
    fn work<P: Fn(&[u8], usize, &mut TextBuf) -> usize>(&self, print: &P) {
        // A thread that panics must not leave the others waiting for its
        // block: the guard marks the outlet failed as the panic unwinds.
        let _guard = FailOnPanic(self);
        let mut data = Vec::new();
        let mut buf = TextBuf::new();
        while let Some((index, at)) = self.take(&mut data) {
            if !self.wait_for_room(index) {
                return;
            }
            let count = print(&data, at, &mut buf);
            buf = self.deliver(index, buf, count);
        }
    }

    /// The next block into `data`: its index and byte offset.
    fn take(&self, data: &mut Vec<u8>) -> Option<(usize, usize)> {
        let mut intake = lock(&self.intake);
        if intake.stopped {
            return None;
        }
        match intake.source.next_block(data) {
            Ok(Some(at)) => {
                intake.taken += 1;
                Some((intake.taken - 1, at))
            }
            Ok(None) => {
                intake.stopped = true;
                None
            }
            Err(e) => {
                intake.stopped = true;
                intake.error = Some(e);
                None
            }
        }
    }

    /// Wait until block `index` is near enough the output; false when the
    /// outlet failed.
    fn wait_for_room(&self, index: usize) -> bool {
        let mut outlet = lock(&self.outlet);
        while index >= outlet.next + self.ahead && outlet.error.is_none() {
            outlet = self
                .advanced
                .wait(outlet)
                .unwrap_or_else(PoisonError::into_inner);
        }
        outlet.error.is_none()
    }

    /// Hand in block `index`'s text, write every block now in order, and
    /// return a buffer to print the next block into.
    fn deliver(&self, index: usize, buf: TextBuf, count: usize) -> TextBuf {
        let mut outlet = lock(&self.outlet);
        outlet.ready.push((index, buf, count));
        let before = outlet.next;
        while let Some(i) = outlet.ready.iter().position(|r| r.0 == outlet.next) {
            let (_, text, count) = outlet.ready.swap_remove(i);
            if outlet.error.is_none()
                && let Err(e) = outlet.sink.write_all(text.as_bytes())
            {
                outlet.error = Some(e);
            }
            outlet.total += count;
            outlet.next += 1;
            outlet.spare.push(text);
        }
        if outlet.next != before || outlet.error.is_some() {
            self.advanced.notify_all();
        }
        outlet.spare.pop().unwrap_or_default()
    }
}

/// Marks the outlet failed if its thread unwinds, and wakes the waiters.
struct FailOnPanic<'s, 'a, S, W>(&'s Shared<'a, S, W>);

impl<S, W> Drop for FailOnPanic<'_, '_, S, W> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut outlet = lock(&self.0.outlet);
            outlet.error = Some(io::Error::other("a disassembly thread panicked"));
            drop(outlet);
            self.0.advanced.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of one byte each (its index), failing after `fail_at` blocks.
    struct Counter {
        n: usize,
        end: usize,
        fail_at: Option<usize>,
    }

    impl BlockSource for Counter {
        fn next_block(&mut self, v: &mut Vec<u8>) -> io::Result<Option<usize>> {
            if Some(self.n) == self.fail_at {
                return Err(io::Error::other("read failed"));
            }
            if self.n == self.end {
                return Ok(None);
            }
            v.clear();
            v.push(self.n as u8);
            self.n += 1;
            Ok(Some(self.n - 1))
        }
    }

    /// Print a block as its offset, taking longer for some blocks so they
    /// finish out of order.
    fn print(data: &[u8], at: usize, buf: &mut TextBuf) -> usize {
        if at.is_multiple_of(3) {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        buf.clear();
        buf.push_str(&format!("{at}:{}\n", data[0]));
        1
    }

    fn expected(n: usize) -> String {
        (0..n).map(|i| format!("{i}:{}\n", i as u8)).collect()
    }

    #[test]
    fn blocks_come_out_in_input_order_on_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            let mut out = Vec::new();
            let mut src = Counter {
                n: 0,
                end: 200,
                fail_at: None,
            };
            let total = run(&mut src, &mut out, threads, print).expect("run");
            assert_eq!(total, 200);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                expected(200),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn a_read_error_comes_after_the_blocks_read_before_it() {
        let mut out = Vec::new();
        let mut src = Counter {
            n: 0,
            end: 200,
            fail_at: Some(57),
        };
        let e = run(&mut src, &mut out, 4, print).expect_err("read error");
        assert_eq!(e.to_string(), "read failed");
        assert_eq!(String::from_utf8(out).unwrap(), expected(57));
    }

    /// A sink that accepts `left` writes, then fails.
    struct Failing {
        left: usize,
        got: usize,
    }

    impl io::Write for Failing {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::new(io::ErrorKind::BrokenPipe, "closed"));
            }
            self.left -= 1;
            self.got += 1;
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_stops_every_thread_and_is_returned() {
        let mut sink = Failing { left: 10, got: 0 };
        let mut src = Counter {
            n: 0,
            end: 100_000,
            fail_at: None,
        };
        let e = run(&mut src, &mut sink, 4, print).expect_err("write error");
        assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(sink.got, 10);
        // The threads stopped soon after: not the whole input was read.
        assert!(src.n < 100, "read {} blocks", src.n);
    }
}
