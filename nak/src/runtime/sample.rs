//! Random instruction words for every encoding form: the sweep that the
//! nvdisasm oracle tests run. Each word decodes and re-encodes exactly.

use crate::isa::{self, FORMS, Family, family_of};

/// A small deterministic generator (xorshift64*), so sweeps are repeatable.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn next_u128(&mut self) -> u128 {
        (self.next_u64() as u128) << 64 | self.next_u64() as u128
    }
}

/// A sampled control value and its reuse flags: the family's neutral value,
/// with random flags for the a, b and c operands on half the words, and
/// then each field of the family's `reuse_needs` at a random value of its
/// range (nvdisasm rejects or hides the flags otherwise).
fn sample_control(family: Family, x: u64) -> (u32, u64) {
    let mut ctrl = family.neutral_control();
    let Some((reuse_lo, _)) = crate::runtime::control::reuse_field(family) else {
        return (ctrl, 0);
    };
    if x & 1 == 0 {
        return (ctrl, 0);
    }
    let flags = (x >> 1) & 7;
    ctrl |= (flags as u32) << reuse_lo;
    let mut r = x >> 4;
    for &(lo, width, min, max) in family.reuse_needs() {
        let span = (max - min) as u64 + 1;
        ctrl = ctrl & !(((1u32 << width) - 1) << lo) | (min + (r % span) as u32) << lo;
        r /= span;
    }
    (ctrl, flags)
}

/// Up to `per_form` random words for each form of `ops` (all ops when empty)
/// on `sm`: fixed bits as the form says, raw (`?`) bits zero, control bits
/// neutral, every other bit random; only words that decode back to the same
/// form and re-encode to the same word are kept.
pub fn sample_words(sm: u32, ops: &[&str], per_form: usize, seed: u64) -> Vec<u128> {
    let Some(family) = family_of(sm) else {
        return Vec::new();
    };
    let width_mask = if family.width() >= 128 {
        u128::MAX
    } else {
        (1u128 << family.width()) - 1
    };
    // Families whose word holds its control value (Volta+); a bundle's
    // scheduling word is not sampled.
    let ctrl_at = family.control_in_word();
    let ctrl_mask: u128 = ctrl_at.map_or(0, |(lo, w)| ((1u128 << w) - 1) << lo);
    let mut out = Vec::new();
    for f in FORMS {
        if !f.sms.contains(&sm) || !(ops.is_empty() || ops.contains(&f.op)) {
            continue;
        }
        // One generator per (SM, op, form): adding an op to the spec does
        // not change the words sampled for the others.
        let key =
            f.op.bytes()
                .chain([0, f.id])
                .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                    (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
                });
        let mut rng = Rng::new(seed ^ sm as u64 ^ key);
        let mut got = 0;
        let mut tries = 0;
        while got < per_form && tries < per_form * 200 {
            tries += 1;
            let r = rng.next_u128();
            // Raw bits hold what ptxas writes: some are fixed on some SMs
            // (`ignored_on`), where only that value decodes.
            let mut w = (r & width_mask & !f.mask & !f.unknown & !ctrl_mask)
                | f.value
                | (f.canonical & f.unknown);
            let mut reuse_flags = 0;
            if let Some((lo, _)) = ctrl_at {
                let (ctrl, flags) = sample_control(family, rng.next_u64());
                reuse_flags = flags;
                w |= (ctrl as u128) << lo;
            }
            let Some((op, c)) = isa::decode(w, sm) else {
                continue;
            };
            if op.name() != f.op || op.form_id(sm) != Some(f.id) {
                continue;
            }
            if op.encode(sm, &c) != Ok(w) {
                continue;
            }
            // A reuse flag on a slot that holds no register (or on an op
            // without reuse, such as a memory op) is a word nvdisasm
            // rejects: keep only words whose text shows every flag set.
            if reuse_flags != 0 {
                let text = op.text(&c, sm, 0);
                if text.matches(".reuse").count() != reuse_flags.count_ones() as usize {
                    continue;
                }
            }
            out.push(w);
            got += 1;
        }
    }
    out
}
