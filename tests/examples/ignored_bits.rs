//! Which fixed bits of each encoding nvdisasm ignores, per SM: for sampled
//! words of every form on every SM, each fixed bit (and each bit the
//! spec's `ignored`/`ignored_on` already made raw) is flipped; where the
//! spec then decodes no other form and nvdisasm prints the same text as
//! for the unflipped word, on every sample of every form of the encoding
//! that fixes the bit on that SM, nvdisasm ignores the bit there. Bits
//! ignored on every SM that fixes them go in `ignored`, the others in
//! `ignored_on`, keyed by the SMs that ignore them.
//!
//! Prints `FILE:LINE<TAB>IGNORED<TAB>IGNORED_ON` per encoding (the line
//! of its `[[encoding]]`); with `--write`, puts them in the op files (an
//! encoding whose `ignored` line was written by hand is left alone and
//! named). `scripts/sweep-ignored-bits.sh` runs it.
//!
//! `cargo run --release -p isa-tests --example ignored_bits [PER_FORM] [--write]`

use isa_spec::model::{Bits, Encoding, Op};
use isa_tests::oracle::Oracle;
use nak::isa;
use std::collections::BTreeMap;

/// The comment that marks a line this sweep wrote.
const MARK: &str = "# nvdisasm ignores them (scripts/sweep-ignored-bits.sh)";

/// Per (op, form id, SM): bits seen ignored on every sample so far, and
/// bits seen not ignored.
#[derive(Default, Clone, Copy)]
struct Seen {
    ignored: u128,
    not: u128,
    /// Bits whose flip the spec decodes as another form.
    decodes: u128,
}

type SeenMap = BTreeMap<(String, u8, u32), Seen>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let per_form: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(8);
    let write = args.iter().any(|a| a == "--write");
    let oracle = Oracle::get().unwrap_or_else(|e| panic!("nvdisasm is needed: {e}"));
    let dir = isa_tests::oracle::workspace_dir().join("isa-spec/spec");
    let loaded = isa_spec::load(&dir, "isa-spec/spec");
    let spec = loaded.spec.as_ref().expect("the spec loads");
    let ignored = ignored_raw(&spec.ops);
    let mut seen = SeenMap::new();
    for &sm in isa::ALL_SMS {
        sweep_sm(oracle, sm, per_form, &ignored, &mut seen);
        eprintln!("SM{sm} swept");
    }
    let mut edits: BTreeMap<String, Vec<(usize, String, String)>> = BTreeMap::new();
    for op in &spec.ops {
        let mut id = 0u8;
        for enc in &op.encodings {
            let (all, on) = encoding_bits(op, enc, id, &seen);
            id += enc.forms.len() as u8;
            if all == 0 && on.is_empty() {
                continue;
            }
            let file = loaded.files.get(enc.loc.file);
            let (line, _) = file.line_col(enc.loc.span.start);
            let all = if all == 0 {
                String::new()
            } else {
                Bits::from_mask(all).to_string()
            };
            let on = on_table(enc, &on);
            println!("{}:{line}\t{all}\t{on}", file.path);
            edits
                .entry(file.path.clone())
                .or_default()
                .push((line, all, on));
        }
    }
    if write {
        for (path, list) in edits {
            write_file(&path, &list);
        }
    }
}

/// Per (op, form id): the bits `ignored`/`ignored_on` made raw.
fn ignored_raw(ops: &[Op]) -> BTreeMap<(String, u8), u128> {
    let mut out = BTreeMap::new();
    for op in ops {
        for (id, _, form) in isa_tests::forms::with_ids(op) {
            out.insert((op.name.clone(), id), form.ignored);
        }
    }
    out
}

/// Flip each fixed (or ignored) bit of sampled words of every form on `sm`.
fn sweep_sm(
    oracle: &Oracle,
    sm: u32,
    per_form: usize,
    ignored: &BTreeMap<(String, u8), u128>,
    seen: &mut SeenMap,
) {
    let family = isa::family_of(sm).expect("known SM");
    let below = family.control_in_word().map_or(64, |(lo, _)| lo);
    let (mut base, mut flipped, mut what) = (Vec::new(), Vec::new(), Vec::new());
    for w in nak::runtime::sample::sample_words(sm, &[], per_form, 0x1b175) {
        let (op, _) = isa::decode(w, sm).expect("sampled words decode");
        let form = isa::form_of(sm, &op).expect("a decoded op has a form");
        let key = (op.name().to_string(), form.id, sm);
        let raw = ignored.get(&(key.0.clone(), key.1)).copied().unwrap_or(0);
        for b in (0..below).filter(|b| (form.mask | raw) >> b & 1 == 1) {
            let x = w ^ (1u128 << b);
            let other = isa::decode(x, sm).is_some_and(|(o, _)| {
                o.name() != op.name() || isa::form_of(sm, &o).map(|f| f.id) != Some(form.id)
            });
            if other {
                seen.entry(key.clone()).or_default().decodes |= 1u128 << b;
                continue;
            }
            base.push(w);
            flipped.push(x);
            what.push((key.clone(), b));
        }
    }
    let theirs = oracle.disassemble(sm, &base);
    let theirs_x = oracle.disassemble(sm, &flipped);
    for (i, (key, b)) in what.into_iter().enumerate() {
        let s = seen.entry(key).or_default();
        match (&theirs[i], &theirs_x[i]) {
            (Ok(a), Ok(x)) if a == x => s.ignored |= 1u128 << b,
            // A sampled word nvdisasm rejects says nothing about its bits.
            (Err(_), _) => {}
            _ => s.not |= 1u128 << b,
        }
    }
}

