//! Phases 1-3 of loading a spec file: recoverable TOML parse, schema walk and
//! typed deserialize, in one pass that reports every problem.
//!
//! `toml::de::DeTable::parse_recoverable` gives the partial table and every
//! syntax error. The table is then fed to the serde `Deserialize` impls of
//! [`crate::schema`] through [`Walker`], a deserializer that does not stop at
//! the first problem: it reports every unknown key (the struct's field list
//! comes from serde itself, so the schema is written once, in `schema.rs`)
//! and every leaf of the wrong type (then hands the visitor a placeholder of
//! the right type and goes on). Only a missing key or a table where a value
//! should be (or the reverse) stops the enclosing table.

use crate::codes::Code;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

/// A problem found while parsing or walking: code, byte span, message.
#[derive(Clone, Debug)]
pub struct Problem {
    pub code: Code,
    pub span: Range<usize>,
    pub message: String,
}

#[derive(Default)]
struct Sink {
    problems: RefCell<Vec<Problem>>,
}

impl Sink {
    fn push(&self, code: Code, span: Range<usize>, message: String) {
        self.problems.borrow_mut().push(Problem {
            code,
            span,
            message,
        });
    }
}

/// The walker's error; `reported` once it is in the sink.
#[derive(Debug)]
pub struct WalkError {
    message: String,
    reported: bool,
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WalkError {}

impl de::Error for WalkError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WalkError {
            message: msg.to_string(),
            reported: false,
        }
    }
}

fn reported() -> WalkError {
    WalkError {
        message: "reported".into(),
        reported: true,
    }
}

/// Record an error the visitor raised (missing key, wrong variant) at `span`.
fn settle(sink: &Sink, e: WalkError, span: Range<usize>) -> WalkError {
    if e.reported {
        return e;
    }
    let msg = match e.message.strip_prefix("missing field ") {
        Some(rest) => format!("missing key {rest}"),
        None => e.message,
    };
    sink.push(Code::S0003, span, msg);
    reported()
}

/// Parse `text` and deserialize it into `T`, reporting every problem.
/// The value is `None` when a structural problem stopped the walk.
pub fn parse<T: DeserializeOwned>(text: &str) -> (Option<T>, Vec<Problem>) {
    let sink = Sink::default();
    let (table, errors) = DeTable::parse_recoverable(text);
    for e in errors {
        let span = e.span().unwrap_or(0..0);
        sink.push(Code::S0001, span, e.message().trim().to_string());
    }
    let span = table.span();
    let root = Spanned::new(span, DeValue::Table(table.into_inner()));
    let value = T::deserialize(Walker {
        v: &root,
        sink: &sink,
    })
    .ok();
    let mut problems = sink.problems.into_inner();
    problems.sort_by_key(|p| (p.span.start, p.span.end));
    (value, problems)
}

#[derive(Clone, Copy)]
struct Walker<'a, 'i> {
    v: &'a Spanned<DeValue<'i>>,
    sink: &'a Sink,
}

fn type_name(v: &DeValue) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn int_of(v: &DeValue) -> Option<i128> {
    match v {
        DeValue::Integer(i) => i128::from_str_radix(i.as_str(), i.radix()).ok(),
        _ => None,
    }
}

impl<'a, 'i> Walker<'a, 'i> {
    fn span(&self) -> Range<usize> {
        self.v.span()
    }
    fn mismatch(&self, expected: &str) {
        self.sink.push(
            Code::S0003,
            self.span(),
            format!("expected {expected}, found {}", type_name(self.v.get_ref())),
        );
    }
    fn int<T: TryFrom<i128>>(&self, what: &str) -> Option<T> {
        match int_of(self.v.get_ref()) {
            Some(n) => match T::try_from(n) {
                Ok(x) => Some(x),
                Err(_) => {
                    self.sink.push(
                        Code::S0003,
                        self.span(),
                        format!("{n} does not fit in {what}"),
                    );
                    None
                }
            },
            None => {
                self.mismatch(&format!("an integer ({what})"));
                None
            }
        }
    }
}

macro_rules! ints {
    ($($method:ident $visit:ident $t:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
            let n = self.int::<$t>(stringify!($t)).unwrap_or_default();
            visitor.$visit(n)
        }
    )*};
}

