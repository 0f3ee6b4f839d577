//! `pinpoint mcp`: an MCP server (rmcp, stdio) that lets a coding agent work
//! through reviewers' annotations: list sessions, get the pending ones, watch
//! for new ones, acknowledge, reply in the thread, resolve (with a summary),
//! dismiss, reopen, and export markdown.
//!
//! Every write goes through the annotation store (one reducer, one SQLite
//! transaction), so `pinpoint serve` on the same file sees the agent's
//! changes at once and streams them to the reviewer's toolbar over SSE.
//! Tool errors are MCP tool results with `isError: true` carrying the crate
//! error's code, message and hint; logs go to stderr only (stdout is the
//! protocol).

use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::annotations::markdown::Level;
use crate::annotations::model::{new_id, Actor, Annotation, Status, ThreadMessage};
use crate::annotations::store::{AnnotationFilter, Store};
use crate::annotations::Action;
use crate::error::{Error, Result};

/// The MCP server over one annotation store.
#[derive(Clone)]
pub struct PinpointMcp {
    store: Store,
    #[allow(dead_code)] // read by the `tool_handler` macro
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SessionArg {
    /// Only this session (default: every session).
    #[serde(default, rename = "sessionId")]
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListArgs {
    #[serde(default, rename = "sessionId")]
    pub session_id: Option<String>,
    /// Page URL the annotations were made on.
    #[serde(default)]
    pub url: Option<String>,
    /// pending | acknowledged | resolved | dismissed
    #[serde(default)]
    pub status: Option<String>,
    /// blocking | important | suggestion
    #[serde(default)]
    pub severity: Option<String>,
    /// fix | change | question | approve
    #[serde(default)]
    pub intent: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IdArg {
    /// Annotation id.
    pub id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReplyArgs {
    /// Annotation id.
    pub id: String,
    /// The message for the reviewer (markdown).
    pub message: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CloseArgs {
    /// Annotation id.
    pub id: String,
    /// What was done (resolve) or why not (dismiss); added to the thread.
    #[serde(default)]
    pub summary: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ExportArgs {
    #[serde(rename = "sessionId")]
    pub session_id: String,
    /// compact | standard | detailed | forensic (default standard)
    #[serde(default)]
    pub level: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WatchArgs {
    #[serde(default, rename = "sessionId")]
    pub session_id: Option<String>,
    /// How long to wait for a new pending annotation (1..=300 s, default 60).
    #[serde(default, rename = "timeoutSeconds")]
    pub timeout_seconds: Option<u64>,
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A JSON tool result, or the crate error as an `isError` result.
fn answer(r: Result<Value>) -> std::result::Result<CallToolResult, McpError> {
    Ok(match r {
        Ok(v) => CallToolResult::success(vec![ContentBlock::text(
            serde_json::to_string_pretty(&v).unwrap_or_default(),
        )]),
        Err(e) => {
            let mut body = json!({"error": {"code": e.code(), "message": e.to_string()}});
            if let Some(h) = e.hint() {
                body["error"]["hint"] = json!(h);
            }
            CallToolResult::error(vec![ContentBlock::text(body.to_string())])
        }
    })
}

fn text(r: Result<String>) -> std::result::Result<CallToolResult, McpError> {
    match r {
        Ok(s) => Ok(CallToolResult::success(vec![ContentBlock::text(s)])),
        Err(e) => answer(Err(e)),
    }
}

fn agent_message(id: &str, content: String) -> Action {
    Action::AddThreadMessage {
        annotation_id: id.to_string(),
        message: ThreadMessage {
            id: new_id(),
            role: Actor::Agent,
            content,
            timestamp: now_ms(),
            extra: Map::new(),
        },
    }
}

#[tool_router]
impl PinpointMcp {
    pub fn new(store: Store) -> Self {
        PinpointMcp {
            store,
            tool_router: Self::tool_router(),
        }
    }

    async fn commit(&self, actions: Vec<Action>) -> Result<Value> {
        let store = self.store.clone();
        let committed = tokio::task::spawn_blocking(move || store.dispatch_many_blocking(&actions))
            .await
            .map_err(|e| Error::Internal(e.to_string()))??;
        let last = committed.iter().rev().find_map(|c| c.annotation().cloned());
        Ok(serde_json::to_value(last)?)
    }

    #[tool(description = "List review sessions (one per reviewed page) with their URL and status.")]
    async fn list_sessions(&self) -> std::result::Result<CallToolResult, McpError> {
        answer(async { Ok(serde_json::to_value(self.store.sessions().await?)?) }.await)
    }

    #[tool(
        description = "Annotations waiting for an agent (status pending), oldest first. Start here."
    )]
    async fn get_pending(
        &self,
        Parameters(a): Parameters<SessionArg>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(
            async {
                Ok(serde_json::to_value(
                    self.store.pending(a.session_id).await?,
                )?)
            }
            .await,
        )
    }

    #[tool(
        description = "List annotations filtered by session, page URL, status, severity or intent."
    )]
    async fn list_annotations(
        &self,
        Parameters(a): Parameters<ListArgs>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(
            async {
                let filter = AnnotationFilter::from_text(
                    a.session_id,
                    a.url,
                    a.status.as_deref(),
                    a.severity.as_deref(),
                    a.intent.as_deref(),
                )?;
                Ok(serde_json::to_value(
                    self.store.list_annotations(filter).await?,
                )?)
            }
            .await,
        )
    }

    #[tool(
        description = "One annotation with every field: element, CSS path, bounding box, nearby text, styles, thread."
    )]
    async fn get_annotation(
        &self,
        Parameters(a): Parameters<IdArg>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(
            async {
                let an: Annotation =
                    self.store
                        .annotation(a.id.clone())
                        .await?
                        .ok_or(Error::NotFound {
                            kind: "annotation",
                            id: a.id,
                        })?;
                Ok(serde_json::to_value(an)?)
            }
            .await,
        )
    }

    #[tool(
        description = "Tell the reviewer you are working on an annotation (pending → acknowledged)."
    )]
    async fn acknowledge(
        &self,
        Parameters(a): Parameters<IdArg>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(
            self.commit(vec![Action::SetStatus {
                annotation_id: a.id,
                status: Status::Acknowledged,
                by: Some(Actor::Agent),
            }])
            .await,
        )
    }

