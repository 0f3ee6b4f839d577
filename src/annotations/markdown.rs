//! Markdown export of a session's annotations at four detail levels
//! (AFS "Output Formats": compact → standard → detailed → forensic).
//!
//! Pure: no I/O, output depends only on its inputs (deterministic, so it can
//! be checked in as golden files).

use std::fmt::Write as _;

use serde_json::Value;

use super::model::{iso_from_ms, Annotation, Session};
use crate::error::{Error, Result};

/// How much of each annotation to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// One line per annotation: element, feedback, severity.
    Compact,
    /// The AFS markdown block: element, path, feedback, severity, intent, status, thread.
    Standard,
    /// Standard + URL, React tree, source, position, classes, selected/nearby text, accessibility.
    Detailed,
    /// Detailed + environment, ids, timestamps, computed styles and every browser field.
    Forensic,
}

impl Level {
    pub const ALL: [Level; 4] = [
        Level::Compact,
        Level::Standard,
        Level::Detailed,
        Level::Forensic,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Compact => "compact",
            Level::Standard => "standard",
            Level::Detailed => "detailed",
            Level::Forensic => "forensic",
        }
    }
    pub fn parse(s: &str) -> Result<Level> {
        Ok(match s {
            "compact" => Level::Compact,
            "standard" => Level::Standard,
            "detailed" => Level::Detailed,
            "forensic" => Level::Forensic,
            _ => {
                return Err(Error::invalid_field(
                    "level",
                    "level must be one of compact, standard, detailed, forensic",
                ))
            }
        })
    }
}

/// Short element label: the last segment of the path (`button.cta`), else the tag,
/// else the source file and line for source-anchored annotations.
fn label(a: &Annotation) -> String {
    if let Some(last) = a
        .element_path
        .as_deref()
        .and_then(|p| p.rsplit('>').next())
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        return last.to_owned();
    }
    if let Some(e) = a.element.as_deref().filter(|e| !e.is_empty()) {
        return e.to_owned();
    }
    if let Some(src) = &a.source {
        let file = src.resource.rsplit('/').next().unwrap_or(&src.resource);
        return match &src.range {
            Some(r) => format!("{file}:{}", r.start.line + 1),
            None => file.to_owned(),
        };
    }
    "(no element)".into()
}

/// Feedback on one line (newlines folded).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn field(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(v) = value.filter(|v| !v.is_empty()) {
        let _ = writeln!(out, "**{name}:** {}", one_line(v));
    }
}

fn num(v: &Option<serde_json::Number>) -> Option<String> {
    v.as_ref().map(|n| n.to_string())
}

fn fmt_px(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(v) if v.fract() == 0.0 => format!("{}", v as i64),
        Some(v) => format!("{v:.1}"),
        None => n.to_string(),
    }
}

