//! `nak`: disassemble, assemble and lint with the code generated from the spec.

#[macro_use]
mod out;
mod canonical_cmd;
mod cfg_cmd;
mod check_cmd;
mod input;
mod json_cmd;
mod lint_cmd;
mod patch_cmd;
mod run_cmd;

use clap::{Parser, Subcommand};
use nak::dis::stream::parse_sm;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "nak",
    version,
    about = "NVIDIA SASS tools generated from the ISA spec"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Disassemble a raw instruction stream (one `HEX<TAB>TEXT` line each)
    /// or a cubin (an ELF file, listed as `nvdisasm -c -hex` lists it).
    Dis {
        /// Target SM: 90, sm_90 or SM90. Required for a raw stream; for a
        /// cubin it comes from the ELF header and, if given, must match.
        #[arg(long)]
        sm: Option<String>,
        /// Print each instruction's control bits before its text, as
        /// `[B------:R-:W-:Y:S04]` (wait mask, read and write barrier,
        /// yield, stall; see the README), which `nak asm` reads back.
        #[arg(long)]
        ctrl: bool,
        /// Instead of the listing, check that each word's text assembles
        /// back to it: print `ADDR<TAB>HEX<TAB>TEXT<TAB>reason` for each
        /// that does not (bits the text does not show), a count on stderr,
        /// and exit 1 when there is any.
        #[arg(long, conflicts_with = "ctrl")]
        check_canonical: bool,
        /// Instead of the listing, one JSON object per instruction and
        /// line (kernel, address, hex words, text, guard, mnemonic,
        /// modifiers, operands with their kinds, control bits; schema in
        /// the README).
        #[arg(long, conflicts_with_all = ["ctrl", "check_canonical"])]
        json: bool,
        /// Instead of the listing, print the control-flow graph of each
        /// function's basic blocks as Graphviz DOT, as `nvdisasm -cfg`
        /// does (a raw stream is one function named after the file).
        #[arg(long, conflicts_with_all = ["ctrl", "check_canonical", "json"])]
        cfg: bool,
        file: PathBuf,
    },
    /// Check a scheduled kernel for hazards: reads and overwrites of
    /// registers a variable-latency write or a late read may still hold.
    /// One `ADDR<TAB>CODE<TAB>message` line each (for a cubin,
    /// `KERNEL<TAB>ADDR<TAB>CODE<TAB>message`); exit 1 when there is any,
    /// 0 when the kernel is clean, 2 on bad input.
    Check {
        /// Target SM: 90, sm_90 or SM90. Required for a raw stream; for a
        /// cubin it comes from the ELF header and, if given, must match.
        #[arg(long)]
        sm: Option<String>,
        /// A raw stream of one kernel starting at address 0 (Maxwell
        /// streams with their scheduling words), or a cubin (each code
        /// section checked as one kernel).
        file: PathBuf,
    },
    /// Assemble one instruction per line into a raw stream. Every line
    /// `nak dis` or nvdisasm prints assembles back to its word; where the
    /// instruction breaks a rule that keeps programs correct (a misaligned
    /// register, a modifier combination the spec does not list as legal,
    /// one the hardware traps on) it is a warning. With `--cubin IN`, the
    /// file is an edited listing of IN (`nak dis IN`) and OUT is IN with
    /// the edited instructions reassembled.
    Asm {
        /// Target SM: 90, sm_90 or SM90. With --cubin it comes from the
        /// ELF header and, if given, must match.
        #[arg(long, required_unless_present = "cubin")]
        sm: Option<String>,
        /// Patch this cubin: unchanged instructions keep their bytes, an
        /// edited one is assembled at its address (its control bits from a
        /// `[B------:R-:W-:Y:S04]` field on the line, else the original's);
        /// the listing must have the cubin's sections and addresses.
        #[arg(long)]
        cubin: Option<PathBuf>,
        /// One instruction per line; a leading `HEX<TAB>` column and a
        /// `--ctrl` field are read as `nak dis` writes them.
        file: PathBuf,
        /// The raw stream (or cubin) to write (whole, or not at all on error).
        #[arg(short = 'o')]
        out: PathBuf,
        /// Treat warnings as errors (nothing is written).
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Print an SM's facts from the spec as `key=value` lines (family,
    /// word bits, instructions per scheduling word, reference nvdisasm),
    /// for scripts.
    Info {
        /// Target SM: 90, sm_90 or SM90.
        #[arg(long)]
        sm: String,
    },
    /// Lay `HEX` words (the first column of each line, as `nak dis` and
    /// the corpus write them) out as a raw stream: scheduling words with
    /// the family's neutral control where the family has them, the last
    /// group padded with NOPs.
    Pack {
        /// Target SM: 90, sm_90 or SM90.
        #[arg(long)]
        sm: String,
        file: PathBuf,
        #[arg(short = 'o')]
        out: PathBuf,
    },
    /// Check the ISA spec and report every problem with file, line and column.
    Lint {
        /// Spec directory (default: the workspace's isa-spec/spec).
        dir: Option<PathBuf>,
        /// human, short, json or github.
        #[arg(long, default_value = "human")]
        format: String,
        /// Exit 1 on warnings too.
        #[arg(long)]
        deny_warnings: bool,
        /// Colour for the human format: auto (only on a terminal, off with
        /// NO_COLOR, on with CLICOLOR_FORCE), always or never.
        #[arg(long, default_value = "auto")]
        color: String,
    },
    /// Write random valid words for each encoding form (the oracle sweep) as a raw stream.
    Sample {
        #[arg(long)]
        sm: String,
        /// Ops to sample (spec names, comma-separated); all when absent.
        #[arg(long)]
        ops: Option<String>,
        #[arg(long, default_value_t = 64)]
        per_form: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(short = 'o')]
        out: PathBuf,
    },
    /// Legalize a text-IR function and print it.
    Legalize {
        /// Target SM (default: the file's `.sm` line).
        #[arg(long)]
        sm: Option<String>,
        file: PathBuf,
    },
    /// Legalize, schedule, assemble and run a text-IR function on the CPU runner;
    /// prints the registers it writes.
    Run {
        #[arg(long)]
        sm: Option<String>,
        #[arg(long, default_value_t = 32)]
        lanes: usize,
        /// Bytes of global memory (address 0 up, initially zero); the
        /// words the program changes are printed.
        #[arg(long, default_value_t = 0)]
        global: usize,
        file: PathBuf,
    },
    /// Check a corpus file (`HEX<TAB>TEXT` lines) against the spec: decode,
    /// re-encode bit-exact and print nvdisasm's text; prints coverage and mismatches.
    Corpus {
        #[arg(long)]
        sm: String,
        file: PathBuf,
        /// Only lines with this mnemonic (first part, e.g. IADD3).
        #[arg(long)]
        mnemonic: Option<String>,
        /// How many mismatches to list.
        #[arg(long, default_value_t = 20)]
        show: usize,
        /// Also list, per mnemonic and most lines first, the lines that do
        /// not decode: the coverage work left.
        #[arg(long)]
        gaps: bool,
    },
}

