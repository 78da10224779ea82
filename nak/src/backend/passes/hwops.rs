//! The only place the backend names hardware ops by mnemonic: the ops that
//! implement a copy, BRA and EXIT. Everything else is generic over the generated
//! metadata.
//!
//! Each entry is an assembly template parsed with the generated parser for
//! the target SM; the first that parses (and so encodes) wins. Which ops
//! exist is therefore decided by the spec: MOV (SM70+ any source, SM50
//! register/constant) and MOV32I (SM50 immediates) once `spec-control` is
//! merged, and until then IMAD.MOV / IADD3 (d = RZ + s + RZ) as fallbacks.
//! The legalization property test checks that every copy this produces
//! moves the value unchanged (via the ops' folds).

use crate::backend::ir::text::parse_hw;
use crate::isa::Op;
use crate::runtime::instr::Common;
use crate::runtime::operand::{Reg, RegFile, Src};

/// 32-bit GPR copies, most preferred first. `{d}`: destination, `{s}`: source.
const GPR_COPY: &[&str] = &[
    "MOV {d}, {s}",
    "MOV32I {d}, {s}",
    "IMAD.MOV.U32 {d}, RZ, RZ, {s}",
    "IADD3 {d}, RZ, {s}, RZ",
    "IADD3 {d}, PT, PT, RZ, {s}, RZ",
];
/// Uniform-register copies (a constant through ULDC, a warp-uniform GPR
/// value through R2UR: the new uniform ops take UR sources only).
const UGPR_COPY: &[&str] = &["UMOV {d}, {s}", "ULDC {d}, {s}", "R2UR {d}, {s}"];
/// Predicate copies: d = s (PLOP3 with the LUT of its second source, or
/// ISETP 0 == 0 AND s).
const PRED_COPY: &[&str] = &[
    "PLOP3.LUT {d}, PT, PT, {s}, PT, 0xcc, 0x0",
    "PLOP3.LUT {d}, PT, PT, PT, {s}, 0xaa, 0x0",
    "ISETP.EQ.U32.AND {d}, PT, RZ, RZ, {s}",
];
/// A register holding a source's value with its modifiers applied:
/// floats as `s + -0`, integers as `0 + s` (negation) or a LUT (not).
const F32_MATERIALIZE: &[&str] = &["FADD {d}, -RZ, {s}", "FADD.FTZ {d}, -RZ, {s}"];
/// An f64 pair (Maxwell's DFMA and DMUL have no abs and negate only one
/// source): `-0 + s` is `s` for every value but a NaN.
const F64_MATERIALIZE: &[&str] = &["DADD {d}, -RZ, {s}"];
const INT_MATERIALIZE: &[&str] = &[
    "IADD3 {d}, RZ, {s}, RZ",
    "IADD3 {d}, PT, PT, RZ, {s}, RZ",
    "IADD {d}, RZ, {s}",
];
const NOT_MATERIALIZE: &[&str] = &[
    "LOP3.LUT {d}, RZ, {s}, RZ, 0x33, !PT",
    "LOP.PASS_B {d}, RZ, ~{s}",
];
/// A packed pair with per-lane sign bits computed by a LUT: `{m}` is the
/// mask, `{lut}` the function of (s, m): neg `s ^ m`, abs `s & m`, -|s|
/// `s | m`.
const PACKED_MATERIALIZE: &[&str] = &[
    "LOP3.LUT {d}, {s}, {m}, RZ, {lut}, !PT",
    "LOP32I.{op} {d}, {s}, {m}",
];
/// Ending the thread.
const EXIT: &[&str] = &["EXIT"];
/// A relative branch; `{s}` is the target as an absolute address for an
/// instruction at address 0.
const BRA: &[&str] = &["BRA {s}"];

fn first_that_parses(templates: &[&str], d: &str, s: &str, sm: u32) -> Option<(Op, Common)> {
    templates.iter().find_map(|t| {
        let line = t.replace("{d}", d).replace("{s}", s);
        parse_hw(&line, sm)
            .ok()
            .filter(|(op, c)| op.try_encode(sm, c).is_some())
    })
}

/// A hardware op copying `src` (its not-flag included for predicates;
/// neg/abs are not copies) into `dst` on `sm`.
pub fn copy_op(sm: u32, dst: Reg, src: Src) -> Option<Op> {
    let templates = match dst.file {
        RegFile::Gpr => GPR_COPY,
        RegFile::UGpr => UGPR_COPY,
        RegFile::Pred | RegFile::UPred => PRED_COPY,
        // Barrier registers are not values the IR copies.
        RegFile::Bar => return None,
    };
    let src = Src {
        neg: false,
        abs: false,
        ..src
    };
    first_that_parses(templates, &dst.to_string(), &src.to_string(), sm).map(|x| x.0)
}

/// A hardware op computing `src` with its modifiers into `dst` (32-bit
/// values and f64 pairs only), if the spec has one that does it on `sm`.
pub fn materialize_op(
    sm: u32,
    dst: Reg,
    src: Src,
    ty: crate::runtime::instr::ValueType,
    view: Option<crate::runtime::view::View>,
) -> Option<Op> {
    use crate::runtime::instr::ValueType as T;
    use crate::runtime::view::View;
    let plain = Src { not: false, ..src };
    if matches!(view, Some(View::F16x2 | View::Bf16x2)) && !src.not {
        let s = Src {
            neg: false,
            abs: false,
            ..src
        };
        let (m, lut, op) = match (src.neg, src.abs) {
            (true, false) => ("0x80008000", "0x3c", "XOR"),
            (false, true) => ("0x7fff7fff", "0xc0", "AND"),
            (true, true) => ("0x80008000", "0xfc", "OR"),
            (false, false) => return copy_op(sm, dst, s),
        };
        return PACKED_MATERIALIZE.iter().find_map(|t| {
            let line = t
                .replace("{d}", &dst.to_string())
                .replace("{s}", &s.to_string())
                .replace("{m}", m)
                .replace("{lut}", lut)
                .replace("{op}", op);
            parse_hw(&line, sm)
                .ok()
                .filter(|(op, c)| op.try_encode(sm, c).is_some())
                .map(|x| x.0)
        });
    }
    let (templates, s) = match ty {
        T::F32 if !src.not => (F32_MATERIALIZE, src),
        T::F64 if !src.not => (F64_MATERIALIZE, src),
        T::U32 | T::I32 | T::B32 if src.not && !src.neg && !src.abs => (NOT_MATERIALIZE, plain),
        T::U32 | T::I32 | T::B32 if src.neg && !src.not && !src.abs => (INT_MATERIALIZE, src),
        _ => return None,
    };
    first_that_parses(templates, &dst.to_string(), &s.to_string(), sm).map(|x| x.0)
}

/// The hardware branch on `sm` to `offset` bytes after the next
/// instruction, if the spec has one that reaches it.
pub fn bra_op(sm: u32, offset: i64) -> Option<Op> {
    let next = crate::dis::stream::instr_addr(sm, 0).map_or(16, |x| x.1) as i64;
    let t = offset.wrapping_add(next);
    let s = if t < 0 {
        format!("-{:#x}", t.unsigned_abs())
    } else {
        format!("{t:#x}")
    };
    first_that_parses(BRA, "", &s, sm).map(|x| x.0)
}

/// The hardware EXIT on `sm`, if the spec has one.
pub fn exit_op(sm: u32) -> Option<Op> {
    first_that_parses(EXIT, "", "", sm).map(|x| x.0)
}
