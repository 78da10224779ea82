//! The disassembly pipeline: raw instruction streams (scheduling words and
//! control bits per family), whole listings printed in parallel blocks and
//! written in order, assembly of listings, the check that printed text
//! assembles back to its word, and the corpus check.

pub mod canonical;
pub mod cfg;
pub mod corpus;
pub mod listing;
pub mod ordered_blocks;
pub mod stream;
pub mod text_buf;
