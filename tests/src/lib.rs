//! Shared helpers for the integration tests: the nvdisasm oracle runner and
//! the corpus of real instructions, and the fuzz targets.

pub mod combos;
pub mod corpus;
pub mod expected;
pub mod forms;
pub mod fuzz;
pub mod kernels;
pub mod mutate;
pub mod oracle;
pub mod rng;
