//! The corpus of real instructions (ptxas output disassembled by nvdisasm),
//! kept gzipped in `tests/corpus/` so the tests need nothing outside the
//! repository. Provenance: `tests/corpus/README.md`.

use std::io::Read;
use std::path::PathBuf;

/// `tests/corpus` in this repository.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// The corpus files that exist, as (file stem, SM number), e.g. ("sm_90a", 90).
pub fn files() -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = std::fs::read_dir(dir())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            let stem = n.strip_suffix(".txt.gz")?.to_string();
            let digits: String = stem
                .strip_prefix("sm_")?
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            Some((stem, digits.parse().ok()?))
        })
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    out
}

/// All `HEX<TAB>TEXT` lines of one corpus file.
pub fn read(stem: &str) -> Result<String, String> {
    let path = dir().join(format!("{stem}.txt.gz"));
    let f = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut s = String::new();
    flate2::read::GzDecoder::new(f)
        .read_to_string(&mut s)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(s)
}
