//! The step grammar of `pinpoint act --step`: `ACTION TARGET [ARGS]`.
//!
//! Targets: `@ref`, `css=…`, `xpath=…` (or a bare `//…`), `text=…`,
//! `role=button[name="Save"]`, `testid=…`, `label=…`, `placeholder=…`,
//! `x,y`; anything else is a CSS selector. Quoted strings (`"…"` or `'…'`,
//! backslash escapes) hold spaces. Pure: no I/O.

use super::{Action, ClickOptions, Direction, DragTo, Scroll, SelectOption, Target, TargetSpec};
use crate::browser::{keys, MouseButton};
use crate::error::{Error, Result};

/// One parsed step: the target (absent for page-level `press`/`scroll`) and the action.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub target: Option<TargetSpec>,
    pub action: Action,
}

const ACTIONS: &str = "click, dblclick, rightclick, hover, fill, clear, type, press, select, check, uncheck, scroll, upload, drag";

fn bad(msg: impl Into<String>) -> Error {
    Error::invalid_field("step", msg)
}

/// Split a step into words, honouring quotes.
fn words(s: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), c) => cur.push(c),
            (None, '"') | (None, '\'') => {
                // A quote inside a word (`text="Save"`) is kept for the
                // target parser (it means an exact match).
                if has {
                    cur.push(c);
                    let mut closed = false;
                    for n in chars.by_ref() {
                        cur.push(n);
                        if n == c {
                            closed = true;
                            break;
                        }
                    }
                    if !closed {
                        return Err(bad(format!("unclosed quote in {s:?}")));
                    }
                } else {
                    quote = Some(c);
                    has = true;
                }
            }
            (None, c) if c.is_whitespace() => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (None, c) => {
                cur.push(c);
                has = true;
            }
        }
    }
    if quote.is_some() {
        return Err(bad(format!("unclosed quote in {s:?}")));
    }
    if has {
        out.push(cur);
    }
    Ok(out)
}

fn unquote(s: &str) -> String {
    let t = s.trim();
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return t[1..t.len() - 1].to_string();
        }
    }
    t.to_string()
}

/// Parse one target (see the module doc). A trailing ` >> nth=N` picks a match.
pub fn parse_target(s: &str) -> Result<TargetSpec> {
    let s = s.trim();
    let (s, index) = match s.rsplit_once(">> nth=") {
        Some((head, n)) => (
            head.trim(),
            Some(
                n.trim()
                    .parse::<usize>()
                    .map_err(|_| bad(format!("bad nth= index in {s:?}")))?,
            ),
        ),
        None => (s, None),
    };
    if s.is_empty() {
        return Err(bad("empty target"));
    }
    let exact_of = |v: &str| {
        let v = v.trim();
        let quoted = v.len() >= 2 && v.starts_with('"') && v.ends_with('"');
        (unquote(v), quoted)
    };
    let target = if let Some(r) = s.strip_prefix('@') {
        Target::Ref(format!("@{r}"))
    } else if let Some(v) = s.strip_prefix("css=") {
        Target::Css(v.to_string())
    } else if let Some(v) = s.strip_prefix("xpath=") {
        Target::XPath(v.to_string())
    } else if s.starts_with("//") || s.starts_with("(//") {
        Target::XPath(s.to_string())
    } else if let Some(v) = s.strip_prefix("text=") {
        let (text, exact) = exact_of(v);
        Target::Text { text, exact }
    } else if let Some(v) = s.strip_prefix("label=") {
        let (label, exact) = exact_of(v);
        Target::Label { label, exact }
    } else if let Some(v) = s.strip_prefix("placeholder=") {
        let (text, exact) = exact_of(v);
        Target::Placeholder { text, exact }
    } else if let Some(v) = s
        .strip_prefix("testid=")
        .or_else(|| s.strip_prefix("data-testid="))
    {
        Target::TestId(unquote(v))
    } else if let Some(v) = s.strip_prefix("role=") {
        parse_role(v)?
    } else if let Some((x, y)) = s
        .split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?)))
    {
        Target::Point { x, y }
    } else {
        Target::Css(s.to_string())
    };
    Ok(TargetSpec { target, index })
}

/// `button`, `button[name="Save"]`, `button[name="Save" i]` (case-insensitive, substring).
fn parse_role(v: &str) -> Result<Target> {
    let v = v.trim();
    let Some((role, rest)) = v.split_once('[') else {
        return Ok(Target::Role {
            role: v.to_string(),
            name: None,
            exact: false,
        });
    };
    let rest = rest
        .strip_suffix(']')
        .ok_or_else(|| bad(format!("role selector {v:?} lacks a closing ]")))?;
    let rest = rest
        .trim()
        .strip_prefix("name")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('='))
        .ok_or_else(|| bad(format!("role selector {v:?}: expected [name=\"…\"]")))?
        .trim();
    let (rest, insensitive) = match rest.strip_suffix(" i") {
        Some(r) => (r.trim(), true),
        None => (rest, false),
    };
    let quoted = rest.starts_with('"') || rest.starts_with('\'');
    Ok(Target::Role {
        role: role.trim().to_string(),
        name: Some(unquote(rest)),
        exact: quoted && !insensitive,
    })
}

