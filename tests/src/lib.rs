//! Shared helpers for the integration tests: the nvdisasm oracle runner and
//! the corpus of real instructions.

pub mod combos;
pub mod corpus;
pub mod expected;
pub mod kernels;
pub mod oracle;
pub mod rng;
