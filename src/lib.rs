//! Pinpoint: see and point at web pages.
//!
//! Codemap (see ARCHITECTURE.md for the invariants of each module):
//! - [`model`]: shared data types, no I/O.
//! - [`error`]: the one crate error, mapped to every interface's codes.
//! - [`browser`]: the only module that speaks CDP (chromiumoxide).
//! - [`observe`]: in-page discovery script + pure post-processing.
//! - [`refs`]: stable element refs and the per-page registry (pure).
//! - [`render`]: Set-of-Marks drawing on decoded screenshots (pure).
//! - [`act`]: actions by ref or selector, with actionability checks.
//! - [`annotations`]: the annotation model, reducer, SQLite store and markdown export.
//! - [`app`]: sessions, pages and the observe/act pipelines every interface calls.
//! - [`rpc`], [`http`], [`mcp`], [`cli`]: the interfaces.
pub mod act;
pub mod annotations;
pub mod app;
pub mod browser;
pub mod cli;
pub mod error;
pub mod http;
pub mod mcp;
pub mod model;
pub mod observe;
pub mod refs;
pub mod render;
pub mod rpc;

pub use error::{Error, Result};
