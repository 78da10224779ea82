//! NAK-style backend for NVIDIA GPUs around code generated from the ISA spec.
//!
//! The per-op code (structs, encoders, decoders, printers, parsers,
//! legalizers, folds) is generated at build time from `isa-spec/spec` and
//! lives in [`isa`]; the hand-written modules here are what every op shares.

pub mod asm;
pub mod decode;
pub mod encode;
pub mod fmt_float;
pub mod fold;
pub mod fold_fns;
mod generated;
pub mod instr;
pub mod ir;
pub mod legalize_support;
pub mod line_buf;
pub mod mem;
pub mod operand;
pub mod ordered_blocks;
pub mod passes;
pub mod print;
pub mod reg_names;
pub mod runner;

/// The generated ISA: op structs, the `Op` enum, `decode`, `parse`, `FORMS`;
/// and the runtime traits the op structs implement (their shared methods:
/// `encode`, `try_encode`, `legalize`, `print_line`, `mem_access`...).
pub mod isa {
    pub use crate::decode::Forms;
    pub use crate::encode::Encode;
    pub use crate::generated::*;
    pub use crate::legalize_support::Legalize;
    pub use crate::mem::MemOp;
}
pub mod lint_cmd;
pub mod sample;
pub mod stream;
pub mod text_buf;
pub mod tool;
pub mod view;
