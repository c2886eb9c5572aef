//! Test support only: a tiny self-describing value tree that implements
//! `serde::Deserializer`, so the scenario-file specs (internally tagged enums
//! with defaults and `deny_unknown_fields`) can be deserialized in unit tests
//! without a format crate.

use serde::de::value::{Error, MapDeserializer, SeqDeserializer};
use serde::de::{IntoDeserializer, Visitor};
use serde::{forward_to_deserialize_any, Deserialize, Deserializer};

/// A value as a scenario file would hold it.
#[derive(Clone, Debug)]
pub enum V {
    S(String),
    U(u64),
    F(f64),
    B(bool),
    L(Vec<V>),
    M(Vec<(String, V)>),
}

/// A string value.
pub fn s(x: &str) -> V {
    V::S(x.to_string())
}

/// A table from (key, value) pairs.
pub fn m(kv: &[(&str, V)]) -> V {
    V::M(kv.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
}

/// Deserializes `T` from a value tree.
pub fn from<'de, T: Deserialize<'de>>(v: V) -> Result<T, String> {
    T::deserialize(v).map_err(|e| e.to_string())
}

impl<'de> Deserializer<'de> for V {
    type Error = Error;

    fn deserialize_any<W: Visitor<'de>>(self, w: W) -> Result<W::Value, Error> {
        match self {
            V::S(x) => w.visit_string(x),
            V::U(x) => w.visit_u64(x),
            V::F(x) => w.visit_f64(x),
            V::B(x) => w.visit_bool(x),
            V::L(x) => w.visit_seq(SeqDeserializer::new(x.into_iter())),
            V::M(x) => w.visit_map(MapDeserializer::new(x.into_iter())),
        }
    }

    fn deserialize_option<W: Visitor<'de>>(self, w: W) -> Result<W::Value, Error> {
        w.visit_some(self)
    }

    fn deserialize_enum<W: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        w: W,
    ) -> Result<W::Value, Error> {
        match self {
            V::S(x) => x.into_deserializer().deserialize_enum(name, variants, w),
            other => other.deserialize_any(w),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, Error> for V {
    type Deserializer = V;
    fn into_deserializer(self) -> V {
        self
    }
}
