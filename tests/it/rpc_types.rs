//! BAP wire types against the exact JSON the official clients send (BAP-WIRE
//! §2, §4, §5, §11) and the result/error shapes their parsers need (PY pydantic:
//! ints are ints, no nulls; TS zod: `error.data.retryable` is a boolean).

use pinpoint::error::{Error, FieldError};
use pinpoint::model::{self, AnnotationMapping, Point, Stability};
use pinpoint::rpc::envelope::{Incoming, Notification, Response, RpcError};
use pinpoint::rpc::types::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// Fails (naming the JSON path) if any value anywhere in `v` is `null`.
fn assert_no_nulls(v: &Value) {
    fn walk(v: &Value, path: &str, bad: &mut Vec<String>) {
        match v {
            Value::Null => bad.push(path.to_owned()),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, x)| walk(x, &format!("{path}[{i}]"), bad)),
            Value::Object(o) => o
                .iter()
                .for_each(|(k, x)| walk(x, &format!("{path}.{k}"), bad)),
            _ => {}
        }
    }
    let mut bad = Vec::new();
    walk(v, "$", &mut bad);
    assert!(bad.is_empty(), "null at {bad:?} in {v}");
}

/// A text frame as JSON (key order is not significant on the wire).
fn frame(text: &str) -> Value {
    serde_json::from_str(text).expect("valid JSON frame")
}

fn to_json<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("serialise")
}

/// Asserts the value at a JSON pointer is a JSON integer (not `1280.0`).
fn assert_int(v: &Value, pointer: &str) {
    let x = v
        .pointer(pointer)
        .unwrap_or_else(|| panic!("missing {pointer} in {v}"));
    assert!(x.is_u64() || x.is_i64(), "{pointer} is not an integer: {x}");
}

fn parse<T: DeserializeOwned>(params: Value) -> T {
    match parse_params::<T>(Some(params.clone())) {
        Ok(t) => t,
        Err(e) => panic!("params {params} failed: {e:?}"),
    }
}

fn field_of(e: &Error) -> Option<&str> {
    match e {
        Error::InvalidInput { field, .. } => field.as_deref(),
        _ => None,
    }
}

/// Parse the params of any method covered by the sheet, as the server will.
fn parse_for_method(method: &str, params: Option<Value>) -> Result<(), Error> {
    fn p<T: DeserializeOwned>(params: Option<Value>) -> Result<(), Error> {
        parse_params::<T>(params).map(|_| ())
    }
    match method {
        "initialize" => p::<InitializeParams>(params),
        "events/subscribe" => p::<EventsSubscribeParams>(params),
        "shutdown" => p::<ShutdownParams>(params),
        "browser/launch" => p::<BrowserLaunchParams>(params),
        "browser/close" => p::<BrowserCloseParams>(params),
        "page/create" => p::<PageCreateParams>(params),
        "page/navigate" => p::<PageNavigateParams>(params),
        "page/reload" | "page/goBack" | "page/goForward" => p::<PageHistoryParams>(params),
        "page/close" => p::<PageCloseParams>(params),
        "page/list" | "storage/getState" | "frame/list" | "frame/main" => p::<PageIdParams>(params),
        "page/activate" => p::<PageActivateParams>(params),
        "action/click" | "action/dblclick" => p::<ClickParams>(params),
        "action/type" => p::<TypeParams>(params),
        "action/fill" => p::<FillParams>(params),
        "action/clear" | "action/check" | "action/uncheck" => p::<SelectorParams>(params),
        "action/press" => p::<PressParams>(params),
        "action/hover" => p::<HoverParams>(params),
        "action/scroll" => p::<ScrollParams>(params),
        "action/select" => p::<SelectParams>(params),
        "action/upload" => p::<UploadParams>(params),
        "action/drag" => p::<DragParams>(params),
        "observe/screenshot" => p::<ScreenshotParams>(params),
        "observe/accessibility" => p::<AccessibilityParams>(params),
        "observe/element" => p::<ElementParams>(params),
        "observe/content" => p::<ContentParams>(params),
        "agent/observe" => p::<AgentObserveParams>(params),
        "agent/act" => p::<AgentActParams>(params),
        "agent/extract" => p::<AgentExtractParams>(params),
        "emulate/setViewport" => p::<SetViewportParams>(params),
        "context/create" => p::<ContextCreateParams>(params),
        "context/list" => p::<PageIdParams>(params),
        "context/destroy" => p::<ContextDestroyParams>(params),
        "frame/switch" => p::<FrameSwitchParams>(params),
        "dialog/handle" => p::<DialogHandleParams>(params),
        "storage/setState" => p::<StorageSetStateParams>(params),
        "storage/getCookies" | "storage/clearCookies" => p::<CookieUrlsParams>(params),
        "storage/setCookies" => p::<SetCookiesParams>(params),
        other => panic!("no params type for {other}"),
    }
}

