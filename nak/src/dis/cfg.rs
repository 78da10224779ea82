//! Control-flow graphs as `nvdisasm -cfg` prints them: Graphviz DOT, one
//! cluster per function, one record node per labelled block. A block runs
//! from a label (or the function's start) to the next one; each control
//! instruction inside it gets ports `<exitN>` (before) and `<exitpostN>`
//! (after), its targets are edges from `exitN:e`, and the fall into the
//! next block is an edge from the block's last port, `:s`. Only blocks
//! reachable from the function's start are printed (nvdisasm leaves out
//! the `BRA` to itself and the padding after the last `EXIT`), in reverse
//! post-order, and edges to other functions (calls) are left out.

use std::fmt::Write as _;

use crate::check::program::flow_of;
use crate::dis::listing::instr_text;
use crate::dis::stream;
use crate::runtime::flow::FlowKind;

/// One instruction as the graph needs it.
pub struct Step {
    pub addr: u64,
    /// The line shown in the node: `  TEXT ;` (`{ TEXT ;`, `  TEXT }` in
    /// a Maxwell dual-issue pair).
    pub line: String,
    /// A control instruction: it gets ports (a branch, an exit, a return,
    /// an indirect branch, a call that names its target).
    pub port: bool,
    /// Control may go on to the next instruction.
    pub falls: bool,
    /// The addresses it may go to (a branch's or call's target, an
    /// indirect branch's listed targets).
    pub targets: Vec<u64>,
}

impl Step {
    /// The flow facts of a decoded word (None: a word the spec does not
    /// know, which goes on to the next). `call_ports`: a call that names
    /// its target gets ports (nvdisasm 13; 11.8 gives calls none).
    pub fn new(
        addr: u64,
        line: String,
        decoded: Option<&(crate::isa::Op, crate::runtime::instr::Common)>,
        sm: u32,
        call_ports: bool,
    ) -> Step {
        let (flow, guarded) = flow_of(decoded, addr, sm);
        let port = match flow.kind {
            FlowKind::Next => false,
            FlowKind::Call => call_ports && flow.target.is_some(),
            _ => true,
        };
        Step {
            addr,
            line,
            port,
            falls: flow.falls_through(guarded),
            targets: flow.target.into_iter().collect(),
        }
    }
}

/// A block's start: the index of its first step, its node name and the
/// lines shown before its instructions (directives, labels).
pub struct Start {
    pub at: usize,
    pub name: String,
    pub head: Vec<String>,
}

/// A function: its instructions in address order and its blocks' starts
/// (the first at step 0).
pub struct Function {
    pub name: String,
    pub steps: Vec<Step>,
    pub starts: Vec<Start>,
}

/// `digraph f { ... }` around the functions' clusters.
pub fn dot(functions: &[Function]) -> String {
    let mut out = String::from("digraph f {\n");
    for f in functions {
        cluster(f, &mut out);
    }
    out.push_str("}\n");
    out
}

/// An edge out of a block: the port and the block it goes to.
struct Edge {
    port: String,
    to: usize,
    /// Edges of one port with several targets are walked last first
    /// (nvdisasm's node order).
    group: usize,
}

/// One function's cluster.
fn cluster(f: &Function, out: &mut String) {
    let _ = writeln!(out, "subgraph \"cluster_{}\" {{", f.name);
    if f.steps.is_empty() || f.starts.first().is_none_or(|s| s.at != 0) {
        out.push_str("}\n");
        return;
    }
    let n = f.starts.len();
    let block_of = |addr: u64| -> Option<usize> {
        let first = f.steps.first()?.addr;
        let last = f.steps.last()?.addr;
        if addr < first || addr > last {
            return None;
        }
        // The first instruction at or after it: on Maxwell a target may
        // be a bundle's scheduling word.
        let i = f.steps.partition_point(|s| s.addr < addr);
        Some(f.starts.partition_point(|s| s.at <= i) - 1)
    };
    let mut labels = Vec::with_capacity(n);
    let mut edges: Vec<Vec<Edge>> = Vec::with_capacity(n);
    for (b, start) in f.starts.iter().enumerate() {
        let end = f.starts.get(b + 1).map_or(f.steps.len(), |s| s.at);
        let mut label = String::from("{<entry>");
        for h in &start.head {
            label.push_str(&escape(h));
            label.push_str("\\l");
        }
        let mut out_edges = Vec::new();
        let mut k = 0usize;
        // A block ends at an instruction that does not go on (an
        // unconditional branch, exit or return): what follows up to the
        // next label is unreachable, and nvdisasm shows none of it.
        let steps = &f.steps[start.at..end];
        let steps = match steps.iter().position(|s| !s.falls) {
            Some(j) => &steps[..=j],
            None => steps,
        };
        for (j, s) in steps.iter().enumerate() {
            if s.port {
                let _ = write!(label, "|<exit{k}>");
            } else if j > 0 && steps[j - 1].port {
                let _ = write!(label, "|<exitpost{}>", k - 1);
            }
            label.push_str(&escape(&s.line));
            label.push_str("\\l");
            if s.port {
                for t in &s.targets {
                    if let Some(to) = block_of(*t) {
                        out_edges.push(Edge {
                            port: format!("exit{k}:e"),
                            to,
                            group: k,
                        });
                    }
                }
                k += 1;
            }
        }
        label.push('}');
        let last = steps.last();
        if end < f.steps.len() && last.is_some_and(|s| s.falls) {
            let port = match (last.is_some_and(|s| s.port), k) {
                (true, _) => format!("exit{}:s", k - 1),
                (false, 0) => "entry:s".to_string(),
                (false, _) => format!("exitpost{}:s", k - 1),
            };
            out_edges.push(Edge {
                port,
                to: b + 1,
                group: usize::MAX,
            });
        }
        labels.push(label);
        edges.push(out_edges);
    }
    for b in reverse_post_order(&edges) {
        let name = &f.starts[b].name;
        let _ = writeln!(
            out,
            "node [fontname=\"Courier\",fontsize=10,shape=Mrecord];\n\"{name}\"\n[label=\"{}\"]",
            labels[b]
        );
        for e in &edges[b] {
            let _ = writeln!(
                out,
                "\"{name}\":{} -> \"{}\":entry:n [style=solid];",
                e.port, f.starts[e.to].name
            );
        }
    }
    out.push_str("}\n");
}

