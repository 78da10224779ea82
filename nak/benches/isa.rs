//! Throughput of the generated code on a realistic stream: the corpus
//! instructions of one SM that the spec covers, repeated to over a million
//! words. Results go to BENCHMARKS.md (`cargo bench -p nak --bench isa`).

use nak::isa::{self, Op};
use nak::runtime::instr::Common;
use nak::runtime::line_buf::LineBuf;
use std::io::Read;

const TARGET: usize = 1 << 20;

/// Covered corpus words of `sm`, repeated to at least `TARGET` words.
fn stream(sm: u32) -> Vec<u128> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../tests/corpus/sm_{sm}.txt.gz"));
    let mut text = String::new();
    if let Ok(f) = std::fs::File::open(&path) {
        let _ = flate2::read::GzDecoder::new(f).read_to_string(&mut text);
    }
    let family = isa::family_of(sm).expect("covered SM");
    let words: Vec<u128> = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(h, _)| nak::dis::stream::parse_word_hex(h, family))
        .filter(|w| isa::decode(*w, sm).is_some())
        .collect();
    assert!(!words.is_empty(), "no covered corpus words for SM{sm}");
    words
        .iter()
        .copied()
        .cycle()
        .take(TARGET.max(words.len()))
        .collect()
}

fn decoded(sm: u32) -> Vec<(Op, Common)> {
    stream(sm)
        .iter()
        .map(|w| isa::decode(*w, sm).expect("decodes"))
        .collect()
}

#[divan::bench(args = [50, 75])]
fn decode(bencher: divan::Bencher, sm: u32) {
    let words = stream(sm);
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench(|| {
            let mut n = 0usize;
            for w in &words {
                n += isa::decode(divan::black_box(*w), sm).is_some() as usize;
            }
            n
        });
}

#[divan::bench(args = [50, 75])]
fn encode(bencher: divan::Bencher, sm: u32) {
    let ops = decoded(sm);
    bencher
        .counter(divan::counter::ItemsCount::new(ops.len()))
        .bench(|| {
            let mut x = 0u128;
            for (op, c) in &ops {
                x ^= divan::black_box(op).encode(sm, c).unwrap_or(0);
            }
            x
        });
}

/// Ops in one pass of the in-cache rows: 4096 `(Op, Common)` pairs are
/// 384 KiB, which stay in L2/L3 while they are encoded over and over.
const IN_CACHE: usize = 4096;

/// Ops the in-cache rows encode: whole passes, about `TARGET`.
const IN_CACHE_OPS: usize = TARGET / IN_CACHE * IN_CACHE;

/// Encode `hot` again and again until `TARGET` ops are encoded.
fn encode_passes(hot: &[(Op, Common)], sm: u32) -> u128 {
    let mut x = 0u128;
    for _ in 0..IN_CACHE_OPS / hot.len() {
        for (op, c) in hot {
            x ^= divan::black_box(op).encode(sm, c).unwrap_or(0);
        }
    }
    x
}

/// `encode` on the stream's first 4096 ops, from cache: the same work
/// with memory bandwidth out of the picture (encode's compute bound).
#[divan::bench(args = [50, 75])]
fn encode_in_cache(bencher: divan::Bencher, sm: u32) {
    let ops = decoded(sm);
    let hot = &ops[..IN_CACHE];
    bencher
        .counter(divan::counter::ItemsCount::new(IN_CACHE_OPS))
        .bench(|| encode_passes(hot, sm));
}

/// The floor of `encode`'s per-op path on this machine: the stream's
/// `EXIT` (a fixed word, a predicate and the guard: the cheapest real
/// op) 4096 times from cache. What is left is the loop, the jump on the
/// variant, the call, the result, and EXIT's own few checks and fields.
#[divan::bench(args = [50, 75])]
fn encode_floor(bencher: divan::Bencher, sm: u32) {
    let exit = *decoded(sm)
        .iter()
        .find(|(op, _)| matches!(op, Op::Exit(_)))
        .expect("the corpus has EXIT");
    let hot = vec![exit; IN_CACHE];
    bencher
        .counter(divan::counter::ItemsCount::new(IN_CACHE_OPS))
        .bench(|| encode_passes(&hot, sm));
}

