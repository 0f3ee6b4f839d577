//! BAP JSON-RPC 2.0: method table, params/result types, error codes.
//!
//! - [`envelope`]: one incoming frame → [`Incoming`]; [`Response`], [`RpcError`],
//!   [`Notification`] serialisation (ids echoed unchanged, no nulls, no `id` on
//!   notifications).
//! - [`types`]: params/result structs for every BAP method Pinpoint serves, the
//!   [`BapSelector`] enum, and [`parse_params`] (serde errors → `InvalidInput`
//!   naming the field).
//!
//! Pure serde code: no I/O, no browser, no tokio. Imports only `crate::model`
//! and `crate::error`.

pub mod dispatch;
pub mod envelope;
mod lenient;
pub mod types;

pub use envelope::{ErrorData, ErrorResponse, Incoming, Notification, Outcome, Response, RpcError};
pub use types::{methods, parse_params, BapSelector, PROTOCOL_VERSION};
