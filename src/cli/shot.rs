//! `pinpoint shot <url|file> -o out.png [--marks]`: the CI capture.

use super::observe::PageArgs;
use crate::app::shot::{Area, ShotOptions};
use crate::error::{Error, Result};
use crate::render::{LabelFormat, OutputFormat, Style};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ShotArgs {
    #[command(flatten)]
    pub page: PageArgs,
    /// Output image path.
    #[arg(short, long, default_value = "pinpoint.png")]
    pub output: PathBuf,
    /// Draw numbered Set-of-Marks boxes on every visible interactive element.
    #[arg(long)]
    pub marks: bool,
    /// png (fast compression) or jpeg.
    #[arg(long, default_value = "png")]
    pub format: String,
    /// JPEG quality 1..=100.
    #[arg(long, default_value_t = 80)]
    pub quality: u8,
    /// Capture the whole page instead of the viewport.
    #[arg(long)]
    pub full_page: bool,
    /// Capture only the first element matching this CSS selector (and its marks).
    #[arg(long)]
    pub scope: Option<String>,
    /// Badge text: number, ref or both.
    #[arg(long, default_value = "number")]
    pub label_format: String,
    /// Fit the image within WIDTHxHEIGHT, or `none`; `auto` = 1920x1080 for the
    /// viewport, 1920 wide (any height) for full-page and scoped captures.
    #[arg(long, default_value = "auto")]
    pub max_size: String,
    /// BAP annotateScreenshot style object as JSON (colours, sizes, maxLabels…).
    #[arg(long)]
    pub style: Option<String>,
    /// Print the elements and the annotationMap as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

fn parse_max(s: &str, area: &Area) -> Result<Option<(u32, u32)>> {
    if s.eq_ignore_ascii_case("auto") {
        return Ok(Some(match area {
            Area::Viewport => crate::render::DEFAULT_MAX_SIZE,
            _ => (1920, crate::app::shot::MAX_CAPTURE_PX as u32),
        }));
    }
    if s.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let bad = || {
        Error::invalid_field(
            "max-size",
            format!("bad size {s:?}: expected WIDTHxHEIGHT or none"),
        )
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.parse().map_err(|_| bad())?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    if w == 0 || h == 0 {
        return Err(bad());
    }
    Ok(Some((w, h)))
}

pub async fn run(args: ShotArgs) -> Result<ExitCode> {
    let format = match args.format.as_str() {
        "png" => OutputFormat::Png,
        "jpeg" | "jpg" => {
            if !(1..=100).contains(&args.quality) {
                return Err(Error::invalid_field(
                    "quality",
                    "JPEG quality must be 1..=100",
                ));
            }
            OutputFormat::Jpeg {
                quality: args.quality,
            }
        }
        other => {
            return Err(Error::invalid_field(
                "format",
                format!("unknown format {other:?}: expected png or jpeg"),
            ))
        }
    };
    let mut style = match &args.style {
        Some(js) => {
            let v: serde_json::Value = serde_json::from_str(js)
                .map_err(|e| Error::invalid_field("style", format!("not JSON: {e}")))?;
            // A bare style object is accepted as well as the full annotateScreenshot form.
            let v = if v.get("enabled").is_none() && v.is_object() {
                serde_json::json!({ "enabled": true, "style": v })
            } else {
                v
            };
            Style::from_json(&v)?.unwrap_or_default()
        }
        None => Style::default(),
    };
    if args.style.is_none() || !args.style.as_deref().unwrap_or("").contains("labelFormat") {
        style.label_format = match args.label_format.as_str() {
            "number" => LabelFormat::Number,
            "ref" => LabelFormat::Ref,
            "both" => LabelFormat::Both,
            other => {
                return Err(Error::invalid_field(
                    "label-format",
                    format!("unknown label format {other:?}: expected number, ref or both"),
                ))
            }
        };
    }
    let area = match (&args.scope, args.full_page) {
        (Some(_), true) => {
            return Err(Error::invalid("--scope and --full-page exclude each other"))
        }
        (Some(sel), false) => Area::Selector(sel.clone()),
        (None, true) => Area::FullPage,
        (None, false) => Area::Viewport,
    };
    let opts = ShotOptions {
        marks: args.marks,
        style,
        format,
        max_size: parse_max(&args.max_size, &area)?,
        area,
        ..Default::default()
    };
    let (session, page, _server) = args.page.open().await?;
    let shot = session.shot(&page, &opts).await;
    session.close_browser().await;
    let shot = shot?;
    std::fs::write(&args.output, &shot.data).map_err(|e| {
        Error::invalid_field(
            "output",
            format!("cannot write {}: {e}", args.output.display()),
        )
    })?;
    if args.json {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer_pretty(&mut out, &shot)?;
        writeln!(out)?;
    } else {
        eprintln!(
            "wrote {} ({}x{}, {} marks, {} redacted; screenshot {:.1} ms, render {:.1} ms)",
            args.output.display(),
            shot.width,
            shot.height,
            shot.drawn,
            shot.redacted,
            shot.screenshot_ms,
            shot.render_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}
