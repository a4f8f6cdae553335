//! A Beacon's last 24 hours as a small inline SVG: mean latency per hour as
//! a line (broken where an hour had no successful check), and a red mark
//! under every hour with a failed check.

use leptos::prelude::*;
use protocol::beacons::LatencyHour;

const WIDTH: f64 = 120.0;
const HEIGHT: f64 = 28.0;
/// The line stays above the failure marks.
const LINE_BOTTOM: f64 = 22.0;

/// The line's path (`M … L …`), scaled to the slowest hour. An hour with no
/// neighbour to join is drawn as a dot (a round cap on a tiny stroke).
pub fn line_path(hours: &[LatencyHour]) -> String {
    let slowest = hours
        .iter()
        .filter_map(|h| h.mean_ms)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let step = WIDTH / hours.len().max(1) as f64;
    let mut segments: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut drawing = false;
    for (i, hour) in hours.iter().enumerate() {
        let Some(ms) = hour.mean_ms else {
            drawing = false;
            continue;
        };
        let point = (
            step * (i as f64 + 0.5),
            2.0 + (LINE_BOTTOM - 2.0) * (1.0 - ms as f64 / slowest),
        );
        match segments.last_mut() {
            Some(segment) if drawing => segment.push(point),
            _ => segments.push(vec![point]),
        }
        drawing = true;
    }
    segments
        .iter()
        .map(|segment| {
            let mut part = String::new();
            for (n, (x, y)) in segment.iter().enumerate() {
                part.push_str(&format!("{}{x:.1} {y:.1} ", if n == 0 { "M" } else { "L" }));
            }
            if segment.len() == 1 {
                part.push_str("h0.1");
            }
            part.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
pub fn Sparkline(
    hours: Vec<LatencyHour>,
    /// Read out instead of the picture.
    label: String,
) -> impl IntoView {
    let step = WIDTH / hours.len().max(1) as f64;
    let marks = hours
        .iter()
        .enumerate()
        .filter(|(_, h)| h.failures > 0)
        .map(|(i, _)| {
            view! {
                <rect class="spark-fail" x=format!("{:.1}", step * i as f64 + 0.5) y="24"
                    width=format!("{:.1}", (step - 1.0).max(1.0)) height="4" />
            }
        })
        .collect_view();
    // Attributes are evaluated after children: clone before the title takes it.
    let aria = label.clone();
    view! {
        <svg class="sparkline" role="img" aria-label=aria viewBox=format!("0 0 {WIDTH} {HEIGHT}")
            width=WIDTH.to_string() height=HEIGHT.to_string()>
            <title>{label}</title>
            <path class="spark-line" d=line_path(&hours) fill="none" />
            {marks}
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hour(mean_ms: Option<u32>) -> LatencyHour {
        LatencyHour {
            mean_ms,
            checks: 1,
            ..Default::default()
        }
    }

    #[test]
    fn the_line_breaks_where_no_check_succeeded_and_the_slowest_hour_is_on_top() {
        let hours = [hour(Some(10)), hour(Some(20)), hour(None), hour(Some(20))];
        assert_eq!(line_path(&hours), "M15.0 12.0 L45.0 2.0 M105.0 2.0 h0.1");
        assert_eq!(line_path(&[hour(None)]), "");
    }
}
