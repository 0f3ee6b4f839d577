//! SQLite annotation store: state tables + an append-only event log, written
//! only through the reducer, with live fan-out of committed events.
//!
//! Invariants:
//! - every write is `BEGIN IMMEDIATE`; the action's state changes and its
//!   events commit in ONE transaction (WAL, `synchronous=FULL`);
//! - an event's `sequence` is the event log's `INTEGER PRIMARY KEY
//!   AUTOINCREMENT`, so it is strictly increasing and gap-free per file (rows
//!   are never deleted), across every process writing the file;
//! - subscribers receive every committed event exactly once, in sequence
//!   order, whether this process or another one wrote it: one publisher
//!   cursor (`last published sequence`) fills any gap from the database, and a
//!   background poller picks up other processes' writes every 100 ms;
//! - blocking SQLite work runs on `spawn_blocking` in the async API.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde_json::Value;
use tokio::sync::broadcast;

use super::markdown::{self, Level};
use super::model::{now_ms, Annotation, Event, EventType, Intent, Session, Severity, Status};
use super::reducer::{self, Action, Change, Ctx, State};
use crate::error::{Error, Result};

/// How often the cross-process poller looks for events written by others.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// Capacity of the in-process broadcast channel (a lagging subscriber re-reads the log).
pub const BROADCAST_CAPACITY: usize = 4096;

/// The default store file: `.pinpoint/annotations.db` under the current directory.
pub fn default_path() -> PathBuf {
    std::env::current_dir()
        .unwrap_or_else(|_| PathBuf::from("."))
        .join(".pinpoint")
        .join("annotations.db")
}

/// Filters of [`Store::list_annotations`] (all optional, combined with AND).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnnotationFilter {
    pub session_id: Option<String>,
    pub url: Option<String>,
    pub status: Option<Status>,
    pub severity: Option<Severity>,
    pub intent: Option<Intent>,
}

impl AnnotationFilter {
    /// A filter from the text clients send (query strings, tool arguments,
    /// CLI flags); enum values are case-insensitive, and an unknown one is an
    /// error naming the field and the allowed values.
    pub fn from_text(
        session_id: Option<String>,
        url: Option<String>,
        status: Option<&str>,
        severity: Option<&str>,
        intent: Option<&str>,
    ) -> Result<Self> {
        fn en<T: serde::de::DeserializeOwned>(
            field: &str,
            v: Option<&str>,
            allowed: &str,
        ) -> Result<Option<T>> {
            v.map(|s| {
                serde_json::from_value(Value::String(s.to_ascii_lowercase())).map_err(|_| {
                    Error::invalid_field(field, format!("{field} must be one of {allowed}"))
                })
            })
            .transpose()
        }
        Ok(AnnotationFilter {
            session_id,
            url,
            status: en(
                "status",
                status,
                "pending, acknowledged, resolved, dismissed",
            )?,
            severity: en("severity", severity, "blocking, important, suggestion")?,
            intent: en("intent", intent, "fix, change, question, approve")?,
        })
    }
}

/// The result of a committed action.
#[derive(Debug, Clone, PartialEq)]
pub struct Committed {
    pub changes: Vec<Change>,
    /// The events with their database-assigned sequences.
    pub events: Vec<Event>,
}

impl Committed {
    /// The annotation the action stored (created or updated), if any.
    pub fn annotation(&self) -> Option<&Annotation> {
        self.changes.iter().rev().find_map(|c| match c {
            Change::PutAnnotation(a) => Some(a),
            _ => None,
        })
    }
    /// The session the action stored, if any.
    pub fn session(&self) -> Option<&Session> {
        self.changes.iter().rev().find_map(|c| match c {
            Change::PutSession(s) => Some(s),
            _ => None,
        })
    }
}

/// A committed event as broadcast to live subscribers. Its wire rendering
/// (e.g. the SSE frame) is computed once and shared by every subscriber.
#[derive(Debug)]
pub struct Published {
    event: Event,
    rendered: OnceLock<String>,
}

impl Published {
    pub fn new(event: Event) -> Self {
        Published {
            event,
            rendered: OnceLock::new(),
        }
    }
    pub fn event(&self) -> &Event {
        &self.event
    }
    /// `render(event)`, computed by the first subscriber that asks.
    pub fn rendered(&self, render: impl FnOnce(&Event) -> String) -> &str {
        self.rendered.get_or_init(|| render(&self.event))
    }
}

