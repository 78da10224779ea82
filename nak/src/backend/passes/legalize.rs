//! Legalization: after it every instruction of the function is a hardware
//! op that encodes on the function's SM (plus `bra`, which the assembler
//! resolves), with 64-bit register operands on aligned pairs.
//!
//! Virtual ops go through one common path: phis become parallel copies at
//! the end of their predecessors, swaps become parallel copies, parallel
//! copies are sequentialized (cycles broken through a free register), and
//! copies become the spec's copy op ([`super::hwops::copy_op`]), one per
//! 32-bit component. 64-bit arithmetic is split by [`super::lower64`].
//! Hardware ops go through their generated `legalize`, with a
//! [`LegalizeCx`] that emits copies into free registers.

use super::PassError;
use super::hwops;
use crate::backend::ir::{Function, Instr, RegPool, VOp, VReg, VSrc, comp_reg};
use crate::runtime::instr::ValueType;
use crate::runtime::legalize_support::{LegalizeCx, LegalizeError};
use crate::runtime::operand::{Reg, RegFile, Src, SrcKind};
use crate::runtime::view::View;

struct Cx<'a> {
    pool: &'a mut RegPool,
    pre: Vec<Instr>,
    sm: u32,
}

impl Cx<'_> {
    /// Emit copies of `src`'s value (without its modifiers) into `r` and
    /// the registers after it, one per 32-bit component of `ty`.
    fn copy_into(&mut self, r: Reg, src: Src, ty: ValueType) {
        for k in 0..ty.regs() {
            let s = match src.kind {
                SrcKind::Reg(x) => Src::reg(comp_reg(x, k)),
                // A 64-bit float immediate is the high word; integers zero-extend.
                SrcKind::Imm(v) => Src::imm(match (ty, k) {
                    (ValueType::F64, 0) => 0,
                    (ValueType::F64, _) => v,
                    (_, 0) => v,
                    _ => 0,
                }),
                SrcKind::CBuf(c) => Src::cbuf(c.index, c.offset + 4 * k as u32),
            };
            // The value only: the caller keeps the modifiers (a predicate's
            // not included) on the new register.
            self.pre.push(Instr::copy(comp_reg(r, k), s));
        }
    }

    fn alloc(&mut self, file: RegFile, n: u8, align: u8) -> Result<Reg, LegalizeError> {
        self.pool
            .alloc(file, n, align)
            .ok_or_else(|| LegalizeError::new("copy", format!("no free {file:?} register")))
    }
}

impl LegalizeCx for Cx<'_> {
    fn copy_to_reg(
        &mut self,
        src: Src,
        ty: ValueType,
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        let n = ty.regs();
        let r = self.alloc(file, n, n)?;
        self.copy_into(r, src, ty);
        Ok(r)
    }

    fn copy_run(
        &mut self,
        parts: &[(u8, Src, ValueType)],
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        let len = parts.iter().map(|p| p.0 + p.2.regs()).max().unwrap_or(1);
        let align = parts.first().map_or(1, |p| p.2.regs());
        let r = self.alloc(file, len, align)?;
        for &(k, src, ty) in parts {
            self.copy_into(comp_reg(r, k), src, ty);
        }
        Ok(r)
    }

    fn materialize(
        &mut self,
        src: Src,
        ty: ValueType,
        view: Option<View>,
        file: RegFile,
    ) -> Result<Reg, LegalizeError> {
        if file != RegFile::Gpr || !(ty.regs() == 1 || ty == ValueType::F64) {
            return Err(LegalizeError::new(
                "materialize",
                "only 32-bit and f64 register values",
            ));
        }
        // The materializing op reads a register: copy other kinds first.
        let base = if matches!(src.kind, SrcKind::Reg(r) if r.file == RegFile::Gpr) {
            src
        } else {
            let plain = Src {
                neg: false,
                abs: false,
                not: false,
                ..src
            };
            Src {
                kind: SrcKind::Reg(self.copy_to_reg(plain, ty, file)?),
                ..src
            }
        };
        let n = ty.regs();
        let r = self
            .pool
            .alloc(file, n, n)
            .ok_or_else(|| LegalizeError::new("materialize", "no free register"))?;
        let op = hwops::materialize_op(self.sm, r, base, ty, view).ok_or_else(|| {
            LegalizeError::new(
                "materialize",
                format!("no op applies these modifiers on SM{}", self.sm),
            )
        })?;
        self.pre.push(Instr::hw(op));
        Ok(r)
    }
}

