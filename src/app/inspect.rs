//! Page inspection for the observe/* and agent/extract calls: element
//! properties, page content (text, HTML, markdown), the frame list and
//! schema-driven extraction without a model. Each is ONE in-page call of
//! `inspect.js`; sensitive values come back redacted.

use super::{PageState, Session};
use crate::act::{self, Resolved, TargetSpec};
use crate::error::{Error, Result};
use serde_json::{json, Value};

const INSPECT_JS: &str = include_str!("inspect.js");

/// What `extract` found.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub data: Value,
    /// Fields (or items) found, out of `total` asked for.
    pub found: usize,
    pub total: usize,
    /// CSS path and text of the elements the values came from.
    pub sources: Vec<(String, Option<String>)>,
}

/// How to pull structured data out of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExtractMode {
    #[default]
    Single,
    List,
    Table,
}

async fn run(page: &PageState, op: &str, node: Option<&Resolved>, arg: &Value) -> Result<Value> {
    let node = node.map_or_else(|| "undefined".to_string(), act::node_expr);
    let expr = format!("({INSPECT_JS})({}, {node}, {arg})", Value::from(op));
    page.page.eval(&expr).await
}

/// Coerce an extracted value to the schema's primitive type.
pub fn coerce(v: Value, schema: &Value) -> Value {
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    match (ty, v) {
        (_, Value::Null) => Value::Null,
        ("number" | "integer", Value::String(s)) => {
            let digits: String = s
                .chars()
                .filter(|c| c.is_ascii_digit() || *c == '.' || *c == '-')
                .collect();
            match digits.parse::<f64>() {
                Ok(n) if ty == "integer" => json!(n.round() as i64),
                Ok(n) => json!(n),
                Err(_) => Value::Null,
            }
        }
        ("boolean", Value::String(s)) => {
            let l = s.trim().to_ascii_lowercase();
            match l.as_str() {
                "true" | "yes" | "y" | "on" | "1" | "✓" | "✔" | "in stock" | "available" => {
                    Value::Bool(true)
                }
                "false" | "no" | "n" | "off" | "0" | "✗" | "out of stock" | "unavailable" => {
                    Value::Bool(false)
                }
                _ => Value::Null,
            }
        }
        ("object", Value::Object(mut o)) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (k, ps) in props {
                    if let Some(v) = o.remove(k) {
                        o.insert(k.clone(), coerce(v, ps));
                    }
                }
            }
            Value::Object(o)
        }
        ("array", Value::Array(a)) => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array(a.into_iter().map(|x| coerce(x, &items)).collect())
        }
        ("string", Value::String(s)) => Value::String(s),
        (_, other) => other,
    }
}

impl Session {
    /// `observe/element`: the requested properties of one element (all when
    /// `properties` is empty). `{found:false}` when nothing matches.
    pub async fn element_properties(
        &self,
        page: &PageState,
        spec: &TargetSpec,
        properties: &[&str],
    ) -> Result<Value> {
        let el = match self.resolve(page, spec).await {
            Ok(el) => el,
            Err(Error::ElementNotFound { .. }) => return Ok(json!({"found": false})),
            Err(e) => return Err(e),
        };
        run(page, "element", Some(&el), &json!(properties)).await
    }

    /// `observe/content`: `text`, `html` or `markdown` of the page.
    pub async fn content(&self, page: &PageState, format: &str) -> Result<String> {
        let v = run(page, "content", None, &json!(format)).await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// The frames of the page: `{frameId, name, url, parentFrameId, isMain}`
    /// (ids are paths such as `main/checkout`, as in observations).
    pub async fn frames(&self, page: &PageState) -> Result<Vec<Value>> {
        let v = run(page, "frames", None, &Value::Null).await?;
        Ok(v.as_array().cloned().unwrap_or_default())
    }

    /// Schema-driven extraction from page text and structure (no model):
    /// microdata, data attributes, ids and classes that name a field,
    /// label/value pairs (`dt/dd`, `th/td`, `label`, `Key: value`), repeated
    /// same-shaped siblings for lists, header-matched columns for tables.
    pub async fn extract(
        &self,
        page: &PageState,
        scope: Option<&TargetSpec>,
        schema: &Value,
        mode: ExtractMode,
    ) -> Result<Extracted> {
        let el = match scope {
            Some(s) => Some(self.resolve(page, s).await?),
            None => None,
        };
        let mode_s = match mode {
            ExtractMode::Single => "single",
            ExtractMode::List => "list",
            ExtractMode::Table => "table",
        };
        let r = run(
            page,
            "extract",
            el.as_ref(),
            &json!({"schema": schema, "mode": mode_s}),
        )
        .await?;
        let data = r.get("data").cloned().unwrap_or(Value::Null);
        let data = match (mode, schema.get("type").and_then(Value::as_str)) {
            (ExtractMode::Single, Some("array")) | (ExtractMode::List | ExtractMode::Table, _) => {
                let items = if schema.get("type").and_then(Value::as_str) == Some("array") {
                    schema.get("items").cloned().unwrap_or(Value::Null)
                } else {
                    schema.clone()
                };
                match data {
                    Value::Array(a) => {
                        Value::Array(a.into_iter().map(|x| coerce(x, &items)).collect())
                    }
                    other => other,
                }
            }
            _ => coerce(data, schema),
        };
        let sources = r
            .get("sources")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|s| {
                        let sel = s.get("selector")?.as_str()?.to_string();
                        let text = s.get("text").and_then(Value::as_str).map(str::to_string);
                        Some((sel, text))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let n = |k: &str| r.get(k).and_then(Value::as_u64).unwrap_or(0) as usize;
        Ok(Extracted {
            data,
            found: n("found"),
            total: n("total").max(1),
            sources,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coerce_numbers_booleans_and_nested() {
        assert_eq!(
            coerce(json!("$1,299.50"), &json!({"type": "number"})),
            json!(1299.5)
        );
        assert_eq!(
            coerce(json!("12 items"), &json!({"type": "integer"})),
            json!(12)
        );
        assert_eq!(
            coerce(json!("n/a"), &json!({"type": "number"})),
            Value::Null
        );
        assert_eq!(
            coerce(json!("Yes"), &json!({"type": "boolean"})),
            json!(true)
        );
        let schema = json!({"type": "object", "properties": {"price": {"type": "number"}, "name": {"type": "string"}}});
        assert_eq!(
            coerce(json!({"price": "€ 5", "name": "Kettle"}), &schema),
            json!({"price": 5.0, "name": "Kettle"})
        );
    }
}
