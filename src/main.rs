//! The `pinpoint` binary: parse the command line and hand over to [`pinpoint::cli`].
fn main() -> std::process::ExitCode {
    pinpoint::cli::main()
}
