//! Lenient number and string-or-list deserialisers for BAP params.
//!
//! BAP clients send numbers the way their language likes: the Python SDK sends
//! `100.0` for coordinates and sizes, JavaScript arithmetic can produce `33.333`
//! for a delay. Every integer-typed param therefore accepts any finite JSON
//! number and rounds it to the nearest integer (half away from zero); negative
//! values are rejected for unsigned fields. `null` is read as "absent" by the
//! `opt_*` variants (BAP-WIRE §0 rule 7).

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;

fn to_u64<E: serde::de::Error>(v: f64) -> Result<u64, E> {
    if !v.is_finite() {
        return Err(E::custom(format!("expected a finite number, got {v}")));
    }
    let r = v.round();
    if r < 0.0 {
        return Err(E::custom(format!(
            "expected a non-negative number, got {v}"
        )));
    }
    if r > u64::MAX as f64 {
        return Err(E::custom(format!("number {v} is too large")));
    }
    // In range and integral: the cast is exact enough for every BAP field.
    Ok(r as u64)
}

fn to_u32<E: serde::de::Error>(v: f64) -> Result<u32, E> {
    let n = to_u64::<E>(v)?;
    u32::try_from(n).map_err(|_| E::custom(format!("number {v} is too large")))
}

/// A required `u32` that also accepts `100.0`.
pub fn u32_<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    to_u32(f64::deserialize(d)?)
}

/// An optional unsigned integer: absent or `null` → `None`; `100.0` → `Some(100)`.
pub fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Option::<f64>::deserialize(d)?.map(to_u64).transpose()
}

/// An optional `u32`: absent or `null` → `None`; `2.0` → `Some(2)`.
pub fn opt_u32<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    Option::<f64>::deserialize(d)?.map(to_u32).transpose()
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// `"a"` or `["a","b"]` → `vec!["a","b"]` (BAP `action/select` `values`).
pub fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    match Option::<OneOrMany>::deserialize(d) {
        Ok(Some(OneOrMany::One(s))) => Ok(vec![s]),
        Ok(Some(OneOrMany::Many(v))) => Ok(v),
        Ok(None) => Ok(Vec::new()),
        Err(_) => Err(D::Error::custom("expected a string or an array of strings")),
    }
}

/// `null` → the type's default (for required lists where `null` means "none").
pub fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Debug)]
    struct T {
        #[serde(default, deserialize_with = "opt_u64")]
        a: Option<u64>,
        #[serde(deserialize_with = "u32_")]
        b: u32,
        #[serde(default, deserialize_with = "one_or_many")]
        v: Vec<String>,
    }

    #[test]
    fn floats_round_and_null_is_absent() {
        let t: T = serde_json::from_value(json!({"a": 100.0, "b": 33.4, "v": "x"})).unwrap();
        assert_eq!((t.a, t.b, t.v), (Some(100), 33, vec!["x".to_string()]));
        let t: T = serde_json::from_value(json!({"a": null, "b": 2, "v": ["p", "q"]})).unwrap();
        assert_eq!((t.a, t.b, t.v.len()), (None, 2, 2));
        let t: T = serde_json::from_value(json!({"b": 1.5})).unwrap();
        assert_eq!((t.a, t.b, t.v.len()), (None, 2, 0));
    }

    #[test]
    fn rejects_negative_and_wrong_types() {
        assert!(serde_json::from_value::<T>(json!({"b": -3})).is_err());
        assert!(serde_json::from_value::<T>(json!({"b": "3"})).is_err());
        assert!(serde_json::from_value::<T>(json!({"b": 5_000_000_000u64})).is_err());
        assert!(serde_json::from_value::<T>(json!({"b": 1, "v": 3})).is_err());
    }
}
