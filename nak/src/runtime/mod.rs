//! The ISA runtime: what every generated op shares. Operands and registers,
//! the encode/decode/print/parse algorithms the generated per-op data
//! drives, the legalizer's search, memory access tables, and the fold
//! functions that define what each op computes.

pub mod asm;
pub mod control;
pub mod decode;
pub mod encode;
pub mod flow;
pub mod fmt_float;
pub mod fold;
pub mod fold_fns;
pub mod instr;
pub mod legalize_support;
pub mod line_buf;
pub mod mem;
pub mod operand;
pub mod print;
pub mod refusal;
pub mod reg_names;
pub mod sample;
pub mod view;
