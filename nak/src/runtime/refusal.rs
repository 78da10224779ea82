//! How an encoder says no. Its checks return a bare [`Refused`], so
//! neither a successful encode nor a refused legality trial builds a
//! message, and each op's encoder is compiled once. Only when
//! `Op::encode` refuses does it run the encoder again ([`explained`]),
//! while [`refuse`] keeps the reason of the check that failed.

use crate::runtime::encode::EncodeError;
use crate::runtime::operand::{MOD_ABS, MOD_NEG, Reg, RegFile};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::thread::LocalKey;

/// A failed encoder check (the reason is kept only while explaining).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

thread_local! {
    /// Set while a refused encoder runs again to say why ([`explained`]).
    static EXPLAINING: Cell<bool> = const { Cell::new(false) };
    /// The message of the last check that failed while explaining.
    static REASON: RefCell<Option<EncodeError>> = const { RefCell::new(None) };
    /// Set while the spec's `legal` and `traps` products are ignored
    /// ([`with_any_combo`]).
    static ANY_COMBO: Cell<bool> = const { Cell::new(false) };
    /// Set while register alignment is not enforced ([`with_any_align`]).
    static ANY_ALIGN: Cell<bool> = const { Cell::new(false) };
    /// Set while the legalizer judges its rewrites
    /// ([`crate::runtime::encode::with_exact_imms`]).
    pub(crate) static EXACT_IMMS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with `flag` set, restoring it afterwards (also on a panic).
pub(crate) fn with_flag<R>(flag: &'static LocalKey<Cell<bool>>, f: impl FnOnce() -> R) -> R {
    struct Restore(&'static LocalKey<Cell<bool>>, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            self.0.with(|e| e.set(self.1));
        }
    }
    let _restore = Restore(flag, flag.with(|e| e.replace(true)));
    f()
}

/// A check failed: `message` says why, kept only while explaining. Cold
/// and out of line. The shared operand checks call [`refused`] instead,
/// whose site passes a few values rather than a formatted message.
#[cold]
#[inline(never)]
pub fn refuse(op: &'static str, message: fmt::Arguments<'_>) -> Refused {
    if EXPLAINING.with(Cell::get) {
        // The last failure wins: it is the one the encoder returned.
        let e = EncodeError::new(op, message.to_string());
        REASON.with(|r| *r.borrow_mut() = Some(e));
    }
    Refused
}

/// What a shared operand check found wrong with operand `what`.
#[derive(Clone, Copy, Debug)]
pub enum Why {
    NotRegister,
    NotCBuf,
    NotImm,
    /// A register of another file than the slot's.
    WrongFile(Reg, RegFile),
    /// The SM has no registers of the file.
    NoFile(RegFile, u32),
    /// The register is past the SM's last one.
    Missing(Reg, u32),
    /// The form has no field for it, and it is not the default.
    NotDefault(u32),
    /// The value `name` has no code on the SM.
    NoCode(&'static str, u32),
    /// A constant offset that is not a multiple of the field's unit.
    CBufScale {
        offset: u32,
        scale: u32,
    },
    /// An immediate with set bits below the field (`half`: in a half of a pair).
    LowBits {
        v: u32,
        shift: u32,
        half: bool,
    },
    /// An immediate wider than its field.
    ImmWide {
        v: u32,
        total: u32,
        signed: bool,
    },
    Wide {
        v: u128,
        width: u32,
    },
    WideSigned {
        v: i64,
        width: u32,
    },
    /// Modifiers (`MOD_*` bits) the form cannot encode.
    Mods(u8, u32),
}

/// [`refuse`] with the reason as values: the check's site passes them in
/// registers, and the message is built here only while explaining.
#[cold]
#[inline(never)]
pub fn refused(op: &'static str, what: &str, why: Why) -> Refused {
    refuse(op, format_args!("{}", Reason(what, why)))
}

struct Reason<'a>(&'a str, Why);

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.0;
        match self.1 {
            Why::NotRegister => write!(f, "{what} must be a register"),
            Why::NotCBuf => write!(f, "{what} must be a constant buffer"),
            Why::NotImm => write!(f, "{what} must be an immediate"),
            Why::WrongFile(r, file) => write!(f, "{what} must be a {file:?} register, not {r}"),
            Why::NoFile(file, sm) => write!(f, "{what}: SM{sm} has no {file:?} registers"),
            Why::Missing(r, sm) => write!(f, "{what}: {r} does not exist on SM{sm}"),
            Why::NotDefault(sm) => write!(f, "{what} is not encodable on SM{sm}"),
            Why::NoCode(name, sm) => write!(f, "{what} `{name}` does not exist on SM{sm}"),
            Why::CBufScale { offset, scale } => write!(
                f,
                "{what}: constant offset {offset:#x} is not a multiple of {scale}"
            ),
            Why::LowBits { v, shift, half } => {
                let where_ = if half { " in a half" } else { "" };
                write!(
                    f,
                    "{what}: immediate {v:#x} has non-zero low {shift} bits{where_}"
                )
            }
            Why::ImmWide { v, total, signed } => {
                let kind = if signed { " signed" } else { "" };
                write!(
                    f,
                    "{what}: immediate {v:#x} does not fit {total}{kind} bits"
                )
            }
            Why::Wide { v, width } => write!(f, "{what}: value {v:#x} does not fit {width} bits"),
            Why::WideSigned { v, width } => {
                write!(f, "{what}: value {v} does not fit {width} signed bits")
            }
            Why::Mods(bad, sm) => {
                let what_mod = if bad & MOD_NEG != 0 {
                    "be negated"
                } else if bad & MOD_ABS != 0 {
                    "take an absolute value"
                } else {
                    "be inverted"
                };
                write!(f, "{what} cannot {what_mod} in this form on SM{sm}")
            }
        }
    }
}

/// Whether the spec's `legal` and `traps` products are ignored (read only
/// when a combination check fails).
#[cold]
#[inline(never)]
pub fn any_combo() -> bool {
    ANY_COMBO.with(Cell::get)
}

/// Runs `f` with the spec's `legal` and `traps` products ignored: for
/// tests that show nvdisasm rejects the combinations they leave out.
pub fn with_any_combo<R>(f: impl FnOnce() -> R) -> R {
    with_flag(&ANY_COMBO, f)
}

/// Whether register alignment is not enforced (read only when an
/// alignment check fails).
#[cold]
#[inline(never)]
pub fn any_align() -> bool {
    ANY_ALIGN.with(Cell::get)
}

/// Runs `f` with the rules that keep a program correct but do not make an
/// instruction unencodable ignored: register alignment and the spec's
/// `legal` and `traps` products. nvdisasm prints such words, so an
/// assembler of existing code takes their text back (as a warning);
/// the backend's encoder never runs under it.
pub fn with_any_rule<R>(f: impl FnOnce() -> R) -> R {
    with_flag(&ANY_ALIGN, || with_flag(&ANY_COMBO, f))
}

/// Why `encode` refused: it runs again, keeping the failed check's reason.
#[cold]
#[inline(never)]
pub fn explained(op: &'static str, encode: impl FnOnce() -> Option<u128>) -> EncodeError {
    REASON.with(|r| r.borrow_mut().take());
    let again = with_flag(&EXPLAINING, encode);
    match (again, REASON.with(|r| r.borrow_mut().take())) {
        (None, Some(e)) => e,
        (None, None) => EncodeError::new(op, "refused without a reason"),
        (Some(_), _) => EncodeError::new(op, "refused, then encoded on a second try"),
    }
}
