//! Whole ptxas kernels (the code of each function of a cubin, control bits
//! as ptxas set them), kept gzipped in `tests/kernels/` and built by
//! `scripts/build-test-kernels.py`. Provenance: `tests/kernels/README.md`.

use std::io::Read;
use std::path::PathBuf;

/// One kernel: its SM, cubin and function names, and its code (a raw
/// stream starting at address 0).
pub struct Kernel {
    pub sm: u32,
    pub cubin: String,
    pub function: String,
    pub code: Vec<u8>,
}

/// `tests/kernels` in this repository.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// Every kernel of every SM, in SM then file order.
pub fn all() -> Result<Vec<Kernel>, String> {
    let mut files: Vec<(u32, PathBuf)> = std::fs::read_dir(dir())
        .map_err(|e| format!("{}: {e}", dir().display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            let sm = n
                .strip_prefix("sm_")?
                .strip_suffix(".tsv.gz")?
                .parse()
                .ok()?;
            Some((sm, e.path()))
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for (sm, path) in files {
        let f = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut text = String::new();
        flate2::read::GzDecoder::new(f)
            .read_to_string(&mut text)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        for (n, line) in text.lines().enumerate() {
            let bad = || {
                format!(
                    "{}:{}: not CUBIN<TAB>FUNCTION<TAB>HEX",
                    path.display(),
                    n + 1
                )
            };
            let mut cols = line.split('\t');
            let (Some(cubin), Some(function), Some(hex)) = (cols.next(), cols.next(), cols.next())
            else {
                return Err(bad());
            };
            let code = (0..hex.len() / 2)
                .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
                .collect::<Option<Vec<u8>>>()
                .filter(|_| hex.len() % 2 == 0)
                .ok_or_else(bad)?;
            out.push(Kernel {
                sm,
                cubin: cubin.into(),
                function: function.into(),
                code,
            });
        }
    }
    Ok(out)
}
