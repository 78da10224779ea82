//! Text form of the IR, printed and parsed back:
//!
//! ```text
//! .sm 75
//! .align R4 16                       // R4 (an address's low word) is a multiple of 16
//! bb0:
//!     IADD3 R0, R1, 0x5, R2          // hardware op: nvdisasm syntax
//!     @P0 copy R4:R5, 0x100000000    // virtual ops: lower case
//!     swap R1, R2
//!     pcopy R1 <- R2, R2 <- R1
//!     phi R6 <- bb1: R7, bb2: 0x5
//!     undef R8
//!     add64 R10:R11, R4:R5, R6:R7    // also sub64, shl64, shr64.u, shr64.s,
//!     setp64.lt.s P1, R4:R5, R6:R7   // min64.u/.s, max64.u/.s
//!     mul32 R12, R4, 0x10001         // low word of the product
//!     @!P1 bra bb0
//!     exit
//! ```
//!
//! Hardware ops go through the generated printer (`Op::print`) and parser
//! (`isa::parse` on `asm::tokenize`). The parser only returns ops that
//! encode; an op that is not encodable yet (before legalization, e.g. an
//! immediate where the hardware wants a register) is parsed by putting
//! free GPRs where immediates, constants and uniform registers stand and
//! putting the original operands back afterwards.

use super::{Block, Function, Instr, Op64, VOp, VReg, VSrc};
use crate::isa::{self, Icmp, Op};
use crate::runtime::asm::{self, Base, parse_reg};
use crate::runtime::instr::{Common, ValueType};
use crate::runtime::line_buf::line_text;
use crate::runtime::operand::{Reg, RegFile, Src};
use crate::runtime::print::{ImmStyle, write_guard};
use std::fmt::Write as _;

fn vreg_text(v: &VReg) -> String {
    if v.comps <= 1 {
        v.reg.to_string()
    } else {
        format!("{}:{}", v.reg, v.comp(v.comps - 1))
    }
}

fn vsrc_text(s: &VSrc) -> String {
    match *s {
        VSrc::Reg { reg, comps, not } => {
            let mut t = String::new();
            if not {
                t.push('!');
            }
            t.push_str(&vreg_text(&VReg::new(reg, comps)));
            t
        }
        VSrc::Imm(v) => format!("{v:#x}"),
        VSrc::CBuf(c) => format!("c[{:#x}][{:#x}]", c.index, { c.offset }),
    }
}

fn op64_name(op: &Op64) -> String {
    let su = |s: bool| if s { ".s" } else { ".u" };
    match op {
        Op64::Add => "add64".into(),
        Op64::Sub => "sub64".into(),
        Op64::Shl => "shl64".into(),
        Op64::Shr { signed } => format!("shr64{}", su(*signed)),
        Op64::Setp { cmp, signed } => format!("setp64.{}{}", cmp.name(), su(*signed)),
        Op64::Min { signed } => format!("min64{}", su(*signed)),
        Op64::Max { signed } => format!("max64{}", su(*signed)),
    }
}

/// One instruction as text (without indentation).
pub fn instr_text(i: &Instr, sm: u32) -> String {
    let mut out = String::new();
    if let VOp::Hw(op) = &i.op {
        return op.text(&i.common(sm), sm, 0);
    }
    out.push_str(&line_text(|l| write_guard(l, &i.guard)));
    match &i.op {
        VOp::Hw(_) => unreachable!(),
        VOp::Copy { dst, src } => {
            let _ = write!(out, "copy {}, {}", vreg_text(dst), vsrc_text(src));
        }
        VOp::Swap { a, b } => {
            let _ = write!(out, "swap {}, {}", vreg_text(a), vreg_text(b));
        }
        VOp::ParCopy(v) => {
            out.push_str("pcopy");
            for (k, (d, s)) in v.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { ", " });
                let _ = write!(out, "{} <- {}", vreg_text(d), vsrc_text(s));
            }
        }
        VOp::Phi { dst, srcs } => {
            let _ = write!(out, "phi {} <-", vreg_text(dst));
            for (k, (l, s)) in srcs.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { ", " });
                let _ = write!(out, "{l}: {}", vsrc_text(s));
            }
        }
        VOp::Undef(d) => {
            let _ = write!(out, "undef {}", vreg_text(d));
        }
        VOp::Bra(l) => {
            let _ = write!(out, "bra {l}");
        }
        VOp::Exit => out.push_str("exit"),
        VOp::Wide { op, dst, a, b } => {
            let _ = write!(
                out,
                "{} {}, {}, {}",
                op64_name(op),
                vreg_text(dst),
                vsrc_text(a),
                vsrc_text(b)
            );
        }
        VOp::Mul32 { dst, a, b } => {
            let _ = write!(
                out,
                "mul32 {}, {}, {}",
                vreg_text(dst),
                vsrc_text(a),
                vsrc_text(b)
            );
        }
    }
    out
}

