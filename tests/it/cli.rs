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

/// `pinpoint shot fixtures/demo.html <args> -o <out> --json`: must succeed; its JSON.
fn shot_json(args: &[&str], out: &std::path::Path) -> serde_json::Value {
    let mut c = pinpoint();
    c.args(["shot", &fixture("demo.html")])
        .args(args)
        .arg("-o")
        .arg(out)
        .arg("--json");
    let res = output(c);
    assert!(
        res.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    serde_json::from_slice(&res.stdout).expect("valid JSON")
}

/// The README's quick start: `pinpoint shot <file> --marks -o out.png --json`
/// writes an annotated PNG and prints the elements, refs and annotationMap.
#[test]
fn shot_writes_the_annotated_image_and_its_json() {
    let dir = std::env::temp_dir().join(format!("pinpoint-cli-shot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let png = dir.join("demo.png");
    let v = shot_json(&["--marks"], &png);
    let img = image::open(&png).expect("a readable PNG").into_rgb8();
    assert_eq!(img.dimensions(), (1280, 720));
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(1280), Some(720))
    );
    assert_eq!(v["format"], "png");
    let map = v["annotationMap"].as_array().expect("annotationMap");
    assert_eq!(map.len() as u64, v["drawn"].as_u64().unwrap_or(0));
    assert!(map.len() >= 20, "{}", map.len());
    // Labels 1..n in order, each naming an element of the observation.
    let refs: Vec<&str> = v["observation"]["elements"]
        .as_array()
        .expect("elements")
        .iter()
        .filter_map(|e| e["ref"].as_str())
        .collect();
    for (i, m) in map.iter().enumerate() {
        assert_eq!(m["label"], (i + 1).to_string());
        let r = m["ref"].as_str().unwrap_or("");
        assert!(refs.contains(&r), "{r} not among the elements");
    }
    // Timings of the capture and each render phase are reported.
    for k in ["decodeMs", "drawMs", "encodeMs"] {
        assert!(
            v["renderTimings"][k].as_f64().is_some_and(|ms| ms >= 0.0),
            "{k}: {v}"
        );
    }
    assert!(v["screenshotMs"].as_f64().is_some_and(|ms| ms > 0.0));

    // JPEG, scoped to one element: a smaller image with only the marks inside.
    let jpg = dir.join("form.jpg");
    let v = shot_json(&["--marks", "--format", "jpeg", "--scope", "#signin"], &jpg);
    assert_eq!(v["format"], "jpeg");
    let bytes = std::fs::read(&jpg).expect("jpeg written");
    assert!(bytes.starts_with(&[0xff, 0xd8]), "a JPEG");
    let img = image::load_from_memory(&bytes).expect("a readable JPEG");
    assert!(
        img.width() < 1280 && img.height() < 720,
        "{:?}",
        (img.width(), img.height())
    );
    let n = v["annotationMap"].as_array().map_or(0, Vec::len);
    assert!((1..map.len()).contains(&n), "{n}");
    let _ = std::fs::remove_dir_all(&dir);
}