fn corpus(sm: &str, file: &PathBuf, mnemonic: Option<&str>, show: usize, gaps: bool) -> ExitCode {
    use nak::dis::corpus::{
        CorpusOutcome, CorpusStats, check_corpus_line, covered_mnemonics, text_mnemonic,
    };
    let sm = match parse_sm(sm) {
        Ok(s) => s,
        Err(e) => return fail(2, e),
    };
    let Some(family) = nak::isa::family_of(sm) else {
        return fail(2, format_args!("SM{sm} is not in the spec"));
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(2, format_args!("cannot read {}: {e}", file.display())),
    };
    let covered = covered_mnemonics(sm);
    let mut st = CorpusStats::default();
    let mut shown = 0;
    let mut gap = Gaps::default();
    for (ln, line) in text.lines().enumerate() {
        let Some((hex, t)) = line.split_once('\t') else {
            continue;
        };
        if mnemonic.is_some_and(|m| text_mnemonic(t) != m) {
            continue;
        }
        let Some(word) = nak::dis::stream::parse_word_hex(hex, family) else {
            eprintln!("{}:{}: bad hex", file.display(), ln + 1);
            continue;
        };
        st.lines += 1;
        let out = check_corpus_line(sm, word, t, &covered);
        gap.count(t, &out);
        if out != CorpusOutcome::NotCovered {
            st.covered += 1;
        }
        match &out {
            CorpusOutcome::NotCovered => {}
            CorpusOutcome::NotDecoded => {}
            CorpusOutcome::NotBitExact { .. } => st.decoded += 1,
            CorpusOutcome::TextDiffers { .. } => {
                st.decoded += 1;
                st.bit_exact += 1;
            }
            CorpusOutcome::Ok => {
                st.decoded += 1;
                st.bit_exact += 1;
                st.text_identical += 1;
            }
        }
        if !matches!(out, CorpusOutcome::Ok | CorpusOutcome::NotCovered) && shown < show {
            shown += 1;
            match out {
                CorpusOutcome::NotDecoded => outln!("not decoded   {hex}  {t}"),
                CorpusOutcome::NotBitExact { got } => outln!(
                    "not bit-exact {hex}  {t}\n          got {}",
                    nak::dis::stream::word_hex(got, family)
                ),
                CorpusOutcome::TextDiffers { got } => {
                    outln!("text differs  {hex}  {t}\n          got {got}")
                }
                _ => {}
            }
        }
    }
    outln!(
        "SM{sm}: {} lines, {} covered, {} decoded, {} bit-exact, {} text-identical",
        st.lines,
        st.covered,
        st.decoded,
        st.bit_exact,
        st.text_identical
    );
    if gaps {
        gap.print();
    }
    ExitCode::SUCCESS
}

