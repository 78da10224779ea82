//! Support for the generated folds: values that flow between registers and
//! the CPU implementation of each op.

use std::fmt;

/// A value a source reads or a destination writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    U32(u32),
    /// A 64-bit value in a register pair (low register first).
    U64(u64),
    Pred(bool),
}

impl Value {
    pub fn u32(self) -> Result<u32, FoldError> {
        match self {
            Value::U32(v) => Ok(v),
            other => Err(FoldError::new(format!(
                "expected a 32-bit value, got {other:?}"
            ))),
        }
    }
    pub fn u64(self) -> Result<u64, FoldError> {
        match self {
            Value::U64(v) => Ok(v),
            Value::U32(v) => Ok(v as u64),
            other => Err(FoldError::new(format!(
                "expected a 64-bit value, got {other:?}"
            ))),
        }
    }
    pub fn pred(self) -> Result<bool, FoldError> {
        match self {
            Value::Pred(v) => Ok(v),
            other => Err(FoldError::new(format!(
                "expected a predicate, got {other:?}"
            ))),
        }
    }
}

/// Results of one fold, in destination order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoldOut {
    pub vals: [Value; 4],
    pub len: usize,
}

impl FoldOut {
    pub fn new(vals: &[Value]) -> FoldOut {
        let mut out = FoldOut {
            vals: [Value::U32(0); 4],
            len: vals.len(),
        };
        out.vals[..vals.len()].copy_from_slice(vals);
        out
    }
    pub fn as_slice(&self) -> &[Value] {
        &self.vals[..self.len]
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldError {
    pub message: String,
}

impl FoldError {
    pub fn new(m: impl Into<String>) -> Self {
        FoldError { message: m.into() }
    }
}

/// What `fold_cc` returns: the destinations and the carry written (`None`:
/// none), or why the op cannot be folded.
pub type FoldCc = Result<(FoldOut, Option<bool>), FoldError>;

/// An op's `has_fold` (the expression given, of the parameter named
/// before `=>`) and its `fold`, written once: `fold_cc` with the carry
/// flag unknown (an op that reads Maxwell's carry flag then refuses).
/// Invoked inside each generated op's inherent impl.
macro_rules! fold_via_cc {
    ($sm:ident => $has:expr) => {
        /// Whether this op has fold semantics on `sm`.
        pub fn has_fold(&self, $sm: u32) -> bool {
            $has
        }
        /// Compute the destination values from source values (raw register
        /// bits; the op's source modifiers are applied here). An op that
        /// reads Maxwell's carry flag refuses: use `fold_cc`.
        pub fn fold(&self, sm: u32, srcs: &[Value]) -> Result<FoldOut, FoldError> {
            self.fold_cc(sm, srcs, None).map(|x| x.0)
        }
    };
}
pub(crate) use fold_via_cc;

/// A fold's source count check: op `op` takes `n` sources.
pub fn check_sources(op: &str, n: usize, srcs: &[Value]) -> Result<(), FoldError> {
    if srcs.len() == n {
        return Ok(());
    }
    Err(FoldError::new(format!(
        "{op} takes {n} sources, got {}",
        srcs.len()
    )))
}

impl fmt::Display for FoldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FoldError {}

/// Into a [`Value`] of a destination's declared type.
pub trait IntoValue {
    fn into_value(self) -> Value;
}
impl IntoValue for u32 {
    fn into_value(self) -> Value {
        Value::U32(self)
    }
}
impl IntoValue for i32 {
    fn into_value(self) -> Value {
        Value::U32(self as u32)
    }
}
impl IntoValue for f32 {
    fn into_value(self) -> Value {
        Value::U32(self.to_bits())
    }
}
impl IntoValue for u64 {
    fn into_value(self) -> Value {
        Value::U64(self)
    }
}
impl IntoValue for i64 {
    fn into_value(self) -> Value {
        Value::U64(self as u64)
    }
}
impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::U64(self.to_bits())
    }
}
impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Pred(self)
    }
}

/// A source's value as a fold reads it: a typed view of a [`Value`].
pub trait FromValue: Sized {
    fn from_value(v: Value) -> Result<Self, FoldError>;
}

macro_rules! from_value {
    ($($t:ty => |$v:ident| $e:expr),* $(,)?) => {$(
        impl FromValue for $t {
            #[inline]
            fn from_value($v: Value) -> Result<Self, FoldError> {
                $e
            }
        }
    )*};
}
from_value!(
    u32 => |v| v.u32(),
    i32 => |v| Ok(v.u32()? as i32),
    f32 => |v| Ok(f32::from_bits(v.u32()?)),
    u64 => |v| v.u64(),
    i64 => |v| Ok(v.u64()? as i64),
    f64 => |v| Ok(f64::from_bits(v.u64()?)),
    bool => |v| v.pred(),
);

/// Source `i` of `srcs` read as `T`, with `src`'s modifiers applied
/// ([`SrcMods`]).
#[inline]
pub fn src_value<T: FromValue + SrcMods>(
    srcs: &[Value],
    i: usize,
    src: &crate::runtime::operand::Src,
) -> Result<T, FoldError> {
    let (neg, abs, not) = src.flags();
    Ok(T::from_value(srcs[i])?.with_mods(neg, abs, not))
}

/// A source value with its modifiers applied, as the generated folds read
/// it: integers `not` then negate (two's complement), floats `abs` then
/// negate; predicates `not`.
pub trait SrcMods: Copy {
    fn with_mods(self, neg: bool, abs: bool, not: bool) -> Self;
}

macro_rules! int_src_mods {
    ($($t:ty),*) => {$(
        impl SrcMods for $t {
            #[inline]
            fn with_mods(self, neg: bool, _abs: bool, not: bool) -> Self {
                let v = if not { !self } else { self };
                if neg { v.wrapping_neg() } else { v }
            }
        }
    )*};
}
int_src_mods!(u32, i32, u64, i64);

macro_rules! float_src_mods {
    ($($t:ty),*) => {$(
        impl SrcMods for $t {
            #[inline]
            fn with_mods(self, neg: bool, abs: bool, _not: bool) -> Self {
                let v = if abs { self.abs() } else { self };
                if neg { -v } else { v }
            }
        }
    )*};
}
float_src_mods!(f32, f64);

impl SrcMods for bool {
    #[inline]
    fn with_mods(self, _neg: bool, _abs: bool, not: bool) -> Self {
        self ^ not
    }
}