/// The bound memory bandwidth puts on `encode`: the same bytes per
/// instruction read (the size of an `(Op, Common)`; every 32nd byte
/// touched, so every cache line is fetched) and folded into one value as
/// `encode` folds its words, with no encoding work. On the project's VM
/// it is well above `encode`, whose bound is its instructions
/// (BENCHMARKS.md).
#[divan::bench]
fn memory_ceiling(bencher: divan::Bencher) {
    let stride = std::mem::size_of::<(Op, Common)>() / 8;
    let words: Vec<u64> = (0..(TARGET * stride) as u64).collect();
    bencher
        .counter(divan::counter::ItemsCount::new(TARGET))
        .bench(|| {
            let mut x = 0u64;
            for item in divan::black_box(&words).chunks_exact(stride) {
                x ^= item.iter().step_by(4).fold(0, |x, w| x ^ w);
            }
            x
        });
}

#[divan::bench(args = [50, 75])]
fn decode_print(bencher: divan::Bencher, sm: u32) {
    let words = stream(sm);
    // As `nak dis` prints (without the hex column): in one step per word
    // (`isa::printer`), straight into the room after the text.
    let mut out = nak::dis::text_buf::TextBuf::with_capacity(64 << 20);
    let print = isa::printer(sm).expect("covered SM");
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench_local(|| {
            out.clear();
            for w in &words {
                let mut line = LineBuf::over(out.line_room());
                if print(divan::black_box(*w), sm, 0, 0, &mut line).is_some() {
                    line.push_byte(b'\n');
                    let n = line.finish();
                    out.commit(n);
                }
            }
            out.len()
        });
}

/// The same through an `Op`: decode, then `Op::print_line` (what
/// `decode_print` was before the one-step printers).
#[divan::bench(args = [50, 75])]
fn decode_then_print_line(bencher: divan::Bencher, sm: u32) {
    let words = stream(sm);
    let mut out = nak::dis::text_buf::TextBuf::with_capacity(64 << 20);
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench_local(|| {
            out.clear();
            for w in &words {
                if let Some((op, c)) = isa::decode(divan::black_box(*w), sm) {
                    let mut line = LineBuf::over(out.line_room());
                    op.print_line(&c, sm, 0, &mut line);
                    line.push_byte(b'\n');
                    let n = line.finish();
                    out.commit(n);
                }
            }
            out.len()
        });
}

struct NoCopies;
impl nak::runtime::legalize_support::LegalizeCx for NoCopies {
    fn copy_to_reg(
        &mut self,
        _: nak::runtime::operand::Src,
        _: nak::runtime::instr::ValueType,
        file: nak::runtime::operand::RegFile,
    ) -> Result<nak::runtime::operand::Reg, nak::runtime::legalize_support::LegalizeError> {
        Ok(nak::runtime::operand::Reg { file, idx: 0 })
    }
}

#[divan::bench(args = [50, 75])]
fn legalize_encode(bencher: divan::Bencher, sm: u32) {
    let ops = decoded(sm);
    bencher
        .counter(divan::counter::ItemsCount::new(ops.len()))
        .bench(|| {
            let mut x = 0u128;
            let mut cx = NoCopies;
            for (op, c) in &ops {
                let mut o = *divan::black_box(op);
                x ^= o.legalize_encode(sm, c, &mut cx).unwrap_or(0);
            }
            x
        });
}

