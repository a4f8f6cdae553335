//! Live updates of the admin screens: `GET /api/v1/events` is a stream of
//! server-sent events, each naming the parts of the state that changed, so a
//! screen re-reads only what it shows.

use serde::{Deserialize, Serialize};

/// The path of the event stream.
pub const EVENTS_PATH: &str = "/api/v1/events";

/// The SSE event name of a change.
pub const CHANGE_EVENT: &str = "change";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveTopic {
    /// An Agent appeared, went on- or offline, or changed; or one of its
    /// components did (status, errors, a service's `.knot` address).
    Agents,
    /// A job was queued, claimed or ended.
    Jobs,
    /// A running job reported progress (a stage began or ended, output came).
    Progress,
}

impl LiveTopic {
    /// The word a change event names it by (`"agents"`).
    pub fn word(self) -> &'static str {
        match self {
            LiveTopic::Agents => "agents",
            LiveTopic::Jobs => "jobs",
            LiveTopic::Progress => "progress",
        }
    }

    /// The topic a word of a change event names (`"agents"`), by the same
    /// rule that writes it, without a JSON decoder: the browser's main
    /// module reads the stream with the browser's own JSON parser.
    pub fn from_word(word: &str) -> Option<LiveTopic> {
        use serde::de::value::{Error, StrDeserializer};
        LiveTopic::deserialize(StrDeserializer::<Error>::new(word)).ok()
    }
}

/// The data of one `change` event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveChange {
    pub topics: Vec<LiveTopic>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_reads_back_as_written() {
        let change = LiveChange {
            topics: vec![LiveTopic::Agents, LiveTopic::Jobs],
        };
        let text = serde_json::to_string(&change).unwrap();
        assert_eq!(text, r#"{"topics":["agents","jobs"]}"#);
        assert_eq!(serde_json::from_str::<LiveChange>(&text).unwrap(), change);
    }

    #[test]
    fn a_topic_reads_back_from_the_word_written() {
        for topic in [LiveTopic::Agents, LiveTopic::Jobs, LiveTopic::Progress] {
            let word = serde_json::to_value(topic).unwrap();
            assert_eq!(LiveTopic::from_word(word.as_str().unwrap()), Some(topic));
            assert_eq!(topic.word(), word.as_str().unwrap());
        }
        assert_eq!(LiveTopic::from_word("Agents"), None);
        assert_eq!(LiveTopic::from_word(""), None);
    }
}
