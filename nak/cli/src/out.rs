//! Output for subcommands: stdout that exits quietly on a closed pipe, and
//! output files written whole or not at all.

/// Write `args` to stdout for a subcommand. When the reader has gone (a
/// closed pipe: `nak lint | head -1`) the command has nothing left to do:
/// it exits quietly with status 0, as `nak dis` does, instead of the
/// panic `println!` raises. Any other write error exits with status 1.
pub fn out(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        exit_on_write_error(&e);
    }
}

/// Exit for a failed stdout write: 0 on a closed pipe, else 1 with a message.
pub fn exit_on_write_error(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write the output: {e}");
    std::process::exit(1);
}

/// `println!` for subcommands: [`out`] with a newline.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for subcommands: [`out`].
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::out(format_args!($($arg)*))
    };
}

/// Write `bytes` to `path` whole or not at all: into a temporary file
/// beside it, then renamed over it. An error (a full disk, a missing
/// directory) leaves no partial file, and an existing `path` untouched.
pub fn write_whole(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".nak-{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
