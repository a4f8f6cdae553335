//! The pull stage: one `compose pull <service>` per image that needs it, so
//! each image has its own command, outcome and summary. Docker reports a
//! pull per layer, with progress bars; the job's live log keeps the lines
//! that say something (a layer done or reused, an error) and ends each image
//! with one line that sums its layers up.

use super::{Transcript, Workloads};
use crate::compose::ComposeFile;
use crate::config::PullPolicy;
use crate::docker::{Live, Project, PULL_TIMEOUT, QUICK_TIMEOUT};
use std::collections::BTreeMap;

impl Workloads {
    /// Pulls what the policy asks for: every image, or (`missing`) those this
    /// host lacks, each named with the reason when it is left alone. Whether
    /// an image is here is asked of the engine: Compose v1 has no pull policy,
    /// and v2's `pull --policy` is recent.
    pub(super) async fn pull(
        &self,
        project: Project<'_>,
        file: &ComposeFile,
        transcript: &mut Transcript<'_>,
    ) -> Result<(), String> {
        for (service, spec) in &file.services {
            if self.pull == PullPolicy::Missing && self.has_image(&spec.image).await {
                transcript.note(format!(
                    "{}: on this host already, not pulled (KNOTROUTE_AGENT_PULL=missing)",
                    spec.image
                ));
                continue;
            }
            let pulled = self
                .docker
                .compose_live(
                    project,
                    &["pull", service],
                    PULL_TIMEOUT,
                    Live::showing(transcript.journal, worth_showing),
                )
                .await
                .map_err(|e| e.to_string())?;
            transcript.add_showing(&pulled, worth_showing);
            let layers = Layers::read(&pulled.text);
            if !pulled.success {
                if !layers.is_empty() {
                    transcript.note(format!("{}: {}", spec.image, layers.summary()));
                }
                return Err(format!(
                    "pulling {} failed: check the image name and that this host can reach its registry",
                    spec.image
                ));
            }
            transcript.note(format!("{}: pulled, {}", spec.image, layers.summary()));
        }
        Ok(())
    }

    async fn has_image(&self, image: &str) -> bool {
        self.docker
            .docker(
                &["image", "inspect", "--format", "{{.Id}}", image],
                QUICK_TIMEOUT,
            )
            .await
            .is_ok_and(|o| o.success)
    }
}

/// A line of `compose pull` about one layer: Compose v2 prints
/// ` <layer> <status>`, v1 and `docker pull` print `<layer>: <status>`.
fn layer_line(line: &str) -> Option<(&str, &str)> {
    let (id, status) = line.trim().split_once(' ')?;
    let id = id.strip_suffix(':').unwrap_or(id);
    let is_layer = id.len() == 12 && id.bytes().all(|b| b.is_ascii_hexdigit());
    is_layer.then(|| (id, status.trim()))
}

/// Whether a pull's line goes to the live log: not a layer's in-between
/// steps (fs layer, waiting, progress bars, checksum), which come by the
/// dozen per layer; its end ("Pull complete", "Already exists") and
/// anything that is not about a layer (the image's own lines, errors) do.
pub(super) fn worth_showing(line: &str) -> bool {
    match layer_line(line) {
        None => true,
        Some((_, status)) => !IN_BETWEEN.iter().any(|step| status.starts_with(step)),
    }
}

const IN_BETWEEN: [&str; 6] = [
    "Pulling fs layer",
    "Waiting",
    "Downloading",
    "Verifying Checksum",
    "Download complete",
    "Extracting",
];

/// What a pull did to each layer of an image.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Layers {
    /// By layer: whether it was downloaded (or already on this host), and
    /// its size as the last progress bar gave it.
    seen: BTreeMap<String, Layer>,
}

#[derive(Debug, Default, PartialEq)]
struct Layer {
    downloaded: bool,
    reused: bool,
    bytes: u64,
}

impl Layers {
    pub(super) fn read(output: &str) -> Self {
        let mut layers = Self::default();
        for (id, status) in output.lines().filter_map(layer_line) {
            let layer = layers.seen.entry(id.to_string()).or_default();
            if status.starts_with("Pull complete") {
                layer.downloaded = true;
            } else if status.starts_with("Already exists") {
                layer.reused = true;
            } else if let Some(bytes) = status
                .strip_prefix("Downloading")
                .and_then(|bar| bar.rsplit_once('/'))
                .and_then(|(_, total)| decimal_bytes(total.trim()))
            {
                layer.bytes = bytes;
            }
        }
        layers
    }

    fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// `3 layers: 1 downloaded (2.5 MB), 2 already on this host`.
    pub(super) fn summary(&self) -> String {
        if self.seen.is_empty() {
            return "up to date (no layer downloaded)".into();
        }
        let downloaded: Vec<&Layer> = self.seen.values().filter(|l| l.downloaded).collect();
        let reused = self.seen.values().filter(|l| l.reused).count();
        let unfinished = self.seen.len() - downloaded.len() - reused;
        let bytes: u64 = downloaded.iter().map(|l| l.bytes).sum();
        let mut parts = vec![format!(
            "{} downloaded ({})",
            downloaded.len(),
            human_bytes(bytes)
        )];
        if reused > 0 {
            parts.push(format!("{reused} already on this host"));
        }
        if unfinished > 0 {
            parts.push(format!("{unfinished} not finished"));
        }
        let count = self.seen.len();
        let noun = if count == 1 { "layer" } else { "layers" };
        format!("{count} {noun}: {}", parts.join(", "))
    }
}

/// Docker's sizes, decimal as it prints them: `115B`, `36.45kB`, `3.001MB`.
fn decimal_bytes(text: &str) -> Option<u64> {
    let split = text.find(|c: char| c.is_ascii_alphabetic())?;
    let (number, unit) = text.split_at(split);
    let scale = match unit {
        "B" => 1.0,
        "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => return None,
    };
    let number: f64 = number.trim().parse().ok()?;
    Some((number * scale).round() as u64)
}

fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, f64); 3] = [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)];
    UNITS
        .iter()
        .find(|(_, scale)| bytes as f64 >= *scale)
        .map(|(unit, scale)| format!("{:.1} {unit}", bytes as f64 / scale))
        .unwrap_or_else(|| format!("{bytes} B"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Compose 2.40 printed here pulling a two-layer image from a
    /// registry on loopback (one layer of the host's, one new).
    const COMPOSE_V2: &str = " knotroute Pulling \n\
        \x20f13f334e1d68 Pulling fs layer \n\
        \x2049eeb279dd32 Already exists \n\
        \x20f13f334e1d68 Downloading [>                     ]  36.45kB/3.001MB\n\
        \x20f13f334e1d68 Verifying Checksum \n\
        \x20f13f334e1d68 Download complete \n\
        \x20f13f334e1d68 Extracting [>                      ]  32.77kB/3.001MB\n\
        \x20f13f334e1d68 Extracting [======================>]  3.001MB/3.001MB\n\
        \x20f13f334e1d68 Pull complete \n\
        \x20knotroute Pulled \n";

    #[test]
    fn a_pull_is_summed_up_per_layer() {
        let layers = Layers::read(COMPOSE_V2);
        assert_eq!(
            layers.summary(),
            "2 layers: 1 downloaded (3.0 MB), 1 already on this host"
        );
    }

    #[test]
    fn compose_v1_and_docker_pull_lines_count_too() {
        let v1 = "Pulling knotroute (example.net/beacon:1)...\n\
            1: Pulling from beacon\n\
            cb853601a7d0: Pulling fs layer\n\
            cb853601a7d0: Downloading [=====>   ]     115B/115B\n\
            cb853601a7d0: Pull complete\n\
            a1b2c3d4e5f6: Downloading [>        ]  1.2MB/52.4MB\n";
        assert_eq!(
            Layers::read(v1).summary(),
            "2 layers: 1 downloaded (115 B), 1 not finished"
        );
    }

    #[test]
    fn an_image_that_is_up_to_date_says_so() {
        let layers = Layers::read(" knotroute Pulling \n knotroute Pulled \n");
        assert_eq!(layers.summary(), "up to date (no layer downloaded)");
    }

    #[test]
    fn the_live_log_keeps_a_layers_end_and_drops_its_steps() {
        let shown: Vec<&str> = COMPOSE_V2
            .lines()
            .filter(|l| worth_showing(l))
            .map(str::trim)
            .collect();
        assert_eq!(
            shown,
            [
                "knotroute Pulling",
                "49eeb279dd32 Already exists",
                "f13f334e1d68 Pull complete",
                "knotroute Pulled"
            ]
        );
        // Errors are never dropped, layer or not.
        assert!(worth_showing(
            " knotroute Error manifest for x:1 not found: manifest unknown"
        ));
        assert!(worth_showing(" f13f334e1d68 Retrying in 5 seconds"));
    }

    #[test]
    fn sizes_read_as_docker_prints_them() {
        assert_eq!(decimal_bytes("115B"), Some(115));
        assert_eq!(decimal_bytes("36.45kB"), Some(36_450));
        assert_eq!(decimal_bytes("3.001MB"), Some(3_001_000));
        assert_eq!(decimal_bytes("1.2GB"), Some(1_200_000_000));
        assert_eq!(decimal_bytes("12 parsecs"), None);
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(3_001_000), "3.0 MB");
    }
}