/// Per mnemonic, the corpus lines that do not decode: (not in the spec,
/// in the spec but no encoding matched).
#[derive(Default)]
struct Gaps(std::collections::BTreeMap<String, (usize, usize)>);

impl Gaps {
    fn count(&mut self, text: &str, out: &nak::dis::corpus::CorpusOutcome) {
        use nak::dis::corpus::{CorpusOutcome, text_mnemonic};
        let slot = match out {
            CorpusOutcome::NotCovered => 0,
            CorpusOutcome::NotDecoded => 1,
            _ => return,
        };
        let e = self.0.entry(text_mnemonic(text).to_string()).or_default();
        if slot == 0 { e.0 += 1 } else { e.1 += 1 }
    }

    /// `gap MNEMONIC LINES (WHY)`, most lines first.
    fn print(&self) {
        let mut rows: Vec<(&String, usize, usize)> =
            self.0.iter().map(|(m, &(a, b))| (m, a, b)).collect();
        rows.sort_by(|x, y| (y.1 + y.2).cmp(&(x.1 + x.2)).then(x.0.cmp(y.0)));
        for (m, not_in_spec, no_match) in rows {
            if not_in_spec > 0 {
                outln!("gap {m} {not_in_spec} (not in the spec)");
            }
            if no_match > 0 {
                outln!("gap {m} {no_match} (no encoding matched)");
            }
        }
    }
}

/// `nak info`: the spec's facts about one SM.
fn info(sm: &str) -> ExitCode {
    let family = match parse_sm(sm).map(|sm| (sm, nak::isa::family_of(sm))) {
        Ok((sm, Some(f))) => (sm, f),
        Ok((sm, None)) => return fail(2, format_args!("SM{sm} is not in the spec")),
        Err(e) => return fail(2, e),
    };
    let (sm, f) = family;
    outln!("family={}", f.name());
    outln!("word_bits={}", f.width());
    outln!("bundle={}", f.bundle().unwrap_or(1));
    if let Some(v) = nak::isa::reference_nvdisasm(sm) {
        outln!("nvdisasm={v}");
    }
    ExitCode::SUCCESS
}

