//! The checked spec model that code generation and the lint consume.
//!
//! Everything here is resolved: names are indices, bit ranges are numbers,
//! presets are expanded into concrete forms, and each item keeps the [`Loc`]
//! of the TOML it came from so a diagnostic can point at it.

use crate::diag::{Files, Loc};

#[derive(Debug)]
pub struct Spec {
    pub files: Files,
    pub families: Vec<Family>,
    pub enums: Vec<Enum>,
    pub ops: Vec<Op>,
}

impl Spec {
    /// Every SM the families cover, sorted: the order of the generated
    /// `ALL_SMS`, whose positions are the bits of the generated SM sets.
    pub fn all_sms(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .families
            .iter()
            .flat_map(|f| f.sms.iter().copied())
            .collect();
        v.sort_unstable();
        v
    }
}

#[derive(Debug)]
pub struct Family {
    pub name: String,
    pub doc: String,
    pub width: u32,
    pub sms: Vec<u32>,
    pub common: Vec<Field>,
    pub bundle: Option<u32>,
    pub dispatch: Bits,
    /// Per register file, (first SM, index of its zero register or true
    /// predicate) pairs, ascending.
    pub registers: Vec<(SlotKindClass, Vec<(u32, u32)>)>,
    /// (low bit of a source register field, control bit marking it `.reuse`).
    pub reuse: Vec<(u32, u32)>,
    /// (preset slot name, control bit marking its register `.reuse`).
    pub reuse_slots: Vec<(String, u32)>,
    /// The op classes whose sources the two rules above cover (None: all).
    pub reuse_classes: Option<Vec<String>>,
    /// The control value's layout (`[family.<name>.control]`).
    pub control: Control,
    /// (SM, nvdisasm major version whose text is the reference there).
    pub reference_nvdisasm: Vec<(u32, u32)>,
    /// The reference prints an absolute address's offset field unsigned.
    pub unsigned_absolute: bool,
    /// The reference prints a register's swizzle inside its bars and a
    /// constant without a blank (`[family.<name>.reference]`).
    pub swizzle_in_bars: bool,
    /// The reference prints an attribute address on RZ without an offset
    /// as `a[0x0]`, not `a[RZ]`.
    pub attr_rz_as_offset: bool,
    /// SMs where the reference prints an RZ base added to a uniform
    /// register, with its width (`[RZ.U32+UR4]`), instead of leaving it out.
    pub rz_base_with_ur: Vec<u32>,
    pub loc: Loc,
}

/// The layout of a family's per-instruction control value.
#[derive(Debug, Clone, Default)]
pub struct Control {
    /// Bits per instruction in the bundle's scheduling word.
    pub slot_bits: Option<u32>,
    /// (field name, low bit, width) within the control value.
    pub fields: Vec<(String, u32, u32)>,
    /// The neutral control value.
    pub neutral: u32,
    /// (low bit, width, lowest value, highest value): a field and the
    /// values it must hold for reuse flags to be valid.
    pub reuse_needs: Vec<(u32, u32, u32, u32)>,
    /// Register files an instruction with a read barrier may read late.
    pub late_reads: Vec<SlotKindClass>,
}

impl Family {
    /// The hardware index of `file`'s zero register (RZ, URZ) or true
    /// predicate (PT, UPT) on `sm`; its registers are the indices below.
    /// None where the SM has no registers of that file.
    pub fn zero_index(&self, file: SlotKindClass, sm: u32) -> Option<u32> {
        let (_, by_sm) = self.registers.iter().find(|(f, _)| *f == file)?;
        by_sm.iter().rev().find(|(s, _)| *s <= sm).map(|&(_, z)| z)
    }
    /// Highest UGPR index on `sm` (its URZ), if the SM has UGPRs.
    pub fn ugpr_max(&self, sm: u32) -> Option<u32> {
        self.zero_index(SlotKindClass::Ugpr, sm)
    }
}

#[derive(Debug)]
pub struct Enum {
    pub name: String,
    pub doc: String,
    pub values: Vec<EnumValue>,
    /// For each value, the index of the value it becomes on a source swap.
    pub flip: Option<Vec<usize>>,
    pub loc: Loc,
}

#[derive(Debug)]
pub struct EnumValue {
    pub name: String,
    pub text: String,
    /// Per-SM texts that replace `text` on those SMs.
    pub sm_texts: Vec<(Vec<u32>, String)>,
    pub code: u64,
    /// The type a source with `type_by` on this enum reads (`type`).
    pub view: Option<ViewType>,
    pub loc: Loc,
}

/// The type a source is read as, chosen by a modifier's value (`type_by`):
/// it decides the part a `part` selector picks, how an immediate prints
/// and parses, and what the fold sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewType {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    F64,
    /// Two F16s packed in a 32-bit word (HADD2's sources).
    F16x2,
    /// Two BF16s packed in a 32-bit word (`.BF16_V2`).
    Bf16x2,
}