#[test]
fn every_listed_method_has_a_params_type() {
    for m in methods::ALL {
        // Must not panic with "no params type"; `{}` may legitimately fail on
        // required fields, but then the error names a field.
        if let Err(e) = parse_for_method(m, None) {
            assert!(field_of(&e).is_some(), "{m}: {e:?}");
        }
    }
    assert_eq!(methods::ALL.len(), 46);
    assert_eq!(methods::ALLOWED_ACT_ACTIONS.len(), 17);
}

#[test]
fn initialize_params_from_both_clients() {
    let py: InitializeParams = parse(
        json!({"protocolVersion":"0.2.0","clientInfo":{"name":"bap-client-python","version":"0.2.0"},"capabilities":{"events":["page","console","network","dialog"],"streaming":false,"compression":false}}),
    );
    assert_eq!(py.protocol_version.as_deref(), Some("0.2.0"));
    assert_eq!(
        py.client_info.map(|c| c.name).as_deref(),
        Some("bap-client-python")
    );
    let caps = py.capabilities.unwrap_or_default();
    assert_eq!(caps.events.map(|e| e.len()), Some(4));
    assert_eq!(caps.streaming, Some(false));
    assert_eq!(py.session_id, None);

    let ts: InitializeParams = parse(
        json!({"protocolVersion":"0.7.0","clientInfo":{"name":"bap-client","version":"0.2.0"},"capabilities":{"events":["page","console","network","dialog"],"streaming":false,"compression":false},"sessionId":"s-1"}),
    );
    assert_eq!(ts.protocol_version.as_deref(), Some("0.7.0"));
    assert_eq!(ts.session_id.as_deref(), Some("s-1"));
}

#[test]
fn initialize_result_passes_both_version_checks() {
    let r = to_json(&InitializeResult::pinpoint(None));
    assert_no_nulls(&r);
    assert!(r.get("sessionId").is_none());
    assert!(r["serverInfo"]["name"].is_string() && r["serverInfo"]["version"].is_string());
    assert!(r["capabilities"].is_object());
    // PY: int() on every dot-separated part, major must equal the client's (0).
    let v = r["protocolVersion"].as_str().unwrap_or_default();
    let parts: Vec<u64> = v
        .split('.')
        .map(|p| p.parse().expect("integer part"))
        .collect();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[0], 0);
    assert!(parts[1] >= 7, "minor below TS's 7 triggers a warning");
    let with = to_json(&InitializeResult::pinpoint(Some("s-1".into())));
    assert_eq!(with["sessionId"], "s-1");
    assert_int(&r, "/capabilities/limits/maxPages");
}

#[test]
fn happy_path_messages_parse() {
    // BAP-WIRE §11, client → server, verbatim.
    let frames = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"0.2.0","clientInfo":{"name":"bap-client-python","version":"0.2.0"},"capabilities":{"events":["page","console","network","dialog"],"streaming":false,"compression":false}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"events/subscribe","params":{"events":["page","console","network","dialog"]}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"browser/launch","params":{"browser":"chromium","headless":true}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"page/create","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"page/navigate","params":{"pageId":"page-5f0d","url":"https://example.com"}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"agent/observe","params":{"pageId":"page-5f0d","includeScreenshot":true,"includeInteractiveElements":true,"maxElements":50,"annotateScreenshot":true}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"action/click","params":{"pageId":"page-5f0d","selector":{"type":"ref","ref":"@ewqlz5z"}}}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"shutdown","params":{"saveState":false,"closePages":true}}"#,
    ];
    let mut ids = Vec::new();
    for f in frames {
        match Incoming::parse(f) {
            Incoming::Request { id, method, params } => {
                parse_for_method(&method, params).unwrap_or_else(|e| panic!("{method}: {e:?}"));
                ids.push(id);
            }
            Incoming::Notification { method, params } => {
                assert_eq!(method, "notifications/initialized");
                assert_eq!(params, None);
            }
            other => panic!("unexpected {other:?} for {f}"),
        }
    }
    assert_eq!(ids, (1..=8).map(Value::from).collect::<Vec<_>>());

    let obs: AgentObserveParams = parse(
        json!({"pageId":"page-5f0d","includeScreenshot":true,"includeInteractiveElements":true,"maxElements":50,"annotateScreenshot":true}),
    );
    assert_eq!(obs.max_elements, Some(50));
    assert!(obs.annotate());
    let click: ClickParams =
        parse(json!({"pageId":"page-5f0d","selector":{"type":"ref","ref":"@ewqlz5z"}}));
    assert_eq!(click.selector.as_ref_str(), Some("@ewqlz5z"));
}