/// Legalize the whole function in place.
pub fn legalize(f: &mut Function) -> Result<(), PassError> {
    super::lower_mul::lower(f)?;
    super::lower64::lower(f)?;
    lower_phis(f)?;
    let sm = f.sm;
    let mut pool = RegPool::new(f);
    for bi in 0..f.blocks.len() {
        let instrs = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(instrs.len());
        for i in instrs {
            legalize_instr(sm, i, &mut pool, &mut out)
                .map_err(|e| PassError::new(format!("{}: {}", f.blocks[bi].label, e.message)))?;
        }
        f.blocks[bi].instrs = out;
    }
    // Legal accesses stay legal when combined (the wider op must encode).
    super::combine_mem::combine(f);
    Ok(())
}

/// Replace phis by parallel copies at the end of each predecessor (before
/// its trailing branches and exits).
fn lower_phis(f: &mut Function) -> Result<(), PassError> {
    let mut moves: Vec<(String, VReg, VSrc)> = Vec::new();
    for b in &mut f.blocks {
        b.instrs.retain(|i| match &i.op {
            VOp::Phi { dst, srcs } => {
                for (l, s) in srcs {
                    moves.push((l.clone(), *dst, *s));
                }
                false
            }
            _ => true,
        });
    }
    let labels: Vec<String> = f.blocks.iter().map(|b| b.label.clone()).collect();
    for l in labels {
        let pc: Vec<(VReg, VSrc)> = moves
            .iter()
            .filter(|m| m.0 == l)
            .map(|m| (m.1, m.2))
            .collect();
        if pc.is_empty() {
            continue;
        }
        let b = f
            .blocks
            .iter_mut()
            .find(|b| b.label == l)
            .ok_or_else(|| PassError::new(format!("phi names unknown block `{l}`")))?;
        let mut at = b.instrs.len();
        while at > 0 && matches!(b.instrs[at - 1].op, VOp::Bra(_) | VOp::Exit) {
            at -= 1;
        }
        b.instrs.insert(at, Instr::new(VOp::ParCopy(pc)));
    }
    if let Some(m) = moves
        .iter()
        .find(|m| !f.blocks.iter().any(|b| b.label == m.0))
    {
        return Err(PassError::new(format!("phi names unknown block `{}`", m.0)));
    }
    Ok(())
}

/// Sequentialize a parallel copy of single registers into copies.
fn sequentialize(
    mut pending: Vec<(Reg, Src)>,
    pool: &mut RegPool,
) -> Result<Vec<(Reg, Src)>, PassError> {
    pending.retain(|(d, s)| s.as_reg() != Some(*d) || s.not);
    let mut out = Vec::new();
    while !pending.is_empty() {
        let ready = (0..pending.len()).find(|&i| {
            let d = pending[i].0;
            !pending
                .iter()
                .enumerate()
                .any(|(j, (_, s))| j != i && s.as_reg() == Some(d))
        });
        match ready {
            Some(i) => out.push(pending.remove(i)),
            None => {
                // Every destination is still read: a cycle. Save one
                // destination's value in a free register.
                let d = pending[0].0;
                let t = pool
                    .alloc(d.file, 1, 1)
                    .ok_or_else(|| PassError::new("no free register to break a copy cycle"))?;
                out.push((t, Src::reg(d)));
                for (_, s) in pending.iter_mut() {
                    if s.as_reg() == Some(d) {
                        s.kind = SrcKind::Reg(t);
                    }
                }
            }
        }
    }
    Ok(out)
}

fn expand_copy(dst: &VReg, src: &VSrc) -> Vec<(Reg, Src)> {
    (0..dst.comps)
        .map(|k| (dst.comp(k), src.comp(k)))
        .filter(|(d, _)| !d.is_zero())
        .collect()
}

fn hw_copy(sm: u32, guard: Src, d: Reg, s: Src, out: &mut Vec<Instr>) -> Result<(), PassError> {
    if d.is_zero() {
        return Ok(());
    }
    let op = hwops::copy_op(sm, d, s).ok_or_else(|| {
        PassError::new(format!(
            "the spec has no op that copies {s} to {d} on SM{sm}"
        ))
    })?;
    out.push(Instr::new(VOp::Hw(op)).with_guard(guard));
    Ok(())
}

