//! A cubin's control-flow graph as `nvdisasm -cfg` prints it (`nak dis
//! --cfg`): one cluster per function, blocks split at the listing's
//! labels and at function starts, and the lines the listing prints (see
//! `dis::cfg` for the graph itself). Reading the cubin through the
//! listing keeps the labels, texts and branch targets the same as
//! `nak dis` prints.

use crate::cubin::elf::{Cubin, Symbol};
use crate::cubin::listing::{self, Read, STO_CUDA_ENTRY, line_parts, size_end};
use crate::dis::cfg::{Function, Start, Step, call_ports, dot};

/// The DOT text of `cubin`'s graph, and the count of encodings the spec
/// does not know.
pub fn cfg_dot(cubin: &Cubin) -> Result<(String, usize), String> {
    let read = listing::read(cubin)?;
    let mut functions = Vec::new();
    for i in 0..read.sections.len() {
        section_functions(cubin, &read, i, &mut functions);
    }
    Ok((dot(&functions), read.unknown))
}

/// The functions of code section `i`, in address order; each runs to the
/// next one's start (nvdisasm's `.size` of a kernel may cover its
/// subroutines, its graph does not).
fn section_functions(cubin: &Cubin, read: &Read, i: usize, out: &mut Vec<Function>) {
    let s = &read.sections[i];
    let sm = cubin.sm;
    let wb = u64::from(read.family.width() / 8);
    let bundled = read.family.bundle().is_some();
    let mut funcs: Vec<&Symbol> = cubin.functions_in(s.text.index).collect();
    funcs.sort_by_key(|f| f.value);
    funcs.dedup_by_key(|f| f.value);
    for (k, f) in funcs.iter().enumerate() {
        let end = funcs.get(k + 1).map_or(u64::MAX, |g| g.value);
        let lines: Vec<_> = s
            .lines
            .iter()
            .filter(|l| (f.value..end).contains(&l.addr))
            .collect();
        let mut steps = Vec::with_capacity(lines.len());
        let mut starts = vec![Start {
            at: 0,
            name: f.name.clone(),
            head: directives(read, i, f),
        }];
        for (j, l) in lines.iter().enumerate() {
            // On Maxwell a label may sit on the bundle's scheduling word.
            let mut names = Vec::new();
            if bundled && l.addr % (4 * wb) == wb {
                names.extend(read.labels.at(i, l.addr - wb));
            }
            names.extend(read.labels.at(i, l.addr));
            let heads = names.iter().map(|n| format!("{n}:"));
            if j == 0 && !names.is_empty() {
                // A Maxwell function after a scheduling word: the word's
                // label names the block, printed before the directives.
                let first = &mut starts[0];
                first.name = names[0].clone();
                first.head.splice(0..0, heads);
            } else if !names.is_empty() {
                starts.push(Start {
                    at: j,
                    name: names[0].clone(),
                    head: heads.collect(),
                });
            }
            let (guard, body, note) = line_parts(read.family, i, l, s, &read.labels);
            let (opens, closes) = l.pair();
            let mut line = String::from(if opens { "{ " } else { "  " });
            if !guard.is_empty() {
                line.push_str(&guard);
                line.push(' ');
            }
            line.push_str(&body);
            if let Some(n) = &note {
                line.push_str("  ");
                line.push_str(n);
            }
            line.push_str(match (note.is_some(), closes) {
                (true, true) => "}",
                (false, true) => " }",
                (true, false) => ";",
                (false, false) => " ;",
            });
            let decoded = crate::isa::decode(l.word, sm);
            let mut step = Step::new(l.addr, line, decoded.as_ref(), sm, call_ports(sm));
            match s.indirect.iter().find(|x| x.at == l.addr) {
                // An indirect call (`BRX` noted INDIRECT_CALL) comes back.
                Some(x) if x.call => {
                    step.port = false;
                    step.falls = true;
                    step.targets.clear();
                }
                Some(x) => step.targets = x.targets.clone(),
                None => {}
            }
            steps.push(step);
        }
        out.push(Function {
            name: f.name.clone(),
            steps,
            starts,
        });
    }
}

/// The lines before a function's first instruction: its directives, its
/// name and, for a kernel, its section's name (nvdisasm prints
/// `<no object>` for `.other`).
fn directives(read: &Read, i: usize, f: &Symbol) -> Vec<String> {
    let entry = f.other & STO_CUDA_ENTRY != 0;
    let mut head = Vec::new();
    match f.bind {
        object::elf::STB_GLOBAL => head.push(format!("\t.global\t\t{}", f.name)),
        object::elf::STB_WEAK => head.push(format!("\t.weak\t\t{}", f.name)),
        _ => {}
    }
    head.push(format!("\t.type\t\t{},@function", f.name));
    let to = size_end(
        read.family,
        i,
        &read.facts[i],
        &read.labels,
        (f.value, f.size),
        &f.name,
    );
    head.push(format!("\t.size\t\t{},({to} - {})", f.name, f.name));
    if entry {
        head.push(format!("\t.other\t\t{},<no object>", f.name));
    }
    head.push(format!("{}:", f.name));
    if entry {
        head.push(format!("{}:", read.sections[i].text.name));
    }
    head
}