impl std::ops::Deref for Published {
    type Target = Event;
    fn deref(&self) -> &Event {
        &self.event
    }
}

struct Inner {
    path: PathBuf,
    writer: Mutex<Connection>,
    reader: Mutex<Connection>,
    /// Last sequence sent to subscribers. Lock order: `published` → `reader`.
    published: Mutex<i64>,
    tx: broadcast::Sender<Arc<Published>>,
}

/// A handle to one store file (cheap to clone; clones share connections).
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.inner.path)
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn storage(e: impl std::fmt::Display) -> Error {
    Error::Storage(e.to_string())
}

fn connect(path: &Path) -> Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(30))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sessions (
    ord        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    url        TEXT NOT NULL,
    status     TEXT NOT NULL,
    json       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS annotations (
    ord        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL,
    status     TEXT NOT NULL,
    severity   TEXT,
    intent     TEXT,
    url        TEXT,
    ts         REAL,
    json       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS annotations_session ON annotations(session_id);
CREATE INDEX IF NOT EXISTS annotations_status ON annotations(status, ts);
CREATE TABLE IF NOT EXISTS events (
    sequence   INTEGER PRIMARY KEY AUTOINCREMENT,
    type       TEXT NOT NULL,
    session_id TEXT NOT NULL,
    timestamp  INTEGER NOT NULL,
    replay     INTEGER NOT NULL,
    payload    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_session ON events(session_id, sequence);
";

fn enum_str<T: serde::Serialize>(v: &Option<T>) -> Option<String> {
    v.as_ref()
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
}

fn parse_json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::Storage(format!("corrupt row: {e}")))
}

fn row_event(
    sequence: i64,
    kind: &str,
    session_id: String,
    timestamp: i64,
    payload: &str,
) -> Result<Event> {
    Ok(Event {
        kind: EventType::parse(kind)
            .ok_or_else(|| Error::Storage(format!("unknown event type {kind}")))?,
        timestamp,
        session_id,
        sequence,
        payload: parse_json(payload)?,
    })
}

/// Events with `sequence > after` (optionally `<= upto`, one session, replayable only).
fn query_events(
    conn: &Connection,
    after: i64,
    upto: Option<i64>,
    session: Option<&str>,
    replayable_only: bool,
) -> Result<Vec<Event>> {
    let mut stmt = conn.prepare_cached(
        "SELECT sequence, type, session_id, timestamp, payload FROM events
         WHERE sequence > ?1 AND sequence <= ?2 AND (?3 IS NULL OR session_id = ?3)
           AND (?4 = 0 OR replay = 1)
         ORDER BY sequence",
    )?;
    let rows = stmt.query_map(
        params![
            after,
            upto.unwrap_or(i64::MAX),
            session,
            replayable_only as i64
        ],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
            ))
        },
    )?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, kind, sid, ts, payload) = row?;
        out.push(row_event(seq, &kind, sid, ts, &payload)?);
    }
    Ok(out)
}

fn max_seq(conn: &Connection) -> Result<i64> {
    Ok(
        conn.query_row("SELECT COALESCE(MAX(sequence), 0) FROM events", [], |r| {
            r.get(0)
        })?,
    )
}

fn session_markdown(i: &Inner, session_id: &str, level: Level) -> Result<String> {
    let conn = lock(&i.reader);
    let s = load_session(&conn, session_id)?.ok_or_else(|| Error::NotFound {
        kind: "session",
        id: session_id.to_owned(),
    })?;
    let filter = AnnotationFilter {
        session_id: Some(session_id.to_owned()),
        ..Default::default()
    };
    Ok(markdown::export(
        &s,
        &query_annotations(&conn, &filter)?,
        level,
    ))
}

