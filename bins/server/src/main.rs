//! invoicing-server: configuration, CLI, wiring of storage into the HTTP app, TLS, and the background workers (scheduler, webhook delivery). Everything of substance lives in the library crates.
#![forbid(unsafe_code)] // only storage calls the OS; the workspace lint is `deny` for it

mod backups;
mod cli;
mod config;
mod jobs;
mod mail;
mod notices;
mod scheduler;
mod serve;
mod tls;
mod webhooks;

use clap::Parser;
use config::{Cli, Command};
use std::io::Write;

/// Requests allocate and free many small buffers on two kinds of threads (the async workers and
/// the blocking pool): glibc's malloc spent about a tenth of the server's CPU per request
/// (docs/BENCHMARKS.md, the profile of `get`). Without transparent huge pages (`no_thp`), as
/// mimalloc otherwise holds 2 MiB pages per thread: 51 MB idle instead of 36.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// A command's output is its interface: JSON on stdout, the error on stderr.
#[allow(clippy::print_stdout, clippy::print_stderr)]
fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        None => run_server(cli.serve),
        Some(Command::Serve(args)) => run_server(*args),
        Some(Command::Migrate(db)) => invoicing_storage::Store::connect(&db.database_url, 1)
            .map_err(anyhow::Error::from)
            .and_then(|s| Ok(s.migrate()?))
            .map(|()| println!("{{\"migrated\": true}}")),
        Some(Command::Accounts(cmd)) => cli::accounts(cmd),
        Some(Command::Keys(cmd)) => cli::keys(cmd),
        Some(Command::Users(cmd)) => cli::users(cmd),
        Some(Command::Backup(args)) => backups::backup_now(&args.db.database_url, &args.to),
        Some(Command::Restore(args)) => backups::restore(&args.db.database_url, &args.from),
        Some(Command::Export(args)) => backups::export(&args),
        Some(Command::Secrets(cmd)) => cli::secrets(cmd),
    };
    let _ = std::io::stdout().flush();
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run_server(args: config::ServeArgs) -> anyhow::Result<()> {
    actix_web::rt::System::new().block_on(serve::run(args))
}
