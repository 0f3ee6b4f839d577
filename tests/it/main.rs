//! The one integration-test binary. Each module covers one area.
mod annotations;
