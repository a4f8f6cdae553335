//! The two compilations of a site build, run side by side: on two cores each
//! has serial stretches (one large crate, the link) that the other fills.

use crate::{site_root, Layout, SiteArgs, OUTPUT_NAME, PKG_DIR};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::{Child, Command};

const FRONT_PACKAGE: &str = "knotroute-frontend";
const SERVER_PACKAGE: &str = "knotroute-server";
const SERVER_BIN: &str = "knotroute-control";
/// The front end's size-optimised profile (workspace Cargo.toml).
const FRONT_PROFILE: &str = "wasm-release";

pub struct CargoBuilds {
    front: Child,
    server: Option<Child>,
    front_wasm: PathBuf,
}

impl Drop for CargoBuilds {
    /// A build given up on (an error in a later step) does not go on alone.
    fn drop(&mut self) {
        for child in std::iter::once(&mut self.front).chain(self.server.as_mut()) {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

impl CargoBuilds {
    pub fn start(layout: &Layout, args: &SiteArgs) -> Result<Self> {
        let mut front = cargo(layout, args, true);
        front.args(["build", "--locked", "--lib", "--package", FRONT_PACKAGE]);
        front.args([
            "--target",
            "wasm32-unknown-unknown",
            "--profile",
            FRONT_PROFILE,
        ]);
        front.arg("--target-dir").arg(layout.front_target());
        if !args.full {
            front.args(["--features", "islands"]);
        }
        let front = front.spawn().context("starting cargo for the front end")?;

        let server = if args.front_only {
            None
        } else {
            Some(
                server_build(layout, args)
                    .spawn()
                    .context("starting cargo for the server")?,
            )
        };
        let front_wasm = layout
            .front_target()
            .join("wasm32-unknown-unknown")
            .join(FRONT_PROFILE)
            .join(format!("{}.wasm", FRONT_PACKAGE.replace('-', "_")));
        Ok(Self {
            front,
            server,
            front_wasm,
        })
    }

    /// Waits for the front end's compilation; returns its WebAssembly. The
    /// server keeps compiling meanwhile.
    pub fn wait_for_front(&mut self) -> Result<PathBuf> {
        // On failure the server's build stops with it (Drop).
        wait(&mut self.front, "the front end")?;
        Ok(self.front_wasm.clone())
    }

    pub fn wait_for_server(mut self) -> Result<()> {
        match &mut self.server {
            Some(server) => wait(server, "the server"),
            None => Ok(()),
        }
    }
}

/// The server binary alone.
pub fn build_server(layout: &Layout, args: &SiteArgs) -> Result<()> {
    let mut server = server_build(layout, args)
        .spawn()
        .context("starting cargo for the server")?;
    wait(&mut server, "the server")
}

/// The Agent's release binary, with the server's flags and environment.
pub fn build_agent(layout: &Layout) -> Result<()> {
    let mut agent = cargo(layout, &SiteArgs::default(), false);
    agent.args([
        "build",
        "--locked",
        "--release",
        "--package",
        "knotroute-agent",
    ]);
    wait(
        &mut agent.spawn().context("starting cargo for the Agent")?,
        "the Agent",
    )
}

fn server_build(layout: &Layout, args: &SiteArgs) -> Command {
    let mut server = cargo(layout, args, false);
    server.args([
        "build",
        "--locked",
        "--release",
        "--package",
        SERVER_PACKAGE,
    ]);
    server.args(["--bin", SERVER_BIN]);
    server
}

fn wait(child: &mut Child, what: &str) -> Result<()> {
    if !child.wait()?.success() {
        bail!("cargo failed to build {what} (its errors are above)");
    }
    Ok(())
}

/// cargo with the environment cargo-leptos gave both halves: Leptos reads the
/// site's layout at compile time. Both halves get type-erased views
/// (`--cfg erase_components`), which shrinks the WebAssembly by about a third;
/// both must agree, or hydration silently loses its place (setting it for
/// wasm32 alone left pages that rendered but never responded).
fn cargo(layout: &Layout, args: &SiteArgs, wasm: bool) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(&layout.workspace);
    cmd.env("LEPTOS_OUTPUT_NAME", OUTPUT_NAME)
        .env("LEPTOS_SITE_ROOT", site_root(args.full))
        .env("LEPTOS_SITE_PKG_DIR", PKG_DIR)
        .env("LEPTOS_SITE_ADDR", "127.0.0.1:8080")
        .env("LEPTOS_RELOAD_PORT", "3001")
        .env("LEPTOS_LIB_DIR", "frontend")
        .env("LEPTOS_BIN_DIR", "server")
        .env("LEPTOS_JS_MINIFY", "true")
        .env("LEPTOS_HASH_FILES", "true")
        .env("LEPTOS_HASH_FILE_NAME", "hash.txt");
    // In cargo-leptos' order: another order is other flags to cargo, and
    // everything would be compiled again.
    let mut ours = Vec::new();
    if wasm {
        // The split tool reads the linker's relocations.
        ours.push("-Clink-args=--emit-relocs");
    }
    ours.extend(["--cfg", "erase_components"]);
    // Added to the caller's flags, in whichever form cargo would read them.
    match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(encoded) => {
            let flags: Vec<&str> = encoded
                .split('\x1f')
                .filter(|f| !f.is_empty())
                .chain(ours)
                .collect();
            cmd.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
        }
        Err(_) => {
            let given = std::env::var("RUSTFLAGS").unwrap_or_default();
            cmd.env("RUSTFLAGS", format!("{given} {}", ours.join(" ")).trim());
        }
    }
    cmd
}
