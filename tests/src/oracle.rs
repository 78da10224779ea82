//! A batch runner around NVIDIA's disassembler `nvdisasm`, the "oracle" that
//! the integration tests compare the ISA spec against.
//!
//! Two nvdisasm versions are needed: 11.8 is the last one that disassembles
//! SM50/52/60/70, and 13.x serves SM75 and later.  [`Oracle::get`] finds them
//! (env `NVDISASM_13` / `NVDISASM_11`, else `<workspace>/.oracle/`) and runs
//! `scripts/install-oracle.sh` once when they are missing.
//!
//! nvdisasm runs in raw mode (`nvdisasm -b SMxx -base ADDR FILE`) on images
//! that this module lays out:
//!
//! * SM70 and later: one 128-bit instruction per 16 bytes, little-endian, so
//!   word `i` of a batch sits at address `0x10 * i`.
//! * SM50/52/60 (Maxwell/Pascal): a 64-bit scheduling control word before
//!   every three 64-bit instructions.  Every group gets the neutral control
//!   word [`MAXWELL_CTRL`] (no operand reuse, no dual issue), and the last
//!   group is padded with [`MAXWELL_NOP`] (no results are returned for the
//!   padding).  Word `i` sits at `0x20 * (i / 3) + 8 + 8 * (i % 3)`; the
//!   control words are not printed.  nvdisasm brackets dual-issued pairs as
//!   `{ A ;` / `B }`: with the neutral control word that does not happen, but
//!   the parser strips the braces anyway (and `-novliw` is passed, which
//!   turns the pairing syntax off).
//!
//! See [`address_of`] for the mapping, [`Oracle::disassemble`] for texts at
//! those addresses, and [`Oracle::disassemble_at_zero`] for texts as if each
//! word were the first instruction of an image loaded at 0 (the form the
//! corpus in `../shared/corpus` uses).
//!
//! nvdisasm's behaviour on bad input, which this module copes with:
//!
//! * Any rejected instruction makes it print nothing on stdout and exit 1.
//!   stderr names the rejected instructions, usually all of them, one line
//!   each: `nvdisasm-13 error   : Unrecognized operation for functional unit
//!   'uC' at address 0x00000020` (the program name is the binary's file
//!   name; the address includes `-base`).  Some words (e.g. an all-zero word
//!   on SM75) are rejected with only `... error   : Illegal instruction
//!   found`, which has no address.
//! * So a rejected range is handled like this: every word named by address
//!   gets `Err(message)` and is replaced by a NOP, and the range is run again;
//!   when nvdisasm names no new address, the range is split in two until the
//!   culprit is a single word.  The number of runs is bounded.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::{self, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The neutral Maxwell/Pascal control word (as ptxas uses in padding
/// bundles): no reuse flags, no dual issue.
pub const MAXWELL_CTRL: u64 = 0x001f_8000_fc00_07e0;
/// `NOP` on SM50/52/60.
pub const MAXWELL_NOP: u64 = 0x50b0_0000_0007_0f00;
/// `NOP` on SM70 and later (corpus line `18790000000000000000000000c00f00`).
pub const VOLTA_NOP: u128 = 0x000f_c000_0000_0000_0000_0000_0000_7918;

/// At most this many words go to one nvdisasm process.
const MAX_CHUNK: usize = 20_000;
/// Batches are split for parallel runs, but not below this many words per
/// process (one nvdisasm start costs ~0.15-0.25 s).
const MIN_CHUNK: usize = 4_096;
/// At most this many nvdisasm processes run at once for one batch.
const MAX_JOBS: usize = 8;
/// The second base address of [`Oracle::disassemble_at_zero`].
const REBASE: u64 = 0x100_0000;
/// One nvdisasm process is killed after this long.
const TIMEOUT: Duration = Duration::from_secs(600);

/// One result per word: `Ok(normalized text)` or `Err(why nvdisasm rejected it)`.
pub type Disassembly = Vec<Result<String, String>>;

/// Where nvdisasm binaries are found: env `NVDISASM_13` / `NVDISASM_11`, else
/// `<workspace>/.oracle/nvdisasm-13` and `<workspace>/.oracle/nvdisasm-11.8`
/// (the workspace is the parent of the tests crate's directory).
#[derive(Debug, Clone)]
pub struct Oracle {
    nvdisasm_13: PathBuf,
    nvdisasm_11: PathBuf,
}

/// The workspace root (parent of the tests crate).
pub fn workspace_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// True for the SMs whose family bundles instructions behind a scheduling
/// word (Maxwell/Pascal), from the spec's families.
pub fn is_maxwell_pascal(sm: u32) -> bool {
    nak::isa::family_of(sm).is_some_and(|f| f.bundle().is_some())
}

/// The address at which [`Oracle::disassemble`] places word `index` of a
/// batch (SM70+: `0x10 * index`; SM5x/6x: `0x20 * (index / 3) + 8 + 8 *
/// (index % 3)`, after the group's control word).
pub fn address_of(sm: u32, index: usize) -> u64 {
    let i = index as u64;
    if is_maxwell_pascal(sm) {
        0x20 * (i / 3) + 8 + 8 * (i % 3)
    } else {
        0x10 * i
    }
}

