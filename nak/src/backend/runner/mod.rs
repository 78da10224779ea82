//! Runners execute an encoded program over one warp.
//!
//! [`Runner`] is the interface a hardware test uses: put inputs into a
//! [`WarpState`] (registers, constant buffers, global memory), `run` the
//! code, read the state back. [`CpuRunner`] decodes the stream again with
//! the generated decoder and computes each op with its generated `fold`
//! (loads and stores through the spec's `[memory]` tables); a
//! GPU runner would upload the same state around a real launch.
//! [`TimedRunner`] runs the same way on a clock, results landing when the
//! hardware would write them, so wrong control bits give wrong results.

use crate::dis::stream::{Decoded, decode_stream};
use crate::isa::Op;
use crate::runtime::fold::Value;
use crate::runtime::instr::{Common, ValueType};
use crate::runtime::mem::{MemAccess, MemKind, MemSpace};
use crate::runtime::operand::{Reg, RegFile, Src, SrcKind};

use std::fmt;

mod timed;
pub use timed::TimedRunner;

pub const LANES: usize = 32;

/// Everything a program reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpState {
    /// Per lane: R0..R254 (index 255 is RZ and ignored).
    pub gpr: Vec<[u32; 256]>,
    /// Per lane: P0..P6 (index 7 is PT).
    pub pred: Vec<[bool; 8]>,
    pub ugpr: [u32; 256],
    pub upred: [bool; 8],
    /// Per lane: the convergence barriers B0..B15 (as BMOV reads them).
    pub bar: Vec<[u32; 16]>,
    /// Per lane: Maxwell's CC carry flag (`.CC` writes it, `.X` reads it).
    pub cc: Vec<bool>,
    /// Constant buffers by index.
    pub cbuf: Vec<Vec<u8>>,
    pub global: Vec<u8>,
    /// The CTA's shared memory (LDS, STS), from address 0.
    pub shared: Vec<u8>,
    /// Per lane: its local memory (LDL, STL), from address 0.
    pub local: Vec<Vec<u8>>,
    /// Lanes that run.
    pub active: u32,
}

impl Default for WarpState {
    fn default() -> Self {
        WarpState {
            gpr: vec![[0; 256]; LANES],
            pred: vec![[false; 8]; LANES],
            ugpr: [0; 256],
            upred: [false; 8],
            bar: vec![[0; 16]; LANES],
            cc: vec![false; LANES],
            cbuf: Vec::new(),
            global: Vec::new(),
            shared: Vec::new(),
            local: vec![Vec::new(); LANES],
            active: u32::MAX,
        }
    }
}

