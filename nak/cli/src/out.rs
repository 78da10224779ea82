//! Output for subcommands that exits quietly on a closed pipe.

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
