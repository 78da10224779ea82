//! nvdisasm's `.L_x_N` labels, numbered per file as nvdisasm numbers them
//! (found by comparing its listings of 415 cubins):
//!
//! 1. every address a branch-like operand names (`BRA`, `BSSY`, `SSY`,
//!    ...), in instruction order over the code sections in file order;
//! 2. per section, the offsets the kernel's `.nv.info` attributes name
//!    (see `nvinfo`), in attribute order;
//! 3. the end of every function, in symbol-table order.
//!
//! Steps 2 and 3 use up a number even where the address already has a
//! label or a function starts (no second label is printed there); step 1
//! does not. A label for the second instruction of a Maxwell dual-issue
//! pair goes to the pair's first.

use std::collections::{BTreeMap, HashMap};

/// What the numbering needs to know about one code section.
pub struct SectionFacts {
    /// Branch-like targets of its instructions, in order.
    pub targets: Vec<u64>,
    /// The `.nv.info` offsets, in order (step 2).
    pub info_offsets: Vec<u64>,
    /// Function names by their label position (see [`Hoist`]), and by
    /// their exact address (what a call names).
    pub funcs_at: HashMap<u64, String>,
    pub funcs_exact: HashMap<u64, String>,
    /// Second instructions of dual-issue pairs, to their pair's first.
    pub hoist: HashMap<u64, u64>,
}

/// The labels of a file: per section, label numbers by position.
pub struct Labels {
    at: Vec<BTreeMap<u64, u32>>,
    hoist: Vec<HashMap<u64, u64>>,
    funcs_exact: Vec<HashMap<u64, String>>,
}

impl Labels {
    /// Number the labels of `sections`; `ends` are the function ends
    /// (section, address) in symbol-table order.
    pub fn number(sections: &[SectionFacts], ends: &[(usize, u64)]) -> Labels {
        let mut at: Vec<BTreeMap<u64, u32>> = vec![BTreeMap::new(); sections.len()];
        let mut next = 0u32;
        for (s, facts) in sections.iter().enumerate() {
            for &t in &facts.targets {
                if facts.funcs_exact.contains_key(&t) {
                    continue;
                }
                let pos = facts.hoist.get(&t).copied().unwrap_or(t);
                if !facts.funcs_at.contains_key(&pos) && !at[s].contains_key(&pos) {
                    at[s].insert(pos, next);
                    next += 1;
                }
            }
        }
        let mut add = |s: usize, addr: u64, at: &mut Vec<BTreeMap<u64, u32>>| {
            let facts = &sections[s];
            let pos = facts.hoist.get(&addr).copied().unwrap_or(addr);
            if !facts.funcs_at.contains_key(&pos) && !at[s].contains_key(&pos) {
                at[s].insert(pos, next);
            }
            next += 1;
        };
        for (s, facts) in sections.iter().enumerate() {
            for &o in &facts.info_offsets {
                add(s, o, &mut at);
            }
        }
        for &(s, end) in ends {
            if s < sections.len() {
                add(s, end, &mut at);
            }
        }
        Labels {
            at,
            hoist: sections.iter().map(|f| f.hoist.clone()).collect(),
            funcs_exact: sections.iter().map(|f| f.funcs_exact.clone()).collect(),
        }
    }

    /// The label printed at `pos` in section `s`.
    pub fn at(&self, s: usize, pos: u64) -> Option<String> {
        self.at.get(s)?.get(&pos).map(|n| format!(".L_x_{n}"))
    }

    /// What an operand naming address `t` of section `s` prints: the
    /// function that starts there, else the label there.
    pub fn name(&self, s: usize, t: u64) -> Option<String> {
        if let Some(f) = self.funcs_exact.get(s).and_then(|m| m.get(&t)) {
            return Some(f.clone());
        }
        let pos = self
            .hoist
            .get(s)
            .and_then(|h| h.get(&t))
            .copied()
            .unwrap_or(t);
        self.at(s, pos)
    }
}
