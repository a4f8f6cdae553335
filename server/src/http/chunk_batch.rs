//! A screen's WebAssembly chunks in one answer. The split build gives a
//! screen 60–200 chunk files, most under a kilobyte compressed; on a phone
//! each costs a round trip. The page's loader asks for the chunks it needs at
//! once (app/src/assets/chunk_batch.js) as `GET /pkg/batch/<key>.<key>…`,
//! the files' keys (the first [`BATCH_KEY_CHARS`] characters of their
//! content hashes) in ascending order, and gets one body: for each file its
//! length (u32, little endian) and its bytes. A URL names its files by
//! content, so it always means the same bytes and is cached for good; the
//! pages preload the batches of the islands they show (app::screen_split).
//!
//! Compression: the release build compresses the batch of every split module
//! at brotli's best quality ([`precompress_site`], about 10 % smaller than
//! on demand, but half a second or more each), into `pkg/batch-br/`. A page
//! with one island asks for exactly that batch. Any other list (a page with
//! several islands, a form's code fetched on a press) is compressed on
//! demand at [`BROTLI_QUALITY`]. Either way the answer is kept in memory
//! while it is among the last [`CACHED_ANSWERS`].

use super::assets::{is_base64url, is_content_hash};
use crate::http::extract::{FromPathText, PathParam};
use crate::state::AppState;
use app::screen_split::{batch_key, batch_urls, ScreenPreloads, BATCH_KEY_CHARS};
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use data_encoding::HEXLOWER;
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::io::Write;
use std::path::{Path as FsPath, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

pub const ROUTE: &str = "/pkg/batch/{hashes}";
/// Accepted per request: more than the loader asks for at once
/// ([`app::screen_split::CHUNK_BATCH_FILES`]), so a longer list is none of ours.
pub const MAX_FILES: usize = 512;
/// Compressed answers kept, most recently made last.
const CACHED_ANSWERS: usize = 64;
/// Brotli quality for an answer made on demand: close to the best ratio at a
/// few milliseconds per screen (11 takes about half a second).
const BROTLI_QUALITY: u32 = 9;
/// Brotli's best quality and largest standard window, for the release build.
const BUILD_QUALITY: u32 = 11;
const BUILD_WINDOW: u32 = 24;
/// Under the site's `pkg/`, which a new build clears: the batches the build
/// compressed, each named by [`precompressed_name`].
const PRECOMPRESSED_DIR: &str = "batch-br";

/// The build's chunk files by key, and the batches it has answered.
#[derive(Clone, Default)]
pub struct ChunkBatches {
    files: Arc<HashMap<String, Vec<u8>>>,
    /// Per split module (manifest key) its chunks, and the loader.
    preloads: ScreenPreloads,
    /// Where the build's precompressed batches are (`pkg/batch-br`).
    precompressed: Option<Arc<PathBuf>>,
    answered: Arc<Mutex<VecDeque<(String, Bytes)>>>,
}

impl ChunkBatches {
    /// Reads the split build under `<site>/pkg`: the chunk files and the
    /// manifest, whose names the hash list gives. Nothing when the site was
    /// not built split and hashed (then the loader fetches no chunks, or
    /// fetches them one by one from their plain names).
    pub fn load(site_root: &FsPath, hash_file: Option<&FsPath>) -> Self {
        let Some(hashes) = hash_file.and_then(|f| std::fs::read_to_string(f).ok()) else {
            return Self::default();
        };
        let named = |kind: &str| {
            hashes.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == kind).then(|| v.trim().to_string())
            })
        };
        let pkg = site_root.join("pkg");
        let (Some(manifest), Some(loader)) = (named("manifest"), named("split")) else {
            return Self::default();
        };
        let manifest =
            std::fs::read_to_string(pkg.join(format!("__wasm_split_manifest.{manifest}.json")))
                .ok()
                .and_then(|text| serde_json::from_str::<HashMap<String, Vec<String>>>(&text).ok())
                .unwrap_or_default();
        let mut files: HashMap<String, Vec<u8>> = HashMap::new();
        // Keys two different files share: neither is served in a batch (the
        // loader then fetches each file on its own).
        let mut shared_keys = Vec::new();
        let mut chunks = HashMap::new();
        for (module, stems) in manifest {
            let mut module_hashes = Vec::new();
            for stem in stems {
                let Some(hash) = stem.rsplit('.').next().filter(|h| is_content_hash(h)) else {
                    continue;
                };
                if let Ok(bytes) = std::fs::read(pkg.join(format!("{stem}.wasm"))) {
                    let key = batch_key(hash).to_string();
                    if files.get(&key).is_some_and(|known| *known != bytes) {
                        shared_keys.push(key.clone());
                    }
                    files.insert(key, bytes);
                    module_hashes.push(hash.to_string());
                }
            }
            chunks.insert(module, module_hashes);
        }
        for key in shared_keys {
            files.remove(&key);
        }
        Self {
            files: Arc::new(files),
            preloads: ScreenPreloads::new(chunks, Some(format!("/pkg/__wasm_split.{loader}.js"))),
            precompressed: Some(Arc::new(pkg.join(PRECOMPRESSED_DIR))),
            answered: Arc::default(),
        }
    }

    /// Every split module's batches, as a page that shows only that module
    /// asks for them (the lists of [`batch_urls`]), each once.
    fn module_batches(&self) -> BTreeSet<String> {
        self.preloads
            .chunks
            .values()
            .flat_map(|hashes| batch_urls(hashes.clone()))
            .filter_map(|url| url.strip_prefix("/pkg/batch/").map(str::to_string))
            .collect()
    }

    pub fn preloads(&self) -> ScreenPreloads {
        self.preloads.clone()
    }

    /// The body for a list of hashes, or why the list is refused.
    fn body(&self, list: &HashList) -> Result<Vec<u8>, StatusCode> {
        let mut body = Vec::new();
        for hash in list.0.split('.') {
            let bytes = self.files.get(hash).ok_or(StatusCode::NOT_FOUND)?;
            body.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            body.extend_from_slice(bytes);
        }
        Ok(body)
    }

    /// The brotli-compressed body, made once per list while it is among the
    /// last [`CACHED_ANSWERS`] asked for.
    fn compressed(&self, list: &HashList) -> Result<Bytes, StatusCode> {
        if let Some((_, hit)) = self.lock().iter().find(|(key, _)| *key == list.0) {
            return Ok(hit.clone());
        }
        let built = self
            .precompressed
            .as_ref()
            .and_then(|dir| std::fs::read(dir.join(precompressed_name(&list.0))).ok());
        let out = match built {
            Some(bytes) => Bytes::from(bytes),
            None => Bytes::from(
                compress(&self.body(list)?, BROTLI_QUALITY, 22)
                    .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?,
            ),
        };
        let mut answered = self.lock();
        if answered.len() >= CACHED_ANSWERS {
            answered.pop_front();
        }
        answered.push_back((list.0.clone(), out.clone()));
        Ok(out)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Bytes)>> {
        // A panic elsewhere while holding it leaves a cache that is still usable.
        self.answered.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn compress(body: &[u8], quality: u32, window: u32) -> std::io::Result<Vec<u8>> {
    let mut writer = brotli::CompressorWriter::new(
        Vec::with_capacity(body.len() / 3),
        64 * 1024,
        quality,
        window,
    );
    writer.write_all(body)?;
    Ok(writer.into_inner())
}

/// A precompressed batch's file name: its list is up to 4.8 KB, longer than a
/// file name may be, so it is named by the list's SHA-256.
fn precompressed_name(list: &str) -> String {
    format!("{}.br", HEXLOWER.encode(&Sha256::digest(list.as_bytes())))
}

/// `knotroute-control precompress-batches`, run by scripts/build-release.sh:
/// writes every split module's batch of the site under `site_root`,
/// compressed at brotli's best quality, into `pkg/batch-br/`.
pub fn precompress_site(site_root: &FsPath) -> ExitCode {
    let hash_file = super::assets::hash_file(site_root, crate::state::OUTPUT_NAME);
    let batches = ChunkBatches::load(site_root, hash_file.as_deref());
    let Some(dir) = batches.precompressed.clone() else {
        eprintln!(
            "knotroute-control: {} holds no split build with hashed names: nothing to compress",
            site_root.display()
        );
        return ExitCode::FAILURE;
    };
    let lists = batches.module_batches();
    let written = std::fs::create_dir_all(dir.as_path()).and_then(|()| {
        let mut bytes = 0;
        for list in &lists {
            let body = batches
                .body(&HashList(list.clone()))
                .map_err(|status| std::io::Error::other(format!("batch {list}: {status}")))?;
            let compressed = compress(&body, BUILD_QUALITY, BUILD_WINDOW)?;
            bytes += compressed.len();
            std::fs::write(dir.join(precompressed_name(list)), compressed)?;
        }
        Ok(bytes)
    });
    match written {
        Ok(bytes) => {
            println!(
                "knotroute-control: compressed {} batches ({} KB) into {}",
                lists.len(),
                bytes / 1024,
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "knotroute-control: compressing the batches into {}: {e}",
                dir.display()
            );
            ExitCode::FAILURE
        }
    }
}

fn accepts_brotli(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';');
            let name = parts.next().unwrap_or_default().trim();
            let refused = parts.any(|p| matches!(p.trim(), "q=0" | "q=0.0" | "q=0.00" | "q=0.000"));
            name.eq_ignore_ascii_case("br") && !refused
        })
}

