//! One job per item, as many at a time as there are cores: the site build's
//! ~490 WebAssembly modules and ~1,000 files are each independent work.

use anyhow::Error;
use std::sync::Mutex;

/// Runs `job` on every item; returns the errors of those that failed.
pub fn for_each<T: Send>(
    items: Vec<T>,
    job: impl Fn(&T) -> anyhow::Result<()> + Sync,
) -> Vec<Error> {
    let queue = Mutex::new(items.into_iter());
    let failures = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let Some(item) = queue.lock().unwrap_or_else(|e| e.into_inner()).next() else {
                    break;
                };
                if let Err(e) = job(&item) {
                    failures.lock().unwrap_or_else(|e| e.into_inner()).push(e);
                }
            });
        }
    });
    failures.into_inner().unwrap_or_else(|e| e.into_inner())
}
