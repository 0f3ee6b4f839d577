//! Annotations pinned to the live page: created from a ref, re-anchored on
//! every observe (ref → selector → text, else orphaned), drawn as pins.
use crate::harness::*;
use pinpoint::annotations::model::Severity;
use pinpoint::annotations::store::Store;
use pinpoint::app::pin::PinRequest;
use pinpoint::app::shot::ShotOptions;
use pinpoint::app::{LaunchOptions, Viewport};
use pinpoint::app::{ObserveOptions, Session};

#[test]
fn pin_fill_reanchor_orphan_and_draw() {
    run(async {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("a.db")).unwrap();
        // A session of our own, so the store does not leak into other tests.
        let s = Session::new(LaunchOptions::default(), Viewport::default());
        s.set_store(Some(store.clone()));
        let p = s.new_page(None).await.unwrap();
        s.navigate(
            &p,
            &url("shop.html").await,
            pinpoint::app::LoadState::Load,
            std::time::Duration::from_secs(10),
        )
        .await
        .unwrap();
        let o = s.observe(&p, &ObserveOptions::default()).await.unwrap();
        let cart = o
            .elements
            .iter()
            .find(|e| e.name == "Add to cart")
            .unwrap()
            .clone();
        let a = s
            .pin_annotation(
                &p,
                &store,
                PinRequest {
                    ref_: cart.ref_.clone(),
                    comment: "Button is cut off".into(),
                    severity: Some(Severity::Blocking),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        // The server filled the element context.
        assert_eq!(a.url.as_deref(), Some(o.url.as_str()));
        assert!(a.element.as_deref().unwrap().contains("button"));
        assert_eq!(a.element_path.as_deref(), Some(cart.selector.as_str()));
        assert!(
            a.bounding_box.is_some() && a.computed_styles.as_deref().unwrap().contains("display:")
        );
        assert!(a.nearby_text.as_deref().unwrap_or("").len() > 5);
        assert!(a.accessibility.as_deref().unwrap().contains("role=button"));
        assert_eq!(a.is_fixed, Some(false));
        assert!(a.session_id.is_some());

        // Re-observe: anchored by ref.
        let o = s.observe(&p, &ObserveOptions::default()).await.unwrap();
        assert_eq!(o.annotations.len(), 1);
        assert_eq!(
            (
                o.annotations[0].state.as_str(),
                o.annotations[0].via.as_deref()
            ),
            ("anchored", Some("ref"))
        );

        // Drawn as a pin, distinct from element marks.
        let shot = s.shot(&p, &ShotOptions::default()).await.unwrap();
        let pin = shot
            .annotation_map
            .iter()
            .find(|m| m.label == "P1")
            .expect("pin label");
        assert_eq!(pin.ref_, a.id);

        // Remove the whole card: the annotation is orphaned, not moved to a twin.
        js(&p, "document.querySelector('#grid article').remove(); true").await;
        let o = s.observe(&p, &ObserveOptions::default()).await.unwrap();
        assert_eq!(o.annotations[0].state, "orphaned", "{:?}", o.annotations);

        // Unknown refs are a clear error; the store is untouched.
        let e = s
            .pin_annotation(
                &p,
                &store,
                PinRequest {
                    ref_: "@nope".into(),
                    comment: "x".into(),
                    ..Default::default()
                },
            )
            .await
            .unwrap_err();
        assert_eq!(e.code(), "element_not_found");
        assert_eq!(store.count_annotations_blocking().unwrap(), 1);
        s.close_browser().await;
    });
}