fn load_session(conn: &Connection, id: &str) -> Result<Option<Session>> {
    let json: Option<String> = conn
        .prepare_cached("SELECT json FROM sessions WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    json.map(|j| parse_json(&j)).transpose()
}

fn load_annotation(conn: &Connection, id: &str) -> Result<Option<Annotation>> {
    let json: Option<String> = conn
        .prepare_cached("SELECT json FROM annotations WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?;
    json.map(|j| parse_json(&j)).transpose()
}

/// Stored JSON of the annotations matching `f`, in creation order.
fn query_annotations_raw(conn: &Connection, f: &AnnotationFilter) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT json FROM annotations
         WHERE (?1 IS NULL OR session_id = ?1) AND (?2 IS NULL OR url = ?2)
           AND (?3 IS NULL OR status = ?3) AND (?4 IS NULL OR severity = ?4)
           AND (?5 IS NULL OR intent = ?5)
         ORDER BY ord",
    )?;
    let rows = stmt.query_map(
        params![
            f.session_id,
            f.url,
            f.status.map(Status::as_str),
            f.severity.map(Severity::as_str),
            f.intent.map(Intent::as_str),
        ],
        |r| r.get::<_, String>(0),
    )?;
    Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
}

fn query_annotations(conn: &Connection, f: &AnnotationFilter) -> Result<Vec<Annotation>> {
    query_annotations_raw(conn, f)?
        .iter()
        .map(|j| parse_json(j))
        .collect()
}

/// Stored JSON of pending annotations, ordered by client `timestamp`.
fn query_pending_raw(conn: &Connection, session: Option<&str>) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT json FROM annotations WHERE status = 'pending'
           AND (?1 IS NULL OR session_id = ?1) ORDER BY ts, ord",
    )?;
    let rows = stmt.query_map([session], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
}

fn write_change(conn: &Connection, c: &Change) -> Result<()> {
    match c {
        Change::PutSession(s) => {
            let status = enum_str(&Some(s.status)).unwrap_or_default();
            conn.prepare_cached(
                "INSERT INTO sessions (id, url, status, json) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(id) DO UPDATE SET url = excluded.url, status = excluded.status,
                 json = excluded.json",
            )?
            .execute(params![s.id, s.url, status, serde_json::to_string(s)?])?;
        }
        Change::PutAnnotation(a) => {
            let ts = a.timestamp.as_ref().and_then(serde_json::Number::as_f64);
            conn.prepare_cached(
                "INSERT INTO annotations (id, session_id, status, severity, intent, url, ts, json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(id) DO UPDATE SET session_id = excluded.session_id,
                 status = excluded.status, severity = excluded.severity, intent = excluded.intent,
                 url = excluded.url, ts = excluded.ts, json = excluded.json",
            )?
            .execute(params![
                a.id,
                a.session(),
                a.status().as_str(),
                enum_str(&a.severity),
                enum_str(&a.intent),
                a.url,
                ts,
                serde_json::to_string(a)?
            ])?;
        }
        Change::DeleteAnnotation { id } => {
            conn.prepare_cached("DELETE FROM annotations WHERE id = ?1")?
                .execute([id])?;
        }
    }
    Ok(())
}

/// Load the slice of state `action` needs, run the reducer, write its changes
/// and events inside the caller's transaction.
fn apply_in_tx(tx: &Connection, action: &Action, now: i64) -> Result<Committed> {
    let mut state = State::default();
    if let Some(aid) = action.annotation_id() {
        if let Some(a) = load_annotation(tx, aid)? {
            if let Some(s) = load_session(tx, a.session())? {
                state.sessions.insert(s.id.clone(), s);
            }
            state.annotations.insert(a.id.clone(), a);
        }
    }
    if let Some(sid) = action.session_id() {
        if let Some(s) = load_session(tx, sid)? {
            state.sessions.insert(s.id.clone(), s);
        }
        if action.needs_session_annotations() {
            let filter = AnnotationFilter {
                session_id: Some(sid.to_owned()),
                ..AnnotationFilter::default()
            };
            for a in query_annotations(tx, &filter)? {
                state.annotations.insert(a.id.clone(), a);
            }
        }
    }
    let t = reducer::apply(&state, action, Ctx { now_ms: now })?;
    for c in &t.changes {
        write_change(tx, c)?;
    }
    let mut events = Vec::with_capacity(t.events.len());
    let mut ins = tx.prepare_cached(
        "INSERT INTO events (type, session_id, timestamp, replay, payload)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for d in t.events {
        ins.execute(params![
            d.kind.as_str(),
            d.session_id,
            now,
            d.kind.replayable() as i64,
            serde_json::to_string(&d.payload)?
        ])?;
        events.push(Event {
            kind: d.kind,
            timestamp: now,
            session_id: d.session_id,
            sequence: tx.last_insert_rowid(),
            payload: d.payload,
        });
    }
    Ok(Committed {
        changes: t.changes,
        events,
    })
}

