//! `nak dis --cfg` against `nvdisasm -cfg` on every cubin of
//! `tests/cubins`: the same blocks and the same edges, each block known by
//! its start address (found through each tool's own listing, as nak's
//! label numbering differs from nvdisasm's in a few cubins, and the
//! listing test owns that). Node names and label texts are compared too
//! and their differences counted. And, where Graphviz `dot` is installed,
//! a graph renders to a PNG.
//!
//! The blocks and edges must be nvdisasm's exactly: `BRA.DIV` with no
//! guard falls through in both (the spec's `[flow]` for `bra_ur` says its
//! lane mask decides); the count of cubins with such an edge is printed.
//!
//! Names and texts come from the listing, so they differ only where
//! `nak dis` and nvdisasm's listings do (blanks aside): SM80..SM89
//! `async_sm80`, whose `.L_x_N` numbers nak's listing gives differently
//! (nvdisasm numbers an `.nv.info` offset label among the branch
//! targets); SM50/SM60 texture ops' `.T`/`.P` (`tests/cubins/
//! expected-failures.txt`, `tex-mode`) and a `.size` end label; and
//! nvdisasm's two blanks in `+QNAN  ;`. The counts are printed, not
//! asserted.
//!
//! Needs nvdisasm; `NAK_SKIP_ORACLE=1` skips the comparison and says so.

use isa_tests::oracle::{Oracle, workspace_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One parsed DOT graph: per cluster its nodes in order (the first is
/// the entry), node labels, edges `(from, port, to)`.
#[derive(Default)]
struct Graph {
    clusters: Vec<Vec<String>>,
    labels: BTreeMap<String, String>,
    edges: Vec<(String, String, String)>,
}

/// Just enough of DOT to read what `-cfg` prints: `subgraph` lines, a
/// node's `"NAME"` line and its `[label=...]` line, and edge lines.
fn parse(dot: &str) -> Graph {
    let mut g = Graph::default();
    let mut lines = dot.lines().peekable();
    while let Some(l) = lines.next() {
        if l.starts_with("subgraph ") {
            g.clusters.push(Vec::new());
        } else if let Some(name) = l.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            if let Some(c) = g.clusters.last_mut() {
                c.push(name.to_string());
            }
            let label = lines.next().unwrap_or_default().to_string();
            g.labels.insert(name.to_string(), label);
        } else if let Some((from, rest)) = l.split_once(" -> ") {
            let from = from.trim_start_matches('"');
            let Some((name, port)) = from.split_once("\":") else {
                continue;
            };
            let to = rest.trim_start_matches('"');
            let to = to.split('"').next().unwrap_or_default();
            g.edges
                .push((name.to_string(), port.to_string(), to.to_string()));
        }
    }
    g
}

/// A block's place: its code section (in listing order) and address.
type At = (usize, u64);

/// Each label's and function's place in a listing: the address of the
/// first instruction after its `NAME:` line, in its section.
fn addresses(listing: &str) -> BTreeMap<String, At> {
    let mut out = BTreeMap::new();
    let mut pending = Vec::new();
    let mut section = 0;
    for l in listing.lines() {
        let t = l.trim();
        if t.starts_with(".section") && t.contains(".text.") {
            section += 1;
        } else if let Some(name) = t.strip_suffix(':')
            && !name.contains(' ')
        {
            pending.push(name.to_string());
        } else if let Some(a) = t.strip_prefix("/*").and_then(|r| r.split_once("*/"))
            && let Ok(addr) = u64::from_str_radix(a.0, 16)
        {
            for n in pending.drain(..) {
                out.insert(n, (section, addr));
            }
        }
    }
    out
}

/// A graph's nodes and edges by block address.
type Shape = (BTreeSet<At>, BTreeSet<(At, String, At)>);

fn shape(g: &Graph, at: &BTreeMap<String, At>) -> Result<Shape, String> {
    let addr = |n: &String| at.get(n).copied().ok_or(format!("no address for {n}"));
    let nodes = g.labels.keys().map(addr).collect::<Result<_, _>>()?;
    let edges = g
        .edges
        .iter()
        .map(|(a, p, b)| Ok((addr(a)?, p.clone(), addr(b)?)))
        .collect::<Result<_, String>>()?;
    Ok((nodes, edges))
}

fn cubins() -> Vec<(u32, PathBuf)> {
    let dir = workspace_dir().join("tests/cubins");
    let mut out = Vec::new();
    for d in std::fs::read_dir(&dir).expect("tests/cubins") {
        let d = d.expect("entry").path();
        let Some(sm) = d
            .file_name()
            .and_then(|n| n.to_str()?.strip_prefix("sm_")?.parse().ok())
        else {
            continue;
        };
        for f in std::fs::read_dir(&d).expect("sm dir") {
            let f = f.expect("entry").path();
            if f.to_string_lossy().ends_with(".cubin.gz") {
                out.push((sm, f));
            }
        }
    }
    out.sort();
    out
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).expect("cubin"))
        .read_to_end(&mut bytes)
        .expect("gzip");
    bytes
}

