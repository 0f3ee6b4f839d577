//! Tidy checks: the dependency rules of ARCHITECTURE.md, module docs, and
//! that the docs name what the code has.
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rel(p: &Path) -> String {
    p.strip_prefix(src())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Code lines (comments dropped) of a file.
fn code(p: &Path) -> String {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_file_opens_with_a_module_doc() {
    for f in rust_files(&src()) {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(
            text.trim_start().starts_with("//!"),
            "{} has no //! module doc",
            rel(&f)
        );
    }
}

#[test]
fn only_the_browser_module_imports_chromiumoxide() {
    for f in rust_files(&src()) {
        let r = rel(&f);
        if r.starts_with("browser/") {
            continue;
        }
        let c = code(&f);
        assert!(
            !c.contains("chromiumoxide::") && !c.contains("use chromiumoxide"),
            "{r} imports chromiumoxide"
        );
    }
}

#[test]
fn the_pure_core_imports_no_io_crates() {
    let banned = [
        "tokio",
        "chromiumoxide",
        "axum",
        "rusqlite",
        "clap",
        "crate::browser",
        "crate::app",
        "crate::http",
        "crate::rpc",
        "crate::cli",
    ];
    for f in rust_files(&src()) {
        let r = rel(&f);
        let pure = r == "model.rs"
            || r.starts_with("observe/")
            || r.starts_with("refs/")
            || r.starts_with("render/")
            || r == "annotations/reducer.rs";
        if !pure {
            continue;
        }
        let c = code(&f);
        for b in banned {
            assert!(
                !c.contains(&format!("{b}::")) && !c.contains(&format!("use {b}")),
                "{r} uses {b}"
            );
        }
        if r == "model.rs" {
            assert!(!c.contains("crate::"), "model imports nothing of ours");
        }
    }
}

#[test]
fn interfaces_go_through_app_not_browser() {
    for f in rust_files(&src()) {
        let r = rel(&f);
        if r.starts_with("cli/") || r.starts_with("rpc/") || r.starts_with("http/") {
            assert!(
                !code(&f).contains("crate::browser"),
                "{r} imports browser directly"
            );
        }
        if !r.starts_with("cli/") && r != "main.rs" && r != "lib.rs" {
            assert!(!code(&f).contains("crate::cli"), "{r} imports cli");
        }
    }
}

#[test]
fn architecture_md_describes_every_module() {
    let arch =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(m) = line
            .strip_prefix("pub mod ")
            .and_then(|s| s.strip_suffix(';'))
        {
            let heading = format!("### `{m}`\n");
            let at = arch
                .find(&heading)
                .unwrap_or_else(|| panic!("ARCHITECTURE.md has no section for {m}"));
            let body = arch[at + heading.len()..].trim_start();
            assert!(
                !body.starts_with("###") && !body.is_empty(),
                "ARCHITECTURE.md section for {m} is empty"
            );
        }
    }
}
