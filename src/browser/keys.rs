//! Key names (US layout) -> CDP key events: `Enter`, `ArrowDown`, `F5`,
//! single characters, and combinations such as `Control+A` or `Shift+Tab`.
//!
//! Pure table code: no I/O. Unknown names are [`Error::InvalidInput`] with
//! examples of valid names.

use super::page::KeyEvent;
use crate::error::{Error, Result};

/// CDP modifier bits.
pub const ALT: i64 = 1;
pub const CONTROL: i64 = 2;
pub const META: i64 = 4;
pub const SHIFT: i64 = 8;

/// Examples quoted in error messages.
pub const EXAMPLES: &str =
    "Enter, Tab, Escape, Backspace, ArrowDown, F5, a, Control+A, Shift+Tab, Meta+Shift+K";

/// Named (non-character) keys: name, code, keyCode, text.
const NAMED: &[(&str, &str, i64, &str)] = &[
    ("Enter", "Enter", 13, "\r"),
    ("Tab", "Tab", 9, ""),
    ("Backspace", "Backspace", 8, ""),
    ("Delete", "Delete", 46, ""),
    ("Escape", "Escape", 27, ""),
    ("Space", "Space", 32, " "),
    ("ArrowUp", "ArrowUp", 38, ""),
    ("ArrowDown", "ArrowDown", 40, ""),
    ("ArrowLeft", "ArrowLeft", 37, ""),
    ("ArrowRight", "ArrowRight", 39, ""),
    ("Home", "Home", 36, ""),
    ("End", "End", 35, ""),
    ("PageUp", "PageUp", 33, ""),
    ("PageDown", "PageDown", 34, ""),
    ("Insert", "Insert", 45, ""),
    ("CapsLock", "CapsLock", 20, ""),
    ("ContextMenu", "ContextMenu", 93, ""),
    ("Shift", "ShiftLeft", 16, ""),
    ("Control", "ControlLeft", 17, ""),
    ("Alt", "AltLeft", 18, ""),
    ("Meta", "MetaLeft", 91, ""),
];

/// Aliases accepted for named keys and modifiers (lowercase).
const ALIASES: &[(&str, &str)] = &[
    ("return", "Enter"),
    ("esc", "Escape"),
    ("del", "Delete"),
    ("up", "ArrowUp"),
    ("down", "ArrowDown"),
    ("left", "ArrowLeft"),
    ("right", "ArrowRight"),
    ("ctrl", "Control"),
    ("control", "Control"),
    ("cmd", "Meta"),
    ("command", "Meta"),
    ("meta", "Meta"),
    ("option", "Alt"),
    ("alt", "Alt"),
    ("shift", "Shift"),
    ("controlormeta", "Control"),
];

/// US-layout punctuation: (unshifted, shifted, code, keyCode).
const PUNCT: &[(char, char, &str, i64)] = &[
    ('-', '_', "Minus", 189),
    ('=', '+', "Equal", 187),
    ('[', '{', "BracketLeft", 219),
    (']', '}', "BracketRight", 221),
    ('\\', '|', "Backslash", 220),
    (';', ':', "Semicolon", 186),
    ('\'', '"', "Quote", 222),
    (',', '<', "Comma", 188),
    ('.', '>', "Period", 190),
    ('/', '?', "Slash", 191),
    ('`', '~', "Backquote", 192),
];
const SHIFTED_DIGITS: &str = ")!@#$%^&*(";

fn canonical(name: &str) -> &str {
    let lower = name.to_ascii_lowercase();
    for (a, c) in ALIASES {
        if *a == lower {
            return c;
        }
    }
    for (n, ..) in NAMED {
        if n.eq_ignore_ascii_case(name) {
            return n;
        }
    }
    name
}

/// Modifier bit of a modifier key name, if it is one.
pub fn modifier_bit(name: &str) -> Option<i64> {
    match canonical(name) {
        "Alt" => Some(ALT),
        "Control" => Some(CONTROL),
        "Meta" => Some(META),
        "Shift" => Some(SHIFT),
        _ => None,
    }
}

/// The key event for one character, or `None` when the US layout has no key
/// for it (type it with `insertText` instead). The second value says whether
/// Shift must be held.
pub fn for_char(c: char) -> Option<(KeyEvent, bool)> {
    let ev = |key: String, code: String, key_code: i64, text: String| KeyEvent {
        key,
        code,
        key_code,
        text,
        modifiers: 0,
        location: 0,
    };
    if c.is_ascii_lowercase() {
        let up = c.to_ascii_uppercase();
        return Some((
            ev(c.to_string(), format!("Key{up}"), up as i64, c.to_string()),
            false,
        ));
    }
    if c.is_ascii_uppercase() {
        return Some((
            ev(c.to_string(), format!("Key{c}"), c as i64, c.to_string()),
            true,
        ));
    }
    if c.is_ascii_digit() {
        return Some((
            ev(c.to_string(), format!("Digit{c}"), c as i64, c.to_string()),
            false,
        ));
    }
    if let Some(i) = SHIFTED_DIGITS.find(c) {
        return Some((
            ev(
                c.to_string(),
                format!("Digit{i}"),
                48 + i as i64,
                c.to_string(),
            ),
            true,
        ));
    }
    match c {
        ' ' => return Some((ev(" ".into(), "Space".into(), 32, " ".into()), false)),
        '\n' | '\r' => return Some((ev("Enter".into(), "Enter".into(), 13, "\r".into()), false)),
        '\t' => return Some((ev("Tab".into(), "Tab".into(), 9, String::new()), false)),
        _ => {}
    }
    for (lo, hi, code, kc) in PUNCT {
        if c == *lo || c == *hi {
            return Some((
                ev(c.to_string(), (*code).into(), *kc, c.to_string()),
                c == *hi,
            ));
        }
    }
    None
}

