//! Link the `nak` command as a position-dependent executable on Linux.
//! The generated tables hold about 49,000 pointers; in a PIE each is a
//! relocation the loader applies at every start, about 1 ms of a
//! command that lists a small cubin in 3 (BENCHMARKS.md).
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