/// The address of the first instruction of a raw image loaded at 0 (SM70+:
/// 0; SM5x/6x: 8, after the control word).
fn first_address(sm: u32) -> u64 {
    address_of(sm, 0)
}

/// Normalization used for all comparisons: strip the `/*addr*/` prefix (and a
/// trailing `/* 0x... */` encoding comment, as printed with `-hex`), a
/// trailing ` ;`/`;`, collapse runs of whitespace to one space, trim.
pub fn normalize(text: &str) -> String {
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix("/*")
        && let Some((inner, after)) = rest.split_once("*/")
        && !inner.trim().is_empty()
        && inner.trim().bytes().all(|b| b.is_ascii_hexdigit())
    {
        t = after.trim();
    }
    if let Some(start) = t.rfind("/*")
        && t.ends_with("*/")
    {
        let inner = t[start + 2..t.len() - 2].trim();
        if let Some(hex) = inner.strip_prefix("0x")
            && !hex.is_empty()
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            t = t[..start].trim_end();
        }
    }
    let t = t.strip_suffix(';').unwrap_or(t);
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

static ORACLE: OnceLock<Result<Oracle, String>> = OnceLock::new();
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Checks that `path` is an nvdisasm that runs.
fn check_tool(path: &Path) -> Result<(), String> {
    match Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{} --version failed ({}): {}",
            path.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("cannot run {}: {e}", path.display())),
    }
}

impl Oracle {
    /// The oracle of this process.  Finds the tools; if they are missing from
    /// the default place, runs `scripts/install-oracle.sh` once (guarded by a
    /// `OnceLock` in this process and by `flock` inside the script across
    /// processes) unless env `NAK_NO_ORACLE_INSTALL=1`.  `Err` with a clear
    /// message when nvdisasm is unavailable.
    pub fn get() -> Result<&'static Oracle, String> {
        ORACLE
            .get_or_init(Oracle::locate_or_install)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// An oracle using these two binaries (checked with `--version`).
    pub fn with_paths(nvdisasm_13: PathBuf, nvdisasm_11: PathBuf) -> Result<Oracle, String> {
        check_tool(&nvdisasm_13)?;
        check_tool(&nvdisasm_11)?;
        Ok(Oracle {
            nvdisasm_13,
            nvdisasm_11,
        })
    }