#[test]
fn happy_path_results_serialise_as_the_sheet_shows() {
    // §11 server replies, rebuilt from our types, compared verbatim.
    let launch = BrowserLaunchResult {
        browser_id: "browser-7c1e".into(),
        browser: "chromium".into(),
        version: "131.0.6778.33".into(),
        default_context: "ctx-1a2b3c4d".into(),
    };
    assert_eq!(
        frame(&Response::from_result(json!(3), &launch).to_text()),
        frame(
            r#"{"jsonrpc":"2.0","id":3,"result":{"browserId":"browser-7c1e","browser":"chromium","version":"131.0.6778.33","defaultContext":"ctx-1a2b3c4d"}}"#
        )
    );
    let page = Page {
        id: "page-5f0d".into(),
        url: "about:blank".into(),
        title: String::new(),
        viewport: Viewport {
            width: 1280,
            height: 720,
        },
        status: PageStatus::Ready,
    };
    assert_eq!(
        frame(&Response::from_result(json!(4), &page).to_text()),
        frame(
            r#"{"jsonrpc":"2.0","id":4,"result":{"id":"page-5f0d","url":"about:blank","title":"","viewport":{"width":1280,"height":720},"status":"ready"}}"#
        )
    );
    let nav = PageNavigateResult {
        url: "https://example.com/".into(),
        status: 200,
        headers: [("content-type".to_string(), "text/html".to_string())].into(),
        observation: None,
    };
    assert_eq!(
        to_json(&nav),
        json!({"url":"https://example.com/","status":200,"headers":{"content-type":"text/html"}})
    );
    assert_eq!(
        Response::void(json!(2)).to_text(),
        r#"{"jsonrpc":"2.0","id":2,"result":null}"#
    );

    // The agent/observe reply of §11 round-trips through our types unchanged.
    let observed = json!({
        "metadata":{"url":"https://example.com/","title":"Example Domain","viewport":{"width":1280,"height":720}},
        "interactiveElements":[{"ref":"@ewqlz5z","selector":{"type":"text","value":"More information..."},
            "role":"a","name":"More information...","actionHints":["clickable"],
            "bounds":{"x":468.0,"y":311.0,"width":139.0,"height":18.0},"tagName":"a","focused":false,"disabled":false,
            "alternativeSelectors":[{"type":"css","value":"div > p:nth-of-type(2) > a"}],"stability":"new"}],
        "totalInteractiveElements":1,
        "screenshot":{"data":"iVBORw0KGgo","format":"png","width":1280,"height":720,"annotated":true},
        "annotationMap":[{"label":"1","ref":"@ewqlz5z","position":{"x":468.0,"y":289.0}}]});
    let typed: AgentObserveResult = serde_json::from_value(observed.clone()).expect("parse");
    let back = to_json(&typed);
    assert_eq!(back, observed);
    assert_no_nulls(&back);
    for p in [
        "/metadata/viewport/width",
        "/metadata/viewport/height",
        "/screenshot/width",
        "/screenshot/height",
        "/totalInteractiveElements",
    ] {
        assert_int(&back, p);
    }
}

