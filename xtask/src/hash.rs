//! Content-hashed names for the files under `pkg/`, and the list of them
//! (`hash.txt`) that the server reads. The names and the list are the ones
//! cargo-leptos' `hash-files` wrote (server/src/http/assets.rs): a file's
//! name gains the MD5 of its content, base64url without padding (22 characters).
//!
//! The split build makes it less simple than a rename: the WebAssembly chunks
//! import the split loader by a name with 22 underscores where its hash goes,
//! the loader imports the main script, and the manifest names the chunks.

use crate::front::{SPLIT_LOADER, SPLIT_MANIFEST};
use crate::{Layout, OUTPUT_NAME};
use anyhow::{bail, Context, Result};
use md5::{Digest, Md5};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

const PLACEHOLDER: &str = "______________________";

pub fn content_hash(bytes: &[u8]) -> String {
    data_encoding::BASE64URL_NOPAD.encode(&Md5::digest(bytes))
}

/// Renames every file under the site's `pkg/` after its content, rewrites the
/// references between them, and returns the text of `hash.txt`.
pub fn add_hashes_to_site(layout: &Layout) -> Result<String> {
    let pkg = layout.pkg();
    let main_css = pkg.join(format!("{OUTPUT_NAME}.css"));
    let main_js = pkg.join(format!("{OUTPUT_NAME}.js"));
    let main_wasm = pkg.join(format!("{OUTPUT_NAME}.wasm"));
    let loader = pkg.join(SPLIT_LOADER);
    let manifest = pkg.join(SPLIT_MANIFEST);

    let hashes = hash_files(&pkg, &main_css)?;
    let renamed = rename_files(&hashes)?;
    let new_name = |old: &Path| -> Result<&PathBuf> {
        renamed
            .get(old)
            .with_context(|| format!("{} was not built", old.display()))
    };
    replace_paths_in(new_name(&main_js)?, &renamed, &pkg)?;

    // The loader imports the main script by name; the chunks import the loader.
    let loader_now = new_name(&loader)?.clone();
    replace_paths_in(&loader_now, &renamed, &pkg)?;
    let loader_placeholder_name = file_name(&loader);
    rename_loader_in_chunks(&pkg, &loader_placeholder_name, &file_name(&loader_now))?;
    rewrite_manifest(new_name(&manifest)?, &renamed, &pkg)?;

    // Pointing it at the hashed main script changed the loader: name it after
    // what it holds now, and tell the chunks and the main script.
    let loader_hash = content_hash(&std::fs::read(&loader_now)?);
    if Some(&loader_hash) != hashes.get(&loader) {
        let rehashed = loader_now.with_file_name(format!("__wasm_split.{loader_hash}.js"));
        std::fs::rename(&loader_now, &rehashed)?;
        rename_loader_in_chunks(&pkg, &file_name(&loader_now), &file_name(&rehashed))?;
        replace_paths_in(
            new_name(&main_js)?,
            &HashMap::from([(loader_now.clone(), rehashed)]),
            &pkg,
        )?;
    }

    let hash_of = |file: &Path| {
        hashes
            .get(file)
            .with_context(|| format!("{} was not built", file.display()))
    };
    Ok(format!(
        "js: {}\nwasm: {}\ncss: {}\nmanifest: {}\nsplit: {}\n",
        hash_of(&main_js)?,
        hash_of(&main_wasm)?,
        hash_of(&main_css)?,
        hash_of(&manifest)?,
        loader_hash
    ))
}

/// Every file under `pkg/` but wasm-bindgen's snippets (imported by fixed
/// paths) and stylesheets other than the site's own.
fn hash_files(pkg: &Path, main_css: &Path) -> Result<BTreeMap<PathBuf, String>> {
    let mut hashes = BTreeMap::new();
    let mut folders = vec![pkg.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "snippets") {
                    folders.push(path);
                }
                continue;
            }
            if path.extension().is_some_and(|x| x == "css") && path != main_css {
                continue;
            }
            hashes.insert(path.clone(), content_hash(&std::fs::read(&path)?));
        }
    }
    Ok(hashes)
}

fn rename_files(hashes: &BTreeMap<PathBuf, String>) -> Result<HashMap<PathBuf, PathBuf>> {
    let mut renamed = HashMap::new();
    for (path, hash) in hashes {
        let name = file_name(path);
        let new_name = if name.contains(PLACEHOLDER) {
            name.replace(PLACEHOLDER, hash)
        } else {
            let (stem, ext) = name
                .rsplit_once('.')
                .with_context(|| format!("{name} has no extension"))?;
            format!("{stem}.{hash}.{ext}")
        };
        let new_path = path.with_file_name(new_name);
        std::fs::rename(path, &new_path)?;
        renamed.insert(path.clone(), new_path);
    }
    Ok(renamed)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn relative<'a>(path: &'a Path, pkg: &Path) -> Result<&'a str> {
    path.strip_prefix(pkg)?
        .to_str()
        .context("file name is not UTF-8")
}

/// Replaces each old name (relative to `pkg/`) by its new one in a text file.
/// Longest names first, so that no name is replaced inside a longer one.
fn replace_paths_in(file: &Path, renamed: &HashMap<PathBuf, PathBuf>, pkg: &Path) -> Result<()> {
    let mut text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut pairs = renamed
        .iter()
        .map(|(old, new)| Ok((relative(old, pkg)?, relative(new, pkg)?)))
        .collect::<Result<Vec<_>>>()?;
    pairs.sort_by_key(|(old, _)| std::cmp::Reverse(old.len()));
    for (old, new) in pairs {
        text = text.replace(old, new);
    }
    std::fs::write(file, text)?;
    Ok(())
}