    fn locate_or_install() -> Result<Oracle, String> {
        let ws = workspace_dir();
        let dest = ws.join(".oracle");
        let env13 = env_path("NVDISASM_13");
        let env11 = env_path("NVDISASM_11");
        let p13 = env13.clone().unwrap_or_else(|| dest.join("nvdisasm-13"));
        let p11 = env11.clone().unwrap_or_else(|| dest.join("nvdisasm-11.8"));
        let first = match Oracle::with_paths(p13.clone(), p11.clone()) {
            Ok(o) => return Ok(o),
            Err(e) => e,
        };
        let env_broken = (env13.is_some() && check_tool(&p13).is_err())
            || (env11.is_some() && check_tool(&p11).is_err());
        if env_broken {
            return Err(format!(
                "nvdisasm unavailable: {first} (path given by env NVDISASM_13/NVDISASM_11)"
            ));
        }
        if std::env::var("NAK_NO_ORACLE_INSTALL").is_ok_and(|v| v == "1") {
            return Err(format!(
                "nvdisasm unavailable: {first}; NAK_NO_ORACLE_INSTALL=1, so \
                 scripts/install-oracle.sh was not run (run it, or set NVDISASM_13 and NVDISASM_11)"
            ));
        }
        let script = ws.join("scripts").join("install-oracle.sh");
        eprintln!(
            "oracle: nvdisasm missing ({first}); running {} {}",
            script.display(),
            dest.display()
        );
        let out = Command::new("bash")
            .arg(&script)
            .arg(&dest)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("nvdisasm unavailable: cannot run {}: {e}", script.display()))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "nvdisasm unavailable: {} failed ({}):\n{}",
                script.display(),
                out.status,
                tail.join("\n")
            ));
        }
        Oracle::with_paths(p13, p11)
            .map_err(|e| format!("nvdisasm unavailable after running the installer: {e}"))
    }

    /// Which nvdisasm serves an SM: the spec's reference version for it
    /// (11.8 up to SM70, 13 from SM75).
    pub fn nvdisasm(&self, sm: u32) -> &Path {
        if nak::isa::reference_nvdisasm(sm) == Some(11) {
            &self.nvdisasm_11
        } else {
            &self.nvdisasm_13
        }
    }

    /// Disassembles a batch of instruction words for `sm` (50, 75, 120, ...).
    ///
    /// SM70+: each word is a 128-bit instruction (little-endian in the
    /// image).  SM50/52/60: each word is a 64-bit instruction; the runner adds
    /// the control words (see the module docs); a word wider than 64 bits is
    /// an `Err`.
    ///
    /// Returns one result per input word: `Ok(normalized text)` or `Err(...)`
    /// for a word nvdisasm rejects.  Texts are as printed with the word at its
    /// real position in the batch, [`address_of`]`(sm, index)`, which matters
    /// for branch-like instructions (their targets are absolute addresses
    /// computed from the instruction's own address).
    pub fn disassemble(&self, sm: u32, words: &[u128]) -> Disassembly {
        self.batch(sm, words, 0).0
    }

    /// Like [`Oracle::disassemble`], but each text is what nvdisasm prints
    /// when the word is the first instruction of an image loaded at address 0
    /// (SM70+: at 0x0; SM5x/6x: at 0x8, after the control word), the form of
    /// the corpus texts.
    ///
    /// The batch is disassembled at two base addresses (0 and 0x1000000); in
    /// a text that differs between them, the numbers that moved by exactly the
    /// base difference are addresses and are moved back by the word's offset
    /// from the image start.  A word whose two texts differ in any other way
    /// is disassembled again on its own.
    pub fn disassemble_at_zero(&self, sm: u32, words: &[u128]) -> Disassembly {
        let (mut r0, patched) = self.batch(sm, words, 0);
        let (r1, _) = self.batch(sm, &patched, REBASE);
        let mut alone = Vec::new();
        for (i, (a, b)) in r0.iter_mut().zip(r1).enumerate() {
            let Ok(t0) = a else { continue };
            let delta = address_of(sm, i) - first_address(sm);
            match b {
                Ok(t1) if *t0 == t1 => {}
                Ok(t1) => match rebase_text(t0, &t1, delta, REBASE) {
                    Some(t) => *t0 = t,
                    None => alone.push(i),
                },
                Err(_) => alone.push(i),
            }
        }
        for i in alone {
            let (mut one, _) = self.batch(sm, &words[i..=i], 0);
            r0[i] = one
                .pop()
                .unwrap_or_else(|| Err("nvdisasm printed nothing".to_string()));
        }
        r0
    }

    /// Disassembles `words` at their real positions in an image based at
    /// `base`; also returns the words with every rejected one replaced by a
    /// NOP.
    fn batch(&self, sm: u32, words: &[u128], base: u64) -> (Disassembly, Vec<u128>) {
        let n = words.len();
        if n == 0 {
            return (Vec::new(), Vec::new());
        }
        let jobs = std::thread::available_parallelism()
            .map_or(1, |p| p.get())
            .clamp(1, MAX_JOBS);
        let mut chunk = n.div_ceil(jobs).clamp(MIN_CHUNK, MAX_CHUNK);
        if is_maxwell_pascal(sm) {
            // chunks start at a group boundary
            chunk -= chunk % 3;
        }
        let starts: Vec<usize> = (0..n).step_by(chunk).collect();
        let run = |lo: usize| {
            let hi = (lo + chunk).min(n);
            let chunk_base = base + address_of(sm, lo) - first_address(sm);
            (lo, self.chunk(sm, &words[lo..hi], chunk_base))
        };
        let mut parts: Vec<(usize, (Disassembly, Vec<u128>))> = if starts.len() == 1 {
            vec![run(0)]
        } else {
            let next = Mutex::new(starts.into_iter());
            let done = Mutex::new(Vec::new());
            std::thread::scope(|s| {
                for _ in 0..jobs {
                    s.spawn(|| {
                        loop {
                            let lo = match next.lock() {
                                Ok(mut it) => it.next(),
                                Err(_) => None,
                            };
                            let Some(lo) = lo else { break };
                            let part = run(lo);
                            if let Ok(mut d) = done.lock() {
                                d.push(part);
                            }
                        }
                    });
                }
            });
            done.into_inner().unwrap_or_default()
        };
        parts.sort_by_key(|p| p.0);
        let mut out = Vec::with_capacity(n);
        let mut patched = Vec::with_capacity(n);
        for (_, (r, p)) in parts {
            out.extend(r);
            patched.extend(p);
        }
        if out.len() != n {
            // a worker thread died; never expected
            return (
                vec![Err("internal error: a disassembly worker failed".to_string()); n],
                words.to_vec(),
            );
        }
        (out, patched)
    }

    /// One chunk (at most [`MAX_CHUNK`] words, for SM5x/6x starting at a group
    /// boundary) whose image is based at `base`.
    fn chunk(&self, sm: u32, words: &[u128], base: u64) -> (Disassembly, Vec<u128>) {
        let n = words.len();
        let maxwell = is_maxwell_pascal(sm);
        let nop = if maxwell {
            u128::from(MAXWELL_NOP)
        } else {
            VOLTA_NOP
        };
        let mut words = words.to_vec();
        let mut out: Vec<Option<Result<String, String>>> = vec![None; n];
        let mut patched = vec![false; n];
        if maxwell {
            for (i, w) in words.iter_mut().enumerate() {
                if *w > u128::from(u64::MAX) {
                    out[i] = Some(Err(format!(
                        "{w:#x} is not a 64-bit SM{sm} instruction word"
                    )));
                    *w = nop;
                    patched[i] = true;
                }
            }
        }
        let max_runs = 4 * n + 16;
        let mut runs = 0;
        let mut stack = vec![(0, n)];
        while let Some((lo, hi)) = stack.pop() {
            if lo >= hi {
                continue;
            }
            runs += 1;
            if runs > max_runs {
                fill_err(&mut out, lo, hi, "nvdisasm: gave up (too many reruns)");
                continue;
            }
            match self.run_range(sm, &words, lo, hi, base) {
                Outcome::Done(texts) => {
                    for (i, t) in texts {
                        if out[i].is_none() {
                            out[i] = Some(Ok(t));
                        }
                    }
                    fill_err(&mut out, lo, hi, "nvdisasm printed nothing for this word");
                }
                Outcome::Rejected { bad, messages } => {
                    let mut new = false;
                    for (i, msg) in bad {
                        if !patched[i] {
                            patched[i] = true;
                            words[i] = nop;
                            out[i] = Some(Err(msg));
                            new = true;
                        }
                    }
                    if new {
                        stack.push((lo, hi));
                    } else if hi - lo == 1 {
                        let msg = if messages.is_empty() {
                            "nvdisasm rejected the word".to_string()
                        } else {
                            messages.join("; ")
                        };
                        if !patched[lo] {
                            patched[lo] = true;
                            words[lo] = nop;
                        }
                        fill_err(&mut out, lo, hi, &msg);
                    } else {
                        let mid = lo + (hi - lo) / 2;
                        stack.push((lo, mid));
                        stack.push((mid, hi));
                    }
                }
                Outcome::Broken(msg) => {
                    for i in lo..hi {
                        if out[i].is_none() {
                            patched[i] = true;
                            words[i] = nop;
                        }
                    }
                    fill_err(&mut out, lo, hi, &msg);
                }
            }
        }
        let out = out
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err("internal error: word not disassembled".to_string())))
            .collect();
        (out, words)
    }

    /// Runs nvdisasm once on `words[lo..hi]` (chunk indices) placed at their
    /// positions in the chunk image based at `base`.
    fn run_range(&self, sm: u32, words: &[u128], lo: usize, hi: usize, base: u64) -> Outcome {
        let maxwell = is_maxwell_pascal(sm);
        let mut image = Vec::new();
        let start; // chunk index of the image's first slot
        if maxwell {
            start = lo - lo % 3;
            for j in start..hi.div_ceil(3) * 3 {
                if j % 3 == 0 {
                    image.extend_from_slice(&MAXWELL_CTRL.to_le_bytes());
                }
                let w = words
                    .get(j)
                    .filter(|_| (lo..hi).contains(&j))
                    .and_then(|w| u64::try_from(*w).ok())
                    .unwrap_or(MAXWELL_NOP);
                image.extend_from_slice(&w.to_le_bytes());
            }
        } else {
            start = lo;
            for w in &words[lo..hi] {
                image.extend_from_slice(&w.to_le_bytes());
            }
        }
        let image_base = base + address_of(sm, start) - first_address(sm);
        let index_of = |addr: u64| -> Option<usize> {
            let rel = addr.checked_sub(image_base)?;
            let i = if maxwell {
                let slot = rel % 32;
                if slot == 0 {
                    return None;
                }
                start + 3 * usize::try_from(rel / 32).ok()? + usize::try_from(slot / 8).ok()? - 1
            } else {
                if rel % 16 != 0 {
                    return None;
                }
                start + usize::try_from(rel / 16).ok()?
            };
            (lo..hi).contains(&i).then_some(i)
        };

        let mut args = vec![
            "-b".to_string(),
            format!("SM{sm}"),
            "-ndf".to_string(),
            "-base".to_string(),
            format!("{image_base:#x}"),
        ];
        if maxwell {
            args.push("-novliw".to_string());
        }
        let (ok, stdout, stderr) = match run_tool(self.nvdisasm(sm), &args, &image) {
            Ok(r) => r,
            Err(e) => return Outcome::Broken(e),
        };
        if ok {
            let mut texts = Vec::new();
            for line in stdout.lines() {
                if let Some((addr, text)) = parse_line(line)
                    && let Some(i) = index_of(addr)
                {
                    texts.push((i, text));
                }
            }
            return Outcome::Done(texts);
        }
        let mut bad = BTreeMap::new();
        let mut messages = Vec::new();
        let mut fatal = Vec::new();
        for line in stderr.lines() {
            let line = line.trim();
            let Some((kind, msg)) = line.split_once(':') else {
                continue;
            };
            let (kind, msg) = (kind.trim(), msg.trim());
            if kind.ends_with("error") {
                let msg = format!("nvdisasm: {msg}");
                match error_address(&msg).and_then(index_of) {
                    Some(i) => {
                        bad.entry(i).or_insert(msg);
                    }
                    None => {
                        if !messages.contains(&msg) {
                            messages.push(msg);
                        }
                    }
                }
            } else if kind.ends_with("fatal") {
                fatal.push(format!("nvdisasm: {msg}"));
            }
        }
        // A fatal error names no word it can be trusted on (nvdisasm
        // 11.8's "More than one pattern matched" on SM72 is fatal): the
        // range is bisected down to the word, as for an addressless error.
        if bad.is_empty() && messages.is_empty() && !fatal.is_empty() {
            return Outcome::Rejected {
                bad,
                messages: fatal,
            };
        }
        if bad.is_empty() && messages.is_empty() {
            let mut msg = fatal.join("; ");
            if msg.is_empty() {
                msg = format!("nvdisasm failed: {}", stderr.trim());
            }
            return Outcome::Broken(msg);
        }
        Outcome::Rejected { bad, messages }
    }
}

