//! The one integration-test binary. Each module covers one area; browser tests
//! share one Chromium through `harness`.
mod act;
mod harness;
mod observe;
mod rpc_types;
