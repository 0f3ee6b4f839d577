//! Annotation store: AFS v1 model, pure reducer, SQLite store, markdown export.
//!
//! - [`model`]: wire types (no I/O).
//! - [`reducer`]: the one pure state machine every mutation goes through.
//! - [`store`]: SQLite persistence, event log, live fan-out (in-process and cross-process).
//! - [`markdown`]: export at four detail levels.
pub mod markdown;
pub mod model;
pub mod reducer;
pub mod store;

pub use model::{Annotation, Event, EventType, Session, Status};
pub use reducer::Action;
pub use store::Store;