enum Outcome {
    /// nvdisasm succeeded: (chunk index, text) per printed instruction.
    Done(Vec<(usize, String)>),
    /// nvdisasm rejected some words: those it named by address, and the
    /// messages without (a usable) address.
    Rejected {
        bad: BTreeMap<usize, String>,
        messages: Vec<String>,
    },
    /// nvdisasm could not run or failed otherwise.
    Broken(String),
}

fn fill_err(out: &mut [Option<Result<String, String>>], lo: usize, hi: usize, msg: &str) {
    for r in &mut out[lo..hi] {
        if r.is_none() {
            *r = Some(Err(msg.to_string()));
        }
    }
}

/// `... at address 0x00000020` -> 0x20.
fn error_address(msg: &str) -> Option<u64> {
    let pos = msg.rfind("at address 0x")?;
    let hex: String = msg[pos + "at address 0x".len()..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    u64::from_str_radix(&hex, 16).ok()
}

/// An instruction line of nvdisasm's output, `  /*0010*/   IADD3 R0, R0, 0x134, RZ ;`
/// (SM5x/6x pairs: `/*0098*/ { A ;` and `/*00a8*/ B }`) -> (address, text).
fn parse_line(line: &str) -> Option<(u64, String)> {
    let rest = line.trim_start().strip_prefix("/*")?;
    let (addr, text) = rest.split_once("*/")?;
    let addr = u64::from_str_radix(addr.trim(), 16).ok()?;
    let mut text = text.trim();
    if let Some(t) = text.strip_prefix('{') {
        text = t.trim_start();
    }
    if let Some(t) = text.strip_suffix('}') {
        text = t.trim_end();
    }
    let text = normalize(text);
    (!text.is_empty()).then_some((addr, text))
}

/// Splits `text` into the pieces between numbers and the numbers
/// (`-?0x[0-9a-fA-F]+`).
fn split_numbers(text: &str) -> (Vec<&str>, Vec<&str>) {
    let b = text.as_bytes();
    let (mut rest, mut nums) = (Vec::new(), Vec::new());
    let (mut i, mut last) = (0, 0);
    while i < b.len() {
        let neg = b[i] == b'-';
        let j = if neg { i + 1 } else { i };
        if b.len() > j + 2 && b[j] == b'0' && b[j + 1] == b'x' && b[j + 2].is_ascii_hexdigit() {
            let mut k = j + 2;
            while k < b.len() && b[k].is_ascii_hexdigit() {
                k += 1;
            }
            rest.push(&text[last..i]);
            nums.push(&text[i..k]);
            last = k;
            i = k;
        } else {
            i += 1;
        }
    }
    rest.push(&text[last..]);
    (rest, nums)
}

fn parse_number(s: &str) -> Option<i128> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(s) => (true, s),
        None => (false, s),
    };
    let v = i128::from(u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()?);
    Some(if neg { -v } else { v })
}