impl Inner {
    fn dispatch(&self, action: &Action) -> Result<Committed> {
        let mut all = self.dispatch_many(std::slice::from_ref(action))?;
        all.pop()
            .ok_or_else(|| Error::Internal("dispatch committed nothing".into()))
    }

    /// Apply `actions` in order in ONE transaction (all or nothing).
    fn dispatch_many(&self, actions: &[Action]) -> Result<Vec<Committed>> {
        let committed = {
            let mut conn = lock(&self.writer);
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let now = now_ms();
            let mut out = Vec::with_capacity(actions.len());
            for action in actions {
                // On error `tx` drops and rolls back: the store is untouched.
                out.push(apply_in_tx(&tx, action, now)?);
            }
            tx.commit()?;
            out
        };
        for c in &committed {
            // Already durable: a failed publish must not turn into a failed write
            // (subscribers catch up through the poller / the log).
            if let Err(e) = self.publish(&c.events) {
                tracing::warn!("publishing committed events failed: {e}");
            }
        }
        Ok(committed)
    }

    /// Send `events` (just committed here) to subscribers, first filling any
    /// gap before them with events other processes committed.
    fn publish(&self, events: &[Event]) -> Result<()> {
        let Some(last_ev) = events.last() else {
            return Ok(());
        };
        let mut last = lock(&self.published);
        if let Some(first) = events.first() {
            if first.sequence > *last + 1 {
                let gap = query_events(
                    &lock(&self.reader),
                    *last,
                    Some(first.sequence - 1),
                    None,
                    false,
                )?;
                for e in gap {
                    *last = e.sequence;
                    let _ = self.tx.send(Arc::new(Published::new(e)));
                }
            }
        }
        for e in events {
            if e.sequence > *last {
                *last = e.sequence;
                let _ = self.tx.send(Arc::new(Published::new(e.clone())));
            }
        }
        *last = (*last).max(last_ev.sequence);
        Ok(())
    }

    /// Publish whatever other processes committed since the last publish.
    fn poll(&self) -> Result<()> {
        let mut last = lock(&self.published);
        let reader = lock(&self.reader);
        if max_seq(&reader)? <= *last {
            return Ok(());
        }
        for e in query_events(&reader, *last, None, None, false)? {
            *last = e.sequence;
            let _ = self.tx.send(Arc::new(Published::new(e)));
        }
        Ok(())
    }
}

