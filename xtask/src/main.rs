//! `cargo xtask site`: Control's release build, server and front end.
//!
//! What cargo-leptos' `build --release --precompress --split` did for this
//! workspace, from the same libraries, built with the workspace's own
//! dependencies instead of a 20-minute tool install:
//!   1. the front end (`knotroute-frontend`, wasm32) and the server binary
//!      compile side by side, with the environment Leptos reads (`cargo_builds`);
//!   2. the WebAssembly is split into lazily loaded chunks and bound to
//!      JavaScript by wasm-bindgen, then optimised by wasm-opt (`front`);
//!   3. the stylesheet and assets join it in the site, names get their content
//!      hash, listed in `hash.txt` (`hash`);
//!   4. every file gets a brotli and a gzip copy beside it (`compress`).
//!
//! The layout of the site is the one the server reads (server/src/http/assets.rs,
//! chunk_batch.rs): `pkg/knotroute.<hash>.{js,wasm,css}`, the split loader
//! `pkg/__wasm_split.<hash>.js` and its manifest.

mod cargo_builds;
mod compress;
mod front;
mod hash;
mod parallel;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// What the Leptos metadata in the workspace's Cargo.toml names; the server
/// reads the same names (LEPTOS_OUTPUT_NAME at compile time, `pkg` at run time).
pub const OUTPUT_NAME: &str = "knotroute";
pub const PKG_DIR: &str = "pkg";

#[derive(Parser)]
#[command(about = "Build tasks of the KnotRoute Control workspace")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Build the release server and its site (target/site, or target/site-full with --full).
    Site(SiteArgs),
    /// Build the Agent's release binary with the server's compiler flags: the
    /// dependencies they share are then built once, not again for each.
    Agent,
}

#[derive(Parser, Clone, Default)]
pub struct SiteArgs {
    /// The full build of the front end: the whole page hydrates and routes in
    /// the browser. Without it, the islands build that is shipped.
    #[arg(long)]
    pub full: bool,
    /// Build the front end only, leaving the server binary as it is.
    #[arg(long, conflicts_with = "server_only")]
    pub front_only: bool,
    /// Build the server binary only, leaving the site as it is
    /// (scripts/run.sh starts Control with it while the front end builds).
    #[arg(long)]
    pub server_only: bool,
}

/// Where things are: the workspace root, cargo's target folder, the site.
pub struct Layout {
    pub workspace: PathBuf,
    pub target: PathBuf,
    pub site: PathBuf,
}

impl Layout {
    fn new(full: bool) -> Result<Self> {
        // xtask/ is one level below the workspace root.
        let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .context("xtask has no parent folder")?
            .to_path_buf();
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .map(|t| {
                if t.is_absolute() {
                    t
                } else {
                    workspace.join(t)
                }
            })
            .unwrap_or_else(|| workspace.join("target"));
        let site = workspace.join(site_root(full));
        Ok(Self {
            workspace,
            target,
            site,
        })
    }

    pub fn pkg(&self) -> PathBuf {
        self.site.join(PKG_DIR)
    }

    /// The front end's own target folder, as cargo-leptos kept it: its
    /// wasm32 builds never invalidate the server's.
    pub fn front_target(&self) -> PathBuf {
        self.target.join("front")
    }
}

/// The site folder relative to the workspace, as Leptos is told it.
pub fn site_root(full: bool) -> &'static str {
    if full {
        "target/site-full"
    } else {
        "target/site"
    }
}

fn main() -> Result<()> {
    match Cli::parse().task {
        Task::Site(args) => build_site(&args),
        Task::Agent => cargo_builds::build_agent(&Layout::new(false)?),
    }
}

fn build_site(args: &SiteArgs) -> Result<()> {
    let layout = Layout::new(args.full)?;
    let started = std::time::Instant::now();
    if args.server_only {
        return cargo_builds::build_server(&layout, args);
    }
    // Hashed names of an earlier build would otherwise pile up beside the new
    // ones, and its list of them would name files that are gone.
    if layout.pkg().exists() {
        std::fs::remove_dir_all(layout.pkg()).context("clearing the old site's pkg folder")?;
    }
    for old_list in ["hash.txt", "hash.txt.br", "hash.txt.gz"] {
        match std::fs::remove_file(layout.site.join(old_list)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
    }
    std::fs::create_dir_all(layout.pkg())?;

    let mut builds = cargo_builds::CargoBuilds::start(&layout, args)?;
    // The stylesheet and assets do not wait for the compilers.
    front::copy_assets(&layout)?;
    front::stylesheet(&layout)?;
    let wasm = builds.wait_for_front()?;
    front::split_and_bind(&layout, &wasm)?;
    front::optimise(&layout)?;
    front::minify_js(&layout)?;
    let hash_list = hash::add_hashes_to_site(&layout)?;
    compress::precompress_dir(&layout.site)?;
    // Last, so that it is not compressed with the rest: the server reads it at start.
    std::fs::write(layout.site.join("hash.txt"), hash_list)?;
    builds.wait_for_server()?;
    eprintln!(
        "[xtask] site built in {:.0?} into {}",
        started.elapsed(),
        layout.site.display()
    );
    Ok(())
}
