//! The compiled front end under /pkg/: where its file names come from, how it
//! is served, and how long a browser may keep each file.
//!
//! A release build (`scripts/build-release.sh`) names every file after its
//! content (`<stem>.<md5, base64url, 22 chars>.<ext>`, xtask/src/hash.rs)
//! and writes the names into `hash.txt`. Such a file never changes under its
//! name, so a browser keeps it for a year without asking again; a new release
//! brings new names. Everything else is revalidated or not kept at all.

use std::path::{Path, PathBuf};
use tower_http::services::ServeDir;

/// The list of hashed file names that the site build writes.
const HASH_FILE: &str = "hash.txt";
/// Length of the content hash in a file name.
const HASH_LEN: usize = 22;

pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
pub const REVALIDATE: &str = "no-cache";
pub const NEVER_STORE: &str = "no-store";

/// The `hash.txt` of the site's current build, if the site was built with
/// hashed names. Looked for in the site root (where `cargo xtask site` writes
/// it), then beside the binary (where `cargo leptos build`, for a developer who
/// uses it, writes it). A list whose main module
/// is not in the site belongs to another build and is ignored: following it
/// would name files that are not there and no page would ever hydrate.
pub fn hash_file(site_root: &Path, output_name: &str) -> Option<PathBuf> {
    let beside_binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(HASH_FILE)));
    let candidates = std::iter::once(site_root.join(HASH_FILE)).chain(beside_binary);
    for candidate in candidates {
        let Ok(text) = std::fs::read_to_string(&candidate) else {
            continue;
        };
        match hashed_main_script(&text, output_name) {
            Some(js) if site_root.join("pkg").join(&js).is_file() => return Some(candidate),
            _ => tracing::warn!(
                hash_file = %candidate.display(),
                site_root = %site_root.display(),
                "ignoring a hash list that does not match the site: rebuild with scripts/build-release.sh"
            ),
        }
    }
    None
}

/// The file `kind` (`js`, `wasm`) of the front end's main module in a hash list.
fn hashed_name(hash_list: &str, output_name: &str, kind: &str) -> Option<String> {
    hash_list.lines().find_map(|line| {
        let (k, hash) = line.split_once(':')?;
        (k.trim() == kind).then(|| format!("{output_name}.{}.{kind}", hash.trim()))
    })
}

fn hashed_main_script(hash_list: &str, output_name: &str) -> Option<String> {
    hashed_name(hash_list, output_name, "js")
}

/// The islands build's main script and module under /pkg/, when the site's
/// front end is that build (app::islands): its main script exports what only
/// that build has. Read once at start-up, as the hash list is.
pub fn islands_build(
    site_root: &Path,
    hash_file: Option<&Path>,
    output_name: &str,
) -> Option<app::islands::IslandsBuild> {
    let (js, wasm) = match hash_file {
        Some(list) => {
            let text = std::fs::read_to_string(list).ok()?;
            (
                hashed_main_script(&text, output_name)?,
                hashed_name(&text, output_name, "wasm")?,
            )
        }
        // Unhashed, as Leptos' `HydrationScripts` names them.
        None => (
            format!("{output_name}.js"),
            match option_env!("LEPTOS_OUTPUT_NAME") {
                Some(_) => format!("{output_name}.wasm"),
                None => format!("{output_name}_bg.wasm"),
            },
        ),
    };
    let script = std::fs::read_to_string(site_root.join("pkg").join(&js)).ok()?;
    script
        .contains(app::islands::ISLANDS_BUILD_EXPORT)
        .then(|| app::islands::IslandsBuild {
            main_script: format!("/pkg/{js}"),
            main_module: format!("/pkg/{wasm}"),
        })
}

/// Whether `part` has the shape of the site build's content hash: 22
/// characters of base64url (an md5). The loader's placeholder in an unhashed
/// build (`______________________`) does not count.
pub fn is_content_hash(part: &str) -> bool {
    part.len() == HASH_LEN && is_base64url(part) && !part.bytes().all(|b| b == b'_')
}

/// Whether `part` is written in base64url's alphabet, as content hashes and
/// the chunk keys made from them are.
pub fn is_base64url(part: &str) -> bool {
    part.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether the site build named this file after its content: a dot-separated
/// part between the stem and the extension is a content hash.
pub fn is_content_hashed(file_name: &str) -> bool {
    let mut parts = file_name.split('.');
    parts.next();
    let mut middle: Vec<&str> = parts.collect();
    middle.pop();
    middle.into_iter().any(is_content_hash)
}

/// `Cache-Control` for an answer to `path`. Only a compiled asset that was
/// actually served may be kept: a refusal or a 404 under /pkg/ is treated
/// like a page, and pages and API answers (admin data) are never stored.
pub fn cache_control(path: &str, served_file: bool) -> &'static str {
    if !served_file {
        return NEVER_STORE;
    }
    if path.starts_with("/pkg/batch/") {
        // Named by the content hashes of its files (http::chunk_batch).
        return IMMUTABLE;
    }
    if let Some(file) = path.strip_prefix("/pkg/") {
        // wasm-bindgen's snippets keep their names; so does anything in a folder.
        if !file.contains('/') && is_content_hashed(file) {
            return IMMUTABLE;
        }
        return REVALIDATE;
    }
    if path == "/favicon.svg" {
        return REVALIDATE;
    }
    NEVER_STORE
}