/// The file list of `/pkg/batch/{hashes}`: keys joined by dots, sorted, at
/// most [`MAX_FILES`]. One URL per set of files: anything else is not a
/// batch we make.
pub struct HashList(String);

fn is_batch_key(part: &str) -> bool {
    part.len() == BATCH_KEY_CHARS && is_base64url(part)
}

impl FromPathText for HashList {
    fn from_path_text(text: &str) -> Option<Self> {
        let keys: Vec<&str> = text.split('.').collect();
        let canonical = keys.len() <= MAX_FILES
            && keys.iter().all(|k| is_batch_key(k))
            && keys.windows(2).all(|w| w[0] < w[1]);
        canonical.then(|| HashList(text.to_string()))
    }
}

/// `GET /pkg/batch/{hashes}`: public like the files themselves. A bad list
/// is a bare 400, an unknown file a bare 404 (no page, nothing cached).
pub async fn serve(
    State(state): State<AppState>,
    PathParam(list): PathParam<HashList>,
    headers: HeaderMap,
) -> Response {
    let Some(list) = list else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let batches = &state.chunk_batches;
    let answer = if accepts_brotli(&headers) {
        batches
            .compressed(&list)
            .map(|body| (Some("br"), Body::from(body)))
    } else {
        // Without brotli the compression layer gzips it.
        batches.body(&list).map(|body| (None, Body::from(body)))
    };
    match answer {
        Ok((encoding, body)) => {
            let mut response = (
                [(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/octet-stream"),
                )],
                body,
            )
                .into_response();
            if let Some(encoding) = encoding {
                response
                    .headers_mut()
                    .insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
            }
            response
                .headers_mut()
                .insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            response
        }
        Err(status) => status.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batches_a_page_preloads_are_batches_the_server_answers() {
        use app::screen_split::CHUNK_BATCH_FILES;
        let hashes = (0..CHUNK_BATCH_FILES + 10)
            .rev()
            .map(|n| format!("{n:0>11}tail{n:0>7}"));
        let urls = app::screen_split::batch_urls(hashes.collect());
        assert_eq!(urls.len(), 2, "{urls:?}");
        for url in &urls {
            let list = url.trim_start_matches("/pkg/batch/");
            assert!(HashList::from_path_text(list).is_some(), "{url}");
        }
    }

    #[test]
    fn only_brotli_that_is_not_refused_counts() {
        let table = [
            ("gzip, deflate, br, zstd", true),
            ("br;q=0.5", true),
            ("BR", true),
            ("gzip", false),
            ("br;q=0", false),
            ("br; q=0.0, gzip", false),
            ("brotli", false),
            ("", false),
        ];
        for (value, expected) in table {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::ACCEPT_ENCODING,
                HeaderValue::from_str(value).unwrap(),
            );
            assert_eq!(accepts_brotli(&headers), expected, "{value:?}");
        }
    }
}
