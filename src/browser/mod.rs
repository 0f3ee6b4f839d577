//! The only importer of chromiumoxide: launch/connect, pages, input, screenshots.