#[test]
fn python_selectors_with_floats_and_nulls() {
    let cases = [
        (
            json!({"type":"coordinates","x":100.0,"y":200.0}),
            "coordinates",
        ),
        (json!({"type":"coordinates","x":100,"y":200}), "coordinates"),
        (
            json!({"type":"role","role":"button","name":null,"exact":null}),
            "role",
        ),
        (
            json!({"type":"text","value":"Sign in","exact":null}),
            "text",
        ),
        (
            json!({"type":"label","value":"Email","exact":false}),
            "label",
        ),
        (
            json!({"type":"placeholder","value":"Search...","exact":null}),
            "placeholder",
        ),
        (json!({"type":"testId","value":"submit-btn"}), "testId"),
        (
            json!({"type":"css","value":"#login","extra":"ignored"}),
            "css",
        ),
        (
            json!({"type":"xpath","value":"//button[@type='submit']"}),
            "xpath",
        ),
        (
            json!({"type":"semantic","description":"the login button"}),
            "semantic",
        ),
        (json!({"type":"ref","ref":"@e1"}), "ref"),
        (json!({"type":"ref","ref":"e1"}), "ref"),
    ];
    for (sel, kind) in cases {
        let p: ClickParams = parse(json!({"pageId": null, "selector": sel, "options": null}));
        assert_eq!(p.selector.kind(), kind);
        assert_eq!(p.page_id, None);
        assert_eq!(p.options, None);
        // Re-serialised selectors never carry nulls.
        assert_no_nulls(&to_json(&p.selector));
    }
    let p: ClickParams =
        parse(json!({"pageId":null,"selector":{"type":"coordinates","x":100.0,"y":200.5}}));
    assert_eq!(p.selector.as_point(), Some(Position { x: 100.0, y: 200.5 }));
    let p: ClickParams = parse(json!({"selector":{"type":"ref","ref":"e15"}}));
    assert_eq!(p.selector.as_ref_str(), Some("@e15"));
    assert_eq!(
        to_json(&BapSelector::TestId { value: "x".into() }),
        json!({"type":"testId","value":"x"})
    );

    let e = parse_params::<ClickParams>(Some(json!({"selector":{"type":"bogus","value":"x"}})))
        .expect_err("unknown selector type");
    assert_eq!(field_of(&e), Some("selector.type"));
    let e = parse_params::<ClickParams>(Some(json!({"selector":{"type":"css"}})))
        .expect_err("missing value");
    assert_eq!(field_of(&e), Some("selector.value"));
}

#[test]
fn null_means_missing_and_floats_are_accepted() {
    let _: BrowserCloseParams = parse(json!({"browserId": null}));
    let g: CookieUrlsParams = parse(json!({"urls": null}));
    assert_eq!(g.urls, None);
    let s: EventsSubscribeParams = parse(json!({"events": null}));
    assert!(s.events.is_empty());
    let _: PageIdParams = parse(json!({"pageId": null, "unknownField": {"deep": [1, 2]}}));

    let v: SetViewportParams =
        parse(json!({"pageId":null,"width":1280.0,"height":720.0,"deviceScaleFactor":null}));
    assert_eq!((v.width, v.height), (1280, 720));
    let c: ClickParams = parse(
        json!({"pageId":null,"selector":{"type":"css","value":"a"},"options":{"clickCount":2.0,"timeout":5000.0,"button":"right","modifiers":["Shift"],"position":null}}),
    );
    let o = c.options.unwrap_or_default();
    assert_eq!((o.click_count, o.timeout), (Some(2), Some(5000)));
    assert_eq!(o.button, Some(MouseButton::Right));
    assert_eq!(o.modifiers, Some(vec![KeyModifier::Shift]));
    let t: TypeParams = parse(
        json!({"selector":{"type":"css","value":"a"},"text":"hi","options":{"delay":33.33,"clear":true}}),
    );
    assert_eq!(t.options.and_then(|o| o.delay), Some(33));
    let n: PageNavigateParams = parse(
        json!({"pageId":null,"url":"http://x/","waitUntil":null,"timeout":null,"referer":null}),
    );
    assert_eq!((n.timeout, n.wait_until), (None, None));
    let pc: PageCreateParams =
        parse(json!({"url":null,"viewport":{"width":800.0,"height":600},"contextId":null}));
    assert_eq!(
        pc.viewport,
        Some(Viewport {
            width: 800,
            height: 600
        })
    );

    let e = parse_params::<SetViewportParams>(Some(json!({"width":-5,"height":10})))
        .expect_err("negative width");
    assert_eq!(field_of(&e), Some("width"));
    let e = parse_params::<PageNavigateParams>(Some(json!({"url": null}))).expect_err("url null");
    assert_eq!(field_of(&e), Some("url"));
    let e = parse_params::<PageActivateParams>(None).expect_err("missing pageId");
    assert_eq!(field_of(&e), Some("pageId"));
}

