//! The code generated from the ISA spec (`isa-spec/spec`) by `isa-codegen`.
//! The build script writes it to `OUT_DIR`; `generated/` holds a readable
//! copy. See `isa.rs` there for the op list.

// Generated items carry no attributes of their own for these: a form's
// code may leave a parameter or binding unused, and clippy's style lints
// are for hand-written code.
#![allow(
    clippy::all,
    clippy::pedantic,
    unused_imports,
    unused_parens,
    unused_variables,
    unused_mut,
    unused_assignments,
    non_snake_case,
    dead_code
)]

use crate::runtime::asm::{
    AsmError, Base, Line, Operands, Parsed, abs_operand, asm_try, attr_off_operand, attr_operand,
    bar_dst_operand, bool_operand, check_operand_count, cmem_operand, desc_operand, disp_operand,
    dst_operand, enum_operand, int_operand, is_pred_token, lanes_operand, mem_addr_operand,
    mem_operand, mem_scale, mem_width, parse_i64, parse_u64, parsed, rel_operand, reuse_ctrl,
    src_operand, src_token_fits, strip_any_mnemonic, strip_which_mnemonic, take_enum_suffix,
    take_suffix, to_dst, to_src, uint_operand,
};
use crate::runtime::decode::{
    At, Forms, bit, bits, cbuf_at, common_at, decode_form, guard_of, parts_by_form, print_form,
    print_form_bundled, reg_at, reg_below, try_form, uguard_of,
};
use crate::runtime::encode::{
    Encode, EncodeError, MOD_ABS, MOD_NEG, MOD_NOT, Refused, any_align, any_combo,
    cbuf_index_field, cbuf_offset_field, code_of, codes, common_fields, ctrl_field, dst_field,
    encode_by_form, fit, fit_signed, forbid_mods, gpr_follows, guard_field, imm_field,
    imm_from_field, imm_halves_from_field, imm_halves_src_field, imm_src_field, no_form,
    only_default, refuse, reg_from_index, reg_index, sext_field, src_field, src_reg, uguard_field,
};
use crate::runtime::flow::{Flow, FlowKind, FlowOp, SchedOp};
use crate::runtime::fold::{
    FoldCc, FoldError, FoldOut, IntoValue, SrcMods, Value, check_sources, fold_via_cc, src_value,
};
use crate::runtime::fold_fns::*;
use crate::runtime::instr::{
    Common, FormInfo, Hidden, OperandInfo, ValueType, define_ops, dense_arms, enum_tables,
    form_info, slot,
};
use crate::runtime::legalize_support::{
    Legalize, LegalizeCx, LegalizeError, OpFields, Run, copy_file, fold_imm_mods, fold_imm_mods_as,
    op_fields, placeholder, placeholder_file, placeholder_in,
};
use crate::runtime::line_buf::{LineBuf, line_text, text_chunks};
use crate::runtime::mem::{MemAccess, MemKind, MemOp, MemSpace, src_data_reg};
use crate::runtime::operand::{CBuf, Reg, RegFile, SlotKind, Src, SrcKind, reg};
use crate::runtime::print::{
    ImmStyle, write_cmem, write_guard, write_hex, write_lanes, write_mem, write_mem_addr,
    write_mem_scaled, write_reg, write_signed_hex, write_src, write_src_part, write_src_swizzled,
};
use crate::runtime::view::{PartStyle, View};
use std::fmt::Write as _;

include!(concat!(env!("OUT_DIR"), "/isa.rs"));