impl WarpState {
    /// Read a register as a lane sees it (RZ reads 0, PT reads true).
    pub fn reg(&self, lane: usize, r: Reg) -> u32 {
        if r.is_zero() {
            return if r.file.is_pred() { 1 } else { 0 };
        }
        match r.file {
            RegFile::Gpr => self.gpr[lane][r.idx as usize],
            RegFile::UGpr => self.ugpr[r.idx as usize],
            RegFile::Pred => self.pred[lane][r.idx as usize] as u32,
            RegFile::UPred => self.upred[r.idx as usize] as u32,
            RegFile::Bar => self.bar[lane][r.idx as usize & 15],
        }
    }
    /// Write a register (writes to RZ/PT are dropped).
    pub fn set_reg(&mut self, lane: usize, r: Reg, v: u32) {
        if r.is_zero() {
            return;
        }
        match r.file {
            RegFile::Gpr => self.gpr[lane][r.idx as usize] = v,
            RegFile::UGpr => self.ugpr[r.idx as usize] = v,
            RegFile::Pred => self.pred[lane][r.idx as usize] = v != 0,
            RegFile::UPred => self.upred[r.idx as usize] = v != 0,
            RegFile::Bar => self.bar[lane][r.idx as usize & 15] = v,
        }
    }
    /// A little-endian word of a constant buffer.
    pub fn cbuf_word(&self, index: u8, offset: u32) -> Result<u32, String> {
        let b = self
            .cbuf
            .get(index as usize)
            .ok_or_else(|| format!("constant buffer {index} not loaded"))?;
        let o = offset as usize;
        b.get(o..o + 4)
            .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
            .ok_or_else(|| format!("c[{index:#x}][{offset:#x}] is outside the buffer"))
    }
    /// Global memory as a memory op of `bytes` bytes needing `align`-byte
    /// alignment sees it at `addr` (the buffer starts at address 0).
    /// Misaligned and out-of-bounds accesses are errors, as they fault on
    /// hardware.
    pub fn global_read(&self, addr: u64, bytes: u32, align: u32) -> Result<&[u8], String> {
        self.mem_read(MemSpace::Global, 0, addr, bytes, align)
    }
    /// Store `data` at `addr` under the same rules as [`Self::global_read`].
    pub fn global_write(&mut self, addr: u64, data: &[u8], align: u32) -> Result<(), String> {
        self.mem_write(MemSpace::Global, 0, addr, data, align)
    }
    /// Memory of `space` as `lane` sees it, under the rules of
    /// [`Self::global_read`]: shared memory is the CTA's, local memory the
    /// lane's own; a generic address is a global one (the runner maps no
    /// shared or local window into the generic space).
    pub fn mem_read(
        &self,
        space: MemSpace,
        lane: usize,
        addr: u64,
        bytes: u32,
        align: u32,
    ) -> Result<&[u8], String> {
        let buf = self.space_buf(space, lane);
        Ok(&buf[mem_range(space, buf.len(), addr, bytes, align)?])
    }
    /// Store `data` at `addr` of `space` as `lane` sees it (see
    /// [`Self::mem_read`]).
    pub fn mem_write(
        &mut self,
        space: MemSpace,
        lane: usize,
        addr: u64,
        data: &[u8],
        align: u32,
    ) -> Result<(), String> {
        let len = self.space_buf(space, lane).len();
        let r = mem_range(space, len, addr, data.len() as u32, align)?;
        let buf = match space {
            MemSpace::Global | MemSpace::Generic => &mut self.global,
            MemSpace::Shared => &mut self.shared,
            MemSpace::Local => &mut self.local[lane],
        };
        buf[r].copy_from_slice(data);
        Ok(())
    }
    fn space_buf(&self, space: MemSpace, lane: usize) -> &[u8] {
        match space {
            MemSpace::Global | MemSpace::Generic => &self.global,
            MemSpace::Shared => &self.shared,
            MemSpace::Local => &self.local[lane],
        }
    }
    /// The raw value a source reads in `lane` (modifiers are the op's).
    pub fn src_value(&self, lane: usize, s: &Src, ty: ValueType) -> Result<Value, String> {
        let word = |k: u8| -> Result<u32, String> {
            Ok(match s.kind {
                SrcKind::Reg(r) => self.reg(lane, crate::backend::ir::comp_reg(r, k)),
                SrcKind::Imm(v) => match (ty, k) {
                    (ValueType::F64, 0) => 0,
                    (ValueType::F64, _) => v,
                    (_, 0) => v,
                    _ => 0,
                },
                SrcKind::CBuf(c) => self.cbuf_word(c.index, c.offset + 4 * k as u32)?,
            })
        };
        Ok(if ty.is_pred() {
            Value::Pred(word(0)? != 0)
        } else if ty.regs() == 2 {
            Value::U64(word(0)? as u64 | (word(1)? as u64) << 32)
        } else {
            Value::U32(word(0)?)
        })
    }
    /// Write a destination value.
    pub fn set_value(&mut self, lane: usize, r: Reg, ty: ValueType, v: Value) {
        let mut w = Vec::new();
        value_writes(lane, r, ty, v, &mut w);
        self.apply(&w);
    }
    /// Apply register writes in order.
    pub fn apply(&mut self, writes: &[RegWrite]) {
        for w in writes {
            self.set_reg(w.lane, w.reg, w.value);
        }
    }
}

/// One lane's write of one register: what an instruction leaves behind,
/// kept apart from the state so a timed runner can land it later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegWrite {
    pub lane: usize,
    pub reg: Reg,
    pub value: u32,
}