#[test]
fn action_params_of_every_shape() {
    let s: SelectParams = parse(json!({"selector":{"type":"css","value":"select"},"values":"fr"}));
    assert_eq!(s.values, vec!["fr"]);
    let s: SelectParams =
        parse(json!({"selector":{"type":"css","value":"select"},"values":["fr","de"]}));
    assert_eq!(s.values.len(), 2);
    let d: DragParams =
        parse(json!({"source":{"type":"ref","ref":"@a"},"target":{"x":10,"y":20.5}}));
    assert_eq!(d.target, DragTarget::Point(Position { x: 10.0, y: 20.5 }));
    let d: DragParams =
        parse(json!({"source":{"type":"ref","ref":"@a"},"target":{"type":"css","value":"#drop"}}));
    assert!(matches!(
        d.target,
        DragTarget::Selector(BapSelector::Css { .. })
    ));
    let e = parse_params::<DragParams>(Some(
        json!({"source":{"type":"ref","ref":"@a"},"target":{"type":"nope"}}),
    ))
    .expect_err("bad target");
    assert_eq!(field_of(&e), Some("target"));
    let sc: ScrollParams =
        parse(json!({"pageId":null,"options":{"direction":"down","amount":"page"}}));
    assert_eq!(sc.options.and_then(|o| o.amount), Some(ScrollAmount::Page));
    let sc: ScrollParams = parse(json!({"options":{"amount":250.0}}));
    assert_eq!(
        sc.options.and_then(|o| o.amount),
        Some(ScrollAmount::Pixels(250.0))
    );
    let p: PressParams = parse(json!({"pageId":null,"key":"Control+a"}));
    assert_eq!((p.key.as_str(), p.selector), ("Control+a", None));
    let u: UploadParams = parse(
        json!({"selector":{"type":"css","value":"input"},"files":[{"name":"a.txt","mimeType":"text/plain","buffer":"aGk="}]}),
    );
    assert_eq!(u.files[0].mime_type, "text/plain");
    let el: ElementParams = parse(
        json!({"selector":{"type":"css","value":"#x"},"properties":["visible","boundingBox","computedStyle"]}),
    );
    assert_eq!(el.properties[1], ElementProperty::BoundingBox);
    let c: ContentParams = parse(json!({"format":"pdf"}));
    assert_eq!(c.format, Some(ContentFormat::Text));
    let dl: DialogHandleParams = parse(json!({"action":"accept","promptText":"yes"}));
    assert_eq!(dl.action, DialogAction::Accept);
    let ctx: ContextCreateParams = parse(json!({"contextId":"bad id!"}));
    assert!(ctx.validate().is_err());
    let st: StorageSetStateParams = parse(
        json!({"state":{"cookies":[{"name":"a","value":"b","domain":"x","path":"/","expires":-1.0,"sameSite":"Lax"}],"origins":[{"origin":"http://x","localStorage":[{"name":"k","value":"v"}]}]}}),
    );
    assert_eq!(st.state.cookies[0].same_site, Some(SameSite::Lax));
}

#[test]
fn agent_act_and_extract_params() {
    let a: AgentActParams = parse(json!({"pageId":null,"steps":[
        {"label":"go","action":"page/navigate","params":{"url":"http://x/"}},
        {"action":"action/click","params":{"selector":{"type":"text","value":"Go"}},
         "condition":{"selector":{"type":"css","value":"#go"},"state":"visible","timeout":2000.0},
         "onError":"retry","maxRetries":2.0,"retryDelay":200}],
        "stopOnFirstError":true,"continueOnConditionFail":null,"timeout":30000.0}));
    assert!(a.validate().is_ok());
    assert_eq!(a.steps[1].max_retries, Some(2));
    assert_eq!(a.timeout, Some(30000));
    // Steps' params parse with the step method's own type.
    for s in &a.steps {
        parse_for_method(&s.action, s.params.clone()).expect("step params");
    }
    let bad: AgentActParams = parse(
        json!({"steps":[{"action":"action/click","params":{}},{"action":"storage/getCookies","params":{}}]}),
    );
    let e = bad.validate().expect_err("not allowed");
    assert_eq!(field_of(&e), Some("steps[1].action"));
    let e = parse_params::<AgentActParams>(Some(json!({"steps":[{"params":{}}]})))
        .expect_err("missing action");
    assert_eq!(field_of(&e), Some("steps[0].action"));

    let x: AgentExtractParams = parse(
        json!({"pageId":null,"instruction":"prices","schema":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}},"mode":"list","selector":null}),
    );
    assert_eq!(x.mode, Some(ExtractMode::List));
    assert!(x.schema.is_some());
}

#[test]
fn agent_observe_params_annotation_passthrough() {
    let o: AgentObserveParams = parse(
        json!({"annotateScreenshot":{"enabled":true,"maxLabels":20,"labelFormat":"both","style":{"badge":{"size":16.0}}},"responseTier":"interactive","includeWebMCPTools":true}),
    );
    assert!(o.annotate());
    assert_eq!(
        o.annotate_screenshot
            .as_ref()
            .and_then(|v| v.get("maxLabels")),
        Some(&json!(20))
    );
    assert_eq!(o.response_tier, Some(ResponseTier::Interactive));
    assert_eq!(o.include_webmcp_tools, Some(true));
    let o: AgentObserveParams = parse(json!({"annotateScreenshot":{"enabled":false}}));
    assert!(!o.annotate());
    let o: AgentObserveParams = parse(json!({"annotateScreenshot":null,"maxElements":50.0}));
    assert!(!o.annotate());
    assert_eq!(o.max_elements, Some(50));
    // Fused observe inside page/navigate (TS).
    let n: PageNavigateParams =
        parse(json!({"url":"http://x/","observe":{"includeInteractiveElements":true}}));
    assert_eq!(
        n.observe.and_then(|o| o.include_interactive_elements),
        Some(true)
    );
}