/// The two steps apart (`legalize`, then `encode`): an op that is
/// already legal is encoded twice.
#[divan::bench(args = [50, 75])]
fn legalize_then_encode(bencher: divan::Bencher, sm: u32) {
    let ops = decoded(sm);
    bencher
        .counter(divan::counter::ItemsCount::new(ops.len()))
        .bench(|| {
            let mut x = 0u128;
            let mut cx = NoCopies;
            for (op, c) in &ops {
                let mut o = *divan::black_box(op);
                if o.legalize(sm, &mut cx).is_ok() {
                    x ^= o.encode(sm, c).unwrap_or(0);
                }
            }
            x
        });
}

/// The kernels of `tests/kernels/sm_{sm}.tsv.gz` as raw streams.
fn kernels(sm: u32) -> Vec<Vec<u8>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../tests/kernels/sm_{sm}.tsv.gz"));
    let mut text = String::new();
    if let Ok(f) = std::fs::File::open(&path) {
        let _ = flate2::read::GzDecoder::new(f).read_to_string(&mut text);
    }
    text.lines()
        .filter_map(|l| l.rsplit('\t').next())
        .map(|hex| {
            (0..hex.len() / 2)
                .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                .collect()
        })
        .collect()
}

/// `nak check` on every ptxas kernel of an SM (decode, control-flow
/// graph, fixed point, report): instructions per second.
#[divan::bench(args = [50, 90])]
fn check(bencher: divan::Bencher, sm: u32) {
    let ks = kernels(sm);
    assert!(!ks.is_empty(), "no kernels for SM{sm}");
    let words: usize = ks
        .iter()
        .map(|k| nak::check::program::Program::decode(sm, k).map_or(0, |p| p.instrs.len()))
        .sum();
    bencher
        .counter(divan::counter::ItemsCount::new(words))
        .bench(|| {
            ks.iter()
                .map(|k| nak::check::check(sm, divan::black_box(k)).map_or(0, |f| f.len()))
                .sum::<usize>()
        });
}

/// The kernels of an SM one after another, repeated to at least `TARGET`
/// instructions: one stream, as the 1,000,000-instruction row asks
/// (branches are relative, so each kernel's targets stay inside it).
fn kernel_stream(sm: u32) -> (Vec<u8>, usize) {
    let ks = kernels(sm);
    let count =
        |k: &[u8]| nak::check::program::Program::decode(sm, k).map_or(0, |p| p.instrs.len());
    let per_pass: usize = ks.iter().map(|k| count(k)).sum();
    assert!(per_pass > 0, "no kernels for SM{sm}");
    let passes = TARGET.div_ceil(per_pass);
    let bytes: Vec<u8> = (0..passes)
        .flat_map(|_| ks.iter().flatten().copied())
        .collect();
    (bytes, passes * per_pass)
}

/// `nak check` on one stream of over a million ptxas instructions.
#[divan::bench(args = [50, 90])]
fn check_stream(bencher: divan::Bencher, sm: u32) {
    let (bytes, n) = kernel_stream(sm);
    bencher
        .counter(divan::counter::ItemsCount::new(n))
        .bench(|| nak::check::check(sm, divan::black_box(&bytes)).map_or(0, |f| f.len()));
}

/// The scheduling pass on over a million legalized instructions: the
/// covered corpus ops of an SM (control ops left out), in blocks of 32.
#[divan::bench(args = [50, 90])]
fn schedule(bencher: divan::Bencher, sm: u32) {
    use nak::backend::ir::{Block, Function, Instr};
    let ops: Vec<Op> = decoded(sm)
        .into_iter()
        .map(|(op, _)| op)
        .filter(|op| op.class() != "control")
        .collect();
    let mut f = Function::new(sm);
    for (b, chunk) in ops.chunks(32).enumerate() {
        f.blocks.push(Block {
            label: format!("bb{b}"),
            instrs: chunk.iter().map(|op| Instr::hw(*op)).collect(),
        });
    }
    bencher
        .counter(divan::counter::ItemsCount::new(ops.len()))
        .bench_local(|| nak::backend::passes::schedule::schedule(divan::black_box(&mut f)).is_ok());
}

fn main() {
    divan::main();
}
