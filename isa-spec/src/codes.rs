//! Every lint code: its default level and a one-line doc. The table in
//! `isa-spec/README.md` is checked against this list by a test.

use crate::diag::Level;

pub struct Code {
    pub code: &'static str,
    pub level: Level,
    pub doc: &'static str,
}

const fn c(code: &'static str, level: Level, doc: &'static str) -> Code {
    Code { code, level, doc }
}

use Level::{Error as E, Warning as W};

pub const CODES: &[Code] = &[
    c("S0000", E, "a spec file cannot be read"),
    c("S0001", E, "TOML syntax error"),
    c(
        "S0002",
        E,
        "unknown key (every one is reported, with the keys expected there)",
    ),
    c("S0003", E, "wrong value type, or a missing key"),
    c("S0004", E, "`lint.toml`: unknown code or level"),
    c(
        "S0101",
        E,
        "bit range outside the instruction, empty or reversed",
    ),
    c("S0103", E, "unknown type, kind or modifier name"),
    c("S0104", E, "unknown enum or enum value"),
    c("S0105", E, "a name declared twice"),
    c(
        "S0106",
        E,
        "a family's common field that is not guard, guard.not, ctrl, =N or ?",
    ),
    c("S0107", E, "a `ugpr_max` key that is not an SM number"),
    c("S0201", E, "two fields of one form overlap"),
    c("S0301", E, "a fixed or enum value does not fit its bits"),
    c(
        "S0302",
        E,
        "an encoding value override names an unknown enum value",
    ),
    c("S0303", E, "two enum values share one code"),
    c(
        "S0401",
        E,
        "two encodings can match the same word on one SM (witness given)",
    ),
    c("S0501", E, "bits neither fixed, a field, nor `?`"),
    c(
        "S0601",
        E,
        "an operand never encoded, or a field naming an unknown operand",
    ),
    c(
        "S0602",
        W,
        "a modifier not encoded on a family (it must keep its default there)",
    ),
    c("S0701", E, "a commutative pair names an unknown source"),
    c(
        "S0702",
        E,
        "a swap rule names an unknown modifier or source",
    ),
    c(
        "S0703",
        E,
        "a commutative pair of sources with different types or source modifiers",
    ),
    c("S0704", E, "a wide-immediate op that does not exist"),
    c(
        "S0705",
        E,
        "`swap_flips` on a modifier that is not an enum with a `flip` table",
    ),
    c(
        "S0706",
        E,
        "`align` on a predicate, not a power of two, or below the type's register count",
    ),
    c(
        "S0707",
        E,
        "a wide-immediate op lacking a source of the op, of another type, or whose immediate is no wider on an SM where it exists",
    ),
    c(
        "S0801",
        W,
        "a legalization gap: an operand kind no form accepts and no rewrite (swap, copy to register, wide form, the narrow op of a wide form) reaches",
    ),
    c("S0901", E, "a fold expression that does not parse"),
    c("S0902", E, "a fold for an unknown destination"),
    c(
        "S0903",
        E,
        "a fold construct outside the allowed subset (macros, loops, unsafe, closures outside `let`, ...)",
    ),
    c(
        "S0904",
        E,
        "a fold type mismatch (e.g. a number for a predicate, `u32 + u64`)",
    ),
    c("S0905", E, "a fold expression in a basic (escaped) string"),
    c("S0908", E, "a fold with `cc_out` but no `writes_cc`"),
    c(
        "S0906",
        E,
        "an unknown name, enum value, helper or method in a fold",
    ),
    c("S0907", W, "a fold that covers only some destinations"),
    c("S1001", E, "an unknown family, or an SM range outside it"),
    c(
        "S1002",
        E,
        "two encodings of one op on one SM that take the same operand kinds",
    ),
    c("S1003", E, "an encoding with no usable form"),
    c(
        "S1004",
        W,
        "an op with a gap: missing on an SM between two SMs of a family where it exists",
    ),
    c(
        "S1101",
        E,
        "an `[asm]` entry naming an unknown operand or modifier",
    ),
    c("S1102", E, "a bad alias condition"),
    c(
        "S1301",
        E,
        "a bad `[memory]` table: unknown kind, operand or size, a size enum value without bytes",
    ),
    c(
        "S1302",
        E,
        "a bad `low_bits` list: an unknown, predicate or float source",
    ),
    c(
        "S1103",
        E,
        "two values of one suffix modifier print the same text",
    ),
    c(
        "S1104",
        E,
        "two ops print the same text on one SM (same mnemonic, suffixes and operand count)",
    ),
    c("S1201", W, "an ALU op without fold semantics"),
    c(
        "S1401",
        E,
        "a `legal` or `traps` entry naming an unknown form, modifier or value, SMs where the op does not exist, or a trap without evidence",
    ),
];

pub fn find(code: &str) -> Option<&'static Code> {
    CODES.iter().find(|c| c.code == code)
}
