//! `nak check`: exit 0 on a clean kernel, 1 with one line per hazard, 2 on
//! bad input.

use std::process::{Command, Output};

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("nak-cli-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn check(sm: &str, file: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(["check", "--sm", sm, file.to_str().unwrap()])
        .output()
        .expect("run nak")
}

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

#[test]
fn ptxas_kernels_are_clean() {
    for (sm, file) in [
        ("50", "ptxas_atom_generic_sm50.bin"),
        ("90", "ptxas_atom_generic_sm90.bin"),
    ] {
        let out = check(sm, &data(file));
        assert_eq!(out.status.code(), Some(0), "{file}");
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn a_hazard_is_one_line_and_exit_1() {
    let text = tmp("hazard.txt");
    std::fs::write(
        &text,
        "[B------:R-:W0:-:S02] LDG.E R2, desc[UR4][R4.64]\n\
         [B------:R-:W-:-:S04] IADD3 R3, PT, PT, R2, 0x1, RZ\n\
         [B------:R-:W-:-:S05] EXIT\n",
    )
    .unwrap();
    let bin = tmp("hazard.bin");
    let asm = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args(["asm", "--sm", "90", text.to_str().unwrap(), "-o"])
        .arg(&bin)
        .status()
        .expect("run nak");
    assert!(asm.success());
    let out = check("90", &bin);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let cols: Vec<&str> = lines[0].split('\t').collect();
    assert_eq!(&cols[..2], ["0x0010", "RAW"], "{stdout}");
    assert!(
        cols[2].contains("R2") && cols[2].contains("SB0"),
        "{stdout}"
    );
}

#[test]
fn bad_input_is_exit_2() {
    let odd = tmp("odd.bin");
    std::fs::write(&odd, [0u8; 17]).unwrap();
    for (sm, file) in [("90", odd.clone()), ("90", tmp("missing.bin")), ("91", odd)] {
        let out = check(sm, &file);
        assert_eq!(out.status.code(), Some(2), "{}", file.display());
        assert!(!out.stderr.is_empty());
    }
}

/// Every stored ptxas cubin (`tests/cubins`, SM50..SM120): each code
/// section is checked as a kernel, and all are clean.
#[test]
fn ptxas_cubins_are_clean() {
    use std::io::Read;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cubins");
    let mut n = 0;
    let dirs = std::fs::read_dir(&root).expect("tests/cubins").flatten();
    for sm_dir in dirs.filter(|d| d.path().is_dir()) {
        for f in std::fs::read_dir(sm_dir.path()).unwrap().flatten() {
            let p = f.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".cubin.gz") else {
                continue;
            };
            let stem = format!("{}_{stem}", sm_dir.file_name().to_string_lossy());
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(&p).unwrap())
                .read_to_end(&mut bytes)
                .unwrap();
            let file = tmp(&stem);
            std::fs::write(&file, &bytes).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_nak"))
                .args(["check", file.to_str().unwrap()])
                .output()
                .expect("run nak");
            assert_eq!(
                out.status.code(),
                Some(0),
                "{stem}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            n += 1;
        }
    }
    assert!(n >= 40, "only {n} cubins checked");
}

/// A cubin names its SM: a different `--sm` is bad input, and a raw
/// stream without `--sm` too.
#[test]
fn cubin_sm_and_raw_stream_without_sm() {
    use std::io::Read;
    let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/cubins/sm_90/control.cubin.gz");
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    let cubin = tmp("control_sm90.cubin");
    std::fs::write(&cubin, &bytes).unwrap();
    let out = check("75", &cubin);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the cubin is for SM90"));
    let out = Command::new(env!("CARGO_BIN_EXE_nak"))
        .args([
            "check",
            data("ptxas_atom_generic_sm90.bin").to_str().unwrap(),
        ])
        .output()
        .expect("run nak");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --sm"));
}
