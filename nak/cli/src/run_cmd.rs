//! The `nak run` and `nak legalize` commands.

use nak::backend::ir::text::{parse_function, print_function};
use nak::backend::passes::{assemble::assemble, legalize::legalize, schedule::schedule};
use nak::backend::runner::{CpuRunner, LANES, Runner, WarpState};
use nak::dis::stream::parse_sm;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;

fn load(file: &Path, sm: Option<&str>) -> Result<nak::backend::ir::Function, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let sm = sm.map(parse_sm).transpose()?;
    parse_function(&text, sm).map_err(|e| format!("{}:{e}", file.display()))
}

/// `nak legalize [--sm SM] FILE`: print the legalized text IR.
pub fn legalize_cmd(file: &Path, sm: Option<&str>) -> ExitCode {
    let r = load(file, sm).and_then(|mut f| {
        legalize(&mut f).map_err(|e| e.to_string())?;
        Ok(f)
    });
    match r {
        Ok(f) => {
            crate::out!("{}", print_function(&f));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `nak run [--sm SM] [--lanes N] [--global BYTES] FILE`: legalize,
/// schedule, assemble, run on the CPU runner from an all-zero state (with a zeroed
/// global buffer of BYTES at address 0), and print every register the
/// program writes (one value when all lanes agree, else each lane's) and
/// every global word it changes.
pub fn run_cmd(file: &Path, sm: Option<&str>, lanes: usize, global: usize) -> ExitCode {
    let r = (|| -> Result<String, String> {
        let mut f = load(file, sm)?;
        let written: BTreeSet<_> = f.instrs().flat_map(|i| i.defs()).collect();
        legalize(&mut f).map_err(|e| e.to_string())?;
        schedule(&mut f).map_err(|e| e.to_string())?;
        let code = assemble(&f).map_err(|e| e.to_string())?;
        let mut st = WarpState {
            active: if lanes >= LANES {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            },
            global: vec![0; global],
            ..WarpState::default()
        };
        let stats = CpuRunner::default()
            .run(f.sm, &code, &mut st)
            .map_err(|e| e.to_string())?;
        let n = lanes.clamp(1, LANES);
        let mut out = format!(
            "# SM{}, {n} lanes, {} instructions issued\n",
            f.sm, stats.issued
        );
        for r in written {
            let vals: Vec<u32> = (0..n).map(|l| st.reg(l, r)).collect();
            if vals.iter().all(|v| *v == vals[0]) {
                out.push_str(&format!("{r} = {:#x}\n", vals[0]));
            } else {
                let list: Vec<String> = vals.iter().map(|v| format!("{v:#x}")).collect();
                out.push_str(&format!("{r} = [{}]\n", list.join(", ")));
            }
        }
        for (k, w) in st.global.chunks(4).enumerate() {
            if w.iter().any(|b| *b != 0) {
                let mut b = [0u8; 4];
                b[..w.len()].copy_from_slice(w);
                out.push_str(&format!(
                    "global[{:#x}] = {:#x}\n",
                    4 * k,
                    u32::from_le_bytes(b)
                ));
            }
        }
        Ok(out)
    })();
    match r {
        Ok(s) => {
            crate::out!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