fn need<'a>(w: &'a [String], i: usize, what: &str, step: &str) -> Result<&'a str> {
    w.get(i)
        .map(String::as_str)
        .ok_or_else(|| bad(format!("{step:?}: missing {what}")))
}

/// Parse one `--step`.
pub fn parse_step(step: &str) -> Result<Step> {
    // `css=li >> nth=2` is one target: glue `>>` to its neighbours.
    let mut w: Vec<String> = Vec::new();
    let mut glue = false;
    for word in words(step)? {
        if word == ">>" && !w.is_empty() {
            if let Some(last) = w.last_mut() {
                last.push_str(" >>");
            }
            glue = true;
        } else if glue {
            if let Some(last) = w.last_mut() {
                last.push(' ');
                last.push_str(&word);
            }
            glue = false;
        } else {
            w.push(word);
        }
    }
    let Some(verb) = w.first() else {
        return Err(bad("empty step"));
    };
    let verb = verb.to_ascii_lowercase();
    let target = |i: usize| -> Result<TargetSpec> { parse_target(need(&w, i, "target", step)?) };
    let click = |button, click_count| ClickOptions {
        button,
        click_count,
        ..Default::default()
    };
    let (target, action) = match verb.as_str() {
        "click" => (Some(target(1)?), Action::Click(click(MouseButton::Left, 1))),
        "dblclick" => (Some(target(1)?), Action::Click(click(MouseButton::Left, 2))),
        "rightclick" => (
            Some(target(1)?),
            Action::Click(click(MouseButton::Right, 1)),
        ),
        "hover" => (Some(target(1)?), Action::Hover { position: None }),
        "fill" => (
            Some(target(1)?),
            Action::Fill {
                text: need(&w, 2, "text", step)?.to_string(),
            },
        ),
        "clear" => (Some(target(1)?), Action::Clear),
        "type" => (
            Some(target(1)?),
            Action::Type {
                text: need(&w, 2, "text", step)?.to_string(),
                delay_ms: 0,
            },
        ),
        "press" => {
            // `press KEY` (focused element) or `press TARGET KEY…`.
            if w.len() == 2 {
                keys::combo(&w[1])?;
                (
                    None,
                    Action::Press {
                        keys: vec![w[1].clone()],
                    },
                )
            } else {
                (
                    Some(target(1)?),
                    Action::Press {
                        keys: w.get(2..).unwrap_or_default().to_vec(),
                    },
                )
            }
        }
        "select" => {
            let opts: Vec<SelectOption> = w
                .get(2..)
                .unwrap_or_default()
                .iter()
                .map(|v| {
                    if let Some(l) = v.strip_prefix("label=") {
                        SelectOption::Label(l.to_string())
                    } else if let Some(i) = v.strip_prefix("index=").and_then(|i| i.parse().ok()) {
                        SelectOption::Index(i)
                    } else {
                        SelectOption::Value(v.strip_prefix("value=").unwrap_or(v).to_string())
                    }
                })
                .collect();
            if opts.is_empty() {
                return Err(bad(format!("{step:?}: missing option value(s)")));
            }
            (Some(target(1)?), Action::Select { options: opts })
        }
        "check" => (Some(target(1)?), Action::Check),
        "uncheck" => (Some(target(1)?), Action::Uncheck),
        "scroll" => {
            // scroll [TARGET|page] (up|down|left|right) [AMOUNT] | DX,DY | to TARGET
            let (t, rest) = match w.get(1).map(String::as_str) {
                Some("page") => (None, 2),
                Some(d) if direction(d).is_some() => (None, 1),
                Some("to") => (None, 1),
                Some(_) => (Some(target(1)?), 2),
                None => return Err(bad(format!("{step:?}: missing direction"))),
            };
            let what = need(&w, rest, "direction, DX,DY or `to TARGET`", step)?;
            let s = if what == "to" {
                Scroll::To(target(rest + 1)?)
            } else if let Some(d) = direction(what) {
                let amount = match w.get(rest + 1) {
                    Some(a) => a
                        .parse::<f64>()
                        .map_err(|_| bad(format!("{step:?}: bad amount {a:?}")))?,
                    None => 300.0,
                };
                Scroll::Direction {
                    direction: d,
                    amount,
                }
            } else if let Some((dx, dy)) = what
                .split_once(',')
                .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
            {
                Scroll::Delta { dx, dy }
            } else {
                return Err(bad(format!(
                    "{step:?}: expected up|down|left|right [AMOUNT], DX,DY or `to TARGET`"
                )));
            };
            (t, Action::Scroll(s))
        }
        "upload" => {
            let files: Vec<std::path::PathBuf> = w
                .get(2..)
                .unwrap_or_default()
                .iter()
                .map(std::path::PathBuf::from)
                .collect();
            if files.is_empty() {
                return Err(Error::invalid_field(
                    "files",
                    format!("{step:?}: missing file(s)"),
                ));
            }
            (Some(target(1)?), Action::Upload { files })
        }
        "drag" => {
            let to = need(&w, 2, "drop target", step)?;
            let to = match parse_target(to)?.target {
                Target::Point { x, y } => DragTo::Point { x, y },
                _ => DragTo::Target(parse_target(to)?),
            };
            (Some(target(1)?), Action::Drag { to })
        }
        other => {
            return Err(bad(format!(
                "unknown action {other:?}; use one of {ACTIONS}"
            )))
        }
    };
    Ok(Step { target, action })
}