    #[tool(
        description = "Reply in an annotation's thread (a question or an explanation for the reviewer)."
    )]
    async fn reply(
        &self,
        Parameters(a): Parameters<ReplyArgs>,
    ) -> std::result::Result<CallToolResult, McpError> {
        if a.message.trim().is_empty() {
            return answer(Err(Error::invalid_field("message", "must not be empty")));
        }
        answer(self.commit(vec![agent_message(&a.id, a.message)]).await)
    }

    #[tool(
        description = "Mark an annotation resolved after fixing it; the optional summary is added to its thread in the same transaction."
    )]
    async fn resolve(
        &self,
        Parameters(a): Parameters<CloseArgs>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(self.close(a, Status::Resolved).await)
    }

    #[tool(description = "Dismiss an annotation you will not act on; give the reason as summary.")]
    async fn dismiss(
        &self,
        Parameters(a): Parameters<CloseArgs>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(self.close(a, Status::Dismissed).await)
    }

    #[tool(description = "Reopen a resolved or dismissed annotation (back to pending).")]
    async fn reopen(
        &self,
        Parameters(a): Parameters<IdArg>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(
            self.commit(vec![Action::Reopen {
                annotation_id: a.id,
            }])
            .await,
        )
    }

    #[tool(
        description = "A session's annotations as markdown (level: compact, standard, detailed, forensic)."
    )]
    async fn export_markdown(
        &self,
        Parameters(a): Parameters<ExportArgs>,
    ) -> std::result::Result<CallToolResult, McpError> {
        text(
            async {
                let level = Level::parse(a.level.as_deref().unwrap_or("standard"))?;
                self.store.export_markdown(a.session_id, level).await
            }
            .await,
        )
    }

    #[tool(
        description = "Wait until a reviewer adds a pending annotation (or the timeout passes), then return the pending list. Use it to loop: watch → acknowledge → fix → resolve."
    )]
    async fn watch_annotations(
        &self,
        Parameters(a): Parameters<WatchArgs>,
    ) -> std::result::Result<CallToolResult, McpError> {
        answer(
            async {
                let timeout = Duration::from_secs(a.timeout_seconds.unwrap_or(60).clamp(1, 300));
                let mut rx = self.store.subscribe();
                let pending = self.store.pending(a.session_id.clone()).await?;
                if !pending.is_empty() {
                    return Ok(json!({"pending": pending, "waited": false}));
                }
                let deadline = tokio::time::Instant::now() + timeout;
                loop {
                    let got = tokio::time::timeout_at(deadline, rx.recv()).await;
                    match got {
                        Err(_) => {
                            return Ok(json!({"pending": [], "waited": true, "timedOut": true}))
                        }
                        Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => {
                            return Err(Error::Internal("store closed".into()))
                        }
                        Ok(_) => {
                            let pending = self.store.pending(a.session_id.clone()).await?;
                            if !pending.is_empty() {
                                return Ok(json!({"pending": pending, "waited": true}));
                            }
                        }
                    }
                }
            }
            .await,
        )
    }
}

impl PinpointMcp {
    async fn close(&self, a: CloseArgs, status: Status) -> Result<Value> {
        let mut actions = Vec::new();
        if let Some(s) = a.summary.filter(|s| !s.trim().is_empty()) {
            actions.push(agent_message(&a.id, s));
        }
        actions.push(Action::SetStatus {
            annotation_id: a.id,
            status,
            by: Some(Actor::Agent),
        });
        self.commit(actions).await
    }
}

#[tool_handler]
impl ServerHandler for PinpointMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "Pinpoint review annotations: UI feedback pinned to elements of a running app. \
             Loop: get_pending (or watch_annotations) → acknowledge → read get_annotation \
             (elementPath, nearbyText, boundingBox tell you where) → fix the code → resolve \
             with a summary. Ask the reviewer with reply when unsure.",
        )
    }
}

/// Serve MCP on any async byte stream pair (stdio in the binary, a duplex in tests).
pub async fn serve<R, W>(store: Store, read: R, write: W) -> Result<()>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    use rmcp::ServiceExt;
    let running = PinpointMcp::new(store)
        .serve((read, write))
        .await
        .map_err(|e| Error::Internal(format!("MCP initialization failed: {e}")))?;
    running
        .waiting()
        .await
        .map_err(|e| Error::Internal(format!("MCP server stopped: {e}")))?;
    Ok(())
}