#[test]
fn python_superset_results() {
    let el = to_json(&ElementResult {
        found: true,
        visible: Some(true),
        text: Some("Go".into()),
        bounding_box: Some(BoundingBox {
            x: 1.0,
            y: 2.0,
            width: 3.0,
            height: 4.0,
        }),
        ..Default::default()
    });
    assert_no_nulls(&el);
    assert_eq!(el["visible"], true);
    assert_eq!(el["properties"]["visible"], true);
    assert_eq!(el["properties"]["text"], "Go");
    assert_eq!(el["properties"]["boundingBox"]["width"], 3.0);
    assert!(el.get("enabled").is_none());
    let missing = to_json(&ElementResult::default());
    assert_eq!(missing, json!({"found": false, "properties": {}}));

    let content = to_json(&ContentResult {
        content: "hi".into(),
        url: "http://x/".into(),
        title: "X".into(),
        format: ContentFormat::Markdown,
    });
    assert_eq!(content["format"], "markdown");

    let ax = to_json(&AccessibilityTree::single(AccessibilityNode {
        role: "WebArea".into(),
        name: Some("X".into()),
        level: Some(1),
        children: vec![AccessibilityNode {
            role: "button".into(),
            checked: Some(model::Checked::Mixed(model::MixedTag::Mixed)),
            ..Default::default()
        }],
        ..Default::default()
    }));
    assert!(ax["tree"].is_array());
    assert_eq!(ax["tree"][0]["children"][0]["checked"], "mixed");
    assert!(ax["tree"][0]["children"][0].get("children").is_none());
    assert_no_nulls(&ax);

    let shot = to_json(&ScreenshotResult {
        data: "x".into(),
        format: ScreenshotFormat::Jpeg,
        width: 1280,
        height: 720,
    });
    assert_int(&shot, "/width");
    assert_int(&shot, "/height");
}

#[test]
fn agent_act_result_ints_and_no_nulls() {
    let r = AgentActResult {
        completed: 1,
        total: 2,
        success: false,
        results: vec![
            StepResult {
                step: 0,
                label: Some("go".into()),
                success: true,
                result: Some(Value::Null),
                error: None,
                duration: 12,
                retries: None,
            },
            StepResult {
                step: 1,
                label: None,
                success: false,
                result: None,
                error: Some(RpcError::from(&Error::ElementNotFound {
                    target: "@e1".into(),
                    stale: true,
                })),
                duration: 5,
                retries: Some(2),
            },
        ],
        duration: 17,
        failed_at: Some(1),
        pre_observation: None,
        post_observation: None,
    };
    let v = to_json(&r);
    assert_no_nulls(&v);
    for p in [
        "/completed",
        "/total",
        "/duration",
        "/failedAt",
        "/results/0/step",
        "/results/0/duration",
        "/results/1/step",
        "/results/1/retries",
        "/results/1/error/code",
        "/results/1/error/data/retryAfterMs",
    ] {
        assert_int(&v, p);
    }
    assert_eq!(v["results"][1]["error"]["data"]["retryable"], true);
    assert!(v["results"][0].get("result").is_none());

    let x = to_json(&AgentExtractResult {
        success: false,
        data: Some(Value::Null),
        error: Some("nothing matched".into()),
        ..Default::default()
    });
    assert_eq!(x, json!({"success": false, "error": "nothing matched"}));
}

