//! The `pinpoint` binary: happy path and one clear error line for bad input.
use std::process::Command;

fn pinpoint() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pinpoint"))
}

fn fixture(name: &str) -> String {
    format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs the command with a timeout so a hang fails the test instead of blocking it.
fn output(mut c: Command) -> std::process::Output {
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn pinpoint");
    let id = child.id();
    let guard = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(60));
        let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
    });
    let out = child.wait_with_output().expect("wait");
    drop(guard);
    out
}

#[test]
fn observe_prints_a_table_and_json() {
    let mut c = pinpoint();
    c.args(["observe", &fixture("demo.html")]);
    let out = output(c);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("ref") && stdout.contains("button"),
        "{stdout}"
    );

    let mut c = pinpoint();
    c.args(["observe", &fixture("demo.html"), "--json", "--full-page"]);
    let out = output(c);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let els = v["elements"].as_array().expect("elements");
    assert!(els.len() > 10);
    assert!(els
        .iter()
        .all(|e| e["ref"].as_str().unwrap().starts_with('@')));
}

fn assert_clean_failure(args: &[&str], env: &[(&str, &str)], needle: &str) {
    let mut c = pinpoint();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.env_remove("PINPOINT_CHROME");
    let out = output(c);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} should fail");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let first = stderr.lines().next().unwrap_or("");
    assert!(
        first.starts_with("error: ") && first.contains(needle),
        "{args:?}: {stderr}"
    );
    assert!(
        stderr.contains("hint: "),
        "a recovery hint is printed: {stderr}"
    );
}

#[test]
fn bad_input_gives_one_clear_error_and_non_zero_exit() {
    let demo = fixture("demo.html");
    assert_clean_failure(&["observe", "/no/such/page.html"], &[], "no such file");
    assert_clean_failure(
        &["observe", &demo, "--viewport", "12x"],
        &[],
        "bad viewport",
    );
    assert_clean_failure(
        &["observe", &demo, "--dpr", "9"],
        &[],
        "device scale factor",
    );
    assert_clean_failure(
        &["observe", &demo, "--wait-until", "soon"],
        &[],
        "waitUntil",
    );
    assert_clean_failure(
        &["observe", &demo, "--chrome", "/no/chromium"],
        &[],
        "Chromium not found",
    );
    assert_clean_failure(
        &["observe", &demo],
        &[("PATH", "/nonexistent")],
        "Chromium not found",
    );
    assert_clean_failure(&["observe", "http://127.0.0.1:9/"], &[], "failed");
}
