//! `pinpoint bench refs|observe`: the ref-stability and observe-latency figures.

use crate::app::fixtures::StaticServer;
use crate::app::{bench, Session};
use crate::app::{LaunchOptions, Viewport};
use crate::error::{Error, Result};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchWhat,
    /// Folder of fixture pages.
    #[arg(long, default_value = "fixtures", global = true)]
    pub fixtures: PathBuf,
    #[arg(long, env = "PINPOINT_CHROME", global = true)]
    pub chrome: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
pub enum BenchWhat {
    /// Share of elements that keep their ref across DOM mutations.
    Refs,
    /// Median observe latency (discovery + refs) on typical and large pages.
    Observe {
        #[arg(long, default_value_t = 21)]
        runs: usize,
    },
    /// Annotated observe (discovery + screenshot + marks) vs a bare CDP screenshot.
    Shot {
        #[arg(long, default_value_t = 21)]
        runs: usize,
        /// Device scale factor of the pages (at 2, the 2560×1440 capture is
        /// over the 1920×1080 cap, so Chromium draws it smaller).
        #[arg(long, default_value_t = 1.0)]
        dpr: f64,
    },
    /// Median click-by-ref latency (resolve + actionability + input) on actions.html.
    Click {
        #[arg(long, default_value_t = 50)]
        runs: usize,
    },
}

pub async fn run(args: BenchArgs) -> Result<ExitCode> {
    if !args.fixtures.is_dir() {
        return Err(Error::invalid_field(
            "fixtures",
            format!("{} is not a folder", args.fixtures.display()),
        ));
    }
    let server = StaticServer::start(&args.fixtures).await?;
    let session = Session::new(
        LaunchOptions {
            chrome: args.chrome.clone(),
            ..Default::default()
        },
        Viewport {
            dpr: match args.what {
                BenchWhat::Shot { dpr, .. } => dpr.clamp(1.0, 3.0),
                _ => 1.0,
            },
            ..Viewport::default()
        },
    );
    let r = match args.what {
        BenchWhat::Refs => {
            let rows = bench::ref_stability(&session, &server.base_url()).await;
            rows.map(|rows| {
                println!(
                    "{:<12} {:<30} {:>9} {:>6} {:>8}  unique",
                    "fixture", "scenario", "survivors", "kept", "share"
                );
                for r in &rows {
                    println!(
                        "{:<12} {:<30} {:>9} {:>6} {:>7.1}%  {}",
                        r.fixture,
                        r.scenario,
                        r.survivors,
                        r.kept,
                        r.share() * 100.0,
                        if r.unique { "yes" } else { "NO" }
                    );
                }
            })
        }
        BenchWhat::Observe { runs } => {
            let mut cases = vec![("demo.html".to_string(), "demo.html (typical)".to_string())];
            for n in [1000, 2000, 5000, 10000] {
                cases.push((format!("many.html?n={n}"), format!("many.html n={n}")));
            }
            println!(
                "{:<22} {:>9} {:>11} {:>9} {:>17} {:>18} {:>17} {:>5}   (first: discovery / refs ms)",
                "page",
                "elements",
                "median ms",
                "p90 ms",
                "after change ms",
                "cache dropped ms",
                "first observe ms",
                "runs"
            );
            let mut res = Ok(());
            for (path, label) in cases {
                match bench::observe_latency(&session, &server.url(&path), &label, runs).await {
                    Ok(r) => println!(
                        "{:<22} {:>9} {:>11.2} {:>9.2} {:>17.2} {:>18.2} {:>17.2} {:>5}   ({:.1} / {:.1})",
                        r.fixture,
                        r.elements,
                        r.median_ms,
                        r.p90_ms,
                        r.changed_median_ms,
                        r.dropped_median_ms,
                        r.first_median_ms,
                        r.runs,
                        r.first_discover_ms,
                        r.first_refs_ms
                    ),
                    Err(e) => {
                        res = Err(e);
                        break;
                    }
                }
            }
            res
        }
        BenchWhat::Shot { runs, .. } => {
            println!(
                "{:<14} {:>6} {:>13} {:>20} {:>7} {:>22} {:>24}   (inside: screenshot / observe / render (decode + draw + encode) ms; observe alone)",
                "page", "marks", "bare shot ms", "annotated observe ms", "ratio", "bare+decode+encode ms", "default-encoding shot ms"
            );
            let mut res = Ok(());
            for f in ["demo.html", "shop.html", "sidebar.html"] {
                match bench::shot_vs_screenshot(&session, &server.url(f), f, runs).await {
                    Ok(r) => println!(
                        "{:<14} {:>6} {:>13.2} {:>20.2} {:>7.3} {:>13.2} ({:.3}x) {:>15.2} ({:.3}x)   ({:.1} / {:.1} / {:.1} ({:.1} + {:.1} + {:.1}); {:.1})",
                        r.fixture,
                        r.marks,
                        r.bare_screenshot_ms,
                        r.annotated_observe_ms,
                        r.ratio,
                        r.pixel_floor_ms,
                        r.pixel_floor_ms / r.bare_screenshot_ms,
                        r.default_screenshot_ms,
                        r.annotated_observe_ms / r.default_screenshot_ms,
                        r.in_pipeline_screenshot_ms,
                        r.observe_ms,
                        r.render_ms,
                        r.render_parts_ms.0,
                        r.render_parts_ms.1,
                        r.render_parts_ms.2,
                        r.observe_alone_ms
                    ),
                    Err(e) => {
                        res = Err(e);
                        break;
                    }
                }
            }
            res
        }
        BenchWhat::Click { runs } => {
            let url = server.url("actions.html");
            let counter = "document.getElementById('click-count').textContent";
            let runs = runs.max(1);
            let same =
                crate::app::actions::click_latency(&session, &url, &["@click-btn"], counter, runs)
                    .await?;
            println!(
                "click @click-btn on actions.html, pointer resting on it: median {:.2} ms, p90 {:.2} ms, min {:.2} ms over {} clicks (page counted {} incl. 3 warm-up)",
                same.median_ms, same.p90_ms, same.min_ms, same.runs, same.page_clicks
            );
            crate::app::actions::click_latency(
                &session,
                &url,
                &["@click-btn", "@text-input"],
                counter,
                runs,
            )
            .await
            .map(|r| {
                println!(
                    "click @click-btn / @text-input in turn, pointer moves every click: median {:.2} ms, p90 {:.2} ms, min {:.2} ms over {} clicks (page counted {} on @click-btn incl. warm-up)",
                    r.median_ms, r.p90_ms, r.min_ms, r.runs, r.page_clicks
                );
            })
        }
    };
    session.close_browser().await;
    r.map(|_| ExitCode::SUCCESS)
}
