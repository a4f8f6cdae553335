//! A Beacon's last 24 hours as a small inline SVG: mean latency per hour as
//! a line (broken where an hour had no successful check), and a red mark
//! under every hour with a failed check.
//!
//! Coordinates are whole numbers in a 1200 × 280 box drawn at 120 × 28:
//! formatting floats would pull float printing into the WebAssembly (KBs).

use protocol::beacons::LatencyHour;

const WIDTH: u32 = 1200;
const HEIGHT: u32 = 280;
/// The line stays between these, above the failure marks.
const LINE_TOP: u64 = 20;
const LINE_BOTTOM: u64 = 220;

fn step(hours: &[LatencyHour]) -> u32 {
    WIDTH / (hours.len().max(1) as u32)
}

/// The line's path (`M … L …`), scaled to the slowest hour. An hour with no
/// neighbour to join is drawn as a dot (a round cap on a tiny stroke).
pub fn line_path(hours: &[LatencyHour]) -> String {
    let slowest = u64::from(
        hours
            .iter()
            .filter_map(|h| h.mean_ms)
            .max()
            .unwrap_or(0)
            .max(1),
    );
    let step = step(hours);
    let mut segments: Vec<Vec<(u32, u64)>> = Vec::new();
    let mut drawing = false;
    for (i, hour) in hours.iter().enumerate() {
        let Some(ms) = hour.mean_ms else {
            drawing = false;
            continue;
        };
        let x = step * i as u32 + step / 2;
        let y =
            LINE_TOP + (LINE_BOTTOM - LINE_TOP) * (slowest - u64::from(ms).min(slowest)) / slowest;
        match segments.last_mut() {
            Some(segment) if drawing => segment.push((x, y)),
            _ => segments.push(vec![(x, y)]),
        }
        drawing = true;
    }
    segments
        .iter()
        .map(|segment| {
            let mut part = String::new();
            for (n, (x, y)) in segment.iter().enumerate() {
                part.push_str(&format!("{}{x} {y} ", if n == 0 { "M" } else { "L" }));
            }
            if segment.len() == 1 {
                part.push_str("h1");
            }
            part.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The sparkline's SVG markup. Written as text and set as one element's
/// inner HTML: as components, the SVG elements' attribute sets cost KBs of
/// WebAssembly on the largest screen. Only numbers and `label` (escaped) go in.
pub fn sparkline_svg(hours: &[LatencyHour], label: &str) -> String {
    let step = step(hours);
    let marks: String = hours
        .iter()
        .enumerate()
        .filter(|(_, h)| h.failures > 0)
        .map(|(i, _)| {
            format!(
                r#"<rect class="spark-fail" x="{}" y="240" width="{}" height="40"/>"#,
                step * i as u32 + 5,
                step.saturating_sub(10).max(10)
            )
        })
        .collect();
    let label = escape(label);
    format!(
        r#"<svg class="sparkline" role="img" aria-label="{label}" viewBox="0 0 {WIDTH} {HEIGHT}" width="120" height="28"><title>{label}</title><path class="spark-line" d="{}" fill="none"/>{marks}</svg>"#,
        line_path(hours)
    )
}

/// `text` safe inside HTML text and quoted attributes.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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
        assert_eq!(line_path(&hours), "M150 120 L450 20 M1050 20 h1");
        assert_eq!(line_path(&[hour(None)]), "");
    }

    #[test]
    fn failed_hours_are_marked_and_the_label_is_escaped() {
        let mut failed = hour(None);
        failed.failures = 2;
        let svg = sparkline_svg(&[hour(Some(5)), failed], "a <b> & \"c\"");
        assert!(svg.contains(r#"<rect class="spark-fail" x="605""#), "{svg}");
        assert!(svg.contains("a &lt;b&gt; &amp; &quot;c&quot;"), "{svg}");
        assert!(!svg.contains("<b>"));
    }
}
