//! The TOML file formats, as serde reads them.
//!
//! Every leaf that a diagnostic may point at is `Spanned`, so a lint can name
//! the exact line and column. `resolve` turns these raw records into the
//! checked model that code generation consumes.

use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

pub type S<T> = Spanned<T>;

/// `isa-spec/spec/families.toml`: the hardware families and their layouts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamiliesFile {
    pub family: BTreeMap<String, S<FamilyDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilyDef {
    pub doc: Option<String>,
    /// Bits per instruction word (64 or 128).
    pub width: S<u32>,
    /// The SMs of this family, ascending.
    pub sms: S<Vec<u32>>,
    /// Fields every instruction of the family has (guard, control bits).
    pub common: BTreeMap<S<String>, S<String>>,
    /// Instructions that share one scheduling word (Maxwell/Pascal: 3).
    pub bundle: Option<S<u32>>,
    /// The bits that dispatch a decoder to candidate encodings.
    pub dispatch: S<String>,
    /// Register file (`gpr`, `ugpr`, `pred`, `upred`) -> first SM -> the
    /// hardware index of the file's zero register (RZ, URZ) or true
    /// predicate (PT, UPT). Lower indices are the file's registers; a file
    /// without an entry for an SM has no registers there.
    #[serde(default)]
    pub registers: BTreeMap<S<String>, BTreeMap<S<String>, S<u32>>>,
    /// Operand-reuse flags: preset slot name, or low bit of a source register
    /// field -> bit of the instruction's control value that marks it `.reuse`.
    #[serde(default)]
    pub reuse: BTreeMap<String, u32>,
    /// The op classes whose register sources may be marked `.reuse` (all
    /// when absent); an encoding's own `reuse` table still applies.
    pub reuse_classes: Option<Vec<S<String>>>,
    /// The per-instruction scheduling control value: its fields, its
    /// neutral value and the rule its reuse flags follow.
    pub control: Option<S<ControlDef>>,
    /// Which disassembler's text is the reference for each SM.
    pub reference: Option<S<ReferenceDef>>,
    /// Operand layouts shared by many ops; an op names one with `preset`.
    #[serde(default)]
    pub preset: BTreeMap<String, PresetDef>,
}

/// `[family.<name>.reference]`: the disassembler whose text each SM's
/// printer follows and whose verdicts the oracle tests take.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceDef {
    /// SM range (`"70"`, `"75.."`) -> nvdisasm major version.
    pub nvdisasm: BTreeMap<S<String>, S<u32>>,
    /// The reference prints an absolute address (a zero-register base)
    /// as the unsigned value of its offset field, not as a signed offset.
    #[serde(default)]
    pub unsigned_absolute: bool,
    /// The reference prints a register's swizzle inside its `|...|`
    /// (`-|R2.H1_H1|`) and a constant without a blank between its
    /// brackets (Pascal's HADD2), not after the bars.
    #[serde(default)]
    pub swizzle_in_bars: bool,
    /// The reference prints an attribute address on the zero register
    /// without an offset as the offset (`a[0x0]`), not as `a[RZ]`.
    #[serde(default)]
    pub attr_rz_as_offset: bool,
    /// SM range where the reference prints a zero-register base added to
    /// a uniform register with its width (`[RZ.U32+UR4+0x30]`); elsewhere
    /// it leaves both out (`[UR4+0x30]`).
    pub rz_base_with_ur: Option<S<String>>,
}