/// `t0`/`t1`: one word's text in images based at 0 and at `base_diff`; the
/// word sits `delta` bytes after the image start.  Returns its text at the
/// image start, or None when the texts differ other than by addresses.
fn rebase_text(t0: &str, t1: &str, delta: u64, base_diff: u64) -> Option<String> {
    let (s0, n0) = split_numbers(t0);
    let (s1, n1) = split_numbers(t1);
    if s0 != s1 || n0.len() != n1.len() {
        return None;
    }
    let mut out = String::with_capacity(t0.len());
    out.push_str(s0[0]);
    for (k, (x0, x1)) in n0.iter().zip(&n1).enumerate() {
        if x0 == x1 {
            out.push_str(x0);
        } else {
            let (v0, v1) = (parse_number(x0)?, parse_number(x1)?);
            if v1 - v0 != i128::from(base_diff) {
                return None;
            }
            let v = v0 - i128::from(delta);
            if v < 0 {
                write!(out, "-{:#x}", -v).ok()?;
            } else {
                write!(out, "{v:#x}").ok()?;
            }
        }
        out.push_str(s0[k + 1]);
    }
    Some(out)
}

/// Removes the temporary files of one nvdisasm run.
struct TempFiles(Vec<PathBuf>);

impl Drop for TempFiles {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = fs::remove_file(p);
        }
    }
}