/// `nak pack`: HEX words to a raw stream.
fn pack(sm: &str, file: &Path, out: &Path) -> ExitCode {
    let sm = match parse_sm(sm) {
        Ok(s) => s,
        Err(e) => return fail(2, e),
    };
    let Some(family) = nak::isa::family_of(sm) else {
        return fail(2, format_args!("SM{sm} is not in the spec"));
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(2, format!("{}: {e}", file.display())),
    };
    let mut words = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(hex) = line.split_whitespace().next() else {
            continue;
        };
        match nak::dis::stream::parse_word_hex(hex, family) {
            Some(w) => words.push((w, family.neutral_control())),
            None => {
                return fail(
                    2,
                    format!(
                        "{}:{}: `{hex}` is not a {}-bit hex word",
                        file.display(),
                        n + 1,
                        family.width()
                    ),
                );
            }
        }
    }
    match nak::dis::stream::encode_stream(sm, &words, nak::dis::stream::nop_word(sm))
        .and_then(|b| out::write_whole(out, &b).map_err(|e| format!("{}: {e}", out.display())))
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(2, e),
    }
}

/// The SM's NOP, to pad a scheduling group.
fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Info { sm } => info(&sm),
        Cmd::Pack { sm, file, out } => pack(&sm, &file, &out),
        Cmd::Lint {
            dir,
            format,
            deny_warnings,
            color,
        } => lint_cmd::run(dir.as_deref(), &format, deny_warnings, &color),
        Cmd::Sample {
            sm,
            ops,
            per_form,
            seed,
            out,
        } => sample(&sm, ops.as_deref(), per_form, seed, &out),
        Cmd::Corpus {
            sm,
            file,
            mnemonic,
            show,
            gaps,
        } => corpus(&sm, &file, mnemonic.as_deref(), show, gaps),
        Cmd::Legalize { sm, file } => run_cmd::legalize_cmd(&file, sm.as_deref()),
        Cmd::Run {
            sm,
            lanes,
            global,
            file,
        } => run_cmd::run_cmd(&file, sm.as_deref(), lanes, global),
        Cmd::Dis {
            sm,
            ctrl,
            check_canonical,
            json,
            cfg,
            file,
        } => match (check_canonical, json, cfg) {
            (true, _, _) => canonical_cmd::run(sm.as_deref(), &file),
            (_, true, _) => json_cmd::run(sm.as_deref(), &file),
            (_, _, true) => cfg_cmd::run(sm.as_deref(), &file),
            _ => dis(sm.as_deref(), &file, ctrl),
        },
        Cmd::Asm {
            sm,
            cubin: Some(cubin),
            file,
            out,
            deny_warnings,
        } => patch_cmd::run(sm.as_deref(), &cubin, &file, &out, deny_warnings),
        Cmd::Asm {
            sm,
            file,
            out,
            deny_warnings,
            ..
        } => asm(
            sm.as_deref().unwrap_or_default(),
            &file,
            &out,
            deny_warnings,
        ),
        Cmd::Check { sm, file } => check_cmd::run(sm.as_deref(), &file),
    }
}

/// Print `error: {msg}` and exit with `code` (2: bad arguments or input
/// that cannot be read; 1: the command failed).
fn fail(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(code)
}

/// `nak sample`: sampled words of every form of `ops` (all ops when
/// none), as a stream file.
fn sample(sm: &str, ops: Option<&str>, per_form: usize, seed: u64, out: &Path) -> ExitCode {
    let sm = match parse_sm(sm) {
        Ok(s) => s,
        Err(e) => return fail(2, e),
    };
    let names: Vec<&str> = ops.map_or(Vec::new(), |o| o.split(',').collect());
    if let Some(bad) = names
        .iter()
        .find(|n| !nak::isa::FORMS.iter().any(|f| f.op == **n))
    {
        return fail(2, format_args!("`{bad}` is not an op of the spec"));
    }
    let words = nak::runtime::sample::sample_words(sm, &names, per_form, seed);
    let neutral = nak::isa::family_of(sm).map_or(0, |f| f.neutral_control());
    let with_ctrl: Vec<(u128, u32)> = words.iter().map(|w| (*w, neutral)).collect();
    match nak::dis::stream::encode_stream(sm, &with_ctrl, nak::dis::stream::nop_word(sm))
        .map_err(|e| e.to_string())
        .and_then(|b| out::write_whole(out, &b).map_err(|e| format!("{}: {e}", out.display())))
    {
        Ok(()) => {
            eprintln!("{} words", words.len());
            ExitCode::SUCCESS
        }
        Err(e) => fail(1, e),
    }
}