/// Render one session.
pub fn export(session: &Session, annotations: &[Annotation], level: Level) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Feedback: {}", session.url);
    let _ = writeln!(out);
    if level == Level::Forensic {
        let _ = writeln!(out, "## Environment");
        field(&mut out, "Session", Some(&session.id));
        field(&mut out, "URL", Some(&session.url));
        let status = serde_json::to_value(session.status).unwrap_or(Value::Null);
        field(&mut out, "Session status", status.as_str());
        field(&mut out, "Created", Some(&session.created_at));
        field(&mut out, "Updated", session.updated_at.as_deref());
        field(&mut out, "Project", session.project_id.as_deref());
        if let Some(m) = &session.metadata {
            let _ = writeln!(out, "**Metadata:** `{m}`");
        }
        let _ = writeln!(out, "**Annotations:** {}", annotations.len());
        let _ = writeln!(out);
    }
    if annotations.is_empty() {
        let _ = writeln!(out, "_No annotations._");
        return out;
    }
    for (i, a) in annotations.iter().enumerate() {
        let n = i + 1;
        if level == Level::Compact {
            let mut line = format!("{n}. **{}**: {}", label(a), one_line(&a.comment));
            let tags: Vec<&str> = [a.severity.map(|s| s.as_str()), a.status.map(|s| s.as_str())]
                .into_iter()
                .flatten()
                .collect();
            if !tags.is_empty() {
                let _ = write!(line, " ({})", tags.join(", "));
            }
            let _ = writeln!(out, "{line}");
            continue;
        }
        let _ = writeln!(out, "## Annotation #{n}");
        field(&mut out, "Element", Some(&label(a)));
        field(&mut out, "Path", a.element_path.as_deref());
        if level >= Level::Detailed {
            field(&mut out, "URL", a.url.as_deref());
            field(&mut out, "React", a.react_components.as_deref());
            field(&mut out, "Source", a.source_file.as_deref());
            if let Some(src) = &a.source {
                let anchor = match &src.range {
                    Some(r) => format!(
                        "{} {}:{}-{}:{} (turn {})",
                        src.resource,
                        r.start.line + 1,
                        r.start.character + 1,
                        r.end.line + 1,
                        r.end.character + 1,
                        src.turn_id
                    ),
                    None => format!("{} (turn {})", src.resource, src.turn_id),
                };
                field(&mut out, "Anchor", Some(&anchor));
            }
            if let Some(b) = &a.bounding_box {
                let pos = format!(
                    "{}px, {}px ({}×{}px)",
                    fmt_px(&b.x),
                    fmt_px(&b.y),
                    fmt_px(&b.width),
                    fmt_px(&b.height)
                );
                field(&mut out, "Position", Some(&pos));
            }
            field(&mut out, "Classes", a.css_classes.as_deref());
            field(&mut out, "Selected text", a.selected_text.as_deref());
            field(&mut out, "Nearby text", a.nearby_text.as_deref());
            field(&mut out, "Accessibility", a.accessibility.as_deref());
        }
        field(&mut out, "Feedback", Some(&a.comment));
        field(&mut out, "Severity", a.severity.map(|s| s.as_str()));
        field(&mut out, "Intent", a.intent.map(|s| s.as_str()));
        field(&mut out, "Status", a.status.map(|s| s.as_str()));
        if level == Level::Forensic {
            field(&mut out, "ID", Some(&a.id));
            field(&mut out, "Author", a.author_id.as_deref());
            field(&mut out, "Kind", a.kind.as_deref());
            let ts = a
                .timestamp
                .as_ref()
                .and_then(|n| n.as_i64())
                .map(iso_from_ms);
            field(&mut out, "Captured", ts.as_deref());
            field(
                &mut out,
                "Created",
                a.created_at.map(iso_from_ms).as_deref(),
            );
            field(
                &mut out,
                "Updated",
                a.updated_at.map(iso_from_ms).as_deref(),
            );
            field(
                &mut out,
                "Resolved",
                a.resolved_at.map(iso_from_ms).as_deref(),
            );
            field(&mut out, "Resolved by", a.resolved_by.map(|r| r.as_str()));
            if let (Some(x), Some(y)) = (num(&a.x), num(&a.y)) {
                let fixed = if a.is_fixed == Some(true) {
                    " (fixed)"
                } else {
                    ""
                };
                field(
                    &mut out,
                    "Marker",
                    Some(&format!("x {x}% of viewport, y {y}px{fixed}")),
                );
            }
            if a.is_multi_select == Some(true) {
                field(&mut out, "Multi-select", Some("yes"));
            }
            field(&mut out, "Full path", a.full_path.as_deref());
            field(&mut out, "Nearby elements", a.nearby_elements.as_deref());
            for key in ["viewport", "userAgent", "devicePixelRatio", "environment"] {
                if let Some(v) = a.extra.get(key) {
                    let s = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    field(&mut out, &format!("Env {key}"), Some(&s));
                }
            }
            if let Some(cs) = a.computed_styles.as_deref().filter(|s| !s.is_empty()) {
                let _ = writeln!(out, "**Computed styles:**");
                let _ = writeln!(out, "```css");
                for part in cs.split(';').map(str::trim).filter(|p| !p.is_empty()) {
                    let _ = writeln!(out, "{part};");
                }
                let _ = writeln!(out, "```");
            }
        }
        // A channel annotation's first entry is its comment: do not print it twice.
        let skip = usize::from(
            a.source.is_some()
                && a.thread
                    .as_ref()
                    .and_then(|t| t.first())
                    .is_some_and(|m| m.content == a.comment),
        );
        if let Some(th) = a.thread.as_ref().filter(|t| t.len() > skip) {
            let _ = writeln!(out, "**Thread:**");
            for m in &th[skip..] {
                if level == Level::Forensic {
                    let _ = writeln!(
                        out,
                        "- {} ({}): {}",
                        m.role.as_str(),
                        iso_from_ms(m.timestamp),
                        one_line(&m.content)
                    );
                } else {
                    let _ = writeln!(out, "- {}: {}", m.role.as_str(), one_line(&m.content));
                }
            }
        }
        let _ = writeln!(out);
    }
    out
}

impl PartialOrd for Level {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Level {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (*self as u8).cmp(&(*other as u8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::model::SessionStatus;
    use serde_json::json;

    fn fixture() -> (Session, Vec<Annotation>) {
        let s = Session {
            id: "S".into(),
            url: "http://localhost:3000/landing".into(),
            status: SessionStatus::Active,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: None,
            project_id: None,
            metadata: None,
        };
        let a: Annotation = serde_json::from_value(json!({"id": "ann_k8x2m",
            "comment": "Button is cut off on mobile viewport",
            "elementPath": "body > main > .hero-section > button.cta", "timestamp": 1705694400000u64,
            "x": 45.5, "y": 480, "element": "button", "boundingBox": {"x": 120, "y": 480, "width": 200, "height": 48},
            "reactComponents": "App > LandingPage > HeroSection > CTAButton", "severity": "blocking",
            "status": "pending", "computedStyles": "padding: 4px; width: 200px"}))
        .unwrap();
        (s, vec![a])
    }

    #[test]
    fn levels_grow_monotonically_and_match_afs_sample() {
        let (s, a) = fixture();
        let outs: Vec<String> = Level::ALL.iter().map(|l| export(&s, &a, *l)).collect();
        assert!(outs[0].contains(
            "1. **button.cta**: Button is cut off on mobile viewport (blocking, pending)"
        ));
        assert!(outs[1].contains("## Annotation #1\n**Element:** button.cta\n**Path:** body > main > .hero-section > button.cta\n"));
        assert!(!outs[1].contains("**React:**"));
        assert!(outs[2].contains("**React:** App > LandingPage > HeroSection > CTAButton"));
        assert!(outs[2].contains("**Position:** 120px, 480px (200×48px)"));
        assert!(!outs[2].contains("Computed styles"));
        assert!(outs[3].contains("## Environment"));
        assert!(outs[3].contains("padding: 4px;\nwidth: 200px;"));
        assert!(outs[0].len() < outs[1].len() && outs[1].len() < outs[2].len());
        assert!(outs[2].len() < outs[3].len());
        assert!(Level::parse("bogus").is_err());
    }
}