/// The whole function as text.
pub fn print_function(f: &Function) -> String {
    let mut out = format!(".sm {}\n", f.sm);
    for (r, a) in &f.align {
        let _ = writeln!(out, ".align {r} {a}");
    }
    for b in &f.blocks {
        let _ = writeln!(out, "{}:", b.label);
        for i in &b.instrs {
            let _ = writeln!(out, "    {}", instr_text(i, f.sm));
        }
    }
    out
}

/// A parse error with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

fn parse_vreg(t: &str) -> Result<VReg, String> {
    let t = t.trim();
    let (a, b) = match t.split_once(':') {
        Some((a, b)) => (a, Some(b)),
        None => (t, None),
    };
    let r = parse_reg(a.trim()).ok_or_else(|| format!("bad register `{a}`"))?;
    let comps = match b {
        None => 1,
        Some(b) => {
            let e = parse_reg(b.trim()).ok_or_else(|| format!("bad register `{b}`"))?;
            if e.file != r.file {
                return Err(format!("`{t}` mixes register files"));
            }
            if r.is_zero() && e.is_zero() {
                2
            } else if e.idx < r.idx || e.is_zero() || r.is_zero() {
                return Err(format!("bad register range `{t}`"));
            } else {
                e.idx - r.idx + 1
            }
        }
    };
    Ok(VReg::new(r, comps))
}

fn parse_vsrc(t: &str) -> Result<VSrc, String> {
    let t = t.trim();
    if let Some(r) = t.strip_prefix('!') {
        let v = parse_vreg(r)?;
        if !v.reg.file.is_pred() {
            return Err(format!("`!` on a non-predicate `{t}`"));
        }
        return Ok(VSrc::Reg {
            reg: v.reg,
            comps: v.comps,
            not: true,
        });
    }
    if t.starts_with("c[") {
        let line = asm::tokenize(&format!("X {t}")).map_err(|e| e.message)?;
        if let Some(Base::CBuf(c)) = line.operands.first().map(|o| &o.base) {
            return Ok(VSrc::CBuf(*c));
        }
        return Err(format!("bad constant `{t}`"));
    }
    if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        if let Some(v) = asm::parse_i64(t) {
            return Ok(VSrc::Imm(v as u64));
        }
        return asm::parse_u64(t)
            .map(VSrc::Imm)
            .ok_or_else(|| format!("bad immediate `{t}`"));
    }
    Ok(VSrc::wide(parse_vreg(t)?))
}

fn split_commas(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, ch) in s.char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

fn parse_signed(t: &str) -> Result<bool, String> {
    match t {
        "s" => Ok(true),
        "u" => Ok(false),
        _ => Err(format!("expected .s or .u, got .{t}")),
    }
}

fn parse_op64(mn: &str) -> Result<Option<Op64>, String> {
    let parts: Vec<&str> = mn.split('.').collect();
    let one = |p: &[&str]| -> Result<bool, String> {
        match p {
            [s] => parse_signed(s),
            _ => Err(format!("`{mn}` needs one of .s/.u")),
        }
    };
    Ok(Some(match parts[0] {
        "add64" if parts.len() == 1 => Op64::Add,
        "sub64" if parts.len() == 1 => Op64::Sub,
        "shl64" if parts.len() == 1 => Op64::Shl,
        "shr64" => Op64::Shr {
            signed: one(&parts[1..])?,
        },
        "min64" => Op64::Min {
            signed: one(&parts[1..])?,
        },
        "max64" => Op64::Max {
            signed: one(&parts[1..])?,
        },
        "setp64" => {
            let [_, c, s] = parts[..] else {
                return Err(format!("`{mn}`: write setp64.CMP.s|u"));
            };
            let cmp = Icmp::ALL
                .into_iter()
                .find(|x| x.name() == c)
                .ok_or_else(|| format!("unknown comparison `{c}`"))?;
            Op64::Setp {
                cmp,
                signed: parse_signed(s)?,
            }
        }
        _ => return Ok(None),
    }))
}