/// The blocks reachable from block 0, in reverse post-order of a depth-first
/// walk that takes the edges in order (the targets of one port last first).
fn reverse_post_order(edges: &[Vec<Edge>]) -> Vec<usize> {
    let order = |b: usize| -> Vec<usize> {
        let mut v: Vec<(usize, usize, usize)> = edges[b]
            .iter()
            .enumerate()
            .map(|(i, e)| (e.group, usize::MAX - i, e.to))
            .collect();
        v.sort();
        v.into_iter().map(|(_, _, to)| to).collect()
    };
    let mut seen = vec![false; edges.len()];
    let mut post = Vec::new();
    // (block, its successors in walk order, the next to visit)
    let mut stack = vec![(0usize, order(0), 0usize)];
    seen[0] = true;
    while let Some((b, succ, next)) = stack.last_mut() {
        if let Some(&to) = succ.get(*next) {
            *next += 1;
            if !seen[to] {
                seen[to] = true;
                stack.push((to, order(to), 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// DOT record-label escaping: blanks and the characters records give a
/// meaning to (tabs stay, as nvdisasm leaves them in directives).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 5 / 4);
    for c in s.chars() {
        match c {
            ' ' | '[' | ']' | '{' | '}' | '<' | '>' | '|' | '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\l"),
            _ => out.push(c),
        }
    }
    out
}

/// The graph of a raw stream: one function, `name`, starting at address
/// 0, with a block at every target an instruction names (blocks named
/// `.L_x_N` in address order, as the stream has no labels; texts show
/// targets as addresses, as `nak dis --sm` prints them).
pub fn stream_dot(sm: u32, bytes: &[u8], name: &str) -> Result<String, String> {
    let call_ports = call_ports(sm);
    let mut steps = Vec::new();
    stream::for_each_word(sm, bytes, |addr, word, ctrl, _| {
        let d = stream::Decoded {
            addr,
            word,
            instr: stream::decode_with_ctrl(word, sm, ctrl),
        };
        let text = instr_text(&d, sm).unwrap_or_else(|| "<unknown>".to_string());
        steps.push(Step::new(
            addr,
            format!("  {text} ;"),
            d.instr.as_ref(),
            sm,
            call_ports,
        ));
    })?;
    let mut at: Vec<usize> = steps
        .iter()
        .flat_map(|s| s.targets.iter())
        .map(|&t| steps.partition_point(|s| s.addr < t))
        .filter(|&i| i > 0 && i < steps.len())
        .collect();
    at.sort_unstable();
    at.dedup();
    let mut starts = vec![Start {
        at: 0,
        name: name.to_string(),
        head: vec![format!("{name}:")],
    }];
    for (n, i) in at.into_iter().enumerate() {
        let label = format!(".L_x_{n}");
        starts.push(Start {
            at: i,
            head: vec![format!("{label}:")],
            name: label,
        });
    }
    Ok(dot(&[Function {
        name: name.to_string(),
        steps,
        starts,
    }]))
}

/// Whether calls get ports on `sm`: they do in the graphs of nvdisasm 13,
/// the reference from SM75, not in 11.8's.
pub fn call_ports(sm: u32) -> bool {
    crate::isa::reference_nvdisasm(sm).is_none_or(|v| v >= 13)
}
