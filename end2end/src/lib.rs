//! Browser tests live in tests/; this crate has no library code.
