//! The disassembly pipeline: raw instruction streams (scheduling words and
//! control bits per family), whole listings printed in parallel blocks and
//! written in order, assembly of listings, the check that printed text
//! assembles back to its word, the corpus check, and (feature `cubin`)
//! instructions as data for `--json` and the Python module.

pub mod canonical;
pub mod cfg;
pub mod corpus;
#[cfg(feature = "cubin")]
pub mod instruction;
pub mod listing;
pub mod ordered_blocks;
pub mod stream;
pub mod text_buf;