/// The loader's name is in each WebAssembly module's import section; the new
/// name has the same length, so the bytes are replaced in place.
fn rename_loader_in_chunks(pkg: &Path, old: &str, new: &str) -> Result<()> {
    if old.len() != new.len() {
        bail!("the split loader's hashed name {new} is not as long as {old}");
    }
    for entry in std::fs::read_dir(pkg)? {
        let path = entry?.path();
        if path.extension().is_none_or(|x| x != "wasm") {
            continue;
        }
        let mut bytes = std::fs::read(&path)?;
        let mut changed = false;
        let mut i = 0;
        while let Some(at) = find(&bytes[i..], old.as_bytes()) {
            bytes[i + at..i + at + old.len()].copy_from_slice(new.as_bytes());
            i += at + old.len();
            changed = true;
        }
        if changed {
            std::fs::write(&path, bytes)?;
        }
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The manifest maps each split to the chunks it needs, by file stem.
fn rewrite_manifest(path: &Path, renamed: &HashMap<PathBuf, PathBuf>, pkg: &Path) -> Result<()> {
    let stems: HashMap<String, String> = renamed
        .iter()
        .filter_map(|(old, new)| {
            let old = relative(old, pkg).ok()?.strip_suffix(".wasm")?;
            let new = relative(new, pkg).ok()?.strip_suffix(".wasm")?;
            Some((old.to_string(), new.to_string()))
        })
        .collect();
    fn rename(value: &mut serde_json::Value, stems: &HashMap<String, String>) {
        match value {
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| rename(v, stems)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| rename(v, stems)),
            serde_json::Value::String(s) => {
                if let Some(new) = stems.get(s.as_str()) {
                    *s = new.clone();
                }
            }
            _ => {}
        }
    }
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(path)?)?;
    rename(&mut manifest, &stems);
    std::fs::write(path, serde_json::to_string(&manifest)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Layout) {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout {
            workspace: dir.path().to_path_buf(),
            target: dir.path().join("target"),
            site: dir.path().join("site"),
        };
        std::fs::create_dir_all(layout.pkg().join("snippets/x")).unwrap();
        for (name, content) in files {
            std::fs::write(layout.pkg().join(name), content).unwrap();
        }
        (dir, layout)
    }

    fn names(layout: &Layout) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(layout.pkg())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn every_file_is_named_after_its_content_and_the_references_between_them_follow() {
        let loader_ref = format!("./{SPLIT_LOADER}");
        let chunk = [b"\0asm".as_slice(), loader_ref.as_bytes(), b"rest"].concat();
        let (_dir, layout) = site_with(&[
            (
                "knotroute.js",
                format!("import * as s from \"{loader_ref}\";").as_bytes(),
            ),
            ("knotroute.wasm", b"\0asm main"),
            ("knotroute.css", b"body{}"),
            ("extra.css", b"p{}"),
            ("split_a.wasm", &chunk),
            (
                SPLIT_LOADER,
                b"import { initSync } from \"./knotroute.js\";",
            ),
            (SPLIT_MANIFEST, br#"{"a": ["split_a"]}"#),
        ]);
        std::fs::write(layout.pkg().join("snippets/x/inline0.js"), "x").unwrap();

        let list = add_hashes_to_site(&layout).unwrap();
        let value = |key: &str| {
            list.lines()
                .find_map(|l| l.strip_prefix(&format!("{key}: ")))
                .unwrap_or_else(|| panic!("{key} missing from {list}"))
                .to_string()
        };
        let pkg = layout.pkg();
        let js = format!("knotroute.{}.js", value("js"));
        let loader = format!("__wasm_split.{}.js", value("split"));
        let manifest = format!("__wasm_split_manifest.{}.json", value("manifest"));
        for name in [
            &js,
            &loader,
            &manifest,
            &format!("knotroute.{}.wasm", value("wasm")),
        ] {
            assert!(
                pkg.join(name).is_file(),
                "{name} not in {:?}",
                names(&layout)
            );
        }
        assert!(pkg
            .join(format!("knotroute.{}.css", value("css")))
            .is_file());
        // Only the site's own stylesheet and no snippet is renamed.
        assert!(pkg.join("extra.css").is_file());
        assert!(pkg.join("snippets/x/inline0.js").is_file());

        // The loader is named after what it holds once it names the hashed script.
        let loader_text = std::fs::read_to_string(pkg.join(&loader)).unwrap();
        assert_eq!(
            loader_text,
            format!("import {{ initSync }} from \"./{js}\";")
        );
        assert_eq!(content_hash(loader_text.as_bytes()), value("split"));
        // The main script and the chunk import the loader by its final name.
        let main = std::fs::read_to_string(pkg.join(&js)).unwrap();
        assert!(main.contains(&format!("./{loader}")), "{main}");
        let chunk_name = names(&layout)
            .into_iter()
            .find(|n| n.starts_with("split_a."))
            .unwrap();
        let chunk = std::fs::read(pkg.join(&chunk_name)).unwrap();
        assert!(find(&chunk, format!("./{loader}").as_bytes()).is_some());
        // The manifest names the chunk by its hashed stem.
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(pkg.join(&manifest)).unwrap()).unwrap();
        assert_eq!(
            manifest["a"][0],
            chunk_name.trim_end_matches(".wasm"),
            "{manifest}"
        );
    }

    #[test]
    fn a_content_hash_is_as_long_as_the_placeholder_it_replaces() {
        assert_eq!(content_hash(b"").len(), PLACEHOLDER.len());
        assert_ne!(content_hash(b"knotroute"), content_hash(b"knotroutf"));
    }
}