impl ViewType {
    pub const ALL: [ViewType; 14] = [
        Self::U8,
        Self::I8,
        Self::U16,
        Self::I16,
        Self::U32,
        Self::I32,
        Self::U64,
        Self::I64,
        Self::F16,
        Self::Bf16,
        Self::F32,
        Self::F64,
        Self::F16x2,
        Self::Bf16x2,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Self::U8 => "u8",
            Self::I8 => "i8",
            Self::U16 => "u16",
            Self::I16 => "i16",
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::U64 => "u64",
            Self::I64 => "i64",
            Self::F16 => "f16",
            Self::Bf16 => "bf16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::F16x2 => "f16x2",
            Self::Bf16x2 => "bf16x2",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == s)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    U32,
    I32,
    B32,
    F32,
    U64,
    I64,
    F64,
    Pred,
}

impl ValueType {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "u32" => Self::U32,
            "i32" => Self::I32,
            "b32" => Self::B32,
            "f32" => Self::F32,
            "u64" => Self::U64,
            "i64" => Self::I64,
            "f64" => Self::F64,
            "pred" => Self::Pred,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Self::U32 => "u32",
            Self::I32 => "i32",
            Self::B32 => "b32",
            Self::F32 => "f32",
            Self::U64 => "u64",
            Self::I64 => "i64",
            Self::F64 => "f64",
            Self::Pred => "pred",
        }
    }
    /// Registers the value occupies.
    pub fn regs(self) -> u32 {
        match self {
            Self::U64 | Self::I64 | Self::F64 => 2,
            Self::Pred => 1,
            _ => 1,
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F64)
    }
    pub fn is_pred(self) -> bool {
        self == Self::Pred
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrcMods {
    pub neg: bool,
    pub abs: bool,
    pub not: bool,
}

/// The value an absent operand holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    /// RZ for registers, PT for predicates.
    Zero,
    /// !PT: a constant-false predicate.
    False,
    /// URZ for uniform registers, UPT for uniform predicates (`default =
    /// "URZ"`: an operand that only uniform forms hold, VOTEU's).
    UniformZero,
    /// An immediate (`default = "0"`, `"0xff"`): a non-predicate source
    /// whose absence the hardware reads as that value (BAR's thread count
    /// 0: all threads; UR2UP's mask 0xff: every predicate).
    Imm(u32),
}

#[derive(Debug)]
pub struct Operand {
    pub name: String,
    pub ty: ValueType,
    pub mods: SrcMods,
    pub default: Option<DefaultValue>,
    /// Register alignment (1 = none).
    pub align: u32,
    /// Modifiers (enum indices into `Op::modifiers`) whose value's type
    /// the source is read as (`type_by`), first match wins.
    pub type_by: Vec<usize>,
    /// Integer modifier selecting the part of a narrow type (`part`).
    pub part: Option<usize>,
    /// A predicate destination of unknown meaning (`unknown = true`): the
    /// fold refuses unless it is PT.
    pub unknown: bool,
    /// The part selector holds a byte offset (`part_bytes`).
    pub part_bytes: bool,
    /// The part selector is one bit printed `.H1` whatever the type (`part_half`).
    pub part_half: bool,
    /// An immediate prints as the declared type, not the view (`imm_declared`).
    pub imm_declared: bool,
    /// A sign-extended immediate prints as its field's bits (`imm_field`).
    pub imm_field: bool,
    /// SMs on which an immediate prints as signed hex (`imm_signed`).
    pub imm_signed: Vec<u32>,
    pub doc: String,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModType {
    Bool,
    /// Unsigned or signed integer of `bits` bits.
    Int {
        bits: u32,
        signed: bool,
    },
    /// Branch offset in bytes, relative to the instruction address.
    Rel,
    /// A code address that does not depend on the instruction's own:
    /// `abs`, an absolute address (`CALL.ABS 0x1000`, unsigned), or
    /// `disp`, a signed byte displacement added to a register
    /// (`RET.ABS.NODEC R2 -0x10`). Up to 64 bits, printed as hex; like
    /// `rel` it may be stored scaled (`:x4`).
    Abs {
        signed: bool,
    },
    /// Index into `Spec::enums`.
    Enum(usize),
}

#[derive(Debug)]
pub struct Modifier {
    pub name: String,
    pub ty: ModType,
    pub text: String,
    /// Default: 0/false, or the enum value index.
    pub default: i64,
    pub doc: String,
    /// The SMs on which it exists (declared `families` and `sms`), or None
    /// when undeclared: every SM of the op. Elsewhere it keeps its default.
    pub exists_on: Option<Vec<u32>>,
    /// Where `families`/`sms` are declared (else the name).
    pub exists_loc: Loc,
    /// An unsigned modifier printed lane by lane (`lanes = "ENUM"`).
    pub lanes: Option<Lanes>,
    pub loc: Loc,
}

/// How a `lanes` modifier prints: `count` lanes of `bits` bits each, the
/// most significant first, each as the text of the value of enum `en`
/// whose code it holds (every code has a value; all texts are equally
/// long, so the parser cuts the word without lookahead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lanes {
    pub en: usize,
    pub bits: u32,
    pub count: u32,
}