/// Parse one virtual-op line body (guard already stripped).
fn parse_virtual(mn: &str, rest: &str) -> Result<VOp, String> {
    let ops = split_commas(rest);
    let want = |n: usize| -> Result<(), String> {
        if ops.len() == n {
            Ok(())
        } else {
            Err(format!("`{mn}` takes {n} operands, got {}", ops.len()))
        }
    };
    Ok(match mn {
        "copy" => {
            want(2)?;
            VOp::Copy {
                dst: parse_vreg(ops[0])?,
                src: parse_vsrc(ops[1])?,
            }
        }
        "swap" => {
            want(2)?;
            VOp::Swap {
                a: parse_vreg(ops[0])?,
                b: parse_vreg(ops[1])?,
            }
        }
        "pcopy" => VOp::ParCopy(
            ops.iter()
                .map(|p| {
                    let (d, s) = p.split_once("<-").ok_or("pcopy entries are `D <- S`")?;
                    Ok((parse_vreg(d)?, parse_vsrc(s)?))
                })
                .collect::<Result<_, String>>()?,
        ),
        "phi" => {
            let (d, srcs) = rest
                .split_once("<-")
                .ok_or("write `phi D <- bbX: S, ...`")?;
            VOp::Phi {
                dst: parse_vreg(d)?,
                srcs: split_commas(srcs)
                    .iter()
                    .map(|p| {
                        let (l, s) = p.split_once(':').ok_or("phi entries are `LABEL: S`")?;
                        Ok((l.trim().to_string(), parse_vsrc(s)?))
                    })
                    .collect::<Result<_, String>>()?,
            }
        }
        "undef" => {
            want(1)?;
            VOp::Undef(parse_vreg(ops[0])?)
        }
        "bra" => {
            want(1)?;
            VOp::Bra(ops[0].to_string())
        }
        "exit" => {
            want(0)?;
            VOp::Exit
        }
        "mul32" => {
            want(3)?;
            VOp::Mul32 {
                dst: parse_vreg(ops[0])?,
                a: parse_vsrc(ops[1])?,
                b: parse_vsrc(ops[2])?,
            }
        }
        _ => match parse_op64(mn)? {
            Some(op) => {
                want(3)?;
                VOp::Wide {
                    op,
                    dst: parse_vreg(ops[0])?,
                    a: parse_vsrc(ops[1])?,
                    b: parse_vsrc(ops[2])?,
                }
            }
            None => return Err(format!("unknown virtual op `{mn}`")),
        },
    })
}

/// How the generated printer shows an immediate of this type.
pub fn imm_style(ty: ValueType) -> ImmStyle {
    match ty {
        ValueType::F32 => ImmStyle::F32,
        ValueType::F64 => ImmStyle::F64Hi,
        ValueType::B32 => ImmStyle::Hex,
        _ => ImmStyle::SignedHex,
    }
}

/// Parse a hardware instruction for `sm`, also when it does not encode yet.
pub fn parse_hw(line: &str, sm: u32) -> Result<(Op, Common), String> {
    let tl = asm::tokenize(line).map_err(|e| format!("col {}: {}", e.col + 1, e.message))?;
    let first = match isa::parse(&tl, sm, 0) {
        Ok(x) => return Ok(x),
        Err(e) => format!("col {}: {}", e.col + 1, e.message),
    };
    // Put free even GPRs where non-register operands stand.
    let used: Vec<u8> = tl
        .operands
        .iter()
        .filter_map(|o| match o.base {
            Base::Reg(r) if r.file == RegFile::Gpr => Some(r.idx),
            _ => None,
        })
        .collect();
    let free_regs: Vec<u8> = (0..=252u8)
        .rev()
        .step_by(2)
        .filter(|i| !used.iter().any(|u| u / 2 == i / 2))
        .collect();
    let mut free = free_regs.iter().copied().cycle();
    // Which operands could stand for a register (integer modifiers such as
    // a LUT also print as numbers, so every subset is tried, largest first).
    let cands: Vec<usize> = tl
        .operands
        .iter()
        .enumerate()
        .filter(|(_, o)| match &o.base {
            Base::Num(_) | Base::CBuf(_) => true,
            Base::Reg(r) => r.file == RegFile::UGpr,
            Base::Word(w) => {
                let w = w.trim_start_matches(['-', '+']);
                w.starts_with("INF") || w.starts_with("QNAN") || w == "NAN"
            }
            Base::Mem(..)
            | Base::MemOther(..)
            | Base::CMem(..)
            | Base::Addr(..)
            | Base::Attr(..)
            | Base::Desc(..) => false,
        })
        .map(|(i, _)| i)
        .take(8)
        .collect();
    if cands.is_empty() {
        return Err(first);
    }
    let mut masks: Vec<u32> = (1..(1u32 << cands.len())).collect();
    masks.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
    'mask: for mask in masks {
        let mut t2 = tl.clone();
        let mut subst = Vec::new();
        for (bit, &oi) in cands.iter().enumerate() {
            if mask >> bit & 1 == 0 {
                continue;
            }
            let Some(idx) = free.next() else {
                continue 'mask;
            };
            subst.push((idx, tl.operands[oi].clone()));
            t2.operands[oi].base = Base::Reg(Reg::gpr(idx));
        }
        let Ok((mut op, c)) = isa::parse(&t2, sm, 0) else {
            continue;
        };
        let infos = op.src_info();
        let mut restored = 0;
        for (i, info) in infos.iter().enumerate() {
            let Some(r) = op.src(i).as_reg() else {
                continue;
            };
            let Some((_, orig)) = subst
                .iter()
                .find(|(idx, _)| r.file == RegFile::Gpr && *idx == r.idx)
            else {
                continue;
            };
            let Some(ns) = asm::to_src(orig, imm_style(info.ty)) else {
                continue 'mask;
            };
            *op.src_mut(i) = ns;
            restored += 1;
        }
        if restored == subst.len() {
            return Ok((op, c));
        }
    }
    Err(first)
}

