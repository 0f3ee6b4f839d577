//! The one integration-test binary. Each module covers one area; browser tests
//! share one Chromium through `harness`.
mod act;
mod annotations;
mod bap;
mod browser;
mod cli;
mod harness;
mod mcp;
mod observe;
mod pin;
mod render;
mod rpc_types;
mod tidy;