impl Lanes {
    /// Each lane code's text, by code (the lint checked every code has one).
    pub fn texts<'a>(&self, spec: &'a Spec) -> Vec<&'a str> {
        let mut values: Vec<_> = spec.enums[self.en].values.iter().collect();
        values.sort_by_key(|v| v.code);
        values.iter().map(|v| v.text.as_str()).collect()
    }

    /// The text of `value` (the modifier's bits), lane by lane.
    pub fn text(&self, spec: &Spec, value: u64) -> String {
        let texts = self.texts(spec);
        (0..self.count)
            .rev()
            .map(|i| (value >> (i * self.bits)) & ((1 << self.bits) - 1))
            .map(|code| texts.get(code as usize).copied().unwrap_or("?"))
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsmItem {
    Dst(usize),
    Src(usize),
    Modifier(usize),
    /// A memory address `[a+off]`: a register source and a signed integer
    /// modifier printed together (`[R4+0x10]`, `[R4]`, `[0x10]`, `[R4+-0x8]`),
    /// with Volta+'s optional parts (`[a.w+u+off] by mode`); with a bank, a
    /// constant-bank address `c[bank][a+off]` (`c[0x3][R2+0x10]`); with
    /// `attr`, an attribute address `a[a+off]` (`a[R3+0x4]`).
    Mem(MemItem),
    /// An attribute address without a base register, `a[off]`: the
    /// unsigned integer modifier printed as `a[0x1f]`, also when zero
    /// (`a[0x0]`, where `a[a+off]` on RZ prints `a[RZ]`).
    AttrOff(usize),
    /// A register source printed inside a descriptor bracket, `gdesc[a]`
    /// (the warpgroup MMAs' matrix descriptors: `gdesc[UR4]`); suffix
    /// modifiers print after the bracket (`gdesc[UR4].tnspA`).
    Desc(usize),
}

/// The parts of a memory address operand (`AsmItem::Mem`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemItem {
    /// Register source of the base address.
    pub base: usize,
    /// Signed integer modifier: the byte offset; None for an address
    /// without one (`[a]`: the surface ops' coordinate register).
    pub off: Option<usize>,
    /// Enum modifier printed right after the base (`R2.64`, `R2.U32`).
    pub width: Option<usize>,
    /// The modifier after the base is a scale (`[a*scale+u+off]`, printed
    /// `R2.X4`), not a width: an RZ base drops it where there is no
    /// uniform register (`[0x8]`) and keeps it where there is one
    /// (`[RZ.X4+UR4+0x8]`, `[UR4+0x8]` when it prints nothing).
    pub scale: bool,
    /// Uniform register source: a UR added to the address (`[R2.64+UR4]`)
    /// or the descriptor (`desc[UR4][R2.64]`), as `mode` says.
    pub ur: Option<usize>,
    /// Enum modifier of type `mem_addr_mode` choosing the syntax: `reg`
    /// (`[a.w+off]`, `ur` not printed), `ur` (`[a.w+u+off]`), `desc`
    /// (`desc[u][a.w+off]`).
    pub mode: Option<usize>,
    /// `else URn`: the uniform register the assembler writes where mode
    /// `reg` leaves it unprinted (what ptxas puts there); None: URZ.
    pub ur_else: Option<u8>,
    /// Unsigned integer modifier: the constant bank of `c[bank][a+off]`.
    pub bank: Option<usize>,
    /// An attribute address `a[a+off]` / `a[a]` (ALD, AST, IPA): printed
    /// and parsed as `[a+off]` with the prefix `a`.
    pub attr: bool,
}

/// How a memory address's uniform register is used (the values of enum
/// `mem_addr_mode`, by name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemMode {
    Reg,
    Ur,
    Desc,
}

