//! The front end's files in the site: the WebAssembly split and bound to
//! JavaScript, optimised and minified, the stylesheet and the static assets.

use crate::{Layout, OUTPUT_NAME};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the split loader is called until its content hash replaces the
/// underscores (`hash`); the WebAssembly imports it by this name.
pub const SPLIT_LOADER: &str = "__wasm_split.______________________.js";
pub const SPLIT_MANIFEST: &str = "__wasm_split_manifest.json";

/// `assets/` goes to the site root as it is (the favicon).
pub fn copy_assets(layout: &Layout) -> Result<()> {
    copy_dir(&layout.workspace.join("assets"), &layout.site)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), &dest)?;
        }
    }
    Ok(())
}

/// `style/main.css`, minified for the browsers of browserslist's `defaults`
/// (with the prefixes they still need), by lightningcss, as cargo-leptos did.
pub fn stylesheet(layout: &Layout) -> Result<()> {
    let out = layout.pkg().join(format!("{OUTPUT_NAME}.css"));
    run(
        Command::new("lightningcss")
            .args(["--minify", "--targets", "defaults"])
            .arg(layout.workspace.join("style/main.css"))
            .arg("-o")
            .arg(&out),
        "lightningcss (npm lightningcss-cli; scripts/install-tools.sh installs it)",
    )
}

/// Splits the module into lazily loaded chunks, then has wasm-bindgen write
/// the JavaScript glue for the main module, `pkg/knotroute.{js,wasm}`.
pub fn split_and_bind(layout: &Layout, wasm: &Path) -> Result<()> {
    let input = std::fs::read(wasm).with_context(|| format!("reading {}", wasm.display()))?;
    let pkg = layout.pkg();
    let split_main = wasm.with_file_name(format!(
        "{}_split.wasm",
        wasm.file_stem()
            .and_then(|s| s.to_str())
            .context("front wasm has no name")?
    ));
    let main_module = format!("./{OUTPUT_NAME}.js");
    let link_name = format!("./{SPLIT_LOADER}");
    let split = wasm_split_cli_support::transform({
        let mut opts = wasm_split_cli_support::Options::new(&input);
        opts.output_dir = &pkg;
        opts.main_out_path = &split_main;
        opts.main_module = &main_module;
        opts.link_name = &link_name;
        opts
    })
    .map_err(|e| anyhow::anyhow!("splitting the WebAssembly: {e:#}"))?;
    drop(input);
    std::fs::write(
        pkg.join(SPLIT_MANIFEST),
        serde_json::to_string_pretty(&split.prefetch_map)?,
    )?;

    // The flags cargo-leptos gave wasm-bindgen for a split build: the split
    // chunks call the main module through lld's exports, by their raw names.
    wasm_bindgen_cli_support::Bindgen::new()
        .web(true)?
        .keep_lld_exports(true)
        .demangle(false)
        .omit_default_module_path(false)
        .input_path(&split_main)
        .out_name(OUTPUT_NAME)
        .generate(&pkg)
        .map_err(|e| anyhow::anyhow!("wasm-bindgen: {e:#}"))?;
    // Leptos' hydration script asks for `<name>.wasm`, not wasm-bindgen's `_bg`.
    std::fs::rename(
        pkg.join(format!("{OUTPUT_NAME}_bg.wasm")),
        pkg.join(format!("{OUTPUT_NAME}.wasm")),
    )?;
    Ok(())
}

/// wasm-opt on the main module and every chunk, as many at once as there are
/// cores. `scripts/build-release.sh` puts a caching wasm-opt first on PATH.
pub fn optimise(layout: &Layout) -> Result<()> {
    let files: Vec<PathBuf> = std::fs::read_dir(layout.pkg())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
        .collect();
    let failures = crate::parallel::for_each(files, |file| {
        run_quietly(
            Command::new("wasm-opt")
                .args([
                    "-Oz",
                    "--enable-bulk-memory",
                    "--enable-nontrapping-float-to-int",
                ])
                .arg(file)
                .arg("-o")
                .arg(file),
            "wasm-opt (npm binaryen; scripts/install-tools.sh installs it)",
        )
    });
    if let Some(first) = failures.first() {
        bail!(
            "wasm-opt failed on {} file(s); the first: {first:#}",
            failures.len()
        );
    }
    Ok(())
}

/// The JavaScript glue, minified by esbuild (cargo-leptos used swc).
pub fn minify_js(layout: &Layout) -> Result<()> {
    let js = layout.pkg().join(format!("{OUTPUT_NAME}.js"));
    run(
        Command::new("esbuild")
            .arg(&js)
            .args(["--minify", "--allow-overwrite", "--log-level=warning"])
            .arg(format!("--outfile={}", js.display())),
        "esbuild (npm; scripts/install-tools.sh installs it)",
    )
}

/// Runs a tool that may warn about every one of ~490 files: its output is
/// shown only when it fails.
fn run_quietly(cmd: &mut Command, what: &str) -> Result<()> {
    let output = cmd
        .output()
        .with_context(|| format!("could not start {what}"))?;
    if !output.status.success() {
        bail!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}