fn legalize_instr(
    sm: u32,
    i: Instr,
    pool: &mut RegPool,
    out: &mut Vec<Instr>,
) -> Result<(), PassError> {
    let guard = i.guard;
    match i.op {
        VOp::Undef(_) => Ok(()),
        VOp::Copy { dst, src } => {
            let seq = sequentialize(expand_copy(&dst, &src), pool)?;
            for (d, s) in seq {
                hw_copy(sm, guard, d, s, out)?;
            }
            Ok(())
        }
        VOp::Swap { a, b } => {
            let mut v = expand_copy(&a, &VSrc::wide(b));
            v.extend(expand_copy(&b, &VSrc::wide(a)));
            for (d, s) in sequentialize(v, pool)? {
                hw_copy(sm, guard, d, s, out)?;
            }
            Ok(())
        }
        VOp::ParCopy(v) => {
            let all = v.iter().flat_map(|(d, s)| expand_copy(d, s)).collect();
            for (d, s) in sequentialize(all, pool)? {
                hw_copy(sm, guard, d, s, out)?;
            }
            Ok(())
        }
        VOp::Phi { .. } => Err(PassError::new("phi left after out-of-SSA")),
        VOp::Wide { .. } => Err(PassError::new("64-bit op left after lowering")),
        VOp::Mul32 { .. } => Err(PassError::new("mul32 left after lowering")),
        VOp::Bra(_) => {
            out.push(i);
            Ok(())
        }
        VOp::Exit => match hwops::exit_op(sm) {
            Some(op) => {
                out.push(Instr::new(VOp::Hw(op)).with_guard(guard));
                Ok(())
            }
            // Without EXIT in the spec the program ends at its last word.
            None => {
                out.push(i);
                Ok(())
            }
        },
        VOp::Hw(mut op) => {
            let mut cx = Cx {
                pool,
                pre: Vec::new(),
                sm,
            };
            // 64-bit register operands live on aligned pairs.
            for (k, info) in op.src_info().iter().enumerate() {
                let align = info.align.max(info.ty.regs());
                let s = *op.src(k);
                if let Some(r) = s.as_reg()
                    && align > 1
                    && !r.is_zero()
                    && r.idx % align != 0
                {
                    let nr = cx.copy_to_reg(Src::reg(r), info.ty, r.file)?;
                    *op.src_mut(k) = Src {
                        kind: SrcKind::Reg(nr),
                        ..s
                    };
                }
            }
            let mut post = Vec::new();
            for (k, info) in op.dst_info().iter().enumerate() {
                let align = info.align.max(info.ty.regs());
                let r = *op.dst(k);
                if align > 1 && !r.is_zero() && r.idx % align != 0 {
                    let n = info.ty.regs();
                    let t = cx
                        .pool
                        .alloc(r.file, n, align)
                        .ok_or_else(|| PassError::new("no free register pair"))?;
                    *op.dst_mut(k) = t;
                    // The copy out runs unguarded: the op may overwrite
                    // its own guard predicate (`@!UP0 UIMAD.WIDE UR49,
                    // UP0, ...`). A guarded op's pair starts as the old
                    // value, so a false guard copies that back.
                    for c in 0..n {
                        if guard != Src::PT {
                            cx.pre
                                .push(Instr::copy(comp_reg(t, c), Src::reg(comp_reg(r, c))));
                        }
                        post.push(Instr::copy(comp_reg(r, c), Src::reg(comp_reg(t, c))));
                    }
                }
            }
            op.legalize(sm, &mut cx)?;
            let pre = std::mem::take(&mut cx.pre);
            for p in pre {
                legalize_instr(sm, p, pool, out)?;
            }
            let c = i.common(sm);
            if let Err(e) = op.encode(sm, &c) {
                return Err(PassError::new(format!("after legalization: {e}")));
            }
            out.push(Instr {
                op: VOp::Hw(op),
                ..i
            });
            for p in post {
                legalize_instr(sm, p, pool, out)?;
            }
            Ok(())
        }
    }
}