/// `[family.<name>.control]`: what the bits of an instruction's control
/// value mean (the `ctrl` common field, or a slot of the bundle's
/// scheduling word).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlDef {
    pub doc: Option<String>,
    /// Bits per instruction in the bundle's scheduling word (families with
    /// bundles; instruction `i` of a bundle owns slot `i`).
    pub slot_bits: Option<S<u32>>,
    /// Field name -> its bits within the control value.
    pub fields: BTreeMap<S<String>, S<String>>,
    /// The control value that stalls nothing, sets and waits on no barrier
    /// and reuses nothing (padding, and words sampled without reuse).
    pub neutral: S<u32>,
    /// Field name -> the value (`"1"`) or range (`"1..12"`, half-open) it
    /// must hold for reuse flags to be valid.
    #[serde(default)]
    pub reuse_needs: BTreeMap<S<String>, S<String>>,
    /// Register files (`gpr`, `ugpr`, `pred`, `upred`) whose sources an
    /// instruction with a read barrier may read after it issues; it reads
    /// the others, and its guard, at issue.
    #[serde(default)]
    pub late_reads: Vec<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetDef {
    pub doc: Option<String>,
    /// Where the op's `opcode` value goes; per form when `opcode` is a table.
    pub opcode: S<String>,
    /// Register kinds besides `gpr` whose slot, when the op leaves it
    /// empty, reads the zero register (all ones) instead of leaving the
    /// form out: `["ugpr"]` for the uniform datapath's presets.
    #[serde(default)]
    pub empty_zero: Vec<S<String>>,
    pub form: Vec<S<PresetForm>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetForm {
    pub name: S<String>,
    /// SM range where this form exists, e.g. `"75.."`.
    pub sms: Option<S<String>>,
    pub fields: BTreeMap<S<String>, S<String>>,
}

/// `isa-spec/spec/enums/*.toml` (one enum a file): enums shared by many ops.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumsFile {
    #[serde(rename = "enum")]
    pub enums: BTreeMap<String, S<EnumDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumDef {
    pub doc: Option<String>,
    /// Values in order; the first is the default.
    pub values: Vec<S<EnumValue>>,
    /// For comparisons: which value each one becomes when the sources swap.
    #[serde(default)]
    pub flip: BTreeMap<String, S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnumValue {
    pub name: S<String>,
    /// Suffix text printed by the disassembler ("" prints nothing).
    pub text: S<String>,
    /// Encoded value; defaults to the position in `values`.
    pub code: Option<S<u64>>,
    /// Per-SM text where the disassembler spells the value differently:
    /// SM range (e.g. `"70..89"`) -> text.
    #[serde(default)]
    pub sm_text: BTreeMap<String, S<String>>,
    /// The type a source reads when this value is chosen (`u8`, `i8`,
    /// `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `f16`, `bf16`, `f32`,
    /// `f64`): for sources whose `type_by` names the modifier.
    #[serde(rename = "type")]
    pub ty: Option<S<String>>,
}

/// One op: `isa-spec/spec/ops/<name>.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpFile {
    pub name: S<String>,
    pub doc: Option<S<String>>,
    /// `alu` ops compute values and need fold semantics.
    pub class: S<String>,
    #[serde(default)]
    pub dst: Vec<S<OperandDef>>,
    #[serde(default)]
    pub src: Vec<S<OperandDef>>,
    #[serde(default)]
    pub modifier: Vec<S<ModifierDef>>,
    pub asm: S<AsmDef>,
    #[serde(default)]
    pub alias: Vec<S<AliasDef>>,
    #[serde(default)]
    pub legalize: Option<S<LegalizeDef>>,
    /// The memory access of a load or store.
    #[serde(default)]
    pub memory: Option<S<MemoryDef>>,
    /// Sources whose low n bits alone decide the low n bits of every
    /// destination (for every n, the other sources and modifiers fixed):
    /// adds, multiplies, left shifts of the value. Used to prove address
    /// alignment.
    #[serde(default)]
    pub low_bits: Option<S<Vec<S<String>>>>,
    /// How the op moves control (branches, exits, calls); without it the
    /// next instruction follows.
    #[serde(default)]
    pub flow: Option<S<FlowDef>>,
    /// What the op means to the scheduler (scoreboard waits).
    #[serde(default)]
    pub sched: Option<S<SchedDef>>,
    /// Fold semantics: destination name -> Rust expression (a TOML literal
    /// string); the key `let` holds statements evaluated first.
    #[serde(default)]
    pub fold: BTreeMap<S<String>, S<String>>,
    /// Per-family fold, replacing `fold` on that family: family -> as `fold`.
    #[serde(default)]
    pub fold_family: BTreeMap<S<String>, BTreeMap<S<String>, S<String>>>,
    /// The modifier combinations that exist, as a union of products: when
    /// an op has any, an instruction's combination must match one (on its
    /// SM and form) to encode or decode.
    #[serde(default)]
    pub legal: Vec<S<ComboDef>>,
    /// Combinations the disassembler prints but the hardware traps on
    /// (illegal-instruction error): the encoder refuses them, the decoder
    /// still reads them. Each needs its `evidence`.
    #[serde(default)]
    pub traps: Vec<S<ComboDef>>,
    pub encoding: Vec<S<EncodingDef>>,
}

/// One product of modifier values (`legal`, `traps`): the SMs and forms it
/// covers, and per modifier the values it takes (a modifier not named
/// takes any value).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComboDef {
    /// The hardware's group for these combinations (nvdisasm's opclass,
    /// e.g. `f2f_f32_downconvert`), for the reader.
    pub class: Option<S<String>>,
    /// SM range, e.g. `"90.."`; default: every SM of the op.
    pub sms: Option<S<String>>,
    /// Form names (`rrr`, `rir`, ...); default: every form.
    #[serde(default)]
    pub forms: Vec<S<String>>,
    /// Modifier -> the values it takes here (enum value names, or
    /// `true`/`false` for a bool).
    #[serde(default)]
    pub mods: BTreeMap<S<String>, Vec<S<toml::Value>>>,
    /// Why the combination is listed (required in `traps`: the hardware
    /// test or report that found the trap).
    pub evidence: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperandDef {
    pub name: S<String>,
    /// Value type: u32, i32, b32, f32, u64, i64, f64, pred.
    #[serde(rename = "type")]
    pub ty: S<String>,
    /// Source modifiers the operand accepts: neg, abs, not.
    #[serde(default)]
    pub mods: Vec<S<String>>,
    /// Value used when the operand is absent ("RZ", "PT", "!PT").
    pub default: Option<S<String>>,
    /// Register alignment in registers (2 for a 64-bit pair, 4 for vec4).
    pub align: Option<S<u32>>,
    /// Enum modifiers whose value's `type` is the type the source is read
    /// as (the first that gives one wins; none: the declared type).
    #[serde(default)]
    pub type_by: Vec<S<String>>,
    /// Integer modifier selecting which part (byte or half) of the
    /// register or constant the source reads, when its type is narrower
    /// than 32 bits.
    pub part: Option<S<String>>,
    /// A predicate destination whose meaning is not known (nvdisasm
    /// prints it, ptxas writes PT): it needs default PT, has no fold
    /// expression, and the op folds only while it is PT.
    #[serde(default)]
    pub unknown: Option<S<bool>>,
    /// The `part` selector holds the part's byte offset rather than its
    /// index (Maxwell's I2I: `.H1` is 2; 1 and 3 name no half).
    #[serde(default)]
    pub part_bytes: bool,
    /// The `part` selector is one bit, `.H1`, printed for every type
    /// (Maxwell's F2I: `F2I.U32.F32 R1, R0.H1`).
    #[serde(default)]
    pub part_half: bool,
    /// An immediate prints and parses as the declared `type`, not as the
    /// type `type_by` chooses (Maxwell's I2I prints its sign-extended
    /// 20-bit immediate as a signed word whatever the source type).
    #[serde(default)]
    pub imm_declared: bool,
    /// An immediate that a form stores sign-extended (Maxwell's imm20)
    /// prints as its field's bits in unsigned hex, and parses back
    /// sign-extended (Maxwell IADD3 prints -0x3fe as `0xffc02`).
    #[serde(default)]
    pub imm_field: bool,
    /// SMs (a range, `"70..89"`) on which the reference nvdisasm prints an
    /// immediate of this source as signed hex although its type prints
    /// unsigned (P2R's mask: `-0x7ffffffe` up to SM89, `0x80000002` from
    /// SM90).
    pub imm_signed: Option<S<String>>,
    pub doc: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModifierDef {
    pub name: S<String>,
    /// `bool`, `u8`..`u32`, `i32`, `rel` (branch offset), or `enum:<name>`.
    #[serde(rename = "type")]
    pub ty: S<String>,
    /// Suffix printed when a bool modifier is set.
    pub text: Option<S<String>>,
    pub default: Option<S<toml::Value>>,
    pub doc: Option<String>,
    /// Families on which the modifier exists (default: every family of the
    /// op); the lint checks it is encoded on exactly those.
    #[serde(default)]
    pub families: Vec<S<String>>,
    /// SMs on which it exists, e.g. `"75.."` (default: every SM); with
    /// `families`, both must hold.
    pub sms: Option<S<String>>,
    /// An enum whose texts print an unsigned modifier lane by lane, the
    /// most significant lane first (FSWZADD's `PPPPPNPP`: four 2-bit lanes).
    pub lanes: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsmDef {
    pub mnemonic: S<String>,
    /// Modifiers printed as suffixes, in order.
    #[serde(default)]
    pub suffixes: Vec<S<String>>,
    /// Operands (and integer modifiers) printed after the mnemonic, in order;
    /// `x?` omits x when it holds its default; `x if m` prints x only when
    /// bool modifier m is set (`x if !m` when it is clear).
    #[serde(default)]
    pub operands: Vec<S<String>>,
    /// Per-SM differences in the disassembler's syntax (later SMs first
    /// match wins); each replaces the fields it sets.
    #[serde(default)]
    pub variant: Vec<S<AsmVariantDef>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AsmVariantDef {
    /// SMs this syntax applies to, e.g. `"100.."`.
    pub sms: S<String>,
    pub mnemonic: Option<S<String>>,
    pub suffixes: Option<Vec<S<String>>>,
    pub operands: Option<Vec<S<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AliasDef {
    /// Replaces `asm.mnemonic` when every condition holds.
    pub mnemonic: S<String>,
    /// Conditions such as `a == RZ`, `b is imm`, `b == imm_pow2`, `c != ugpr`.
    pub when: Vec<S<String>>,
}

/// `[sched]`: what the op means to the scheduler.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedDef {
    /// An op that waits on a scoreboard (DEPBAR): the enum modifier naming
    /// the scoreboard (its value index is the scoreboard's number) and
    /// the integer modifier giving how many of its operations may stay
    /// pending, newest first.
    pub wait_barrier: Option<S<String>>,
    pub wait_pending: Option<S<String>>,
    /// Destinations written at a fixed latency even when the op's other
    /// results land later, under its write barrier.
    #[serde(default)]
    pub early: Vec<S<String>>,
    /// SM list (`"70,75"`, `"80..89"`) -> cycles after the op issues
    /// before an instruction that reads its sources at issue may read a
    /// result (fixed latency; SMs it does not name are not claimed).
    #[serde(default)]
    pub latency: BTreeMap<S<String>, S<u32>>,
    /// SM list -> cycles after the op issues before a predicate it writes
    /// may be read as the guard of a control op (a branch, an exit).
    #[serde(default)]
    pub guard_latency: BTreeMap<S<String>, S<u32>>,
    /// SM list where the op's results (but the `early` ones) land at a
    /// time no stall count covers: a reader waits on the op's write
    /// barrier. With `latency`, every SM of an op with such results is
    /// named once (S1305).
    pub variable: Option<S<String>>,
    /// SM list where no ptxas code in `tests/kernels` shows which: the
    /// scheduler puts the results under a write barrier (as for
    /// `variable`), and the hazard checker assumes no latency.
    pub unmeasured: Option<S<String>>,
}

/// `[flow]`: where control goes after the op.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowDef {
    /// `branch`, `exit`, `call`, `return` or `indirect`.
    pub kind: S<String>,
    /// The `rel` or `abs` modifier holding the destination (`branch`,
    /// `call`).
    pub target: Option<S<String>>,
    /// Predicate sources and enum modifiers that make the op conditional
    /// when not at their default (BRA's `cond`, Maxwell's `cc`); the guard
    /// always does.
    #[serde(default)]
    pub when: Vec<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryDef {
    /// `load` or `store`.
    pub kind: S<String>,
    /// `global` (the default), `shared`, `local` or `generic`.
    pub space: Option<S<String>>,
    /// Address register source (a `[addr+offset]` asm operand).
    pub addr: S<String>,
    /// Signed integer modifier: the byte offset.
    pub offset: S<String>,
    /// The loaded destination or the stored source.
    pub data: S<String>,
    /// Access size in bytes, or the name of an enum modifier whose values
    /// map to sizes in `bytes`.
    pub size: S<toml::Value>,
    /// Bytes per value of the `size` enum modifier.
    #[serde(default)]
    pub bytes: BTreeMap<S<String>, S<u32>>,
    /// Required address alignment in bytes (default: the access size).
    pub align: Option<S<u32>>,
    /// Values of the `size` enum whose loads sign-extend.
    #[serde(default)]
    pub signed: Vec<S<String>>,
    /// Modifiers (ordering, volatility) that must hold their default value
    /// for two accesses to be combined into one.
    #[serde(default)]
    pub ordered: Vec<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LegalizeDef {
    /// Source pairs that may be swapped without changing the result.
    #[serde(default)]
    pub commutative: Vec<S<[String; 2]>>,
    /// Why a commutative pair of sources of different types still swaps
    /// exactly (IMAD's u32 a and i32 b); required when the types differ.
    pub commutative_why: Option<S<String>>,
    /// Enum modifier to flip (`flip` table of its enum) when a pair swaps.
    pub swap_flips: Option<S<String>>,
    /// Predicate source to negate when a pair swaps (SEL).
    pub swap_negates: Option<S<String>>,
    /// An op with a wider immediate to use when an immediate does not fit.
    pub wide_imm: Option<S<String>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncodingDef {
    /// A name other encodings of the op can `extends`.
    pub name: Option<S<String>>,
    /// The name of another encoding of the op this one copies, with the
    /// keys it sets changing the copy (see `crate::extend`).
    pub extends: Option<S<String>>,
    /// Required unless the encoding `extends` another.
    pub family: Option<S<String>>,
    /// SM range, e.g. `"75.."`; default: every SM of the family.
    pub sms: Option<S<String>>,
    /// Operand layout preset of the family; absent: `fields` is the whole layout.
    pub preset: Option<S<String>>,
    /// Opcode value: one number, or one per preset form.
    pub opcode: Option<S<OpcodeValue>>,
    /// Preset slot name -> op source placed in it.
    #[serde(default)]
    pub slots: BTreeMap<S<String>, S<String>>,
    /// Preset forms to leave out.
    #[serde(default)]
    pub without: Vec<S<String>>,
    /// Bit range -> what lives there: `name`, `name.neg`, `=value`, `?`.
    #[serde(default)]
    pub fields: BTreeMap<S<String>, S<String>>,
    /// Per-form extra fields (override the common ones).
    #[serde(default)]
    pub form: BTreeMap<S<String>, BTreeMap<S<String>, S<String>>>,
    /// Source -> control bit marking it `.reuse`, where the family's rule
    /// (by preset slot, else by field position) does not hold; a negative
    /// bit: the source has no `.reuse` flag in this encoding.
    #[serde(default)]
    pub reuse: BTreeMap<S<String>, S<i64>>,
    /// Per-modifier encoded values overriding the enum's codes; a negative
    /// code marks a value that does not exist in this encoding.
    #[serde(default)]
    pub values: BTreeMap<S<String>, BTreeMap<String, S<i64>>>,
    /// Bit ranges whose bits must not all be set at once (the disassembler
    /// reads that combination as something else, e.g. Maxwell's `.PO`).
    #[serde(default)]
    pub not_all: Vec<S<String>>,
    /// Source -> destination whose register it reads in this encoding
    /// (no bits of its own; Maxwell's FFMA32I reads d as c), or -> another
    /// source it is (one register field for both: Volta's BAR `R3, R3`).
    #[serde(default)]
    pub tied: BTreeMap<S<String>, S<String>>,
    /// Fixed bits nvdisasm ignores on the encoding's SMs (it prints the
    /// same text whatever they hold): in each form that fixes them they
    /// are raw instead, kept as decoded and written with the fixed value
    /// by the assembler. `""`: none (an extending encoding whose SMs do
    /// not ignore its base's).
    pub ignored: Option<S<String>>,
    /// SM set -> more fixed bits nvdisasm ignores on those SMs only (it
    /// reads them elsewhere: on SM100+ IADD3's bit 76 makes `IADD.XOR`):
    /// raw like `ignored`'s, but on the encoding's other SMs a decoded
    /// word must hold the fixed value there.
    #[serde(default)]
    pub ignored_on: BTreeMap<S<String>, S<String>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum OpcodeValue {
    One(u64),
    PerForm(BTreeMap<String, u64>),
}
