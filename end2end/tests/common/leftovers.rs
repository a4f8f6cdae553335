//! What an earlier run of the container tests left on the engine when it was
//! killed before its cleanup ran (a cancelled CI run, a session that ended
//! mid-test). The Agent reports every managed container on its engine, so one
//! such container, exited since its Control went away, makes this run's Agent
//! `degraded` and the run fails for a reason that is not in the code.
//!
//! Only what carries a test's name, `<prefix><pid>[s|p]`, is removed, and only
//! when no test process with that pid still runs: a second run at the same
//! time keeps its own, and an operator's real projects (never on the
//! `standin` images or the locally built `:local` ones) are not touched.

use super::containers::{docker_quiet, docker_quiet_output, STANDIN_TAG};
use std::collections::BTreeSet;

/// Removes every container, compose project and network a dead test run left.
pub fn sweep() {
    let listed = docker_quiet_output(&[
        "ps",
        "-a",
        "--format",
        "{{.ID}}\t{{.Image}}\t{{.Label \"com.docker.compose.project\"}}\t{{.Label \"io.knotroute.test\"}}",
    ]);
    let mut projects = BTreeSet::new();
    let mut containers = Vec::new();
    for line in listed.lines() {
        let mut fields = line.split('\t');
        let (id, image, project, test) = (
            fields.next().unwrap_or(""),
            fields.next().unwrap_or(""),
            fields.next().unwrap_or(""),
            fields.next().unwrap_or(""),
        );
        if is_leftover_project(project, image) {
            projects.insert(project.to_string());
        } else if !test.is_empty() && left_by_dead_run(test) {
            containers.push(id.to_string());
        }
    }
    for project in &projects {
        eprintln!("[sweep] removing compose project {project}, left by a test run that is gone");
        docker_quiet(&["compose", "-p", project, "down", "-v", "-t", "1"]);
    }
    for id in &containers {
        docker_quiet(&["rm", "-f", "-v", id]);
    }
    let networks = docker_quiet_output(&["network", "ls", "--format", "{{.Name}}"]);
    for network in networks.lines() {
        let owned = ["kr-loop-", "kr-test-apps-"]
            .iter()
            .find_map(|prefix| network.strip_prefix(prefix));
        if owned.is_some_and(left_by_dead_run) {
            docker_quiet(&["network", "rm", network]);
        }
    }
}

/// Control's and the Agent's projects (`krc…`, `kra…`, running the images
/// scripts/images.sh builds), and what the Agent deployed from the stand-in
/// images (`kr-<component ID>`).
pub fn is_leftover_project(project: &str, image: &str) -> bool {
    let control_or_agent = project
        .strip_prefix("krc")
        .or_else(|| project.strip_prefix("kra"))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        && ["knotroute-control:local", "knotroute-agent:local"].contains(&image);
    let deployed = project.starts_with("kr-") && image.ends_with(&format!(":{STANDIN_TAG}"));
    (control_or_agent || deployed) && left_by_dead_run(project)
}

/// Whether `name` ends in a test's suffix whose process no longer runs.
pub fn left_by_dead_run(name: &str) -> bool {
    match suffix_pid(name) {
        Some(pid) => !test_process_runs(pid),
        None => false,
    }
}

/// The pid in a trailing `<pid>`, `<pid>s` or `<pid>p`.
pub fn suffix_pid(name: &str) -> Option<u32> {
    let name = name.strip_suffix(['s', 'p']).unwrap_or(name);
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    name[name.len() - digits..].parse().ok()
}

/// A pid can be reused; only a test binary with it counts as running.
fn test_process_runs(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
        let cmdline = String::from_utf8_lossy(&cmdline);
        cmdline.contains("containers") || cmdline.contains("docker_engine")
    })
}
