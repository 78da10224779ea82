//! Every lint code: its default level and a one-line doc. A code is a
//! variant of [`Code`], so a mistyped code does not compile. The table in
//! `isa-spec/README.md` is checked against this list by a test.

use crate::diag::Level;

/// A lint code's default level and doc.
pub struct CodeInfo {
    pub code: Code,
    pub level: Level,
    pub doc: &'static str,
}

/// Declares [`Code`] and [`CODES`] from one list, so the two cannot drift.
macro_rules! codes {
    ($($code:ident $level:ident $doc:expr;)*) => {
        /// A stable lint code, printed as its name (`S0401`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($code,)*
        }

        impl Code {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)*
                }
            }
        }

        pub const CODES: &[CodeInfo] = &[
            $(CodeInfo { code: Code::$code, level: Level::$level, doc: $doc },)*
        ];
    };
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

codes! {
    S0000 Error "a spec file cannot be read";
    S0001 Error "TOML syntax error";
    S0002 Error "unknown key (every one is reported, with the keys expected there)";
    S0003 Error "wrong value type, or a missing key";
    S0004 Error "`lint.toml`: unknown code or level, or an `[[allow]]` entry that accepts nothing";
    S0101 Error "bit range outside the instruction, empty or reversed";
    S0103 Error "unknown type, kind or modifier name";
    S0104 Error "unknown enum or enum value";
    S0105 Error "a name declared twice (an op, enum, operand, modifier or enum value)";
    S0106 Error "a family's common field that is not guard, guard.not, ctrl, =N or ?";
    S0107 Error "a `registers` entry that names no register file or SM, or an index that is not a register";
    S0108 Error "an op file in a class folder (`ops/<class>/`) that is not its class";
    S0109 Error "a `lanes` modifier that is not unsigned and a whole number of lanes wide, or whose enum lacks a code or has texts of unequal length";
    S0201 Error "two fields of one form overlap";
    S0301 Error "a fixed or enum value does not fit its bits";
    S0302 Error "an encoding value override names an unknown enum value";
    S0303 Error "two enum values share one code (in the enum file or an encoding's override)";
    S0401 Error "two encodings can match the same word on one SM (witness given)";
    S0501 Error "bits neither fixed, a field, nor `?`";
    S0502 Error "an `ignored` bit that no form of the encoding fixes";
    S0601 Error "an operand never encoded, or a field naming an unknown operand";
    S0602 Warning "a modifier not encoded on a family (it must keep its default there)";
    S0603 Error "a modifier declared on some `families`/`sms` that is not encoded on exactly those";
    S0701 Error "a commutative pair names an unknown source";
    S0702 Error "a swap rule names an unknown modifier or source";
    S0703 Error "a commutative pair of sources with different source modifiers, or types without `commutative_why`";
    S0704 Error "a wide-immediate op that does not exist";
    S0705 Error "`swap_flips` on a modifier that is not an enum with a `flip` table";
    S0706 Error "`align` on a predicate, not a power of two, or below the type's register count";
    S0707 Error "a wide-immediate op lacking a source of the op, of another type, or whose immediate is no wider on an SM where it exists";
    S0801 Warning "a legalization gap: an operand kind no form accepts and no rewrite (swap, copy to a register or uniform register, wide form, the narrow op of a wide form) reaches";
    S0901 Error "a fold expression that does not parse";
    S0902 Error "a fold for an unknown destination";
    S0903 Error "a fold construct outside the allowed subset (macros, loops, unsafe, closures outside `let`, ...)";
    S0904 Error "a fold type mismatch (e.g. a number for a predicate, `u32 + u64`)";
    S0905 Error "a fold expression in a basic (escaped) string";
    S0908 Error "a fold with `cc_out` but no `writes_cc`";
    S0909 Error "a fold marked `inexact` that also gives expressions";
    S0906 Error "an unknown name, enum value, helper or method in a fold";
    S0907 Warning "a fold that covers only some destinations";
    S1001 Error "an unknown family, or an SM range outside it";
    S1002 Error "two encodings of one op on one SM that take the same operand kinds";
    S1003 Error "an encoding with no usable form";
    S1004 Warning "an op with a gap: missing on an SM between two SMs of a family where it exists";
    S1005 Error "an `extends` naming no encoding of the op, or two encodings with one `name`";
    S1006 Error "encodings that extend each other in a cycle";
    S1007 Error "an extending encoding's field (in a layout without a preset) that replaces no inherited field";
    S1101 Error "an `[asm]` entry naming an unknown operand or modifier";
    S1102 Error "a bad alias condition";
    S1301 Error "a bad `[memory]` table: unknown kind, operand or size, a size enum value without bytes";
    S1302 Error "a bad `low_bits` list: an unknown, predicate or float source";
    S1303 Error "a bad `[flow]` table: unknown kind, a target that is no `rel` or `abs` modifier (or missing on a branch), a `when` that is no predicate source or enum modifier";
    S1304 Error "a bad `[sched]` table: `wait_barrier` that is no enum modifier, `wait_pending` that is no integer modifier, one without the other, an `early` entry that is no destination, or a `latency`, `variable` or `unmeasured` SM list that names no SM of the op or one twice";
    S1305 Error "an op with results under a write barrier whose `[sched]` names one of its SMs in none of `latency`, `variable` and `unmeasured`";
    S1103 Error "two values of one suffix modifier print the same text";
    S1104 Error "two ops print the same text on one SM (same mnemonic, suffixes their `legal` products admit, and operand tokens)";
    S1105 Error "an operand the text may leave out (`x?`, `x if m`) without a default, or adjacent optional operands whose text is ambiguous";
    S1201 Warning "an ALU op without fold semantics";
    S1401 Error "a `legal` or `traps` entry naming an unknown form, modifier or value, SMs where the op does not exist, or a trap without evidence";
}

/// The code named `code` (as in `lint.toml`).
pub fn find(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|c| c.code.as_str() == code)
}

impl Code {
    /// This code's default level and doc.
    pub fn info(self) -> &'static CodeInfo {
        CODES
            .iter()
            .find(|c| c.code == self)
            .expect("every code is in CODES")
    }
}