impl<'de, 'a, 'i> de::Deserializer<'de> for Walker<'a, 'i> {
    type Error = WalkError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::String(s) => visitor.visit_str(s),
            DeValue::Integer(_) => match int_of(self.v.get_ref()) {
                Some(n) if n >= 0 && n <= u64::MAX as i128 => visitor.visit_u64(n as u64),
                Some(n) if n >= i64::MIN as i128 => visitor.visit_i64(n as i64),
                _ => {
                    self.sink
                        .push(Code::S0003, self.span(), "integer out of range".into());
                    visitor.visit_u64(0)
                }
            },
            DeValue::Float(f) => visitor.visit_f64(f.as_str().parse().unwrap_or(f64::NAN)),
            DeValue::Boolean(b) => visitor.visit_bool(*b),
            DeValue::Datetime(d) => visitor.visit_string(d.to_string()),
            DeValue::Array(a) => visitor.visit_seq(SeqW {
                items: a.iter(),
                sink: self.sink,
            }),
            DeValue::Table(t) => visitor.visit_map(MapW::new(t, self.sink, None)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::Boolean(b) => visitor.visit_bool(*b),
            _ => {
                self.mismatch("a boolean");
                visitor.visit_bool(false)
            }
        }
    }

    ints!(
        deserialize_u8 visit_u8 u8, deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32, deserialize_u64 visit_u64 u64,
        deserialize_i8 visit_i8 i8, deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32, deserialize_i64 visit_i64 i64,
        deserialize_u128 visit_u128 u128, deserialize_i128 visit_i128 i128
    );

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::Float(f) => visitor.visit_f64(f.as_str().parse().unwrap_or(f64::NAN)),
            v @ DeValue::Integer(_) => visitor.visit_f64(int_of(v).unwrap_or(0) as f64),
            _ => {
                self.mismatch("a number");
                visitor.visit_f64(0.0)
            }
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::String(s) => visitor.visit_str(s),
            _ => {
                self.mismatch("a string");
                visitor.visit_str("")
            }
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::Array(a) => visitor
                .visit_seq(SeqW {
                    items: a.iter(),
                    sink: self.sink,
                })
                .map_err(|e| settle(self.sink, e, self.span())),
            _ => {
                self.mismatch("an array");
                visitor.visit_seq(SeqW {
                    items: [].iter(),
                    sink: self.sink,
                })
            }
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::Array(a) if a.len() >= len => {
                if a.len() > len {
                    self.sink.push(
                        Code::S0003,
                        self.span(),
                        format!("expected an array of {len}, found {}", a.len()),
                    );
                }
                visitor
                    .visit_seq(SeqW {
                        items: a[..len].iter(),
                        sink: self.sink,
                    })
                    .map_err(|e| settle(self.sink, e, self.span()))
            }
            DeValue::Array(a) => {
                self.sink.push(
                    Code::S0003,
                    self.span(),
                    format!("expected an array of {len}, found {}", a.len()),
                );
                Err(reported())
            }
            _ => {
                self.mismatch(&format!("an array of {len}"));
                Err(reported())
            }
        }
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::Table(t) => visitor
                .visit_map(MapW::new(t, self.sink, None))
                .map_err(|e| settle(self.sink, e, self.span())),
            _ => {
                self.mismatch("a table");
                visitor.visit_map(MapW::empty(self.sink))
            }
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        if serde_spanned::de::is_spanned(name) {
            let span = self.span();
            return visitor.visit_map(serde_spanned::de::SpannedDeserializer::new(self, span));
        }
        match self.v.get_ref() {
            DeValue::Table(t) => visitor
                .visit_map(MapW::new(t, self.sink, Some(fields)))
                .map_err(|e| settle(self.sink, e, self.span())),
            _ => {
                self.mismatch("a table");
                Err(reported())
            }
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        match self.v.get_ref() {
            DeValue::String(s) => visitor
                .visit_enum(s.to_string().into_deserializer())
                .map_err(|e| settle(self.sink, e, self.span())),
            _ => {
                self.mismatch("a string");
                Err(reported())
            }
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_unit()
    }
}

impl<'de, 'a, 'i> IntoDeserializer<'de, WalkError> for Walker<'a, 'i> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

struct SeqW<'a, 'i> {
    items: std::slice::Iter<'a, Spanned<DeValue<'i>>>,
    sink: &'a Sink,
}

impl<'de, 'a, 'i> de::SeqAccess<'de> for SeqW<'a, 'i> {
    type Error = WalkError;
    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, WalkError> {
        match self.items.next() {
            Some(v) => seed
                .deserialize(Walker { v, sink: self.sink })
                .map(Some)
                .map_err(|e| settle(self.sink, e, v.span())),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

type Entry<'a, 'i> = (&'a Spanned<DeString<'i>>, &'a Spanned<DeValue<'i>>);

struct MapW<'a, 'i> {
    entries: std::vec::IntoIter<Entry<'a, 'i>>,
    value: Option<&'a Spanned<DeValue<'i>>>,
    sink: &'a Sink,
}

impl<'a, 'i> MapW<'a, 'i> {
    /// With `fields`, keys outside it are reported and skipped.
    fn new(t: &'a DeTable<'i>, sink: &'a Sink, fields: Option<&[&str]>) -> Self {
        let mut entries = Vec::new();
        for (k, v) in t.iter() {
            if let Some(fields) = fields
                && !fields.contains(&k.get_ref().as_ref())
            {
                let mut expected: Vec<&str> = fields.to_vec();
                expected.sort_unstable();
                sink.push(
                    Code::S0002,
                    k.span(),
                    format!(
                        "unknown key `{}`, expected one of: {}",
                        k.get_ref(),
                        expected.join(", ")
                    ),
                );
                continue;
            }
            entries.push((k, v));
        }
        MapW {
            entries: entries.into_iter(),
            value: None,
            sink,
        }
    }
    fn empty(sink: &'a Sink) -> Self {
        MapW {
            entries: Vec::new().into_iter(),
            value: None,
            sink,
        }
    }
}

impl<'de, 'a, 'i> de::MapAccess<'de> for MapW<'a, 'i> {
    type Error = WalkError;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, WalkError> {
        match self.entries.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(KeyW { k }).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, WalkError> {
        let v = self.value.take().ok_or_else(reported)?;
        seed.deserialize(Walker { v, sink: self.sink })
            .map_err(|e| settle(self.sink, e, v.span()))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// A table key, optionally read as `Spanned<String>`.
struct KeyW<'a, 'i> {
    k: &'a Spanned<DeString<'i>>,
}

impl<'de, 'a, 'i> de::Deserializer<'de> for KeyW<'a, 'i> {
    type Error = WalkError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, WalkError> {
        visitor.visit_str(self.k.get_ref())
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, WalkError> {
        if serde_spanned::de::is_spanned(name) {
            let s: String = self.k.get_ref().to_string();
            return visitor.visit_map(
                serde_spanned::de::SpannedDeserializer::<String, WalkError>::new(s, self.k.span()),
            );
        }
        let _ = fields;
        self.deserialize_any(visitor)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}