/// Runs `tool args IMAGE` with `image` in a temp file; stdout and stderr go
/// to temp files (no pipe deadlocks), the process is killed after
/// [`TIMEOUT`].  Returns (exit success, stdout, stderr).
fn run_tool(tool: &Path, args: &[String], image: &[u8]) -> Result<(bool, String, String), String> {
    let id = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let stem = std::env::temp_dir().join(format!("nak-oracle-{}-{id}", std::process::id()));
    let input = stem.with_extension("bin");
    let out_path = stem.with_extension("out");
    let err_path = stem.with_extension("err");
    let files = TempFiles(vec![input.clone(), out_path.clone(), err_path.clone()]);
    let create = |p: &Path| {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
            .map_err(|e| format!("cannot create {}: {e}", p.display()))
    };
    create(&input)?
        .write_all(image)
        .map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let stdout = create(&out_path)?;
    let stderr = create(&err_path)?;
    let mut child = Command::new(tool)
        .args(args)
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    let started = Instant::now();
    let mut nap = Duration::from_millis(1);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => return Err(format!("waiting for {}: {e}", tool.display())),
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{} timed out after {} s",
                tool.display(),
                TIMEOUT.as_secs()
            ));
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(20));
    };
    let read = |p: &Path| -> Result<String, String> {
        let mut s = String::new();
        let bytes = fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        s.push_str(&String::from_utf8_lossy(&bytes));
        Ok(s)
    };
    let out = read(&out_path)?;
    let err = read(&err_path)?;
    drop(files);
    if status.code().is_none() {
        return Err(format!(
            "{} was killed ({status}): {}",
            tool.display(),
            err.trim()
        ));
    }
    Ok((status.success(), out, err))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus folder, `<workspace>/../shared/corpus`, if present.
    fn corpus_dir() -> Option<PathBuf> {
        let dir = workspace_dir().parent()?.join("shared").join("corpus");
        dir.is_dir().then_some(dir)
    }

    /// (word, text) lines of `sm_NN.txt`, or None (with a note) when absent.
    fn corpus(sm: u32) -> Option<Vec<(u128, String)>> {
        let Some(path) = corpus_dir().map(|d| d.join(format!("sm_{sm}.txt"))) else {
            eprintln!("note: ../shared/corpus is absent; skipping the SM{sm} corpus check");
            return None;
        };
        let Ok(text) = fs::read_to_string(&path) else {
            eprintln!("note: {} is absent; skipping", path.display());
            return None;
        };
        let mut lines = Vec::new();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (hex, t) = line.split_once('\t').expect("HEX<TAB>TEXT");
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect();
            let mut le = [0u8; 16];
            le[..bytes.len()].copy_from_slice(&bytes);
            lines.push((u128::from_le_bytes(le), t.to_string()));
        }
        Some(lines)
    }

    /// The oracle, or None (with a note) when it is unavailable and
    /// installing it is forbidden.
    fn oracle() -> Option<&'static Oracle> {
        match Oracle::get() {
            Ok(o) => Some(o),
            Err(e) if std::env::var("NAK_NO_ORACLE_INSTALL").is_ok_and(|v| v == "1") => {
                eprintln!("note: skipping, {e}");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    const SMS: [u32; 11] = [50, 52, 60, 70, 75, 80, 86, 89, 90, 100, 120];

    /// Address-dependent mnemonics (see the corpus README).
    fn address_dependent(text: &str) -> bool {
        [
            "BRA", "SSY", "PBK", "CAL", "PRET", "BSSY", "RET.REL", "WARPSYNC",
        ]
        .iter()
        .any(|m| text.contains(m))
    }

    #[test]
    fn normalize_texts() {
        assert_eq!(
            normalize("        /*0010*/                   IADD3 R0, R0, 0x134, RZ ;"),
            "IADD3 R0, R0, 0x134, RZ"
        );
        assert_eq!(normalize("/*0008*/ NOP;"), "NOP");
        assert_eq!(normalize("  @!P0   BRA  -0x100 ; "), "@!P0 BRA -0x100");
        assert_eq!(
            normalize("/*0000*/ MOV R1, c[0x0][0x28] ; /* 0x00000a0000017a02 */"),
            "MOV R1, c[0x0][0x28]"
        );
        assert_eq!(normalize("EXIT"), "EXIT");
        assert_eq!(normalize("  "), "");
    }

    #[test]
    fn parse_lines() {
        assert_eq!(
            parse_line("        /*0010*/                   IADD3 R0, R0, 0x134, RZ ;"),
            Some((0x10, "IADD3 R0, R0, 0x134, RZ".to_string()))
        );
        assert_eq!(
            parse_line("        /*0098*/         {         DADD.RZ R30, R2.reuse, c[0x0][0x150] ;"),
            Some((0x98, "DADD.RZ R30, R2.reuse, c[0x0][0x150]".to_string()))
        );
        assert_eq!(
            parse_line("        /*00a8*/                   IMUL.U32.U32 R0, R16, R4         }"),
            Some((0xa8, "IMUL.U32.U32 R0, R16, R4".to_string()))
        );
        assert_eq!(
            parse_line("\t.headerflags    @\"EF_CUDA_SM50 EF_CUDA_PTX_SM(EF_CUDA_SM50)\""),
            None
        );
        assert_eq!(
            error_address(
                "nvdisasm: Unrecognized operation for functional unit 'uC' at address 0x00000020"
            ),
            Some(0x20)
        );
        assert_eq!(error_address("nvdisasm: Illegal instruction found"), None);
    }

    #[test]
    fn rebase() {
        assert_eq!(
            rebase_text("BRA -0x38", "BRA 0xffffc8", 8, REBASE).as_deref(),
            Some("BRA -0x40")
        );
        assert_eq!(
            rebase_text(
                "@!P0 BRA !P2, 0x360",
                "@!P0 BRA !P2, 0x1000360",
                0x50,
                REBASE
            )
            .as_deref(),
            Some("@!P0 BRA !P2, 0x310")
        );
        assert_eq!(rebase_text("BRA 0x10", "BRA 0x20", 0, REBASE), None);
        assert_eq!(rebase_text("A 0x10", "B 0x1000010", 0, REBASE), None);
    }

    #[test]
    fn addresses() {
        assert_eq!(address_of(75, 3), 0x30);
        assert_eq!(address_of(50, 0), 0x8);
        assert_eq!(address_of(50, 2), 0x18);
        assert_eq!(address_of(50, 3), 0x28);
        assert_eq!(address_of(60, 5), 0x38);
    }

    #[test]
    fn nops_are_accepted() {
        let Some(o) = oracle() else { return };
        for sm in SMS {
            let nop = if is_maxwell_pascal(sm) {
                u128::from(MAXWELL_NOP)
            } else {
                VOLTA_NOP
            };
            let r = o.disassemble(sm, &[nop; 4]);
            assert_eq!(r, vec![Ok("NOP".to_string()); 4], "SM{sm}");
        }
    }

    #[test]
    fn corpus_samples() {
        let Some(o) = oracle() else { return };
        for sm in SMS {
            let Some(lines) = corpus(sm) else { continue };
            let step = (lines.len() / 50).max(1);
            let mut sample: Vec<&(u128, String)> = lines.iter().step_by(step).take(50).collect();
            sample.extend(lines.iter().filter(|l| address_dependent(&l.1)).take(5));
            let words: Vec<u128> = sample.iter().map(|l| l.0).collect();
            let zero = o.disassemble_at_zero(sm, &words);
            let real = o.disassemble(sm, &words);
            for (k, l) in sample.iter().enumerate() {
                assert_eq!(zero[k].as_deref(), Ok(l.1.as_str()), "SM{sm} {:#x}", l.0);
                if !address_dependent(&l.1) {
                    assert_eq!(real[k].as_deref(), Ok(l.1.as_str()), "SM{sm} {:#x}", l.0);
                }
            }
        }
    }

    /// A branch at position 5 of a batch: `disassemble_at_zero` gives the
    /// corpus text, `disassemble` the target as seen from its real address.
    #[test]
    fn branch_at_position_5() {
        let Some(o) = oracle() else { return };
        // (sm, corpus text, text at position 5)
        let cases = [
            (75, "BRA -0x4a0", "BRA -0x450"), // at 0x50
            (50, "BRA -0x40", "BRA -0x10"),   // at 0x38 (group 1, slot 2)
            (60, "BRA", ""),                  // any BRA line: only at_zero checked
            (120, "BRA", ""),
        ];
        for (sm, text, at5) in cases {
            let Some(lines) = corpus(sm) else { continue };
            let Some(bra) = lines
                .iter()
                .find(|l| l.1 == text || (at5.is_empty() && l.1.starts_with("BRA ")))
            else {
                panic!("SM{sm}: no `{text}` line in the corpus");
            };
            let mut words: Vec<u128> = lines.iter().take(20).map(|l| l.0).collect();
            words.retain(|w| *w != bra.0);
            words.truncate(9);
            words.insert(5, bra.0);
            let zero = o.disassemble_at_zero(sm, &words);
            assert_eq!(zero[5].as_deref(), Ok(bra.1.as_str()), "SM{sm}");
            if !at5.is_empty() {
                let real = o.disassemble(sm, &words);
                assert_eq!(real[5].as_deref(), Ok(at5), "SM{sm}");
            }
        }
    }

    fn invalid_in_middle(sm: u32, bad: u128) {
        let Some(o) = oracle() else { return };
        let Some(lines) = corpus(sm) else { return };
        let step = lines.len() / 40;
        let mut sample: Vec<(u128, String)> =
            lines.iter().step_by(step).take(40).cloned().collect();
        sample.insert(17, (bad, String::new()));
        let words: Vec<u128> = sample.iter().map(|l| l.0).collect();
        for (what, r) in [
            ("at zero", o.disassemble_at_zero(sm, &words)),
            ("real", o.disassemble(sm, &words)),
        ] {
            assert_eq!(r.len(), words.len());
            for (k, (l, r)) in sample.iter().zip(&r).enumerate() {
                if k == 17 {
                    assert!(r.is_err(), "SM{sm} {what}: {bad:#x} accepted: {r:?}");
                } else if what == "at zero" || !address_dependent(&l.1) {
                    assert_eq!(r.as_deref(), Ok(l.1.as_str()), "SM{sm} {what} #{k}");
                } else {
                    assert!(r.is_ok(), "SM{sm} {what} #{k}: {r:?}");
                }
            }
        }
    }

    #[test]
    fn invalid_word_sm75() {
        invalid_in_middle(75, u128::MAX);
    }

    #[test]
    fn invalid_word_sm50() {
        invalid_in_middle(50, u128::from(u64::MAX));
    }

    /// An all-zero word is rejected on SM75 without an address: found by
    /// bisection.
    #[test]
    fn invalid_word_without_address() {
        invalid_in_middle(75, 0);
    }

    #[test]
    fn too_wide_for_maxwell() {
        let Some(o) = oracle() else { return };
        let r = o.disassemble(
            50,
            &[u128::from(MAXWELL_NOP), 1 << 64, u128::from(MAXWELL_NOP)],
        );
        assert_eq!(r[0].as_deref(), Ok("NOP"));
        assert!(r[1].is_err());
        assert_eq!(r[2].as_deref(), Ok("NOP"));
    }

    #[test]
    fn empty_batch() {
        let Some(o) = oracle() else { return };
        assert!(o.disassemble(75, &[]).is_empty());
        assert!(o.disassemble_at_zero(50, &[]).is_empty());
    }

    /// Many rejected words: random 128-bit words on SM75 among valid ones.
    #[test]
    fn many_invalid_words() {
        let Some(o) = oracle() else { return };
        let Some(lines) = corpus(75) else { return };
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut words = Vec::new();
        let mut want = Vec::new();
        for k in 0..300 {
            if k % 3 == 0 {
                words.push(u128::from(rnd()) << 64 | u128::from(rnd()));
                want.push(None);
            } else {
                let l = &lines[usize::try_from(rnd()).unwrap_or(0) % lines.len()];
                words.push(l.0);
                want.push(Some(l.1.clone()));
            }
        }
        let r = o.disassemble_at_zero(75, &words);
        for (k, (w, r)) in want.iter().zip(&r).enumerate() {
            if let Some(w) = w {
                assert_eq!(r.as_deref(), Ok(w.as_str()), "#{k}");
            }
        }
    }

    /// `cargo test -- --ignored whole_corpus`: every corpus line of every SM
    /// (several chunks per batch).
    #[test]
    #[ignore]
    fn whole_corpus() {
        let Some(o) = oracle() else { return };
        for sm in SMS {
            let Some(lines) = corpus(sm) else { continue };
            let words: Vec<u128> = lines.iter().map(|l| l.0).collect();
            let t = Instant::now();
            let r = o.disassemble_at_zero(sm, &words);
            let bad: Vec<String> = lines
                .iter()
                .zip(&r)
                .filter(|(l, r)| r.as_deref() != Ok(l.1.as_str()))
                .map(|(l, r)| format!("{:#x}: {r:?} vs {}", l.0, l.1))
                .collect();
            eprintln!(
                "SM{sm}: {} words in {:?}, {} differ from the corpus",
                words.len(),
                t.elapsed(),
                bad.len()
            );
            assert!(bad.is_empty(), "SM{sm}: {:#?}", &bad[..bad.len().min(10)]);
        }
    }

    /// `cargo test -- --ignored --nocapture timing`: 20000-word batches.
    #[test]
    #[ignore]
    fn timing_20000() {
        let Some(o) = oracle() else { return };
        for sm in [75, 50] {
            let Some(lines) = corpus(sm) else { continue };
            let words: Vec<u128> = lines.iter().cycle().take(20_000).map(|l| l.0).collect();
            let t = Instant::now();
            let r = o.disassemble(sm, &words);
            let real = t.elapsed();
            let t = Instant::now();
            let z = o.disassemble_at_zero(sm, &words);
            let zero = t.elapsed();
            let bad = z
                .iter()
                .zip(&lines)
                .filter(|(r, l)| r.as_deref() != Ok(l.1.as_str()))
                .count();
            eprintln!(
                "SM{sm}: 20000 words: disassemble {real:?} ({} ok), at_zero {zero:?} ({bad} differ from the corpus)",
                r.iter().filter(|r| r.is_ok()).count()
            );
            assert_eq!(bad, 0);
        }
    }
}