fn run(tool: &Path, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .expect("nvdisasm runs");
    assert!(
        out.status.success(),
        "{} {args:?} {}",
        tool.display(),
        file.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Per SM: (cubins, functions, blocks, edges, name differences, label
/// text differences).
type Counts = [usize; 6];

/// A block of `g` whose last port is a `BRA.DIV` with no guard and has
/// a fall-through edge (`:s`).
fn has_bra_div_fall(g: &Graph) -> bool {
    g.edges.iter().any(|e| {
        let Some(port) = e.1.strip_suffix(":s") else {
            return false;
        };
        g.labels.get(&e.0).is_some_and(|label| {
            label
                .split('|')
                .any(|p| p.starts_with(&format!("<{port}>\\ \\ BRA.DIV")))
        })
    })
}

#[test]
fn cfg_matches_nvdisasm() {
    if std::env::var("NAK_SKIP_ORACLE").is_ok_and(|v| v == "1") {
        println!("SKIPPED: nvdisasm -cfg comparison skipped because NAK_SKIP_ORACLE=1");
        return;
    }
    let oracle = Oracle::get().unwrap_or_else(|e| {
        panic!("nvdisasm is needed for the cfg test and is missing: {e}\n(set NAK_SKIP_ORACLE=1 to skip it, and say so)")
    });
    let tmp = std::env::temp_dir().join(format!("nak-cfg-test-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let mut per_sm: BTreeMap<u32, Counts> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut bra_div = 0;
    for (sm, path) in cubins() {
        let bytes = gunzip(&path);
        let file = tmp.join(format!("sm{sm}.cubin"));
        std::fs::write(&file, &bytes).expect("write cubin");
        let nv = oracle.nvdisasm(sm);
        let theirs = parse(&run(nv, &["-cfg"], &file));
        let their_at = addresses(&run(nv, &["-c"], &file));
        let (dot, _) = nak::cubin::disassemble_cfg(&bytes, None).expect("nak --cfg");
        let ours = parse(&dot);
        let (listing, _) = nak::cubin::disassemble(&bytes, None).expect("nak dis");
        let our_at = addresses(&listing);
        let name = format!("sm_{sm}/{}", path.file_name().unwrap().to_string_lossy());
        let expected = &theirs;
        if has_bra_div_fall(&theirs) {
            bra_div += 1;
        }
        match (shape(expected, &their_at), shape(&ours, &our_at)) {
            (Ok(a), Ok(b)) if a == b => {}
            (Ok(a), Ok(b)) => failures.push(format!(
                "{name}: blocks only nvdisasm {:x?}, only nak {:x?}; edges only nvdisasm {:x?}, only nak {:x?}",
                a.0.difference(&b.0).collect::<Vec<_>>(),
                b.0.difference(&a.0).collect::<Vec<_>>(),
                a.1.difference(&b.1).collect::<Vec<_>>(),
                b.1.difference(&a.1).collect::<Vec<_>>(),
            )),
            (a, b) => failures.push(format!("{name}: {:?} {:?}", a.err(), b.err())),
        }
        // Names and label texts, block by block (by address).
        let ours_by_addr: BTreeMap<At, &String> = ours
            .labels
            .keys()
            .filter_map(|n| Some((*our_at.get(n)?, n)))
            .collect();
        let c = per_sm.entry(sm).or_default();
        c[0] += 1;
        c[1] += ours.clusters.len();
        c[2] += ours.labels.len();
        c[3] += ours.edges.len();
        for (n, label) in &expected.labels {
            let Some(ours_n) = their_at.get(n).and_then(|a| ours_by_addr.get(a)) else {
                continue;
            };
            if *ours_n != n {
                c[4] += 1;
            } else if ours.labels.get(n) != Some(label) {
                c[5] += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!("SM     cubins functions blocks edges  names-differ labels-differ");
    let mut total = [0usize; 6];
    for (sm, c) in &per_sm {
        println!(
            "SM{sm:<4} {:>6} {:>9} {:>6} {:>5}  {:>12} {:>13}",
            c[0], c[1], c[2], c[3], c[4], c[5]
        );
        for (t, x) in total.iter_mut().zip(c) {
            *t += x;
        }
    }
    println!(
        "all    {:>6} {:>9} {:>6} {:>5}  {:>12} {:>13}  ({} SMs; {bra_div} cubins with a BRA.DIV fall-through edge)",
        total[0],
        total[1],
        total[2],
        total[3],
        total[4],
        total[5],
        per_sm.len()
    );
    assert!(
        failures.is_empty(),
        "graphs differ from nvdisasm -cfg:\n{}",
        failures.join("\n")
    );
}

/// With Graphviz installed, nak's graph of a kernel renders to a PNG.
#[test]
fn cfg_renders_with_dot() {
    let Ok(out) = Command::new("dot").arg("-V").output() else {
        println!("SKIPPED: Graphviz `dot` is not installed; the render was not tried");
        return;
    };
    assert!(out.status.success(), "dot -V fails");
    let path = workspace_dir().join("tests/cubins/sm_90/control.cubin.gz");
    let (dot, _) = nak::cubin::disassemble_cfg(&gunzip(&path), None).expect("nak --cfg");
    let png = std::env::temp_dir().join(format!("nak-cfg-{}.png", std::process::id()));
    let mut child = Command::new("dot")
        .args(["-Tpng", "-o"])
        .arg(&png)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("dot runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), dot.as_bytes())
        .expect("write to dot");
    let status = child.wait().expect("dot ends");
    let size = std::fs::metadata(&png).map_or(0, |m| m.len());
    let _ = std::fs::remove_file(&png);
    assert!(status.success(), "dot exits {status}");
    assert!(size > 0, "dot wrote an empty PNG");
    println!("rendered sm_90/control's graph: {size} bytes of PNG");
}

/// A raw stream is one function named as asked: a guarded branch splits
/// it where it lands, with an edge from the branch's port, and the
/// `BRA` to itself after the last `EXIT` (no path reaches it) is left
/// out, as nvdisasm leaves such blocks out of a cubin's graph.
#[test]
fn raw_stream_is_one_function() {
    let text = "ISETP.NE.AND P0, PT, R1, RZ, PT\n@P0 BRA 0x40\nIADD3 R1, R2, R3, R4\nEXIT\n\
                IADD3 R1, R2, R3, R5\nEXIT\nBRA 0x60\n";
    let bytes = nak::dis::listing::assemble(90, text)
        .map_err(|e| format!("{e:?}"))
        .expect("assembles")
        .bytes;
    let g = parse(&nak::dis::cfg::stream_dot(90, &bytes, "s").expect("graph"));
    assert_eq!(g.clusters, [vec!["s".to_string(), ".L_x_0".to_string()]]);
    let edge = |a: &str, p: &str, b: &str| (a.to_string(), p.to_string(), b.to_string());
    assert_eq!(g.edges, [edge("s", "exit0:e", ".L_x_0")]);
    assert!(g.labels["s"].contains("|<exitpost0>\\ \\ IADD3"));
}