fn strip_comment(l: &str) -> &str {
    let l = l.split("//").next().unwrap_or("");
    l.split('#').next().unwrap_or("")
}

/// Parse a function. Without a `.sm` line, `default_sm` is the target.
pub fn parse_function(text: &str, default_sm: Option<u32>) -> Result<Function, ParseError> {
    let mut f = Function::new(default_sm.unwrap_or(0));
    let mut have_sm = default_sm.is_some();
    for (n, raw) in text.lines().enumerate() {
        let line_no = n + 1;
        let err = |m: String| ParseError {
            line: line_no,
            message: m,
        };
        let l = strip_comment(raw).trim();
        let l = l.strip_suffix(';').unwrap_or(l).trim();
        if l.is_empty() {
            continue;
        }
        if let Some(s) = l.strip_prefix(".sm") {
            f.sm = crate::dis::stream::parse_sm(s.trim()).map_err(err)?;
            have_sm = true;
            continue;
        }
        if !have_sm {
            return Err(err("the first line must be `.sm SM` (or pass --sm)".into()));
        }
        if let Some(s) = l.strip_prefix(".align") {
            let mut it = s.split_whitespace();
            let (Some(r), Some(a), None) = (it.next(), it.next(), it.next()) else {
                return Err(err("expected `.align REG POWER_OF_TWO`".into()));
            };
            let reg = parse_reg(r)
                .filter(|r| matches!(r.file, RegFile::Gpr | RegFile::UGpr) && !r.is_zero())
                .ok_or_else(|| err(format!("`.align`: `{r}` is not a GPR or UGPR")))?;
            let a = asm::parse_u64(a)
                .filter(|a| a.is_power_of_two() && *a <= 1 << 31)
                .ok_or_else(|| err(format!("`.align`: `{a}` is not a power of two")))?;
            f.align.push((reg, a as u32));
            continue;
        }
        if let Some(label) = l.strip_suffix(':')
            && !label.contains(char::is_whitespace)
        {
            f.blocks.push(Block {
                label: label.to_string(),
                instrs: Vec::new(),
            });
            continue;
        }
        if f.blocks.is_empty() {
            f.blocks.push(Block {
                label: "bb0".into(),
                instrs: Vec::new(),
            });
        }
        let (guard, body) = match l.strip_prefix('@') {
            Some(g) => {
                let end = g.find(char::is_whitespace).unwrap_or(g.len());
                let (gt, after) = g.split_at(end);
                let (not, name) = match gt.strip_prefix('!') {
                    Some(x) => (true, x),
                    None => (false, gt),
                };
                let r = parse_reg(name)
                    .filter(|r| r.file.is_pred())
                    .ok_or_else(|| err(format!("bad guard `@{gt}`")))?;
                (Src::reg(r).with_not(not), after.trim())
            }
            None => (Src::PT, l),
        };
        let end = body.find(char::is_whitespace).unwrap_or(body.len());
        let (mn, rest) = body.split_at(end);
        let instr = if mn.starts_with(|c: char| c.is_ascii_lowercase()) {
            Instr::new(parse_virtual(mn, rest).map_err(err)?).with_guard(guard)
        } else {
            let (op, c) = parse_hw(l, f.sm).map_err(err)?;
            Instr {
                guard: c.guard,
                op: VOp::Hw(op),
                ctrl: (c.ctrl != 0).then_some(c.ctrl),
                raw: c.raw,
            }
        };
        f.blocks.last_mut().expect("a block").instrs.push(instr);
    }
    if !have_sm {
        return Err(ParseError {
            line: 1,
            message: "no `.sm SM` line".into(),
        });
    }
    Ok(f)
}
