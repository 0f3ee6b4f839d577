//! `pinpoint mcp [--store PATH]`: the annotation MCP server on stdio (logs on stderr).

use crate::annotations::store::{self, Store};
use crate::error::Result;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug, Clone)]
pub struct McpArgs {
    /// Annotation store file (default: .pinpoint/annotations.db), shared with `pinpoint serve`.
    #[arg(long)]
    pub store: Option<PathBuf>,
}

pub async fn run(args: McpArgs) -> Result<ExitCode> {
    let path = args.store.unwrap_or_else(store::default_path);
    let store = Store::open(&path)?;
    crate::mcp::serve(store, tokio::io::stdin(), tokio::io::stdout()).await?;
    Ok(ExitCode::SUCCESS)
}
