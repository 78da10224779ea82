//! `nak dis --cfg`: the control-flow graph of a cubin's functions, or of
//! a raw stream as one function, as Graphviz DOT (`nvdisasm -cfg`'s
//! layout; render with `dot -Tpng`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use nak::cubin::InputKind;

/// Print the graph of `file`; 2 on bad input, 1 when it cannot be
/// decoded, nothing more when stdout is closed.
pub fn run(sm: Option<&str>, file: &Path) -> ExitCode {
    let input = match crate::input::read(sm, file) {
        Ok(i) => i,
        Err(code) => return code,
    };
    let graph = match (input.kind, input.sm) {
        (InputKind::Elf, sm) => nak::cubin::disassemble_cfg(&input.bytes, sm),
        (InputKind::Gzip, None) => {
            Err("this is gzip-compressed: decompress it first (`gunzip -k FILE`)".into())
        }
        (_, Some(sm)) => {
            // A raw stream's one cluster is named after the file.
            let name = file
                .file_stem()
                .map_or("stream".into(), |s| s.to_string_lossy());
            nak::dis::cfg::stream_dot(sm, &input.bytes, &name).map(|g| (g, 0))
        }
        (_, None) => Err(crate::input::NEEDS_SM.into()),
    };
    let (text, unknown) = match graph {
        Ok(g) => g,
        Err(e) => return crate::fail(2, format_args!("{}: {e}", file.display())),
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => crate::unknown_note(unknown),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => crate::fail(1, e),
    }
}
