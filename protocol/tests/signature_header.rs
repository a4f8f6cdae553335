//! Property tests of the signed-request header parsers: each value has exactly
//! one accepted spelling, so the replay record and the verification can never
//! see two texts for one request.

use data_encoding::BASE64_NOPAD;
use proptest::prelude::*;
use protocol::signing::{parse_timestamp, WireSignature};

const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The rule written out independently of the parser: 86 characters of the
/// standard alphabet (64 bytes are 512 bits, 86 characters carry 516), the
/// last one's four spare bits zero. No padding, no space, nothing else.
fn is_canonical_signature(text: &str) -> bool {
    text.len() == 86
        && text.chars().all(|c| ALPHABET.contains(c))
        && ALPHABET
            .find(text.chars().last().unwrap_or('!'))
            .is_some_and(|value| value & 0b1111 == 0)
}

/// Other spellings someone might try of the canonical text `wire`.
fn respell(wire: &str, how: u8, at: usize) -> String {
    let at = at % wire.len();
    match how % 12 {
        0 => format!("{wire}="),
        1 => format!("{wire}=="),
        2 => format!("{wire}==="),
        3 => format!(" {wire}"),
        4 => format!("{wire} "),
        5 => format!("\t{wire}\r\n"),
        6 => {
            wire.replace('+', "-").replace('/', "_")
                + if wire.contains(['+', '/']) { "" } else { "-" }
        }
        // Non-zero spare bits in the last character: decodes to the same bytes
        // with a lax decoder.
        7 => {
            let last = ALPHABET.find(wire.chars().last().unwrap()).unwrap();
            let other = ALPHABET.as_bytes()[last | (1 + at % 15)] as char;
            format!("{}{other}", &wire[..wire.len() - 1])
        }
        8 => wire[..at].to_string() + &wire[at + 1..],
        9 => format!("{}A{}", &wire[..at], &wire[at..]),
        10 => format!("{}\n{}", &wire[..at], &wire[at..]),
        _ => format!("{}={}", &wire[..at], &wire[at..]),
    }
}

fn any_header_text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Near misses: the right length and alphabet, spare bits at random.
        "[A-Za-z0-9+/]{86}",
        "[A-Za-z0-9+/]{84,88}",
        "[A-Za-z0-9+/=_ \\t-]{0,100}",
        any::<String>(),
        (
            any::<[u8; 32]>(),
            any::<[u8; 32]>(),
            any::<u8>(),
            any::<usize>()
        )
            .prop_map(|(a, b, how, at)| {
                let bytes: Vec<u8> = a.iter().chain(b.iter()).copied().collect();
                respell(&BASE64_NOPAD.encode(&bytes), how, at)
            }),
    ]
}

proptest! {
    // Failures print their minimal input; nothing is written beside the sources.
    #![proptest_config(ProptestConfig {
        cases: 4096,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_canonical_spelling_round_trips(a in any::<[u8; 32]>(), b in any::<[u8; 32]>()) {
        let bytes: Vec<u8> = a.iter().chain(b.iter()).copied().collect();
        let wire = BASE64_NOPAD.encode(&bytes);
        let parsed = WireSignature::parse(&wire).expect("the canonical form is accepted");
        prop_assert_eq!(parsed.to_bytes().to_vec(), bytes);
        prop_assert_eq!(parsed.to_wire(), wire);
    }

    #[test]
    fn every_other_spelling_of_the_same_bytes_is_refused(
        a in any::<[u8; 32]>(), b in any::<[u8; 32]>(), how in any::<u8>(), at in any::<usize>()
    ) {
        let bytes: Vec<u8> = a.iter().chain(b.iter()).copied().collect();
        let wire = BASE64_NOPAD.encode(&bytes);
        let other = respell(&wire, how, at);
        prop_assert_ne!(&other, &wire);
        let parsed = WireSignature::parse(&other);
        // Only a respelling that happens to be another canonical text may
        // pass, and then it names other bytes (never these ones again).
        match parsed {
            Ok(sig) => {
                prop_assert!(is_canonical_signature(&other), "{:?} accepted", other);
                prop_assert_ne!(sig.to_bytes().to_vec(), bytes);
            }
            Err(_) => prop_assert!(!is_canonical_signature(&other), "{:?} refused", other),
        }
    }

    #[test]
    fn a_header_is_accepted_exactly_when_it_is_canonical(text in any_header_text()) {
        match WireSignature::parse(&text) {
            Ok(sig) => {
                prop_assert!(is_canonical_signature(&text), "{:?} accepted", text);
                prop_assert_eq!(sig.to_wire(), text);
            }
            Err(_) => prop_assert!(!is_canonical_signature(&text), "{:?} refused", text),
        }
    }

    #[test]
    fn a_timestamp_has_one_spelling(n in 0i64..=i64::MAX, text in "[-+ 0-9a]{0,21}") {
        prop_assert_eq!(parse_timestamp(&n.to_string()), Ok(n));
        for other in [format!("0{n}"), format!("+{n}"), format!(" {n}"), format!("{n} ")] {
            prop_assert!(parse_timestamp(&other).is_err(), "{:?} accepted", other);
        }
        if let Ok(parsed) = parse_timestamp(&text) {
            prop_assert_eq!(parsed.to_string(), text);
        }
    }
}
