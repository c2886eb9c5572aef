//! Reading scenario files without serde's one leniency about tables: a
//! derived struct also accepts a sequence (its fields in order), so
//! `network.trim = [true, "1KB", 100]` would turn trimming on and
//! `network = []` would reset every network setting, both without a word.
//!
//! [`Tables`] wraps a deserializer and refuses a sequence wherever a struct
//! (a table of the file) is expected, at any depth below it. A struct read
//! inside an internally tagged enum (`[topology]`, `[[workload]]`) is read
//! from serde's buffered copy of the table, which the wrapper does not see:
//! such fields use [`tables`] (a list of tables) and the enums themselves
//! [`table`] (they are always tables).

use serde::de::{
    self, value::MapAccessDeserializer, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};
use serde::Deserialize;
use std::fmt;

/// The message of a refusal.
const NOT_A_TABLE: &str = "expected a table, found an array (write it as [section] or { key = value, ... })";

/// Deserializes a scenario file's text as `T`, refusing arrays for tables.
pub fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, toml::de::Error> {
    T::deserialize(Tables(toml::de::Deserializer::parse(text)?))
}

/// For `#[serde(deserialize_with)]`: a value that must be a table (an
/// internally tagged enum, whose derived visitor also takes a sequence).
pub fn table<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    struct Only<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Only<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a table")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
            Err(de::Error::custom(NOT_A_TABLE))
        }
        fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<T, A::Error> {
            T::deserialize(MapAccessDeserializer::new(m))
        }
    }
    d.deserialize_map(Only(std::marker::PhantomData))
}

/// For `#[serde(deserialize_with)]`: a field read through [`Tables`] (a
/// list of structs inside an internally tagged enum, e.g. `flows`).
pub fn tables<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(Tables(d))
}

/// A list of values that must each be a table (`[[workload]]`).
pub fn list_of_tables<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    struct Item<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Item<T> {
        type Value = T;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
            table(d)
        }
    }
    struct List<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for List<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a sequence of tables")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(a.size_hint().unwrap_or(0).min(1024));
            while let Some(x) = a.next_element_seed(Item(std::marker::PhantomData))? {
                out.push(x);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(List(std::marker::PhantomData))
}

/// A deserializer whose structs refuse sequences (see the module docs).
pub struct Tables<D>(pub D);

/// A visitor passed on by [`Tables`]; `table`: it reads a struct.
struct V<X> {
    inner: X,
    table: bool,
}

impl<X> V<X> {
    fn new(inner: X) -> Self {
        V { inner, table: false }
    }
}

struct Seed<S>(S);
struct Seq<A>(A);
struct Map<A>(A);
struct Enum<A>(A);
struct Variant<A>(A);

macro_rules! forward_de {
    ($($m:ident)*) => {
        $(fn $m<W: Visitor<'de>>(self, w: W) -> Result<W::Value, D::Error> {
            self.0.$m(V::new(w))
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tables<D> {
    type Error = D::Error;

    forward_de! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<W: Visitor<'de>>(self, name: &'static str, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_unit_struct(name, V::new(w))
    }

    fn deserialize_newtype_struct<W: Visitor<'de>>(self, name: &'static str, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, V::new(w))
    }

    fn deserialize_tuple<W: Visitor<'de>>(self, len: usize, w: W) -> Result<W::Value, D::Error> {
        self.0.deserialize_tuple(len, V::new(w))
    }

    fn deserialize_tuple_struct<W: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, V::new(w))
    }

    fn deserialize_struct<W: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_struct(name, fields, V { inner: w, table: true })
    }

    fn deserialize_enum<W: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        w: W,
    ) -> Result<W::Value, D::Error> {
        self.0.deserialize_enum(name, variants, V::new(w))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($m:ident: $t:ty)*) => {
        $(fn $m<E: de::Error>(self, v: $t) -> Result<Self::Value, E> {
            self.inner.$m(v)
        })*
    };
}

impl<'de, X: Visitor<'de>> Visitor<'de> for V<X> {
    type Value = X::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool: bool visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64 visit_i128: i128
        visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64 visit_u128: u128 visit_f32: f32
        visit_f64: f64 visit_char: char visit_str: &str visit_borrowed_str: &'de str visit_string: String
        visit_bytes: &[u8] visit_borrowed_bytes: &'de [u8] visit_byte_buf: Vec<u8>
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Tables(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Tables(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        if self.table {
            return Err(de::Error::custom(NOT_A_TABLE));
        }
        self.inner.visit_seq(Seq(a))
    }

    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(Map(a))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(Enum(a))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Tables(d))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<A> {
    type Error = A::Error;
    type Variant = Variant<A::Variant>;
    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), A::Error> {
        let (v, rest) = self.0.variant_seed(seed)?;
        Ok((v, Variant(rest)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<A> {
    type Error = A::Error;
    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }
    fn tuple_variant<W: Visitor<'de>>(self, len: usize, w: W) -> Result<W::Value, A::Error> {
        self.0.tuple_variant(len, V::new(w))
    }
    fn struct_variant<W: Visitor<'de>>(self, fields: &'static [&'static str], w: W) -> Result<W::Value, A::Error> {
        self.0.struct_variant(fields, V { inner: w, table: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Debug, PartialEq, Default)]
    #[serde(deny_unknown_fields, default)]
    struct Inner {
        a: bool,
        b: u32,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        #[serde(default)]
        inner: Inner,
        list: Option<Vec<Inner>>,
        #[serde(default)]
        nums: Vec<u32>,
        pair: Option<(u32, u32)>,
    }

    #[test]
    fn tables_are_read_and_arrays_for_them_refused_at_any_depth() {
        let ok: Outer = from_str("nums = [1, 2]\npair = [3, 4]\n[inner]\na = true\n[[list]]\nb = 5\n").unwrap();
        assert_eq!(ok.inner, Inner { a: true, b: 0 });
        assert_eq!(ok.list, Some(vec![Inner { a: false, b: 5 }]));
        assert_eq!((ok.nums, ok.pair), (vec![1, 2], Some((3, 4))));
        for text in ["inner = [true, 7]", "inner = []", "list = [[true, 7]]", "list = [{ a = true }, []]"] {
            let e = from_str::<Outer>(text).unwrap_err();
            assert!(e.message().contains("expected a table, found an array"), "{text}: {e}");
            assert!(e.span().is_some(), "{text}: {e}");
        }
    }
}
