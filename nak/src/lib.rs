//! NAK-style backend for NVIDIA GPUs around code generated from the ISA spec.
//!
//! - [`isa`]: the per-op code generated at build time from `isa-spec/spec`
//!   (structs, encoders, decoders, printers, parsers, legalizers, folds);
//! - [`runtime`]: the hand-written code every generated op shares;
//! - [`dis`]: raw streams and whole listings (disassembly and assembly);
//! - `cubin` (feature `cubin`): ELF cubins listed as nvdisasm lists them;
//! - [`backend`]: the compiler backend's IR, passes and runners.
//!
//! The `nak` command lives in the `nak-cli` package (`nak/cli`).

pub mod backend;
pub mod check;
#[cfg(feature = "cubin")]
pub mod cubin;
pub mod dis;
pub mod isa;
pub mod runtime;
