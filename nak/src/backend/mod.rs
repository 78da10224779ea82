//! The compiler backend over the generated ISA: an IR of hardware and
//! virtual ops, the passes that lower, legalize, fold and assemble it, and
//! runners that execute the result over one warp.

pub mod ir;
pub mod passes;
pub mod runner;
