//! `knotroute-agent --health-check`, for container health checks: the Agent
//! is healthy while Control accepts its heartbeats. Each accepted heartbeat
//! writes its time to `<data>/last-heartbeat`; the check reads it.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn marker(data: &Path) -> PathBuf {
    data.join("last-heartbeat")
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Records that Control accepted a heartbeat now. A failed write only costs
/// the health check its evidence, so it is logged, not fatal.
pub fn heartbeat_accepted(data: &Path) {
    // Never through a file or symlink someone left at the marker's name.
    let written =
        crate::private_file::write_atomically(&marker(data), unix_now().to_string().as_bytes());
    if let Err(e) = written {
        tracing::warn!(error = %e, "could not record the heartbeat for the health check");
    }
}

/// Healthy when the last accepted heartbeat is at most `max_age` old; the
/// error says what is wrong, for `docker inspect`.
pub fn check(data: &Path, max_age: Duration) -> Result<Duration, String> {
    let text = std::fs::read_to_string(marker(data))
        .map_err(|_| "no heartbeat has been accepted by Control yet".to_string())?;
    let at: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{} is unreadable", marker(data).display()))?;
    let age = Duration::from_secs(unix_now().saturating_sub(at));
    if age <= max_age {
        Ok(age)
    } else {
        Err(format!(
            "the last heartbeat Control accepted was {} s ago (limit {} s)",
            age.as_secs(),
            max_age.as_secs()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn healthy_only_while_heartbeats_are_recent() {
        let dir = tempfile::tempdir().unwrap();
        let err = check(dir.path(), Duration::from_secs(30)).unwrap_err();
        assert!(err.contains("no heartbeat"), "{err}");
        heartbeat_accepted(dir.path());
        assert!(check(dir.path(), Duration::from_secs(30)).is_ok());
        std::fs::write(marker(dir.path()), (unix_now() - 120).to_string()).unwrap();
        let err = check(dir.path(), Duration::from_secs(30)).unwrap_err();
        assert!(err.contains("120 s ago"), "{err}");
    }
}
