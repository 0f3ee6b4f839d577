//! `pinpoint annotations …`: list, export and stress the annotation store from the shell.
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AnnotationsArgs {}

pub async fn run(_args: AnnotationsArgs) -> crate::Result<ExitCode> {
    Ok(ExitCode::SUCCESS)
}