fn spawn_poller(weak: Weak<Inner>) {
    let spawned = std::thread::Builder::new()
        .name("pinpoint-store-poll".into())
        .spawn(move || loop {
            std::thread::sleep(POLL_INTERVAL);
            let Some(inner) = weak.upgrade() else {
                return;
            };
            if inner.tx.receiver_count() == 0 {
                continue;
            }
            if let Err(e) = inner.poll() {
                tracing::warn!("annotation store poll failed: {e}");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the annotation store poller: {e}");
    }
}

impl Store {
    /// Open (or create) a store file, creating its parent directories.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let mut writer = connect(&path)?;
        {
            // IMMEDIATE: several processes may open a fresh file at once.
            let tx = writer.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute_batch(SCHEMA)?;
            tx.commit()?;
        }
        let reader = connect(&path)?;
        let last = max_seq(&reader)?;
        let (tx, _) = broadcast::channel(BROADCAST_CAPACITY);
        let inner = Arc::new(Inner {
            path,
            writer: Mutex::new(writer),
            reader: Mutex::new(reader),
            published: Mutex::new(last),
            tx,
        });
        spawn_poller(Arc::downgrade(&inner));
        Ok(Store { inner })
    }

    /// The store file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Inner) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || f(&inner))
            .await
            .map_err(|e| Error::Internal(format!("store task failed: {e}")))?
    }

    /// Run one action through the reducer and commit it (blocking).
    pub fn dispatch_blocking(&self, action: &Action) -> Result<Committed> {
        self.inner.dispatch(action)
    }

    /// Apply several actions in ONE transaction (all or nothing): bulk import.
    pub fn dispatch_many_blocking(&self, actions: &[Action]) -> Result<Vec<Committed>> {
        self.inner.dispatch_many(actions)
    }

    /// Run one action through the reducer and commit it.
    pub async fn dispatch(&self, action: Action) -> Result<Committed> {
        self.blocking(move |i| i.dispatch(&action)).await
    }

    /// Live events committed after this call (by any process writing the file).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Published>> {
        self.inner.tx.subscribe()
    }

    /// Number of live subscribers.
    pub fn subscriber_count(&self) -> usize {
        self.inner.tx.receiver_count()
    }

    /// Check for other processes' writes now (the poller also does this every 100 ms).
    pub fn poll_now(&self) -> Result<()> {
        self.inner.poll()
    }

    /// Replayable events with `sequence > after`, optionally of one session (blocking).
    pub fn events_since_blocking(&self, after: i64, session: Option<&str>) -> Result<Vec<Event>> {
        query_events(&lock(&self.inner.reader), after, None, session, true)
    }

    /// Replayable events with `sequence > after`, optionally of one session.
    pub async fn events_since(&self, after: i64, session: Option<String>) -> Result<Vec<Event>> {
        self.blocking(move |i| {
            query_events(&lock(&i.reader), after, None, session.as_deref(), true)
        })
        .await
    }

    /// The highest sequence in the log (0 when empty).
    pub fn max_sequence_blocking(&self) -> Result<i64> {
        max_seq(&lock(&self.inner.reader))
    }

    /// The highest sequence in the log (0 when empty).
    pub async fn max_sequence(&self) -> Result<i64> {
        self.blocking(|i| max_seq(&lock(&i.reader))).await
    }

    pub fn session_blocking(&self, id: &str) -> Result<Option<Session>> {
        load_session(&lock(&self.inner.reader), id)
    }

    pub async fn session(&self, id: String) -> Result<Option<Session>> {
        self.blocking(move |i| load_session(&lock(&i.reader), &id))
            .await
    }

    pub fn annotation_blocking(&self, id: &str) -> Result<Option<Annotation>> {
        load_annotation(&lock(&self.inner.reader), id)
    }

    pub async fn annotation(&self, id: String) -> Result<Option<Annotation>> {
        self.blocking(move |i| load_annotation(&lock(&i.reader), &id))
            .await
    }

    /// Every session, newest first.
    pub fn sessions_blocking(&self) -> Result<Vec<Session>> {
        let conn = lock(&self.inner.reader);
        let mut stmt = conn.prepare_cached("SELECT json FROM sessions ORDER BY ord DESC")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for j in rows {
            out.push(parse_json(&j?)?);
        }
        Ok(out)
    }

    pub async fn sessions(&self) -> Result<Vec<Session>> {
        let s = self.clone();
        self.blocking(move |_| s.sessions_blocking()).await
    }

    /// Annotations matching `filter`, in creation order.
    /// A session's annotations as markdown; `NotFound` for an unknown session.
    pub fn export_markdown_blocking(&self, session_id: &str, level: Level) -> Result<String> {
        session_markdown(&self.inner, session_id, level)
    }

    pub async fn export_markdown(&self, session_id: String, level: Level) -> Result<String> {
        self.blocking(move |i| session_markdown(i, &session_id, level))
            .await
    }

    pub fn list_annotations_blocking(&self, filter: &AnnotationFilter) -> Result<Vec<Annotation>> {
        query_annotations(&lock(&self.inner.reader), filter)
    }

    pub async fn list_annotations(&self, filter: AnnotationFilter) -> Result<Vec<Annotation>> {
        self.blocking(move |i| query_annotations(&lock(&i.reader), &filter))
            .await
    }

    /// Pending annotations (of one session, or all), ordered by client `timestamp`.
    pub fn pending_blocking(&self, session: Option<&str>) -> Result<Vec<Annotation>> {
        query_pending_raw(&lock(&self.inner.reader), session)?
            .iter()
            .map(|j| parse_json(j))
            .collect()
    }

    /// [`Store::pending`] as stored JSON texts (no re-parse: the stored form
    /// is the wire form).
    pub async fn pending_raw(&self, session: Option<String>) -> Result<Vec<String>> {
        self.blocking(move |i| query_pending_raw(&lock(&i.reader), session.as_deref()))
            .await
    }

    /// [`Store::list_annotations`] as stored JSON texts.
    pub fn list_annotations_raw_blocking(&self, filter: &AnnotationFilter) -> Result<Vec<String>> {
        query_annotations_raw(&lock(&self.inner.reader), filter)
    }

    pub async fn list_annotations_raw(&self, filter: AnnotationFilter) -> Result<Vec<String>> {
        self.blocking(move |i| query_annotations_raw(&lock(&i.reader), &filter))
            .await
    }

    pub async fn pending(&self, session: Option<String>) -> Result<Vec<Annotation>> {
        let s = self.clone();
        self.blocking(move |_| s.pending_blocking(session.as_deref()))
            .await
    }

    /// Number of annotation rows.
    pub fn count_annotations_blocking(&self) -> Result<i64> {
        Ok(lock(&self.inner.reader)
            .query_row("SELECT COUNT(*) FROM annotations", [], |r| r.get(0))?)
    }

    /// `PRAGMA integrity_check` (`"ok"` when healthy).
    pub fn integrity_check_blocking(&self) -> Result<String> {
        let conn = lock(&self.inner.reader);
        let mut stmt = conn.prepare("PRAGMA integrity_check")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for r in rows {
            out.push(r.map_err(storage)?);
        }
        Ok(out.join("\n"))
    }
}

