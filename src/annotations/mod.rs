//! Annotation store: AFS v1 model, pure reducer, SQLite store, markdown export.
