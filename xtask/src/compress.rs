//! A brotli and a gzip copy beside every file of the site, which the server
//! sends as they are to a browser that accepts them (server/src/http/assets.rs).

use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub fn precompress_dir(site: &Path) -> Result<()> {
    let mut files = Vec::new();
    collect(site, &mut files)?;
    let queue = Mutex::new(files.into_iter());
    let failure = Mutex::new(None);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let Some(file) = queue.lock().unwrap_or_else(|e| e.into_inner()).next() else {
                    break;
                };
                if let Err(e) = compress_file(&file) {
                    failure
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                }
            });
        }
    });
    match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn collect(folder: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        // The build's own notes (scripts/build-release.sh's fingerprints) are not served.
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        if path.is_dir() {
            collect(&path, files)?;
        } else if !path.extension().is_some_and(|x| x == "br" || x == "gz") {
            files.push(path);
        }
    }
    Ok(())
}

fn compress_file(path: &Path) -> Result<()> {
    let data = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gzip.write_all(&data)?;
    std::fs::write(with_suffix(path, "gz"), gzip.finish()?)?;

    // Brotli's best quality: compressed once, sent many times.
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        ..Default::default()
    };
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut data.as_slice(), &mut out, &params)?;
    std::fs::write(with_suffix(path, "br"), out)?;
    Ok(())
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}