/// Convert a stored value to JSON (helper for HTTP/CLI answers).
pub fn to_json<T: serde::Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::Internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::model::{Actor, ThreadMessage};
    use serde_json::json;

    fn session(store: &Store, id: &str) {
        store
            .dispatch_blocking(&Action::CreateSession {
                session_id: id.into(),
                url: "http://localhost:3000/p".into(),
                project_id: None,
                metadata: None,
            })
            .unwrap();
    }

    fn ann(id: &str, ts: i64) -> Annotation {
        serde_json::from_value(json!({"id": id, "comment": "c", "element": "button",
            "elementPath": "main > button", "timestamp": ts, "x": 1, "y": 2, "severity": "blocking"}))
        .unwrap()
    }

    #[test]
    fn open_creates_dirs_and_persists_across_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/annotations.db");
        let store = Store::open(&path).unwrap();
        session(&store, "S");
        let c = store
            .dispatch_blocking(&Action::CreateAnnotation {
                session_id: "S".into(),
                annotation: ann("A", 5),
            })
            .unwrap();
        assert_eq!(c.events[0].sequence, 2);
        drop(store);
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.annotation_blocking("A").unwrap().unwrap().comment,
            "c"
        );
        assert_eq!(store.max_sequence_blocking().unwrap(), 2);
        assert_eq!(store.integrity_check_blocking().unwrap(), "ok");
        assert!(default_path().ends_with(".pinpoint/annotations.db"));
    }

    #[test]
    fn failed_action_leaves_store_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        session(&store, "S");
        let before = store.max_sequence_blocking().unwrap();
        let r = store.dispatch_blocking(&Action::AddThreadMessage {
            annotation_id: "nope".into(),
            message: ThreadMessage {
                id: "m".into(),
                role: Actor::Agent,
                content: "x".into(),
                timestamp: 1,
                extra: Default::default(),
            },
        });
        assert!(matches!(r, Err(Error::NotFound { .. })));
        assert_eq!(store.max_sequence_blocking().unwrap(), before);
        assert_eq!(store.count_annotations_blocking().unwrap(), 0);
    }

    #[test]
    fn filters_pending_order_and_replay() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        session(&store, "S");
        session(&store, "T");
        for (id, ts, sid) in [("A", 30, "S"), ("B", 10, "S"), ("C", 20, "T")] {
            store
                .dispatch_blocking(&Action::CreateAnnotation {
                    session_id: sid.into(),
                    annotation: ann(id, ts),
                })
                .unwrap();
        }
        store
            .dispatch_blocking(&Action::SetStatus {
                annotation_id: "A".into(),
                status: Status::Resolved,
                by: Some(Actor::Agent),
            })
            .unwrap();
        let pending: Vec<_> = store
            .pending_blocking(None)
            .unwrap()
            .into_iter()
            .map(|a| a.id)
            .collect();
        assert_eq!(pending, ["B", "C"]);
        let f = AnnotationFilter {
            session_id: Some("S".into()),
            status: Some(Status::Resolved),
            ..Default::default()
        };
        let got = store.list_annotations_blocking(&f).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].resolved_by, Some(Actor::Agent));
        let f = AnnotationFilter {
            severity: Some(Severity::Blocking),
            ..Default::default()
        };
        assert_eq!(store.list_annotations_blocking(&f).unwrap().len(), 3);
        // replay: sequences 1..=6; session S has 1, 3, 4, 6
        let all = store.events_since_blocking(0, None).unwrap();
        let seqs: Vec<i64> = all.iter().map(|e| e.sequence).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6]);
        let s: Vec<i64> = store
            .events_since_blocking(3, Some("S"))
            .unwrap()
            .iter()
            .map(|e| e.sequence)
            .collect();
        assert_eq!(s, [4, 6]);
        // action.requested gets a sequence but is not replayed
        let c = store
            .dispatch_blocking(&Action::RequestAction {
                session_id: "S".into(),
                output: "go".into(),
            })
            .unwrap();
        assert_eq!(c.events[0].sequence, 7);
        assert!(store.events_since_blocking(6, None).unwrap().is_empty());
    }

    #[test]
    fn dispatch_many_is_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        session(&store, "S");
        let ok = |id: &str| Action::CreateAnnotation {
            session_id: "S".into(),
            annotation: ann(id, 1),
        };
        let r = store.dispatch_many_blocking(&[ok("A"), ok("B"), ok("A")]);
        assert!(matches!(r, Err(Error::Conflict { .. })));
        assert_eq!(store.count_annotations_blocking().unwrap(), 0);
        assert_eq!(store.max_sequence_blocking().unwrap(), 1);
        let c = store.dispatch_many_blocking(&[ok("A"), ok("B")]).unwrap();
        let seqs: Vec<i64> = c.iter().map(|c| c.events[0].sequence).collect();
        assert_eq!(seqs, [2, 3]);
    }

    #[tokio::test]
    async fn subscribers_see_other_connections_writes_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let a = Store::open(&path).unwrap();
        let b = Store::open(&path).unwrap(); // a second "process"
        let mut rx = a.subscribe();
        session(&b, "S"); // seq 1 by b
        session(&a, "T"); // seq 2 by a: publishes the gap (1) first
        b.dispatch(Action::CreateAnnotation {
            session_id: "S".into(),
            annotation: ann("A", 1),
        })
        .await
        .unwrap(); // seq 3 by b: the poller must deliver it
        let mut seen = Vec::new();
        while seen.len() < 3 {
            let e = tokio::time::timeout(Duration::from_secs(5), rx.recv())
                .await
                .unwrap()
                .unwrap();
            seen.push(e.sequence);
        }
        assert_eq!(seen, [1, 2, 3]);
        tokio::time::sleep(POLL_INTERVAL * 3).await;
        assert!(rx.try_recv().is_err(), "no duplicates");
    }

    #[test]
    fn filter_from_text_is_case_insensitive_and_names_bad_fields() {
        let f = AnnotationFilter::from_text(
            Some("s1".into()),
            None,
            Some("Pending"),
            None,
            Some("fix"),
        )
        .unwrap();
        assert_eq!(f.status, Some(Status::Pending));
        assert_eq!(f.intent, Some(Intent::Fix));
        assert_eq!(f.session_id.as_deref(), Some("s1"));
        let e = AnnotationFilter::from_text(None, None, None, Some("urgent"), None).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(
            e.to_string().contains("severity must be one of blocking"),
            "{e}"
        );
    }

    #[test]
    fn markdown_export_of_an_unknown_session_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.db")).unwrap();
        session(&store, "s1");
        assert!(store
            .export_markdown_blocking("s1", Level::Standard)
            .is_ok());
        let e = store
            .export_markdown_blocking("nope", Level::Standard)
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::NotFound {
                    kind: "session",
                    ..
                }
            ),
            "{e}"
        );
    }
}
