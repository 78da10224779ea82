//! `nak`: disassemble, assemble and lint with the code generated from the spec.

use clap::{Parser, Subcommand};
use nak::stream::parse_sm;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "nak", version, about = "NVIDIA SASS tools generated from the ISA spec")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Disassemble a raw instruction stream: one `HEX<TAB>TEXT` line each.
    Dis {
        /// Target SM: 90, sm_90 or SM90.
        #[arg(long)]
        sm: String,
        file: PathBuf,
    },
    /// Assemble one instruction per line into a raw stream.
    Asm {
        #[arg(long)]
        sm: String,
        file: PathBuf,
        #[arg(short = 'o')]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Dis { sm, file } => {
            let sm = match parse_sm(&sm) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let bytes = match std::fs::read(&file) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::from(2);
                }
            };
            match nak::tool::disassemble(sm, &bytes) {
                Ok((text, unknown)) => {
                    use std::io::Write;
                    let _ = std::io::stdout().lock().write_all(text.as_bytes());
                    if unknown > 0 {
                        eprintln!("{unknown} instruction(s) with an encoding the spec does not know");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", file.display());
                    ExitCode::from(1)
                }
            }
        }
        Cmd::Asm { sm, file, out } => {
            let sm = match parse_sm(&sm) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::from(2);
                }
            };
            match nak::tool::assemble(sm, &text) {
                Ok(bytes) => match std::fs::write(&out, bytes) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("error: cannot write {}: {e}", out.display());
                        ExitCode::from(1)
                    }
                },
                Err(errs) => {
                    for e in errs {
                        eprintln!("{}:{}:{}: error: {}", file.display(), e.line, e.col, e.message);
                    }
                    ExitCode::from(1)
                }
            }
        }
    }
}