fn direction(s: &str) -> Option<Direction> {
    Some(match s.to_ascii_lowercase().as_str() {
        "up" => Direction::Up,
        "down" => Direction::Down,
        "left" => Direction::Left,
        "right" => Direction::Right,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        assert_eq!(
            parse_target("@save").unwrap().target,
            Target::Ref("@save".into())
        );
        assert_eq!(
            parse_target("css=#a > b").unwrap().target,
            Target::Css("#a > b".into())
        );
        assert_eq!(
            parse_target("role=button[name=\"Save\"]").unwrap().target,
            Target::Role {
                role: "button".into(),
                name: Some("Save".into()),
                exact: true
            }
        );
        assert_eq!(
            parse_target("text=Click me").unwrap().target,
            Target::Text {
                text: "Click me".into(),
                exact: false
            }
        );
        assert_eq!(
            parse_target("10, 20.5").unwrap().target,
            Target::Point { x: 10.0, y: 20.5 }
        );
        assert_eq!(
            parse_target("//button").unwrap().target,
            Target::XPath("//button".into())
        );
        let t = parse_target("css=button >> nth=2").unwrap();
        assert_eq!(t.index, Some(2));
        assert_eq!(t.target, Target::Css("button".into()));
        assert!(parse_target("role=button[nam=x]").is_err());
    }

    #[test]
    fn steps() {
        let s = parse_step("fill @q \"hello world\"").unwrap();
        assert_eq!(
            s.action,
            Action::Fill {
                text: "hello world".into()
            }
        );
        let s = parse_step("click 'text=Click me'").unwrap();
        assert!(matches!(
            s.target.unwrap().target,
            Target::Text { exact: false, .. }
        ));
        let s = parse_step("click text=\"Click me\"").unwrap();
        assert_eq!(
            s.target.unwrap().target,
            Target::Text {
                text: "Click me".into(),
                exact: true
            }
        );
        let s = parse_step("click role=button[name=\"Save it\"]").unwrap();
        assert!(matches!(
            s.target.unwrap().target,
            Target::Role { exact: true, .. }
        ));
        let s = parse_step("press Enter").unwrap();
        assert!(s.target.is_none());
        let s = parse_step("press @k Control+A Delete").unwrap();
        assert_eq!(
            s.action,
            Action::Press {
                keys: vec!["Control+A".into(), "Delete".into()]
            }
        );
        let s = parse_step("select @s apple label=Banana index=3").unwrap();
        assert_eq!(
            s.action,
            Action::Select {
                options: vec![
                    SelectOption::Value("apple".into()),
                    SelectOption::Label("Banana".into()),
                    SelectOption::Index(3)
                ]
            }
        );
        let s = parse_step("click css=li >> nth=2").unwrap();
        assert_eq!(s.target.unwrap().index, Some(2));
        let s = parse_step("scroll down 500").unwrap();
        assert!(s.target.is_none());
        let s = parse_step("scroll @box 0,200").unwrap();
        assert_eq!(
            s.action,
            Action::Scroll(Scroll::Delta { dx: 0.0, dy: 200.0 })
        );
        let s = parse_step("scroll to @bottom").unwrap();
        assert!(matches!(s.action, Action::Scroll(Scroll::To(_))));
        let s = parse_step("drag @a 100,200").unwrap();
        assert_eq!(
            s.action,
            Action::Drag {
                to: DragTo::Point { x: 100.0, y: 200.0 }
            }
        );
        assert!(parse_step("jump @a").is_err());
        assert!(parse_step("press Entr").is_err());
        assert!(parse_step("fill @a \"open").is_err());
        assert!(parse_step("upload @f").is_err());
    }
}