impl MemMode {
    /// The mode an enum value of `mem_addr_mode` names.
    pub fn from_name(name: &str) -> Option<MemMode> {
        match name {
            "reg" => Some(MemMode::Reg),
            "ur" => Some(MemMode::Ur),
            "desc" => Some(MemMode::Desc),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AsmCond {
    Always,
    /// Omitted when the operand holds its default.
    NotDefault,
    /// Printed only when the bool modifier equals the flag.
    If(usize, bool),
    /// `x? if m`: printed only when the bool modifier equals the flag and
    /// the operand is not at its default; when the modifier differs, the
    /// operand's bits are unused and the assembler writes them as zero
    /// (register 0, not negated), as ptxas does (HFMA2's predicate after
    /// `.RELU`). Predicate sources only.
    IfOptional(usize, bool),
}

#[derive(Clone, Debug)]
pub struct AsmOperand {
    pub item: AsmItem,
    pub cond: AsmCond,
    /// Bool or enum modifiers printed right after the operand, in order
    /// (`d+cc`: `R2.CC`).
    pub suffixes: Vec<usize>,
    /// Separated from the previous operand by a blank, not a comma
    /// (`~target`: `RET.REL.NODEC R20 0x0`).
    pub blank: bool,
    /// `x? or y`: an optional operand also printed at its default when the
    /// earlier operand `y` (an index into the operands) is printed
    /// (Maxwell IPA.IDX's predicate: `IPA.IDX.PASS R0, a[R3], R1, R2, PT`,
    /// but `IPA.IDX.PASS R0, a[R3], R1` with `e` = RZ).
    pub or_shown: Option<usize>,
    /// `x? or m` with `m` a modifier: also printed at its default when
    /// modifier `m` is not at its default (LDG's predicate result after `.ZD`: `LDG.E.SYS.ZD PT, R0,
    /// [R4]`, but `LDG.E.SYS R0, [R4]` without it).
    pub or_mod: Option<usize>,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub struct Asm {
    pub mnemonic: String,
    /// Indices of modifiers printed as suffixes, in order.
    pub suffixes: Vec<usize>,
    pub operands: Vec<AsmOperand>,
    pub loc: Loc,
    /// Per-SM syntaxes that replace this one on their SMs.
    pub variants: Vec<(Vec<u32>, Asm)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AliasCond {
    /// Source is RZ / PT (its zero value).
    SrcIsZero(usize, bool),
    /// Source kind test: `is gpr|ugpr|imm|cbuf`, negated with `!`.
    SrcKindIs(usize, SlotKindClass, bool),
    /// Source is an immediate equal to the value.
    SrcImmEq(usize, u32),
    /// Source is an immediate power of two (with no modifiers).
    SrcImmPow2(usize),
    /// Source has no modifiers.
    SrcPlain(usize),
    /// Modifier equals a value (bool as 0/1, enum index).
    ModEq(usize, i64, bool),
}

#[derive(Debug)]
pub struct Alias {
    pub mnemonic: String,
    pub when: Vec<AliasCond>,
    pub loc: Loc,
}

#[derive(Debug, Default)]
pub struct Legalize {
    pub commutative: Vec<(usize, usize)>,
    /// `commutative_why`: why pairs of different types still swap exactly.
    pub commutative_why: Option<Loc>,
    pub swap_flips: Option<usize>,
    pub swap_negates: Option<usize>,
    /// Index of the op with the wider immediate form.
    pub wide_imm: Option<usize>,
    pub loc: Option<Loc>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemKind {
    Load,
    Store,
}

/// The state space of a memory access (`[memory] space`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// Global memory, 64-bit addresses (LDG, STG).
    Global,
    /// The CTA's shared memory, 32-bit addresses (LDS, STS).
    Shared,
    /// The thread's local memory, 32-bit addresses (LDL, STL).
    Local,
    /// A generic address, 64-bit, that may point into any space (LD, ST).
    Generic,
}

impl MemSpace {
    /// The space a `[memory] space` name stands for.
    pub fn from_name(name: &str) -> Option<MemSpace> {
        match name {
            "global" => Some(MemSpace::Global),
            "shared" => Some(MemSpace::Shared),
            "local" => Some(MemSpace::Local),
            "generic" => Some(MemSpace::Generic),
            _ => None,
        }
    }
}

/// Access size: fixed, or from an enum modifier (bytes per enum value index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemSize {
    Fixed(u32),
    /// Modifier index, bytes per enum value index, sign-extending values.
    ByModifier(usize, Vec<u32>, Vec<bool>),
}

/// Where control goes after an op (`[flow] kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// To `target` where the guard and conditions hold, else to the next
    /// instruction.
    Branch,
    /// The thread ends where they hold.
    Exit,
    /// To `target`, and back to the next instruction.
    Call,
    /// Back to the caller.
    Return,
    /// To an address the instruction does not state: a register (BRX), or
    /// the one an earlier SSY, PBK or PCNT pushed (SYNC, BRK, CONT).
    Indirect,
}

impl FlowKind {
    pub const NAMES: [(&'static str, FlowKind); 5] = [
        ("branch", FlowKind::Branch),
        ("exit", FlowKind::Exit),
        ("call", FlowKind::Call),
        ("return", FlowKind::Return),
        ("indirect", FlowKind::Indirect),
    ];
}

/// `[sched]`: what an op means to the scheduler.
#[derive(Clone, Debug)]
pub struct Sched {
    /// Modifier indices: the scoreboard waited on (an enum) and how many
    /// of its operations may stay pending (an integer).
    pub wait: Option<(usize, usize)>,
    /// Destination indices written at a fixed latency, not under the
    /// write barrier.
    pub early: Vec<usize>,
    /// (SM, cycles): the fixed latency of the op's results on that SM.
    pub latency: Vec<(u32, u32)>,
    /// (SM, cycles): when a predicate result may guard a control op.
    pub guard_latency: Vec<(u32, u32)>,
    /// SMs where the results land under the op's write barrier
    /// (variable latency); sorted.
    pub variable: Vec<u32>,
    /// SMs where the spec does not know which (`unmeasured`); sorted.
    pub unmeasured: Vec<u32>,
    pub loc: Loc,
}

/// `[flow]`: how an op moves control.
#[derive(Clone, Debug)]
pub struct Flow {
    pub kind: FlowKind,
    /// Modifier index of the destination (`rel` or `abs`).
    pub target: Option<usize>,
    /// Sources (predicates) and modifiers (enums) that make it conditional
    /// when not at their default.
    pub when_srcs: Vec<usize>,
    pub when_mods: Vec<usize>,
    /// (enum or bool modifier, value index or 0/1) pairs written
    /// `"mode == div"`, `"not_tid0 == true"`: the move is conditional
    /// when the modifier holds that value (BRA's `.DIV` and `.CONV`, not
    /// its `.U`).
    pub when_values: Vec<(usize, usize)>,
    /// Other sources whose value decides at run time (BRA.DIV's lane
    /// mask): the move is always conditional.
    pub decided_by: Vec<usize>,
    pub loc: Loc,
}

/// `[memory]`: what a load or store accesses.
#[derive(Clone, Debug)]
pub struct Memory {
    pub kind: MemKind,
    /// The state space the address points into.
    pub space: MemSpace,
    /// Address register source and signed offset modifier.
    pub addr: usize,
    pub offset: usize,
    /// Data: a destination (load) or source (store).
    pub data: usize,
    pub size: MemSize,
    /// Required alignment in bytes; None: the access size.
    pub align: Option<u32>,
    /// Modifier indices that must be at their default to combine accesses.
    pub ordered: Vec<usize>,
    pub loc: Loc,
}

/// A fold expression, kept as text with its position for re-parsing.
#[derive(Clone, Debug)]
pub struct FoldExpr {
    pub text: String,
    /// Byte offset of the expression's first character in its file.
    pub loc: Loc,
}

#[derive(Clone, Debug, Default)]
pub struct Fold {
    pub lets: Option<FoldExpr>,
    /// A bool expression (`refuse`): when it holds, the fold returns an
    /// error (the op reads or writes state the fold does not see).
    pub refuse: Option<FoldExpr>,
    /// Maxwell's CC carry flag: when the op reads it (`reads_cc`, over the
    /// modifiers; the fold sees it as `cc_in`), when it writes it
    /// (`writes_cc`), and the carry written (`cc_out`, after `let`).
    pub reads_cc: Option<FoldExpr>,
    pub writes_cc: Option<FoldExpr>,
    pub cc_out: Option<FoldExpr>,
    /// Expression per destination, in destination order (None: no fold).
    pub dsts: Vec<Option<FoldExpr>>,
    /// `inexact`: why the op has no fold (its result is not an exact
    /// function of its sources: an approximation, or a condition the
    /// hardware does not document). Such an op never folds, by decision.
    pub inexact: Option<FoldExpr>,
}

impl Fold {
    pub fn is_empty(&self) -> bool {
        self.dsts.iter().all(Option::is_none)
    }
}

#[derive(Debug)]
pub struct Op {
    pub name: String,
    pub doc: String,
    pub class: String,
    /// Spec file path relative to the workspace.
    pub path: String,
    pub loc: Loc,
    pub dsts: Vec<Operand>,
    pub srcs: Vec<Operand>,
    pub modifiers: Vec<Modifier>,
    pub asm: Asm,
    pub aliases: Vec<Alias>,
    pub legalize: Legalize,
    /// `[memory]`: the access this op makes, if any.
    pub memory: Option<Memory>,
    /// `low_bits`: indices of the sources whose low n bits alone decide
    /// the low n bits of every destination.
    pub low_bits: Vec<usize>,
    /// `[flow]`: how the op moves control; None: on to the next instruction.
    pub flow: Option<Flow>,
    /// `[sched]`: the scoreboard wait the op makes, if any.
    pub sched: Option<Sched>,
    /// Default fold for every family.
    pub fold: Fold,
    /// Family index -> fold replacing the default.
    pub fold_family: Vec<(usize, Fold)>,
    /// `legal`: the combinations that exist (empty: every combination).
    pub legal: Vec<Combo>,
    /// `traps`: combinations the hardware traps on (never encoded).
    pub traps: Vec<Combo>,
    pub encodings: Vec<Encoding>,
}

/// A product of modifier values on some SMs and forms (`legal`, `traps`).
#[derive(Clone, Debug)]
pub struct Combo {
    pub class: String,
    pub sms: Vec<u32>,
    /// Form names; empty: every form.
    pub forms: Vec<String>,
    /// (modifier index, the values it takes: enum index, or 0/1 for bool).
    pub mods: Vec<(usize, Vec<i64>)>,
    pub evidence: String,
    pub loc: Loc,
}

impl Combo {
    /// Whether the product covers form `form` on some of `sms`.
    pub fn covers(&self, form: &str, sms: &[u32]) -> bool {
        (self.forms.is_empty() || self.forms.iter().any(|f| f == form))
            && sms.iter().any(|s| self.sms.contains(s))
    }
}

impl Op {
    pub fn fold_for(&self, family: usize) -> &Fold {
        self.fold_family
            .iter()
            .find(|(f, _)| *f == family)
            .map_or(&self.fold, |(_, f)| f)
    }
    pub fn modifier(&self, name: &str) -> Option<usize> {
        self.modifiers.iter().position(|m| m.name == name)
    }
    pub fn src(&self, name: &str) -> Option<usize> {
        self.srcs.iter().position(|m| m.name == name)
    }
    pub fn dst(&self, name: &str) -> Option<usize> {
        self.dsts.iter().position(|m| m.name == name)
    }
    /// The register file destination `i` is written to: the kind its
    /// encodings' fields give it (`d:bar`), else its type's (predicate or
    /// general register).
    pub fn dst_kind(&self, i: usize) -> SlotKindClass {
        let written = self
            .encodings
            .iter()
            .flat_map(|e| &e.forms)
            .flat_map(|f| &f.fields)
            .find_map(|f| match f.target {
                FieldTarget::Dst { idx, kind, .. } if idx == i => Some(kind),
                _ => None,
            });
        written.unwrap_or(if self.dsts[i].ty.is_pred() {
            SlotKindClass::Pred
        } else {
            SlotKindClass::Gpr
        })
    }
    /// The values enum modifier `m` can take in `form` (indices): those
    /// with a code where a field holds it, else its default; None for
    /// other modifiers. Two forms with the same operand kinds whose values
    /// of one modifier are disjoint never encode the same op (Maxwell's
    /// CAS: `.64` moves the swap value).
    pub fn enum_values(&self, spec: &Spec, form: &Form, m: usize) -> Option<Vec<usize>> {
        let ModType::Enum(e) = self.modifiers[m].ty else {
            return None;
        };
        let n = spec.enums[e].values.len();
        let codes = form.fields.iter().find_map(|f| match &f.target {
            FieldTarget::Modifier { idx, codes, .. } if *idx == m => Some(codes),
            _ => None,
        });
        Some(match codes {
            None => vec![usize::try_from(self.modifiers[m].default).unwrap_or(0)],
            Some(None) => (0..n).collect(),
            Some(Some(c)) => (0..n)
                .filter(|&v| c.get(v).is_some_and(Option::is_some))
                .collect(),
        })
    }
    /// Modifiers whose values tell `form` from another form of the op that
    /// can take the same operands on one of its SMs, with the values
    /// `form` takes (empty when no other form overlaps its kinds). Kinds
    /// overlap where they are equal or one form does not encode the source
    /// (it then holds its default: ALD's RZ-index forms beside the
    /// indexed ones).
    pub fn form_value_guards(&self, spec: &Spec, form: &Form) -> Vec<(usize, Vec<usize>)> {
        let overlap = |g: &Form| {
            g.src_kinds
                .iter()
                .zip(&form.src_kinds)
                .all(|(x, y)| x == y || x.is_none() || y.is_none())
        };
        let twins: Vec<&Form> = self
            .encodings
            .iter()
            .flat_map(|e| &e.forms)
            .filter(|g| {
                !std::ptr::eq(*g, form)
                    && overlap(g)
                    && (g.sms.is_empty()
                        || form.sms.is_empty()
                        || g.sms.iter().any(|s| form.sms.contains(s)))
            })
            .collect();
        (0..self.modifiers.len())
            .filter_map(|m| {
                let mine = self.enum_values(spec, form, m)?;
                let apart = twins.iter().any(|g| {
                    self.enum_values(spec, g, m)
                        .is_some_and(|v| !v.iter().any(|x| mine.contains(x)))
                });
                apart.then_some((m, mine))
            })
            .collect()
    }
    /// SMs where the op has an encoding.
    pub fn sms(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .encodings
            .iter()
            .flat_map(|e| e.sms.iter().copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

#[derive(Debug)]
pub struct Encoding {
    pub family: usize,
    pub sms: Vec<u32>,
    pub forms: Vec<Form>,
    pub loc: Loc,
}

/// A half-open bit range list: value bits go to the ranges in order, low first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bits {
    pub ranges: Vec<(u32, u32)>,
}

/// As the spec writes bits: `73..77,87` (half-open ranges).
impl std::fmt::Display for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, &(l, h)) in self.ranges.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            match h - l {
                1 => write!(f, "{sep}{l}")?,
                _ => write!(f, "{sep}{l}..{h}")?,
            }
        }
        Ok(())
    }
}

impl Bits {
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|(l, h)| h - l).sum()
    }
    pub fn mask(&self) -> u128 {
        let mut m = 0u128;
        for &(l, h) in &self.ranges {
            // Bits past 127 (a spec error, S0101) are ignored, not a panic.
            for b in l..h.min(128) {
                m |= 1u128 << b;
            }
        }
        m
    }
    /// The bits set in `mask`, as ranges.
    pub fn from_mask(mask: u128) -> Bits {
        let mut ranges = Vec::new();
        let mut b = 0;
        while b < 128 {
            if mask >> b & 1 == 0 {
                b += 1;
                continue;
            }
            let l = b;
            while b < 128 && mask >> b & 1 == 1 {
                b += 1;
            }
            ranges.push((l, b));
        }
        Bits { ranges }
    }
    /// Place `value` into the word.
    pub fn place(&self, value: u128) -> u128 {
        let mut out = 0u128;
        let mut shift = 0;
        for &(l, h) in &self.ranges {
            let w = h - l;
            if l < 128 && shift < 128 {
                let part = (value >> shift) & 1u128.checked_shl(w).map_or(u128::MAX, |m| m - 1);
                out |= part << l;
            }
            shift += w;
        }
        out
    }
    pub fn display(&self) -> String {
        self.ranges
            .iter()
            .map(|&(l, h)| {
                if h == l + 1 {
                    l.to_string()
                } else {
                    format!("{l}..{h}")
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotKindClass {
    Gpr,
    Ugpr,
    Imm,
    Cbuf,
    Pred,
    Upred,
    /// A convergence barrier register (B0..B15; Volta and later).
    Bar,
}

impl SlotKindClass {
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpr => "gpr",
            Self::Ugpr => "ugpr",
            Self::Imm => "imm",
            Self::Cbuf => "cbuf",
            Self::Pred => "pred",
            Self::Upred => "upred",
            Self::Bar => "bar",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "gpr" => Self::Gpr,
            "ugpr" => Self::Ugpr,
            "imm" => Self::Imm,
            "cbuf" => Self::Cbuf,
            "pred" => Self::Pred,
            "upred" => Self::Upred,
            "bar" => Self::Bar,
            _ => return None,
        })
    }
}

/// How an immediate's bits are packed into its field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImmPacking {
    /// Low value bits dropped (must be zero): 12 for Maxwell's float imm20.
    pub shift: u32,
    /// The value must sign-extend from the field width (Maxwell's int imm20).
    pub sext: bool,
    /// A packed pair stored as two halves (Pascal's `imm20h`): each 16-bit
    /// half drops its low `shift` bits, the low half fills the field's low
    /// half and the high half its high half.
    pub halves: bool,
}

impl ImmPacking {
    /// The field bits that hold value `v` (its dropped bits discarded).
    pub fn pack(&self, v: u32) -> u128 {
        if self.halves {
            let (lo, hi) = (v & 0xffff, v >> 16);
            u128::from(lo >> self.shift) | (u128::from(hi >> self.shift) << (16 - self.shift))
        } else {
            u128::from(v >> self.shift)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CbufPart {
    Index,
    /// Byte offset divided by `scale`; `signed`: two's complement.
    Offset {
        scale: u32,
        signed: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldTarget {
    /// Destination register index (gpr/ugpr/pred/upred).
    Dst {
        idx: usize,
        kind: SlotKindClass,
        /// The field holds the index's bitwise complement (`"30..33" =
        /// "pd.inv"`: Pascal SULD's predicate output, 0 is PT).
        inv: bool,
    },
    /// Source register or predicate index.
    SrcReg {
        idx: usize,
        kind: SlotKindClass,
        /// A predicate's index stored complemented (`"87..90" = "p.inv"`).
        inv: bool,
    },
    SrcImm {
        idx: usize,
        packing: ImmPacking,
    },
    SrcCbuf {
        idx: usize,
        part: CbufPart,
    },
    SrcNeg(usize),
    SrcAbs(usize),
    SrcNot(usize),
    /// Modifier value; for enums, the code of each value in order (`None`:
    /// the value does not exist in this encoding); `scale`: a `rel` offset
    /// is stored divided by it (`target:x4`).
    Modifier {
        idx: usize,
        codes: Option<Vec<Option<u64>>>,
        scale: u32,
    },
    GuardPred,
    /// The guard as a uniform predicate (`"12..15" = "guard:upred"`:
    /// the uniform datapath's ops, `@UP0 UIADD3 ...`); PT is UPT here.
    GuardUPred,
    GuardNot,
    /// Scheduling/control bits kept with the instruction.
    Ctrl,
    /// Fixed value.
    Fixed(u128),
    /// Bits kept raw: not understood, but preserved for exact re-encoding;
    /// the value ptxas writes there (`"?=0xf"`, default 0), which the
    /// assembler writes.
    Unknown(u128),
}

#[derive(Clone, Debug)]
pub struct Field {
    pub bits: Bits,
    pub target: FieldTarget,
    pub loc: Loc,
    /// The preset slot this field came from, if any.
    pub slot: Option<String>,
}

/// A source with no bits of its own, read from another source's register
/// field (`tied = { c = "b+1" }`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiedSrc {
    /// The tied source.
    pub src: usize,
    /// The source whose register field holds it.
    pub base: usize,
    /// How many registers above the base register it is (0: the same).
    pub n: u8,
}

/// One `not_all` entry: `mask` all ones is not this form while
/// `w & when_mask == when_value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAll {
    pub mask: u128,
    pub when_mask: u128,
    pub when_value: u128,
}

#[derive(Debug)]
pub struct Form {
    /// Preset form name, or "fixed".
    pub name: String,
    pub sms: Vec<u32>,
    pub fields: Vec<Field>,
    /// Per source: the kind of slot that holds it in this form, or None when
    /// the form does not encode it (it must then hold its default).
    pub src_kinds: Vec<Option<SlotKindClass>>,
    /// Per source: the control bit that marks its register `.reuse`.
    pub reuse: Vec<Option<u32>>,
    /// Bit masks that must not be all ones (`not_all`), each while the
    /// word's bits `when_mask` equal `when_value` (0, 0: always): such
    /// words neither encode nor decode as this form.
    pub not_all: Vec<NotAll>,
    /// (source, destination) pairs: the source is the destination's
    /// register (`tied`), encoded by the destination's field.
    pub tied: Vec<(usize, usize)>,
    /// (source, base source, n) triples: the source has no bits of its
    /// own and is the register n above the base source's (`tied = { c =
    /// "b+1" }`: Maxwell's CAS reads its swap value after the compare
    /// value), or for n = 0 the base source itself (one register field
    /// read as both; Volta's `BAR.SYNC R3, R3`).
    pub tied_src: Vec<TiedSrc>,
    /// Where the op file states this form: its encoding's `opcode` key for
    /// a preset form, the encoding itself otherwise. Diagnostics about the
    /// form point here, at the line the person edits.
    pub loc: Loc,
    /// The preset form in `families.toml` it was expanded from, if any
    /// (shown as a secondary note).
    pub preset_loc: Option<Loc>,
    /// Raw bits nvdisasm ignores on only some of the form's SMs
    /// (`ignored_on`): on each entry's SMs its bits must hold their
    /// canonical value for a word to be this form, as fixed bits do.
    pub strict: Vec<Strict>,
    /// The fixed bits `ignored` and `ignored_on` made raw (on all or some
    /// SMs): the bits the ignored-bits sweep tries again.
    pub ignored: u128,
}

/// Raw bits that are fixed on some SMs of a form (see [`Form::strict`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strict {
    pub sms: Vec<u32>,
    pub mask: u128,
}

impl Form {
    pub fn fixed(&self) -> (u128, u128) {
        let mut mask = 0;
        let mut value = 0;
        for f in &self.fields {
            if let FieldTarget::Fixed(v) = f.target {
                mask |= f.bits.mask();
                value |= f.bits.place(v);
            }
        }
        (mask, value)
    }
    /// The (mask, value) a word must match to be this form on each group
    /// of its SMs: the fixed bits, plus a [`Strict`] entry's bits at their
    /// canonical value on its SMs. One group (all SMs) when nothing is
    /// strict.
    pub fn dispatch_groups(&self) -> Vec<(u128, u128, Vec<u32>)> {
        let (mask, value) = self.fixed();
        let canon = self.canonical_raw();
        let loose: Vec<u32> = self
            .sms
            .iter()
            .copied()
            .filter(|sm| !self.strict.iter().any(|s| s.sms.contains(sm)))
            .collect();
        let mut out = Vec::new();
        if !loose.is_empty() {
            out.push((mask, value, loose));
        }
        for s in &self.strict {
            out.push((mask | s.mask, value | canon & s.mask, s.sms.clone()));
        }
        out
    }
    pub fn unknown_mask(&self) -> u128 {
        self.fields
            .iter()
            .filter(|f| matches!(f.target, FieldTarget::Unknown(_)))
            .map(|f| f.bits.mask())
            .fold(0, |a, b| a | b)
    }
    /// The raw bits as ptxas writes them: each raw field's canonical value.
    pub fn canonical_raw(&self) -> u128 {
        self.fields
            .iter()
            .filter_map(|f| match f.target {
                FieldTarget::Unknown(v) => Some(f.bits.place(v)),
                _ => None,
            })
            .fold(0, |a, b| a | b)
    }
}