#[test]
fn interactive_element_from_model() {
    let el = model::Element {
        ref_: "@login".into(),
        role: "button".into(),
        name: "Sign in".into(),
        tag: "button".into(),
        input_type: None,
        bounds: model::Rect::new(10.4, 20.6, 80.0, 30.2),
        in_viewport: true,
        visible: true,
        occluded: false,
        occluded_by: None,
        disabled: false,
        checked: None,
        expanded: None,
        selected: None,
        focused: false,
        editable: false,
        value: None,
        sensitive: false,
        frame: "main".into(),
        selector: "#signin > button".into(),
        shadow: false,
        clickable: false,
        stability: Stability::Stable,
        previous_ref: None,
        test_id: None,
        id: Some("signin-submit".into()),
        href: None,
        name_attr: None,
        aria_label: None,
        anchor: String::new(),
        region: None,
    };
    let ie = InteractiveElement::from_element(&el);
    let v = to_json(&ie);
    assert_no_nulls(&v);
    assert_eq!(v["ref"], "@login");
    assert_eq!(v["selector"], json!({"type":"text","value":"Sign in"}));
    assert_eq!(v["tagName"], "button");
    assert_eq!(v["actionHints"], json!(["clickable"]));
    assert_eq!(
        v["bounds"],
        json!({"x":10.0,"y":21.0,"width":80.0,"height":30.0})
    );
    assert_eq!(v["stability"], "stable");
    assert_eq!(
        v["alternativeSelectors"],
        json!([{"type":"css","value":"#signin-submit"},{"type":"css","value":"#signin > button"}])
    );
    let input = model::Element {
        ref_: "@email".into(),
        role: "textbox".into(),
        name: "Email".into(),
        tag: "input".into(),
        input_type: Some("email".into()),
        editable: true,
        test_id: Some("email-field".into()),
        id: None,
        ..el.clone()
    };
    let v = to_json(&InteractiveElement::from_element(&input));
    assert_eq!(
        v["selector"],
        json!({"type":"testId","value":"email-field"})
    );
    assert_eq!(v["actionHints"], json!(["editable"]));
    assert_eq!(
        v["alternativeSelectors"][0],
        json!({"type":"label","value":"Email"})
    );
    let m = to_json(&InteractiveElement::from_element(&input).minimal());
    assert_eq!(
        m,
        json!({"ref":"@email","selector":{"type":"testId","value":"email-field"},"role":"textbox","name":"Email","actionHints":[],"tagName":"input"})
    );
    // annotationMap entries use the shared model type.
    let am = to_json(&AnnotationMapping {
        label: "1".into(),
        ref_: "@login".into(),
        position: Point { x: 10.0, y: -2.0 },
    });
    assert_eq!(
        am,
        json!({"label":"1","ref":"@login","position":{"x":10.0,"y":-2.0}})
    );
}

/// Checks the TS zod + PY rules for one error object.
fn check_error_shape(err: &Value) {
    assert_no_nulls(err);
    assert!(err["code"].is_i64(), "{err}");
    assert!(err["message"].is_string(), "{err}");
    if let Some(data) = err.get("data") {
        assert!(data["retryable"].is_boolean(), "{err}");
        if let Some(d) = data.get("details") {
            assert!(d.is_object(), "{err}");
        }
        if let Some(r) = data.get("retryAfterMs") {
            assert!(r.is_u64(), "{err}");
        }
        if let Some(h) = data.get("recoveryHint") {
            assert!(h.is_string(), "{err}");
        }
    }
}