/// One key by name (no `+`): a named key, `F1`..`F24`, or a single character.
pub fn key(name: &str) -> Result<KeyEvent> {
    let canon = canonical(name);
    for (n, code, kc, text) in NAMED {
        if *n == canon {
            let location = match *n {
                "Shift" | "Control" | "Alt" | "Meta" => 1,
                _ => 0,
            };
            return Ok(KeyEvent {
                key: if *n == "Space" {
                    " ".into()
                } else {
                    (*n).into()
                },
                code: (*code).into(),
                key_code: *kc,
                text: (*text).into(),
                modifiers: 0,
                location,
            });
        }
    }
    if let Some(n) = canon
        .strip_prefix(['F', 'f'])
        .and_then(|d| d.parse::<i64>().ok())
    {
        if (1..=24).contains(&n) {
            return Ok(KeyEvent {
                key: format!("F{n}"),
                code: format!("F{n}"),
                key_code: 111 + n,
                ..Default::default()
            });
        }
    }
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if let Some((k, _)) = for_char(c) {
            return Ok(k);
        }
        return Ok(KeyEvent {
            key: c.to_string(),
            text: c.to_string(),
            ..Default::default()
        });
    }
    Err(Error::invalid_field(
        "key",
        format!("unknown key {name:?}; use names such as {EXAMPLES}"),
    ))
}

/// A parsed combination: modifier keys (in press order) and the main key,
/// with `modifiers` set and `text` adjusted (no text while Control, Alt or
/// Meta is held; upper case while Shift is held).
#[derive(Debug, Clone)]
pub struct Combo {
    pub modifiers: Vec<KeyEvent>,
    pub key: KeyEvent,
}

/// Parse `Control+Shift+K`, `Enter`, `a`, `+` (a lone plus) …
pub fn combo(spec: &str) -> Result<Combo> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(Error::invalid_field(
            "key",
            format!("empty key; use names such as {EXAMPLES}"),
        ));
    }
    let parts: Vec<&str> = if spec == "+" {
        vec!["+"]
    } else if let Some(head) = spec.strip_suffix("++") {
        let mut v: Vec<&str> = head.split('+').collect();
        v.push("+");
        v
    } else {
        spec.split('+').collect()
    };
    let (last, mods) = match parts.split_last() {
        Some(x) => x,
        None => return Err(Error::invalid_field("key", "empty key")),
    };
    let mut mask = 0;
    let mut modifiers = Vec::new();
    for m in mods {
        let bit = modifier_bit(m).ok_or_else(|| {
            Error::invalid_field(
                "key",
                format!(
                    "{m:?} in {spec:?} is not a modifier (Control, Shift, Alt, Meta); use names such as {EXAMPLES}"
                ),
            )
        })?;
        mask |= bit;
        let mut k = key(m)?;
        k.modifiers = mask;
        modifiers.push(k);
    }
    let mut k = key(last)?;
    // `Control+A` means the A key: use the lower-case character, and upper
    // case only when Shift is held.
    if last.chars().count() == 1 {
        if let Some(c) = last.chars().next() {
            if c.is_ascii_alphabetic() {
                let c = if mask & SHIFT != 0 {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
                k.key = c.to_string();
                k.text = c.to_string();
            }
        }
    }
    if mask & (CONTROL | ALT | META) != 0 {
        k.text.clear();
    }
    k.modifiers = mask;
    Ok(Combo { modifiers, key: k })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_and_chars() {
        let e = key("Enter").unwrap();
        assert_eq!(
            (e.key.as_str(), e.key_code, e.text.as_str()),
            ("Enter", 13, "\r")
        );
        let e = key("arrowdown").unwrap();
        assert_eq!(
            (e.key.as_str(), e.code.as_str()),
            ("ArrowDown", "ArrowDown")
        );
        let e = key("F5").unwrap();
        assert_eq!((e.key.as_str(), e.key_code), ("F5", 116));
        let e = key("a").unwrap();
        assert_eq!(
            (e.code.as_str(), e.key_code, e.text.as_str()),
            ("KeyA", 65, "a")
        );
        let e = key("?").unwrap();
        assert_eq!((e.code.as_str(), e.key_code), ("Slash", 191));
        assert_eq!(key("é").unwrap().text, "é");
    }

    #[test]
    fn unknown_key_lists_examples() {
        let err = key("Entr").unwrap_err();
        assert_eq!(err.code(), "invalid_input");
        assert!(err.to_string().contains("ArrowDown"));
        assert!(combo("Hyper+A").is_err());
        assert!(combo("").is_err());
    }

    #[test]
    fn combos() {
        let c = combo("Control+A").unwrap();
        assert_eq!(c.modifiers.len(), 1);
        assert_eq!(c.key.key, "a");
        assert_eq!(c.key.text, "");
        assert_eq!(c.key.modifiers, CONTROL);
        let c = combo("Shift+Tab").unwrap();
        assert_eq!(c.key.modifiers, SHIFT);
        assert_eq!(c.key.key, "Tab");
        let c = combo("Shift+a").unwrap();
        assert_eq!(c.key.text, "A");
        let c = combo("Control++").unwrap();
        assert_eq!(c.key.key, "+");
        assert_eq!(combo("+").unwrap().key.key, "+");
    }

    #[test]
    fn shifted_chars() {
        let (k, shift) = for_char('A').unwrap();
        assert!(shift);
        assert_eq!(k.code, "KeyA");
        let (k, shift) = for_char('!').unwrap();
        assert!(shift);
        assert_eq!(k.code, "Digit1");
        assert!(for_char('ü').is_none());
    }
}
