//! Text from outside (what Agents report, job output, names) cut to what
//! Control stores: a hostile peer cannot grow the database or slip control
//! characters into a page or a log line.

/// Storage bounds for what Agents send: a hostile heartbeat cannot grow the database.
pub mod limits {
    pub const NAME: usize = 80;
    pub const SHORT_TEXT: usize = 128;
    pub const LONG_TEXT: usize = 1024;
    pub const TAGS: usize = 32;
    pub const TAG: usize = 64;
    pub const COMPONENTS: usize = 64;
    pub const WARNINGS: usize = 16;
    pub const WARNING: usize = 256;
}

/// Keeps at most `max` characters, cut on a character boundary, without
/// control characters (NUL included) and surrounding whitespace.
pub fn bounded(text: &str, max: usize) -> String {
    let kept: String = text
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(max)
        .collect();
    kept.trim_end().to_string()
}

/// Text another party wrote (a webhook receiver's answer, an identity
/// provider's error) as a log line may hold it: every control character,
/// line breaks included, escaped as `\n`, `\u{1b}`…, so the text cannot
/// forge a line of its own or colour a terminal; at most `max` characters.
pub fn for_log(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// Like [`bounded`] but keeps line breaks and tabs (command output).
pub fn bounded_multiline(text: &str, max_chars: usize) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .take(max_chars)
        .collect()
}

/// At most `count` items of [`bounded`] text, empty ones dropped.
pub(crate) fn bounded_list(items: &[String], count: usize, each: usize) -> Vec<String> {
    items
        .iter()
        .map(|t| bounded(t, each))
        .filter(|t| !t.is_empty())
        .take(count)
        .collect()
}

/// One of two sentences, by the reader's language: for texts Control words
/// on the server (the setup checklist, the operations policy).
pub fn say(lang: protocol::Lang, en: impl Into<String>, ru: impl Into<String>) -> String {
    match lang {
        protocol::Lang::En => en.into(),
        protocol::Lang::Ru => ru.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{bounded, for_log};

    #[test]
    fn text_from_outside_cannot_forge_a_log_line() {
        for (raw, logged) in [
            ("ok", "ok"),
            ("bad\nINFO forged line", "bad\\nINFO forged line"),
            ("\r\n\t", "\\r\\n\\t"),
            ("\u{1b}[31mred", "\\u{1b}[31mred"),
            ("nul\u{0}", "nul\\u{0}"),
            ("\u{85}next line", "\\u{85}next line"),
            ("ответ", "ответ"),
        ] {
            assert_eq!(for_log(raw, 100), logged, "{raw:?}");
        }
        assert_eq!(for_log(&"x".repeat(500), 300).len(), 300);
    }

    #[test]
    fn stored_text_is_cut_on_a_character_boundary_without_control_characters() {
        assert_eq!(bounded("  héllo\u{0}wörld\n ", 8), "héllowör");
        assert_eq!(bounded(&"я".repeat(100), 80).chars().count(), 80);
        assert_eq!(bounded("\u{7}", 10), "");
    }
}