#[test]
fn error_responses_for_each_code() {
    let samples = vec![
        Error::invalid_field("selector.type", "unknown variant"),
        Error::Validation {
            errors: vec![FieldError {
                path: "/url".into(),
                message: "required".into(),
            }],
        },
        Error::PayloadTooLarge { size: 10, limit: 5 },
        Error::NotFound {
            kind: "annotation",
            id: "a1".into(),
        },
        Error::BrowserNotLaunched,
        Error::PageNotFound {
            page_id: "page-1".into(),
        },
        Error::FrameNotFound { frame: "f".into() },
        Error::NavigationFailed {
            url: "http://x/".into(),
            reason: "refused".into(),
        },
        Error::Timeout {
            what: "load".into(),
            ms: 30000,
        },
        Error::TargetClosed {
            target: "page".into(),
        },
        Error::ContextDestroyed,
        Error::ElementNotFound {
            target: "@e1".into(),
            stale: false,
        },
        Error::ElementNotVisible {
            target: "@e1".into(),
        },
        Error::ElementNotEnabled {
            target: "@e1".into(),
        },
        Error::ElementCovered {
            target: "@e1".into(),
            covered_by: "div#cover".into(),
        },
        Error::SelectorAmbiguous {
            selector: "button".into(),
            count: 6,
            candidates: vec!["@a".into(), "@b".into()],
        },
        Error::ActionFailed {
            action: "click".into(),
            reason: "x".into(),
        },
        Error::ResourceLimit {
            resource: "pages".into(),
            limit: 10,
            current: 11,
        },
        Error::Internal("boom".into()),
    ];
    for e in &samples {
        let resp = Response::error(json!(9), RpcError::from(e));
        let v: Value = serde_json::from_str(&resp.to_text()).expect("json");
        assert_eq!(v["id"], 9);
        assert!(v.get("result").is_none());
        check_error_shape(&v["error"]);
        assert_eq!(v["error"]["code"], e.rpc_code());
        assert_eq!(v["error"]["data"]["retryable"], e.retryable());
        assert_eq!(
            v["error"]["data"]
                .get("retryAfterMs")
                .and_then(Value::as_u64),
            e.retry_after_ms()
        );
    }
    let v = to_json(&RpcError::from(&Error::PageNotFound {
        page_id: "page-1".into(),
    }));
    assert_eq!(v["code"], -32011);
    assert_eq!(v["data"]["details"], json!({"pageId": "page-1"}));
    let v = to_json(&RpcError::from(&Error::ElementNotFound {
        target: "@e1".into(),
        stale: false,
    }));
    assert_eq!(
        (v["code"].as_i64(), v["data"]["retryAfterMs"].as_u64()),
        (Some(-32012), Some(500))
    );
    assert_eq!(v["data"]["details"]["selector"], "@e1");
    // An empty details object is omitted, not sent as {} or null.
    let v = to_json(&RpcError::from(&Error::Internal("x".into())));
    assert!(v["data"].get("details").is_none());
    assert_eq!(v["data"]["retryable"], false);

    // Protocol-level errors.
    let v = to_json(&RpcError::not_initialized());
    assert_eq!(
        v,
        json!({"code": -32001, "message": "Server not initialized"})
    );
    let v = to_json(&RpcError::already_initialized());
    assert_eq!(v["code"], -32002);
    check_error_shape(&v);
    let v = to_json(&RpcError::method_not_found("page/fly"));
    assert_eq!(
        (v["code"].as_i64(), &v["data"]["details"]["method"]),
        (Some(-32601), &json!("page/fly"))
    );
    check_error_shape(&v);
    let v = to_json(&RpcError::invalid_params(
        "selector.type",
        "unknown variant",
    ));
    assert_eq!(v["code"], -32602);
    assert_eq!(v["data"]["details"]["field"], "selector.type");
    check_error_shape(&v);
    let v = to_json(&RpcError::invalid_request("x"));
    assert_eq!(v["code"], -32600);
    check_error_shape(&v);

    // parse_params errors carry the field into details.
    let e = parse_params::<ClickParams>(Some(json!({"selector":{"type":"css"}}))).expect_err("x");
    let v = to_json(&RpcError::from(&e));
    assert_eq!(v["code"], -32602);
    assert_eq!(v["data"]["details"]["field"], "selector.value");
}

#[test]
fn envelope_frames() {
    let Incoming::Invalid(e) = Incoming::parse("{\"jsonrpc\":\"2.0\",") else {
        panic!("malformed JSON must be answered")
    };
    assert_eq!(
        e.to_text(),
        r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32700,"message":"Invalid JSON-RPC message"}}"#
    );
    for (frame, id) in [
        (r#"{"jsonrpc":"2.0","id":1,"method":"page/list"}"#, json!(1)),
        (
            r#"{"jsonrpc":"2.0","id":"req-7","method":"page/list"}"#,
            json!("req-7"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":12345678901,"method":"page/list"}"#,
            json!(12345678901u64),
        ),
    ] {
        let Incoming::Request { id: got, .. } = Incoming::parse(frame) else {
            panic!("{frame}")
        };
        assert_eq!(got, id);
        let text = Response::void(got).to_text();
        let v: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["id"], id, "id must be echoed with its JSON type");
        assert!(v.as_object().is_some_and(|o| o.contains_key("result")));
    }
    let Incoming::Invalid(e) = Incoming::parse(r#"{"jsonrpc":"2.0","id":5,"method":7}"#) else {
        panic!("non-string method")
    };
    assert_eq!((e.id, e.error.code), (json!(5), -32600));
    assert_eq!(
        Incoming::parse(r#"[{"jsonrpc":"2.0","id":1,"method":"x"}]"#),
        Incoming::Ignored
    );
    assert_eq!(
        Incoming::parse(r#"{"jsonrpc":"2.0","id":1,"result":null}"#),
        Incoming::Ignored
    );

    let n = Notification::new(
        events::PAGE,
        &PageEvent {
            kind: "load".into(),
            page_id: "page-1".into(),
            url: Some("https://example.com/".into()),
            error: None,
            timestamp: 1_732_240_000_150,
        },
    )
    .expect("object params");
    let v: Value = serde_json::from_str(&n.to_text()).expect("json");
    assert!(v.get("id").is_none(), "notifications have no id key");
    assert_eq!(v["method"], "events/page");
    assert_no_nulls(&v);
    assert_int(&v, "/params/timestamp");
}