/// `nak dis`: a cubin's listing (see [`dis_cubin`]), or the stream
/// file's listing on stdout, read as it is printed (see
/// `disassemble_reader`), after a length check so a truncated file fails
/// before any output.
fn dis(sm: Option<&str>, file: &Path, ctrl: bool) -> ExitCode {
    let sm = match sm.map(parse_sm).transpose() {
        Ok(s) => s,
        Err(e) => return fail(2, e),
    };
    let mut input = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => return fail(2, format_args!("cannot read {}: {e}", file.display())),
    };
    use std::io::Read;
    let mut head = Vec::new();
    if let Err(e) = input.by_ref().take(256).read_to_end(&mut head) {
        return fail(2, format_args!("cannot read {}: {e}", file.display()));
    }
    let kind = nak::cubin::input_kind(&head);
    if let Some(why) = nak::cubin::refusal(kind) {
        return fail(2, format_args!("{}: {why}", file.display()));
    }
    if kind == nak::cubin::InputKind::Elf {
        return dis_cubin(head, &mut input, file, sm, ctrl);
    }
    let Some(sm) = sm else {
        let why = if kind == nak::cubin::InputKind::Gzip {
            "this is gzip-compressed: decompress it first (`gunzip -k FILE`)"
        } else {
            "a raw instruction stream needs --sm (only a cubin names its SM)"
        };
        return fail(2, format_args!("{}: {why}", file.display()));
    };
    if let Ok(m) = input.metadata()
        && m.is_file()
        && let Err(e) = nak::dis::stream::check_stream_len(sm, m.len())
    {
        return fail(1, format_args!("{}: {e}", file.display()));
    }
    // Block-sized writes from whichever thread completes a run.
    let mut whole = (&head[..]).chain(input);
    match nak::dis::listing::disassemble_reader_with(sm, &mut whole, &mut std::io::stdout(), ctrl) {
        Ok(unknown) => unknown_note(unknown),
        // A closed pipe (`nak dis ... | head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(1, format_args!("{}: {e}", file.display())),
    }
}

/// `nak dis` of a cubin: the whole file is read, then listed.
fn dis_cubin(
    mut bytes: Vec<u8>,
    input: &mut std::fs::File,
    file: &Path,
    sm: Option<u32>,
    ctrl: bool,
) -> ExitCode {
    if ctrl {
        return fail(
            2,
            "--ctrl applies to raw streams; a cubin's listing shows the control bits in its hex column",
        );
    }
    if let Err(e) = std::io::Read::read_to_end(input, &mut bytes) {
        return fail(2, format_args!("cannot read {}: {e}", file.display()));
    }
    match nak::cubin::disassemble(&bytes, sm) {
        Ok((text, unknown)) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => unknown_note(unknown),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(e) => fail(1, e),
            }
        }
        Err(e) => fail(1, format_args!("{}: {e}", file.display())),
    }
}

/// Success, with the count of unknown encodings on stderr when any.
fn unknown_note(unknown: usize) -> ExitCode {
    if unknown > 0 {
        eprintln!("{unknown} instruction(s) with an encoding the spec does not know");
    }
    ExitCode::SUCCESS
}

/// `nak asm`: assemble a text file into a stream file; every bad line is
/// reported as `file:line:col: error: ...`.
fn asm(sm: &str, file: &Path, out: &Path, deny_warnings: bool) -> ExitCode {
    let sm = match parse_sm(sm) {
        Ok(s) => s,
        Err(e) => return fail(2, e),
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(2, format_args!("cannot read {}: {e}", file.display())),
    };
    let report = |level: &str, errs: &[nak::dis::listing::AsmFileError]| {
        for e in errs {
            let at = format!("{}:{}:{}", file.display(), e.line, e.col);
            eprintln!("{at}: {level}: {}", e.message);
        }
    };
    match nak::dis::listing::assemble(sm, &text) {
        Ok(a) if deny_warnings && !a.warnings.is_empty() => {
            report("error", &a.warnings);
            ExitCode::from(1)
        }
        Ok(a) => {
            report("warning", &a.warnings);
            match out::write_whole(out, &a.bytes) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(1, format_args!("cannot write {}: {e}", out.display())),
            }
        }
        Err(errs) => {
            report("error", &errs);
            ExitCode::from(1)
        }
    }
}