/// The register writes of destination value `v` of type `ty` at `r`: a
/// 64-bit type writes the pair (a 32-bit value clears the high word).
fn value_writes(lane: usize, r: Reg, ty: ValueType, v: Value, out: &mut Vec<RegWrite>) {
    let hi = crate::backend::ir::comp_reg(r, 1);
    let (lo, high) = match v {
        Value::Pred(p) => (p as u32, None),
        Value::U32(x) => (x, (ty.regs() == 2).then_some(0)),
        Value::U64(x) => (x as u32, (ty.regs() == 2).then_some((x >> 32) as u32)),
    };
    out.push(RegWrite {
        lane,
        reg: r,
        value: lo,
    });
    if let Some(h) = high {
        out.push(RegWrite {
            lane,
            reg: hi,
            value: h,
        });
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    /// Byte address of the instruction, when one is to blame.
    pub addr: Option<u64>,
    pub message: String,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.addr {
            Some(a) => write!(f, "at {a:#06x}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for RunError {}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Instructions issued (per warp, not per lane).
    pub issued: u64,
}

/// Something that executes SASS for one warp.
pub trait Runner {
    /// Run `code` (a raw stream for `sm`) on `state`, in place.
    fn run(&mut self, sm: u32, code: &[u8], state: &mut WarpState) -> Result<RunStats, RunError>;
}

/// Executes on the CPU through the generated decoders and folds.
#[derive(Clone, Debug)]
pub struct CpuRunner {
    /// Issue limit (guards against endless loops).
    pub max_steps: u64,
}

impl Default for CpuRunner {
    fn default() -> Self {
        CpuRunner { max_steps: 1 << 20 }
    }
}

fn err(addr: u64, m: impl Into<String>) -> RunError {
    RunError {
        addr: Some(addr),
        message: m.into(),
    }
}

fn guard_holds(st: &WarpState, lane: usize, g: &Src) -> bool {
    (st.reg(lane, g.as_reg().unwrap_or(Reg::PT)) != 0) ^ g.not
}

/// Lanes whose control flow an instruction changes: `None` ends the lane,
/// `Some(addr)` continues it at that byte address.
type Flow = Vec<(usize, Option<u64>)>;

impl CpuRunner {
    /// Run one instruction on the lanes its guard lets through.
    fn exec(
        &self,
        sm: u32,
        addr: u64,
        op: &Op,
        c: &Common,
        lanes: &[usize],
        st: &mut WarpState,
    ) -> Result<Flow, RunError> {
        let lanes: Vec<usize> = lanes
            .iter()
            .copied()
            .filter(|&l| guard_holds(st, l, &c.guard))
            .collect();
        if op.class() == "control" {
            return exec_control(sm, addr, op, &lanes, st);
        }
        if let Some(m) = op.mem_access() {
            for &l in &lanes {
                exec_mem(&m, l, st)
                    .map_err(|e| err(addr, format!("{}: lane {l}: {e}", op.name())))?;
            }
            return Ok(Vec::new());
        }
        exec_folded(sm, addr, op, &lanes, st)?;
        Ok(Vec::new())
    }
}

/// A control op: the lanes where every predicate source holds too take
/// it. Lanes branch independently: the scheduler runs the lowest pending
/// address first, so divergent paths reconverge.
fn exec_control(
    sm: u32,
    addr: u64,
    op: &Op,
    lanes: &[usize],
    st: &WarpState,
) -> Result<Flow, RunError> {
    let taken = lanes.iter().copied().filter(|&l| {
        (0..op.src_info().len())
            .all(|k| !op.src_info()[k].ty.is_pred() || guard_holds(st, l, op.src(k)))
    });
    match op {
        Op::Exit(_) => Ok(taken.map(|l| (l, None)).collect()),
        Op::Bra(b) => {
            if b.cc != crate::isa::Cc::T {
                return Err(err(
                    addr,
                    "the CPU runner has no condition codes (BRA with a CC test)",
                ));
            }
            let next = crate::dis::stream::instr_addr(sm, 0).map_or(16, |x| x.1);
            let to = (addr as i64)
                .wrapping_add(next as i64)
                .wrapping_add(b.target);
            if to < 0 {
                return Err(err(addr, format!("branch to negative address {to}")));
            }
            Ok(taken.map(|l| (l, Some(to as u64))).collect())
        }
        Op::Nop(_) => Ok(Vec::new()),
        other => Err(err(
            addr,
            format!(
                "the CPU runner does not execute control op `{}`",
                other.name()
            ),
        )),
    }
}

/// An op with fold semantics: every lane's sources are read before any
/// result is written (uniform registers are shared), then the spec's fold
/// gives the results and carry, applied here.
fn exec_folded(
    sm: u32,
    addr: u64,
    op: &Op,
    lanes: &[usize],
    st: &mut WarpState,
) -> Result<(), RunError> {
    let r = folded(sm, addr, op, lanes, st)?;
    for &(l, c) in &r.cc {
        st.cc[l] = c;
    }
    st.apply(&r.writes);
    Ok(())
}

/// What an op with fold semantics computes from the state as it is: its
/// register writes (of destination index `dst[i]` each) and carries.
#[derive(Default)]
pub(crate) struct Folded {
    pub writes: Vec<RegWrite>,
    pub dst: Vec<usize>,
    pub cc: Vec<(usize, bool)>,
}

pub(crate) fn folded(
    sm: u32,
    addr: u64,
    op: &Op,
    lanes: &[usize],
    st: &WarpState,
) -> Result<Folded, RunError> {
    if !op.has_fold(sm) {
        return Err(err(
            addr,
            format!("`{}` has no fold semantics on SM{sm}", op.name()),
        ));
    }
    // What the encoder refuses the hardware does not run: a combination
    // the spec marks as trapping (Maxwell's SHF.L...HI) raises an
    // illegal-instruction error instead of being folded.
    if let Err(e) = op.encode(sm, &Common::default()) {
        return Err(err(addr, format!("illegal instruction on SM{sm}: {e}")));
    }
    let infos = op.src_info();
    let dinfo = op.dst_info();
    let mut r = Folded::default();
    for &l in lanes {
        let vals = infos
            .iter()
            .enumerate()
            .map(|(k, i)| st.src_value(l, op.src(k), i.ty))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|m| err(addr, m))?;
        let (out, carry) = op
            .fold_cc(sm, &vals, Some(st.cc[l]))
            .map_err(|e| err(addr, format!("{}: {e}", op.name())))?;
        if let Some(c) = carry {
            r.cc.push((l, c));
        }
        for (k, v) in out.as_slice().iter().enumerate() {
            if let Some(info) = dinfo.get(k) {
                let before = r.writes.len();
                value_writes(l, *op.dst(k), info.ty, *v, &mut r.writes);
                r.dst.resize(r.dst.len() + r.writes.len() - before, k);
            }
        }
    }
    Ok(r)
}

/// The bytes an access of `bytes` at `addr` covers in a buffer of `len`
/// bytes of `space`; misaligned and out-of-bounds accesses are errors.
fn mem_range(
    space: MemSpace,
    len: usize,
    addr: u64,
    bytes: u32,
    align: u32,
) -> Result<std::ops::Range<usize>, String> {
    let name = match space {
        MemSpace::Global | MemSpace::Generic => "global",
        MemSpace::Shared => "shared",
        MemSpace::Local => "local",
    };
    if align > 1 && !addr.is_multiple_of(align as u64) {
        return Err(format!(
            "misaligned {bytes}-byte {name} access at {addr:#x} (needs {align}-byte alignment)"
        ));
    }
    match addr.checked_add(bytes as u64) {
        Some(e) if e <= len as u64 => Ok(addr as usize..e as usize),
        _ => Err(format!(
            "{bytes}-byte {name} access at {addr:#x} is outside the {len}-byte buffer"
        )),
    }
}

/// The type an address register of `space` is read as.
fn addr_type(space: MemSpace) -> ValueType {
    if space.addr_is_64() {
        ValueType::U64
    } else {
        ValueType::U32
    }
}

/// One lane's load or store. The address is a 64-bit register pair (global,
/// generic) or one register (shared, local) plus
/// the offset; loads narrower than a register zero- or sign-extend, stores
/// narrower than a register write its low bytes. Lanes run in order, so of
/// two lanes storing to one address the higher lane wins (hardware leaves
/// that undefined).
fn exec_mem(m: &MemAccess, lane: usize, st: &mut WarpState) -> Result<(), String> {
    let w = mem_access(m, lane, st)?;
    st.apply(&w);
    Ok(())
}

/// One lane's access as [`exec_mem`] makes it, a store's written to
/// memory, a load's register writes returned (not applied).
pub(crate) fn mem_access(
    m: &MemAccess,
    lane: usize,
    st: &mut WarpState,
) -> Result<Vec<RegWrite>, String> {
    // Shared and local addresses are one 32-bit register, wrapping at 4 GiB.
    let at = match st.src_value(lane, &m.addr, addr_type(m.space))? {
        Value::U64(base) => base.wrapping_add(m.offset as u64),
        Value::U32(base) => base.wrapping_add(m.offset as u32) as u64,
        other => return Err(format!("address operand reads {other:?}")),
    };
    let regs = m.data_regs() as u8;
    match m.kind {
        MemKind::Load => {
            let bytes = st.mem_read(m.space, lane, at, m.bytes, m.align)?;
            let mut words = [0u32; 4];
            if m.bytes < 4 {
                let mut w = [0u8; 4];
                w[..bytes.len()].copy_from_slice(bytes);
                let v = u32::from_le_bytes(w);
                let bits = 8 * m.bytes;
                words[0] = if m.signed {
                    ((v << (32 - bits)) as i32 >> (32 - bits)) as u32
                } else {
                    v
                };
            } else {
                for (k, c) in bytes.chunks(4).enumerate().take(4) {
                    let mut w = [0u8; 4];
                    w[..c.len()].copy_from_slice(c);
                    words[k] = u32::from_le_bytes(w);
                }
            }
            return Ok(words
                .iter()
                .take(regs as usize)
                .enumerate()
                .map(|(k, w)| RegWrite {
                    lane,
                    reg: crate::backend::ir::comp_reg(m.data, k as u8),
                    value: *w,
                })
                .collect());
        }
        MemKind::Store => {
            let mut data = Vec::with_capacity(4 * regs as usize);
            for k in 0..regs {
                let w = st.reg(lane, crate::backend::ir::comp_reg(m.data, k));
                data.extend_from_slice(&w.to_le_bytes());
            }
            data.truncate(m.bytes as usize);
            st.mem_write(m.space, lane, at, &data, m.align)?;
        }
    }
    Ok(Vec::new())
}

impl Runner for CpuRunner {
    fn run(&mut self, sm: u32, code: &[u8], st: &mut WarpState) -> Result<RunStats, RunError> {
        let dec = decode_stream(sm, code).map_err(|m| RunError {
            addr: None,
            message: m,
        })?;
        lockstep(&dec, st, self.max_steps, |addr, op, c, lanes, st| {
            self.exec(sm, addr, op, c, lanes, st)
        })
    }
}

/// Run the warp's lanes in lockstep at the lowest pending instruction:
/// `step(addr, op, common, lanes, state)` executes one on the lanes at it
/// (their guard not yet applied) and says where lanes go. Maxwell's zero
/// padding words do nothing; any other undecodable word is an error.
fn lockstep(
    dec: &[Decoded],
    st: &mut WarpState,
    max_steps: u64,
    mut step: impl FnMut(u64, &Op, &Common, &[usize], &mut WarpState) -> Result<Flow, RunError>,
) -> Result<RunStats, RunError> {
    let mut pc = start_pcs(st);
    let mut stats = RunStats::default();
    while let Some(cur) = pc.iter().flatten().copied().min() {
        if cur >= dec.len() {
            break;
        }
        stats.issued += 1;
        if stats.issued > max_steps {
            return Err(err(dec[cur].addr, "step limit reached"));
        }
        let d = &dec[cur];
        let lanes: Vec<usize> = (0..LANES).filter(|&l| pc[l] == Some(cur)).collect();
        let flow = match &d.instr {
            Some((op, c)) => step(d.addr, op, c, &lanes, st)?,
            None if d.word == 0 => Vec::new(),
            None => return Err(err(d.addr, format!("undecodable word {:#x}", d.word))),
        };
        advance(&mut pc, &lanes, &flow, cur, dec)?;
    }
    Ok(stats)
}

/// The lanes of the warp at the start (`Some(0)`: at the first
/// instruction; None: not running).
fn start_pcs(st: &WarpState) -> Vec<Option<usize>> {
    (0..LANES)
        .map(|l| (st.active >> l & 1 == 1).then_some(0))
        .collect()
}

/// Move the `lanes` that ran instruction `cur` on: where `flow` sends
/// them, else to the next instruction (past the last one: the lane ends).
fn advance(
    pc: &mut [Option<usize>],
    lanes: &[usize],
    flow: &Flow,
    cur: usize,
    dec: &[Decoded],
) -> Result<(), RunError> {
    for &l in lanes {
        pc[l] = match flow.iter().find(|f| f.0 == l) {
            Some((_, None)) => None,
            // A target past the last instruction ends the lane.
            Some((_, Some(to))) => match dec.iter().position(|x| x.addr == *to) {
                Some(k) => Some(k),
                None if *to >= dec.last().map_or(0, |x| x.addr) => None,
                None => {
                    return Err(err(
                        dec[cur].addr,
                        format!("branch into the middle of a word or a scheduling word ({to:#x})"),
                    ));
                }
            },
            None if cur + 1 >= dec.len() => None,
            None => Some(cur + 1),
        };
    }
    Ok(())
}
