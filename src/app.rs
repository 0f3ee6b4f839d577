//! Sessions, pages and the observe/act pipelines that every interface calls.