/// The encoding's bits ignored on every SM that fixes them, and per SM
/// the bits ignored there only.
fn encoding_bits(
    op: &Op,
    enc: &Encoding,
    first_id: u8,
    seen: &SeenMap,
) -> (u128, BTreeMap<u32, u128>) {
    let mut per_sm: BTreeMap<u32, (u128, u128)> = BTreeMap::new(); // sm -> (fixed, ignored)
    // A form sampled on no SM ignores nothing; one not sampled on some
    // SM (its words decode as another form there) says nothing there.
    let sampled = |i: usize| {
        enc.sms
            .iter()
            .any(|&sm| seen.contains_key(&(op.name.clone(), first_id + i as u8, sm)))
    };
    let mut never = 0u128;
    for &sm in &enc.sms {
        let (mut fixed, mut ignored) = (0u128, u128::MAX);
        for (i, form) in enc.forms.iter().enumerate() {
            if !form.sms.contains(&sm) {
                continue;
            }
            let f = form.fixed().0 | form.ignored;
            if !sampled(i) {
                never |= f;
                continue;
            }
            // A bit this form fixes is ignored only if every sample here
            // showed it ignored.
            let Some(s) = seen.get(&(op.name.clone(), first_id + i as u8, sm)) else {
                continue;
            };
            fixed |= f;
            ignored &= !(f & !(s.ignored & !s.not & !s.decodes));
        }
        if fixed != 0 {
            per_sm.insert(sm, (fixed, ignored & fixed & !never));
        }
    }
    let per_sm: BTreeMap<u32, (u128, u128)> = per_sm
        .into_iter()
        .map(|(sm, (f, i))| (sm, (f, i & !never)))
        .collect();
    let fixed_any = per_sm.values().fold(0, |a, p| a | p.0);
    let all = per_sm
        .values()
        .fold(fixed_any, |a, &(fixed, ign)| a & !(fixed & !ign));
    let on = per_sm
        .into_iter()
        .map(|(sm, (_, ign))| (sm, ign & !all))
        .filter(|(_, m)| *m != 0)
        .collect();
    (all, on)
}

/// `ignored_on`'s inline table: one entry per set of SMs, the bits those
/// SMs (and only those) ignore; each SM set as runs of the encoding's SMs.
fn on_table(enc: &Encoding, on: &BTreeMap<u32, u128>) -> String {
    if on.is_empty() {
        return String::new();
    }
    let bits = on.values().fold(0, |a, m| a | m);
    let mut by_sms: BTreeMap<Vec<u32>, u128> = BTreeMap::new();
    for b in (0..128).filter(|b| bits >> b & 1 == 1) {
        let sms: Vec<u32> = on
            .iter()
            .filter(|(_, m)| *m >> b & 1 == 1)
            .map(|(s, _)| *s)
            .collect();
        *by_sms.entry(sms).or_default() |= 1u128 << b;
    }
    let entries: Vec<String> = by_sms
        .iter()
        .map(|(sms, m)| {
            format!(
                "\"{}\" = \"{}\"",
                sm_runs(&enc.sms, sms),
                Bits::from_mask(*m)
            )
        })
        .collect();
    format!("{{ {} }}", entries.join(", "))
}

/// `sms` (a subset of `all`) as runs of consecutive members of `all`:
/// `70..75,90`.
fn sm_runs(all: &[u32], sms: &[u32]) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        if !sms.contains(&all[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i + 1 < all.len() && sms.contains(&all[i + 1]) {
            i += 1;
        }
        runs.push(if start == i {
            all[i].to_string()
        } else {
            format!("{}..{}", all[start], all[i])
        });
        i += 1;
    }
    runs.join(",")
}

/// Put each encoding's lines after its `[[encoding]]` line, replacing the
/// ones this sweep wrote before; an encoding with a hand-written
/// `ignored` line is left alone and named.
fn write_file(path: &str, edits: &[(usize, String, String)]) {
    let full = isa_tests::oracle::workspace_dir().join(path);
    let text = std::fs::read_to_string(&full).expect("op file reads");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Bottom up, so the line numbers above stay right.
    for (line, all, on) in edits.iter().rev() {
        let at = *line; // index of the line after `[[encoding]]`
        let mut end = at;
        while end < lines.len() && !lines[end].starts_with('[') && !lines[end].trim().is_empty() {
            end += 1;
        }
        let ours = |l: &String| {
            (l.starts_with("ignored = ") || l.starts_with("ignored_on = ")) && l.contains(MARK)
        };
        let hand = lines[at..end]
            .iter()
            .any(|l| (l.starts_with("ignored = ") || l.starts_with("ignored_on = ")) && !ours(l));
        if hand {
            eprintln!(
                "{path}:{line}: hand-written `ignored` kept; the sweep says `{all}` and `{on}`"
            );
            continue;
        }
        let mut kept: Vec<String> = lines[at..end]
            .iter()
            .filter(|l| !ours(l))
            .cloned()
            .collect();
        let mut new = Vec::new();
        if !all.is_empty() {
            new.push(format!("ignored = \"{all}\"   {MARK}"));
        }
        if !on.is_empty() {
            new.push(format!("ignored_on = {on}   {MARK}"));
        }
        new.append(&mut kept);
        lines.splice(at..end, new);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    std::fs::write(&full, out).expect("op file writes");
}
