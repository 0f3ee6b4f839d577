//! The one integration-test binary. Each module covers one area; browser tests
//! share one Chromium through `harness`.
mod harness;
mod act;
mod observe;
mod rpc_types;