/// The files under /pkg/, with their brotli and gzip variants when the build
/// made them (`--precompress`), and nothing else: a missing file is a bare
/// 404, never a rendered page.
pub fn service(site_root: &str, pkg_dir: &str) -> ServeDir {
    ServeDir::new(format!("{site_root}/{pkg_dir}"))
        .precompressed_br()
        .precompressed_gzip()
        // A directory is no asset (its redirect would bounce off the
        // trailing-slash redirect in paths.rs).
        .append_index_html_on_directories(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_with_a_content_hash_are_kept_for_good() {
        let table = [
            ("/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzNA.wasm", IMMUTABLE),
            ("/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzNA.js", IMMUTABLE),
            ("/pkg/chunk_12.a-b_c0123456789ABCDEFG.wasm", IMMUTABLE),
            ("/pkg/__wasm_split.Zm9vYmFyYmF6cXV4MTIzNA.js", IMMUTABLE),
            // Unhashed builds and the loader's placeholder are revalidated.
            ("/pkg/knotroute.wasm", REVALIDATE),
            ("/pkg/__wasm_split.______________________.js", REVALIDATE),
            // A hash-like stem or extension is not a hash in the name.
            ("/pkg/Zm9vYmFyYmF6cXV4MTIzNA.wasm", REVALIDATE),
            ("/pkg/a.Zm9vYmFyYmF6cXV4MTIzNA", REVALIDATE),
            // One character short, or not base64url.
            ("/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzN.wasm", REVALIDATE),
            ("/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIz%4.wasm", REVALIDATE),
            ("/pkg/snippets/x.Zm9vYmFyYmF6cXV4MTIzNA.js", REVALIDATE),
            (
                "/pkg/batch/Zm9vYmFyYmF6cXV4MTIzNA.QmFyYmF6cXV4MTIzNDU2Nw",
                IMMUTABLE,
            ),
            ("/favicon.svg", REVALIDATE),
            ("/networks", NEVER_STORE),
            ("/api/v1/networks", NEVER_STORE),
            ("/pkg.Zm9vYmFyYmF6cXV4MTIzNA.js", NEVER_STORE),
        ];
        for (path, expected) in table {
            assert_eq!(cache_control(path, true), expected, "{path}");
        }
        assert_eq!(
            cache_control("/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzNA.wasm", false),
            NEVER_STORE,
            "a 404 or refusal is never kept"
        );
    }

    #[test]
    fn the_islands_build_is_told_by_its_main_script() {
        let site = tempfile::tempdir().unwrap();
        let pkg = site.path().join("pkg");
        std::fs::create_dir(&pkg).unwrap();
        let list = site.path().join("hash.txt");
        std::fs::write(
            &list,
            "js: Zm9vYmFyYmF6cXV4MTIzNA\nwasm: QmFyYmF6cXV4MTIzNDU2Nw\n",
        )
        .unwrap();
        let main = pkg.join("knotroute.Zm9vYmFyYmF6cXV4MTIzNA.js");
        let full = "export function hydrate() {}\n";
        std::fs::write(&main, full).unwrap();
        assert!(islands_build(site.path(), Some(&list), "knotroute").is_none());
        let islands = format!("{full}{}) {{}}\n", app::islands::ISLANDS_BUILD_EXPORT);
        std::fs::write(&main, &islands).unwrap();
        let found = islands_build(site.path(), Some(&list), "knotroute").unwrap();
        assert_eq!(
            found.main_script,
            "/pkg/knotroute.Zm9vYmFyYmF6cXV4MTIzNA.js"
        );
        assert_eq!(
            found.main_module,
            "/pkg/knotroute.QmFyYmF6cXV4MTIzNDU2Nw.wasm"
        );
        // An unhashed build names its script plainly; no script at all is the full build.
        assert!(islands_build(site.path(), None, "knotroute").is_none());
        std::fs::write(pkg.join("knotroute.js"), islands).unwrap();
        let found = islands_build(site.path(), None, "knotroute").unwrap();
        assert_eq!(found.main_script, "/pkg/knotroute.js");
    }
}
